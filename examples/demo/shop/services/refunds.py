"""Refunds, partial or full, through Stripe. A refund is recorded when its
``charge.refunded`` webhook arrives, not when it is asked for; stock goes back only for a
full refund before shipping."""

from decimal import Decimal
from typing import Any

import stripe
from flask import current_app
from sqlalchemy import func, select

from shop.db import session
from shop.models import Order, OrderState, Refund, User
from shop.services import permissions
from shop.services.money import Money


def ask(order: Order, amount: Money, by: User | None) -> None:
    permissions.require_refund(by, amount)
    if order.payment_intent_id is None:
        raise ValueError("an order that was never paid has nothing to refund")
    stripe.Refund.create(
        payment_intent=order.payment_intent_id,
        amount=amount.minor_units(),
        api_key=current_app.config["STRIPE_SECRET_KEY"],
    )


def record(order: Order, charge: dict[str, Any], event_id: str) -> None:
    """``charge``: the object of a ``charge.refunded`` event (its total refunded so far)."""
    total = Money.from_minor_units(charge["amount_refunded"], charge["currency"])
    before = session.scalar(select(func.sum(Refund.amount)).where(Refund.order_id == order.id))
    refunded_now = total - Money(before or Decimal(0), total.currency)
    session.add(
        Refund(
            order_id=order.id,
            amount=refunded_now.amount,
            currency=refunded_now.currency,
            event_id=event_id,
        )
    )
    if charge["refunded"]:  # the whole charge
        if order.state in (OrderState.paid, OrderState.packed):
            for line in order.lines:
                line.variant.stock += line.quantity
        order.move_to(OrderState.refunded)
