"""The tables, one module per aggregate: users (with their tokens and password resets),
products, orders, payments."""

from shop.models.base import Base
from shop.models.order import Order, OrderLine, OrderState
from shop.models.payment import Invoice, InvoiceCounter, Refund, StripeEvent
from shop.models.product import Price, Product, Sale, Variant
from shop.models.user import ApiToken, PasswordReset, User

__all__ = [
    "ApiToken",
    "Base",
    "Invoice",
    "InvoiceCounter",
    "Order",
    "OrderLine",
    "OrderState",
    "PasswordReset",
    "Price",
    "Product",
    "Refund",
    "Sale",
    "StripeEvent",
    "User",
    "Variant",
]
