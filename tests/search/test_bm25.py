"""The words side's candidates taken group by group are the ones one OR query gives: the
same memories, the same scores, the same order, ties included."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.store import Context, MemoryStore
from serena_memory.search import bm25, ranking
from serena_memory.search.database import index_for
from serena_memory.search.index import search_memories
from serena_memory.search.query import parse_query
from serena_memory.wiring import build_store

COMMON = ["deploy", "steps", "token"]  # in most memories
RARE = ["ledger", "refund", "webhook", "invoice", "grid", "layout", "cache", "warmup"]
ABSENT = ["zebra", "quokka"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[MemoryStore, int]:
    """A folder where some words are in most memories, many memories are alike (ties),
    and names and headings hold words too; indexed once."""
    root: Path = tmp_path_factory.mktemp("bm25")
    (root / "project").mkdir()
    store = build_store(root / "project", home=root / "home", context=Context.HUMAN)
    rng = random.Random(7)
    for i in range(240):
        words = rng.sample(COMMON, 2) + rng.sample(RARE, rng.randint(0, 3))
        if i % 3 == 0:  # the same text again: equal scores
            words = ["deploy", "steps", "ledger"]
        name = f"{rng.choice(['ops', 'billing'])}/{rng.choice(RARE)}_{i}"
        heading = rng.choice(RARE + COMMON)
        store.write(name, f"# {heading.title()}\n" + " ".join(words * rng.randint(1, 3)) + "\n")
    search_memories(store, "deploy")  # builds the index
    return store, 240


@pytest.mark.slow  # many generated queries
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    words=st.lists(st.sampled_from(COMMON + RARE + ABSENT), min_size=1, max_size=6, unique=True),
    pool=st.integers(min_value=1, max_value=80),
    topic=st.sampled_from(["", "ops", "billing"]),
)
def test_grouped_candidates_equal_one_or_query(
    folder: tuple[MemoryStore, int], words: list[str], pool: int, topic: str
) -> None:
    store, total = folder
    conn = index_for(store).connection()
    parsed = parse_query(" ".join(words))
    grouped = ranking.words_side(conn, total, parsed, (topic, "all"), pool)
    saved = bm25.MAX_GROUPED_WORDS
    bm25.MAX_GROUPED_WORDS = 0  # every query as one OR query, as before grouping
    try:
        single = ranking.words_side(conn, total, parsed, (topic, "all"), pool)
    finally:
        bm25.MAX_GROUPED_WORDS = saved
    assert grouped == single


def test_common_words_are_not_scored_for_every_memory(folder: tuple[MemoryStore, int]) -> None:
    """A rare word with common ones: the memories holding only common words (most of
    the folder) are never scored, and the best are still those of the OR query."""
    store, _ = folder
    conn = index_for(store).connection()
    sql = (
        "SELECT d.name, d.id, bm25(fts, 10.0, 4.0, 1.0) AS rank FROM fts JOIN docs d "
        "ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY rank LIMIT ?"
    )
    scored: list[int] = []
    conn.create_function("scored", 1, lambda rowid: scored.append(rowid) or 0)
    counting = sql.replace("AS rank", "+ scored(d.id) AS rank")
    words = ["deploy", "steps", "invoice"]
    best = bm25.best(conn, counting, words, [], 10)
    grouped_scored = len(scored)
    scored.clear()
    one = conn.execute(counting, ['"deploy" OR "steps" OR "invoice"', 10]).fetchall()
    assert best == one
    assert grouped_scored < len(scored) / 2


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    words=st.lists(st.sampled_from(COMMON + RARE + ABSENT), min_size=1, max_size=5, unique=True),
    pool=st.integers(min_value=1, max_value=80),
    related=st.sampled_from([{}, {"ledger": [("invoice", 0.8)], "grid": [("deploy", 0.6)]}]),
)
def test_candidates_holding_a_word_are_the_same_sought_one_by_one(
    folder: tuple[MemoryStore, int], words: list[str], pool: int, related: dict
) -> None:
    """Which candidates hold each word, asked as the set of the word's holders or by
    seeking each candidate, gives the same ranking."""
    store, total = folder
    conn = index_for(store).connection()
    parsed = parse_query(" ".join(words))
    saved = ranking.SEEK_FROM
    found = []
    try:
        for seek_from in (0, 10**9):  # always seeks, never seeks
            ranking.SEEK_FROM = seek_from
            found.append(ranking.words_side(conn, total, parsed, ("", "all"), pool, related))
    finally:
        ranking.SEEK_FROM = saved
    assert found[0] == found[1]


_EDIT_AND_SEARCH = """
import sys
from pathlib import Path
from serena_memory.core.store import Context
from serena_memory.wiring import build_store
from serena_memory.search.index import search_memories
store = build_store(Path(sys.argv[1]), home=Path(sys.argv[2]), context=Context.HUMAN)
store.write("ops/both", "# Ledger\\nledger ledger ledger\\n")
search_memories(store, "ledger")  # brings the shared index up to date
"""


@pytest.mark.slow  # another process writing meanwhile
def test_groups_see_one_index_while_another_process_writes(tmp_path: Path) -> None:
    """Another process updating the index between two group queries (a memory that held
    both words now holds one) changes neither the memories nor their order: no memory is
    taken twice, and the rows are those one OR query gave before the change."""
    (tmp_path / "project").mkdir()
    store = build_store(tmp_path / "project", home=tmp_path / "home", context=Context.HUMAN)
    store.write("ops/both", "# Ledger refund\nledger refund ledger refund\n")
    for i in range(6):
        store.write(f"ops/only_{i}", "ledger notes\n" if i % 2 else "refund notes\n")
    search_memories(store, "ledger")
    conn = index_for(store).connection()
    sql = (
        "SELECT d.name, d.id, bm25(fts, 10.0, 4.0, 1.0) AS rank FROM fts JOIN docs d "
        "ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY rank LIMIT ?"
    )
    before = conn.execute(sql, ['"ledger" OR "refund"', 20]).fetchall()
    groups: list[str] = []

    def between_groups(statement: str) -> None:
        if "bm25(fts" in statement:
            groups.append(statement)
            if len(groups) == 2:  # the group holding both words was read
                subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        _EDIT_AND_SEARCH,
                        str(tmp_path / "project"),
                        str(tmp_path / "home"),
                    ],
                    check=True,
                    capture_output=True,
                    timeout=120,
                )

    conn.set_trace_callback(between_groups)
    try:
        best = bm25.best(conn, sql, ["ledger", "refund"], [], 20)
    finally:
        conn.set_trace_callback(None)
    assert len(groups) >= 2  # the other process did write in between
    names = [name for name, _, _ in best]
    assert len(names) == len(set(names)), names
    assert best == before
    after = conn.execute(sql, ['"ledger" OR "refund"', 20]).fetchall()
    assert after != before  # the change is seen by the next search
