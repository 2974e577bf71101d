"""Invoices: a PDF made by a Celery task after ``payment_intent.succeeded``, numbered per
year without gaps (``INV-2024-000123``), stored in the bucket."""

from flask import render_template
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from weasyprint import HTML

from shop.db import session
from shop.models import Invoice, InvoiceCounter, Order
from shop.models.base import utcnow
from shop.services import storage


def next_number(year: int) -> str:
    """Taken under the year's row lock, in the transaction that stores the invoice."""
    session.execute(insert(InvoiceCounter).values(year=year, last=0).on_conflict_do_nothing())
    counter = session.scalars(
        select(InvoiceCounter).where(InvoiceCounter.year == year).with_for_update()
    ).one()
    counter.last += 1
    return f"INV-{year}-{counter.last:06d}"


def issue(order_id: int) -> None:
    order = session.get_one(Order, order_id)
    if session.scalar(select(Invoice.id).where(Invoice.order_id == order_id)):
        return  # a task run twice makes one invoice
    number = next_number(utcnow().year)
    pdf = HTML(string=render_template("invoice.html", order=order, number=number)).write_pdf()
    key = storage.put(storage.INVOICES, f"{number}.pdf", pdf, "application/pdf")
    session.add(Invoice(order_id=order.id, number=number, key=key))
    session.commit()
