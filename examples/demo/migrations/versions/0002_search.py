"""Product search: pg_trgm for typos, a tsvector column (German and English) kept up to
date by a trigger.

Revision ID: 0002
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    op.add_column("products", sa.Column("search_vector", postgresql.TSVECTOR))
    op.execute(
        """
        CREATE FUNCTION products_search_vector() RETURNS trigger AS $$
        BEGIN
            NEW.search_vector :=
                to_tsvector('german', NEW.name || ' ' || coalesce(NEW.description, ''))
                || to_tsvector('english', NEW.name || ' ' || coalesce(NEW.description, ''));
            RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER products_search BEFORE INSERT OR UPDATE OF name, description
            ON products FOR EACH ROW EXECUTE FUNCTION products_search_vector();
        UPDATE products SET name = name;
        """
    )
    op.create_index("products_search", "products", ["search_vector"], postgresql_using="gin")
    op.create_index(
        "products_name_trgm",
        "products",
        ["name"],
        postgresql_using="gin",
        postgresql_ops={"name": "gin_trgm_ops"},
    )


def downgrade() -> None:
    raise NotImplementedError("never rolled back in production: write a forward fix")
