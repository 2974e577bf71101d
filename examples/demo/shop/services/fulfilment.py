"""The warehouse pulls paid orders every 5 minutes (``/api/warehouse/orders``, a token with
the scope ``warehouse``) and sends the tracking numbers back."""

from sqlalchemy import select

from shop.db import session
from shop.models import Order, OrderState


def to_pack() -> list[Order]:
    return list(session.scalars(select(Order).where(Order.state == OrderState.paid)).all())


def packed(order: Order) -> None:
    order.move_to(OrderState.packed)
    session.commit()


def shipped(order: Order, tracking_number: str) -> None:
    order.tracking_number = tracking_number
    order.move_to(OrderState.shipped)
    session.commit()


def delivered(order: Order) -> None:
    order.move_to(OrderState.delivered)
    session.commit()
