"""Prices are stored gross (VAT included) per country; net is computed. A sale is a row with
a start and an end, looked up when the price is read; its discount applies to the gross
price, rounded once at the end."""

from datetime import datetime
from decimal import Decimal

from sqlalchemy import select

from shop.db import session
from shop.models import Price, Sale, Variant
from shop.services.money import Money


def _price(variant: Variant, country: str) -> Price:
    return session.scalars(
        select(Price).where(Price.variant_id == variant.id, Price.country == country)
    ).one()


def gross(variant: Variant, country: str, at: datetime) -> Money:
    price = _price(variant, country)
    percent_off = session.scalar(
        select(Sale.percent_off).where(
            Sale.product_id == variant.product_id, Sale.starts_at <= at, Sale.ends_at > at
        )
    )
    amount = Money(price.amount, price.currency)
    if percent_off:
        amount = amount * (1 - percent_off / Decimal(100))
    return amount.rounded()


def net(variant: Variant, country: str, at: datetime) -> Money:
    price = _price(variant, country)
    total = gross(variant, country, at)
    return Money(total.amount / (1 + price.vat_rate), total.currency).rounded()
