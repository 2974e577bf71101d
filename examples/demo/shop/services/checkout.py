"""Checkout: holds the stock for 15 minutes, creates the Stripe PaymentIntent and shows the
total from the prices. Guests may check out; an account is offered afterwards."""

from datetime import timedelta

import stripe
from flask import current_app
from sqlalchemy import func, select

from shop.db import session
from shop.models import Order, OrderLine, OrderState, User, Variant
from shop.models.base import utcnow
from shop.services import pricing
from shop.services.money import Money

RESERVED_FOR = timedelta(minutes=15)


class OutOfStock(Exception):
    pass


def available(variant: Variant) -> int:
    """Stock less what pending orders hold; a hold ends by itself when its time is up."""
    held = session.scalar(
        select(func.coalesce(func.sum(OrderLine.quantity), 0))
        .join(Order)
        .where(
            OrderLine.variant_id == variant.id,
            Order.state == OrderState.pending,
            Order.reserved_until > utcnow(),
        )
    )
    return variant.stock - int(held or 0)


def place_order(
    cart: dict[int, int], country: str, email: str, user: User | None
) -> tuple[Order, str]:
    """The pending order and the PaymentIntent's client secret for the payment form."""
    now = utcnow()
    variants = session.scalars(select(Variant).where(Variant.id.in_(cart)).with_for_update()).all()
    lines: list[OrderLine] = []
    total: Money | None = None
    for variant in variants:
        quantity = cart[variant.id]
        if available(variant) < quantity:
            raise OutOfStock(variant.sku)
        price = pricing.gross(variant, country, now)
        total = price * quantity if total is None else total + price * quantity
        lines.append(
            OrderLine(
                variant=variant, quantity=quantity, amount=price.amount, currency=price.currency
            )
        )
    if total is None:
        raise ValueError("the cart is empty")
    order = Order(
        user_id=user.id if user else None,
        email=email,
        country=country,
        amount=total.amount,
        currency=total.currency,
        lines=lines,
        reserved_until=now + RESERVED_FOR,
    )
    session.add(order)
    session.flush()
    intent = stripe.PaymentIntent.create(
        amount=Money(order.amount, order.currency).minor_units(),
        currency=order.currency.lower(),
        metadata={"order_id": str(order.id)},
        api_key=current_app.config["STRIPE_SECRET_KEY"],
    )
    order.payment_intent_id = intent.id
    session.commit()
    return order, str(intent.client_secret)
