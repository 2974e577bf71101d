"""Product search: PostgreSQL full-text search (a ``tsvector`` column with the German and
English configurations, reindexed by a trigger), ``pg_trgm`` similarity for typos, facets
counted with one grouped query."""

from typing import Any

from sqlalchemy import func, select

from shop.db import session
from shop.models import Product, Variant

LIMIT = 24


def _query(words: str) -> Any:
    return func.websearch_to_tsquery("german", words).op("||")(
        func.websearch_to_tsquery("english", words)
    )


def products(words: str) -> list[Product]:
    query = _query(words)
    found = select(Product).where(Product.deleted_at.is_(None))
    hits = session.scalars(
        found.where(Product.search_vector.op("@@")(query))
        .order_by(func.ts_rank(Product.search_vector, query).desc())
        .limit(LIMIT)
    ).all()
    if hits:
        return list(hits)
    similar = Product.name.op("%")(words)  # pg_trgm: a typo still finds the product
    ranked = found.where(similar).order_by(func.similarity(Product.name, words).desc())
    return list(session.scalars(ranked.limit(LIMIT)).all())


def facets(found: list[Product]) -> dict[str, dict[str, int]]:
    """How many variants of ``found`` there are of each size and each colour."""
    rows = session.execute(
        select(Variant.size, Variant.colour, func.count())
        .where(Variant.product_id.in_([p.id for p in found]))
        .group_by(func.grouping_sets(Variant.size, Variant.colour))
    )
    counts: dict[str, dict[str, int]] = {"size": {}, "colour": {}}
    for size, colour, count in rows:
        facet, value = ("size", size) if size is not None else ("colour", colour)
        if value is not None:
            counts[facet][value] = count
    return counts
