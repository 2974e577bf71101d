"""What Stripe told us (each event stored before it is handled), refunds and invoices."""

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from shop.models.base import Record


class StripeEvent(Record):
    __tablename__ = "stripe_events"

    event_id: Mapped[str] = mapped_column(unique=True)  # Stripe retries: stored once
    type: Mapped[str]
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB)
    handled_at: Mapped[datetime | None]


class Refund(Record):
    __tablename__ = "refunds"

    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"))
    amount: Mapped[Decimal]
    currency: Mapped[str] = mapped_column(String(3))
    event_id: Mapped[str] = mapped_column(unique=True)  # the charge.refunded event


class Invoice(Record):
    __tablename__ = "invoices"

    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"), unique=True)
    number: Mapped[str] = mapped_column(String(16), unique=True)  # INV-2024-000123
    key: Mapped[str]  # the PDF in the bucket


class InvoiceCounter(Record):
    """The last invoice number of a year, locked while the next one is taken: no gaps."""

    __tablename__ = "invoice_counters"

    year: Mapped[int] = mapped_column(unique=True)
    last: Mapped[int] = mapped_column(default=0)
