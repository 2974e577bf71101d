"""Rows for tests, with defaults that make sense: only what a test is about is spelled out."""

from datetime import timedelta
from decimal import Decimal
from itertools import count
from typing import Any

from shop.db import session
from shop.models import Order, OrderLine, Price, Product, User, Variant
from shop.models.base import utcnow
from shop.services.login import hash_password

_n = count(1)


def user(**fields: Any) -> User:
    n = next(_n)
    fields.setdefault("email", f"person{n}@example.com")
    fields["password_hash"] = hash_password(fields.pop("password", "correct horse"))
    return _saved(User(**fields))


def variant(gross: str = "19.99", country: str = "DE", stock: int = 10, **fields: Any) -> Variant:
    product = _saved(Product(name=fields.pop("name", f"T-shirt {next(_n)}")))
    made = _saved(Variant(product=product, sku=f"SKU-{next(_n)}", stock=stock, **fields))
    _saved(
        Price(
            variant_id=made.id,
            country=country,
            amount=Decimal(gross),
            currency="EUR",
            vat_rate=Decimal("0.19"),
        )
    )
    return made


def order(*variants: Variant, **fields: Any) -> Order:
    lines = [
        OrderLine(variant=v, quantity=1, amount=Decimal("19.99"), currency="EUR") for v in variants
    ]
    fields.setdefault("email", f"guest{next(_n)}@example.com")
    fields.setdefault("reserved_until", utcnow() + timedelta(minutes=15))
    return _saved(
        Order(
            country="DE",
            amount=Decimal("19.99") * len(lines),
            currency="EUR",
            lines=lines,
            **fields,
        )
    )


def _saved[T](row: T) -> T:
    session.add(row)
    session.flush()
    return row
