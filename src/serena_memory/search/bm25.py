"""The best memories by BM25 for a few words, without scoring every memory holding one.

FTS5 scores every row a MATCH yields before ``ORDER BY rank LIMIT`` keeps the best: at
100,000 memories, two words each held by a tenth of them cost ~20 ms, a word held by most
of them ~60 ms. A memory's BM25 is a sum over the query's words it holds, each term below
``idf * (k1 + 1)`` whatever the word's frequency and the memory's length (FTS5's bm25():
k1 = 1.2, idf = log((N - n + 0.5) / (n + 0.5)), at least 1e-6). So the memories are taken
in groups by the words they hold, the group holding every word first (an AND query, few
rows), and a group is looked at only while the most it could score (the sum of its words'
bounds) beats the worst score kept so far; the groups holding only the common words are
never scored. Each group's query names the same words in the same order, those the group
lacks after NOT: a word a memory lacks adds exactly 0, so every score is the very number
the single OR query gives, and the rows and their order are the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

K1 = 1.2  # FTS5's bm25() constant: one word adds less than idf * (K1 + 1)
MIN_IDF = 1e-6  # FTS5's floor for a word in half the rows or more
MAX_GROUPED_WORDS = 4  # 15 groups at most; a longer query is one OR query
_SLACK = 1e-9  # bounds are raised by this share: rounding never makes one too low


def best(
    conn: sqlite3.Connection,
    sql: str,
    words: Sequence[str],
    params: list[Any],
    pool: int,
    counts: dict[str, int] | None = None,
) -> list[Any]:
    """The rows of ``sql`` for the OR of ``words`` (each one word, quoted here), best
    first, as ``sql`` run once with that OR would give them. ``sql`` takes the MATCH
    expression first, then ``params``, then the LIMIT (``pool``), and gives rows whose
    second column is the rowid and third the bm25() rank (lower is better). ``counts``
    keeps how many memories hold each quoted word, for the caller to reuse."""
    quoted = [f'"{word}"' for word in words]
    if not 2 <= len(quoted) <= MAX_GROUPED_WORDS:
        return list(conn.execute(sql, [" OR ".join(quoted), *params, pool]))
    if conn.in_transaction:
        return _grouped(conn, sql, quoted, params, (pool, counts))
    # one read transaction: every group sees the same index, as the one query would, even
    # while another process updates it (a memory would otherwise be taken twice, or not)
    conn.execute("BEGIN")
    try:
        return _grouped(conn, sql, quoted, params, (pool, counts))
    finally:
        if conn.in_transaction:  # a read: nothing to keep or undo
            conn.execute("COMMIT")


def _grouped(
    conn: sqlite3.Connection,
    sql: str,
    quoted: list[str],
    params: list[Any],
    sizes: tuple[int, dict[str, int] | None],
) -> list[Any]:
    """:func:`best` for 2 to MAX_GROUPED_WORDS words, group by group."""
    pool, counts = sizes
    bounds = _bounds(conn, quoted, {} if counts is None else counts)
    groups = [
        held
        for size in range(len(quoted), 0, -1)
        for held in combinations(range(len(quoted)), size)
    ]
    groups.sort(key=lambda held: -sum(bounds[i] for i in held))  # stable: whole groups first
    kept: list[Any] = []
    for held in groups:
        most = sum(bounds[i] for i in held) * (1 + _SLACK)
        if len(kept) >= pool and most <= -kept[pool - 1][2]:
            break  # no memory of this group or the next can score above the last kept
        kept += conn.execute(sql, [_group_expression(quoted, held), *params, pool])
        kept.sort(key=lambda row: (row[2], row[1]))
        del kept[pool:]
    return kept


def holding(conn: sqlite3.Connection, quoted: str, counts: dict[str, int]) -> int:
    """How many memories hold ``quoted`` (a quoted word), asked once per ``counts``."""
    count = counts.get(quoted)
    if count is None:
        (count,) = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (quoted,)).fetchone()
        counts[quoted] = count
    return count


def _bounds(conn: sqlite3.Connection, quoted: list[str], counts: dict[str, int]) -> list[float]:
    """The most each word can add to a memory's score: idf * (k1 + 1), the idf taken with
    at least as many rows as the index holds (the largest rowid), so never too low."""
    (largest,) = conn.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()
    bounds = []
    for word in quoted:
        held = holding(conn, word, counts)
        idf = math.log((largest - held + 0.5) / (held + 0.5)) if largest > held else 0
        bounds.append(max(idf, MIN_IDF) * (K1 + 1))
    return bounds


def _group_expression(quoted: list[str], held: tuple[int, ...]) -> str:
    """The memories holding exactly the words ``held``: those words ANDed, in the query's
    order, then NOT any of the others."""
    expression = "(" + " AND ".join(quoted[i] for i in held) + ")"
    lacking = [word for i, word in enumerate(quoted) if i not in held]
    return expression + (" NOT (" + " OR ".join(lacking) + ")" if lacking else "")
