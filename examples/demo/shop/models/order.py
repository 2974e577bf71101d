"""Orders and their lines. Only the Stripe webhooks and the warehouse API move an order's
state (shop/services/webhooks.py, shop/services/fulfilment.py); a view never does."""

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Enum, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shop.models.base import Record
from shop.models.product import Variant


class OrderState(StrEnum):
    pending = "pending"
    paid = "paid"
    packed = "packed"
    shipped = "shipped"
    delivered = "delivered"
    cancelled = "cancelled"
    refunded = "refunded"


S = OrderState
NEXT: dict[OrderState, set[OrderState]] = {
    S.pending: {S.paid, S.cancelled},
    S.paid: {S.packed, S.refunded, S.cancelled},
    S.packed: {S.shipped, S.refunded},
    S.shipped: {S.delivered, S.refunded},
    S.delivered: {S.refunded},
    S.cancelled: set(),
    S.refunded: set(),
}


class Order(Record):
    __tablename__ = "orders"

    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))  # None: a guest
    email: Mapped[str] = mapped_column(String(320))
    country: Mapped[str] = mapped_column(String(2))
    state: Mapped[OrderState] = mapped_column(
        Enum(OrderState, native_enum=False, length=16), default=OrderState.pending
    )
    amount: Mapped[Decimal]
    currency: Mapped[str] = mapped_column(String(3))
    payment_intent_id: Mapped[str | None] = mapped_column(unique=True)
    reserved_until: Mapped[datetime]  # the stock of its lines is held until then
    tracking_number: Mapped[str | None]
    lines: Mapped[list["OrderLine"]] = relationship(back_populates="order")

    def move_to(self, state: OrderState) -> None:
        if state not in NEXT[self.state]:
            raise ValueError(f"an order cannot go from {self.state} to {state}")
        self.state = state


class OrderLine(Record):
    __tablename__ = "order_lines"

    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"))
    variant_id: Mapped[int] = mapped_column(ForeignKey("variants.id"))
    quantity: Mapped[int]
    amount: Mapped[Decimal]  # gross, per piece
    currency: Mapped[str] = mapped_column(String(3))
    order: Mapped[Order] = relationship(back_populates="lines")
    variant: Mapped[Variant] = relationship()
