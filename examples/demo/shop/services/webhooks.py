"""Stripe webhooks (``/stripe/webhook``): the signature is checked with
STRIPE_WEBHOOK_SECRET, each event is stored first (once per event id: Stripe retries) and
then handled by a Celery task. Order states move only here and in the warehouse API."""

from typing import Any

import stripe
from flask import current_app
from sqlalchemy import select

from shop import tasks
from shop.db import session
from shop.models import Order, OrderState, StripeEvent
from shop.models.base import utcnow
from shop.services import mailer, refunds


def receive(payload: bytes, signature: str) -> None:
    """Raises ``stripe.SignatureVerificationError`` for a request Stripe did not sign."""
    event = stripe.Webhook.construct_event(
        payload, signature, current_app.config["STRIPE_WEBHOOK_SECRET"]
    )
    if session.scalar(select(StripeEvent.id).where(StripeEvent.event_id == event.id)):
        return
    session.add(StripeEvent(event_id=event.id, type=event.type, payload=event.to_dict()))
    session.commit()
    tasks.handle_stripe_event.delay(event.id)


def handle(event_id: str) -> None:
    stored = session.scalars(
        select(StripeEvent).where(StripeEvent.event_id == event_id).with_for_update()
    ).one()
    if stored.handled_at is None:
        HANDLERS.get(stored.type, _ignore)(stored.payload["data"]["object"], event_id)
        stored.handled_at = utcnow()
    session.commit()


def _order(intent_id: str) -> Order:
    return session.scalars(select(Order).where(Order.payment_intent_id == intent_id)).one()


def _succeeded(intent: dict[str, Any], _event_id: str) -> None:
    order = _order(intent["id"])
    order.move_to(OrderState.paid)
    for line in order.lines:
        line.variant.stock -= line.quantity
    session.flush()
    tasks.issue_invoice.delay(order.id)
    mailer.send(order.email, "order_paid", {"order_id": order.id})


def _failed(intent: dict[str, Any], _event_id: str) -> None:
    _order(intent["id"]).move_to(OrderState.cancelled)


def _refunded(charge: dict[str, Any], event_id: str) -> None:
    refunds.record(_order(charge["payment_intent"]), charge, event_id)


def _ignore(_object: dict[str, Any], _event_id: str) -> None:
    pass


HANDLERS = {
    "payment_intent.succeeded": _succeeded,
    "payment_intent.payment_failed": _failed,
    "charge.refunded": _refunded,
}
