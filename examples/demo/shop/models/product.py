"""Products and their variants (size, colour: each its own SKU and stock), gross prices per
country, scheduled sales. Only products are soft-deleted (``deleted_at``)."""

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import JSONB, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shop.models.base import Record


class Product(Record):
    __tablename__ = "products"
    __table_args__ = (
        Index("products_search", "search_vector", postgresql_using="gin"),
        Index(
            "products_name_trgm",
            "name",
            postgresql_using="gin",
            postgresql_ops={"name": "gin_trgm_ops"},
        ),
    )

    name: Mapped[str]
    description: Mapped[str] = mapped_column(default="")
    images: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)  # width -> key
    # German and English, kept up to date by a trigger (migrations/versions/0002_search.py)
    search_vector: Mapped[Any] = mapped_column(TSVECTOR, nullable=True)
    deleted_at: Mapped[datetime | None]
    variants: Mapped[list["Variant"]] = relationship(back_populates="product")


class Variant(Record):
    __tablename__ = "variants"

    product_id: Mapped[int] = mapped_column(ForeignKey("products.id"))
    sku: Mapped[str] = mapped_column(String(32), unique=True)
    size: Mapped[str | None]
    colour: Mapped[str | None]
    stock: Mapped[int] = mapped_column(default=0)
    product: Mapped[Product] = relationship(back_populates="variants")


class Price(Record):
    """The gross price (VAT included) of a variant in one country; net is computed."""

    __tablename__ = "prices"

    variant_id: Mapped[int] = mapped_column(ForeignKey("variants.id"))
    country: Mapped[str] = mapped_column(String(2))
    amount: Mapped[Decimal]
    currency: Mapped[str] = mapped_column(String(3))
    vat_rate: Mapped[Decimal]  # 0.19 for 19 %


class Sale(Record):
    """A discount on a product's gross price from ``starts_at`` until ``ends_at``."""

    __tablename__ = "sales"

    product_id: Mapped[int] = mapped_column(ForeignKey("products.id"))
    percent_off: Mapped[Decimal]
    starts_at: Mapped[datetime]
    ends_at: Mapped[datetime]
