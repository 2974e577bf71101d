"""The first tables. Every table has created_at and updated_at; money is NUMERIC(12, 2)
next to a currency.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None


def _table(name: str, *columns: sa.Column[object] | sa.Constraint) -> None:
    op.create_table(
        name,
        sa.Column("id", sa.Integer, primary_key=True),
        *columns,
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def _money() -> list[sa.Column[object]]:
    return [
        sa.Column("amount", sa.Numeric(12, 2), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
    ]


def _ref(table: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(
        f"{table.rstrip('s')}_id", sa.Integer, sa.ForeignKey(f"{table}.id"), nullable=nullable
    )


def _when(name: str, nullable: bool = True) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    string = sa.String
    _table(
        "users",
        sa.Column("email", string(320), unique=True, nullable=False),
        sa.Column("password_hash", string, nullable=False),
        sa.Column("role", string, nullable=False),
        sa.Column("session_epoch", sa.Integer),
        sa.Column("failed_logins", sa.Integer),
        _when("locked_until"),
    )
    _table(
        "api_tokens",
        _ref("users"),
        sa.Column("prefix", string(8), index=True),
        sa.Column("token_hash", string(64), unique=True),
        sa.Column("scopes", postgresql.ARRAY(string)),
        _when("expires_at"),
    )
    _table(
        "password_resets",
        _ref("users"),
        sa.Column("token_hash", string(64), unique=True),
        _when("expires_at", nullable=False),
        _when("used_at"),
    )
    _table(
        "products",
        sa.Column("name", string, nullable=False),
        sa.Column("description", string),
        sa.Column("images", postgresql.JSONB),
        _when("deleted_at"),
    )
    _table(
        "variants",
        _ref("products"),
        sa.Column("sku", string(32), unique=True),
        sa.Column("size", string),
        sa.Column("colour", string),
        sa.Column("stock", sa.Integer),
    )
    _table(
        "prices",
        _ref("variants"),
        sa.Column("country", string(2)),
        *_money(),
        sa.Column("vat_rate", sa.Numeric(12, 2)),
    )
    _table(
        "sales",
        _ref("products"),
        sa.Column("percent_off", sa.Numeric(12, 2)),
        _when("starts_at", nullable=False),
        _when("ends_at", nullable=False),
    )
    _table(
        "orders",
        _ref("users", nullable=True),
        sa.Column("email", string(320)),
        sa.Column("country", string(2)),
        sa.Column("state", string),
        *_money(),
        sa.Column("payment_intent_id", string, unique=True),
        _when("reserved_until", nullable=False),
        sa.Column("tracking_number", string),
    )
    _table(
        "order_lines",
        _ref("orders"),
        _ref("variants"),
        sa.Column("quantity", sa.Integer),
        *_money(),
    )
    _table(
        "stripe_events",
        sa.Column("event_id", string, unique=True),
        sa.Column("type", string),
        sa.Column("payload", postgresql.JSONB),
        _when("handled_at"),
    )
    _table("refunds", _ref("orders"), *_money(), sa.Column("event_id", string, unique=True))
    _table(
        "invoices",
        sa.Column("order_id", sa.Integer, sa.ForeignKey("orders.id"), unique=True),
        sa.Column("number", string(16), unique=True),
        sa.Column("key", string),
    )
    _table(
        "invoice_counters",
        sa.Column("year", sa.Integer, unique=True),
        sa.Column("last", sa.Integer),
    )


def downgrade() -> None:
    raise NotImplementedError("never rolled back in production: write a forward fix")
