"""Ranked search over memories: the words and the meaning of a question, one ranking.

A search reads the query (query.py: words that never reach FTS5's query language),
brings the index up to date with the memory files (database.py: a SQLite FTS5 cache
never trusted, the meaning vectors beside it), ranks by words and by meaning and fuses
the two (ranking.py), and shows each hit's best lines and why it matched (hits.py).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from serena_memory.core import names as N
from serena_memory.core.errors import MemoryStoreError
from serena_memory.search.database import Index, index_for, remove_database, sqlite
from serena_memory.search.hits import SearchHit, best_lines, first_line, name_marks
from serena_memory.search.query import (
    DEFAULT_MAX_RESULTS,
    MAX_RESULTS_LIMIT,
    ParsedQuery,
    in_scope,
    meaning_text,
    normalize_scope,
    parse_query,
)
from serena_memory.search.ranking import RELATED_MIN, RELATED_WORDS, fuse

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.search.semantic import Embedder

SEMANTIC_CANDIDATES = 50


def search_memories(
    store: MemoryStore,
    query: str,
    *,
    topic: str | None = None,
    scope: str | None = "all",
    max_results: int = DEFAULT_MAX_RESULTS,
) -> list[SearchHit]:
    """The memories that best answer ``query``, best first.

    Names given as ``mem:NAME`` in the query come first when they exist. ``topic`` keeps
    one topic (and its sub-topics); ``scope`` is ``all``, ``project`` or ``global``.
    """
    scope = normalize_scope(scope)
    topic = N.normalize_topic(topic or "")
    if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
        raise MemoryStoreError(f"max_results must be a whole number from 1, got {max_results!r}")
    limit = min(max_results, MAX_RESULTS_LIMIT)
    parsed = parse_query(query)
    sqlite()  # a clear sentence now when this Python has no usable SQLite
    embedder = _embedder(store)
    vector = embedder.embed([meaning_text(query)])[0] if embedder is not None else None
    related = related_words(parsed, embedder)
    index = index_for(store)
    with index.lock:
        current = index.current_stamps(store)
        for attempt in (1, 2):
            try:
                index.refresh(store, current, embedder)
                return _collect(
                    store, index, parsed, (vector, related), current, topic, scope, limit
                )
            except MemoryStoreError:
                raise  # about the memories or the query, not the index
            except Exception:  # noqa: BLE001 - an index that can't be read is rebuilt,
                # whatever the error (sqlite3's, or a damaged name that isn't UTF-8)
                if attempt == 2 or str(index.path) == ":memory:":
                    raise MemoryStoreError(
                        f"the search index {index.path} can't be used even after a rebuild; "
                        "delete it and check that the disk has space"
                    ) from None
                # broken under our feet (a truncated or overwritten file): rebuild it
                index.reset()
                with contextlib.suppress(OSError):
                    remove_database(index.path)
    raise AssertionError("unreachable")  # pragma: no cover


def related_words(
    parsed: ParsedQuery, embedder: Embedder | None
) -> dict[str, list[tuple[str, float]]]:
    """Each query word's closest words in the model's vocabulary, for the words side."""
    if embedder is None or not RELATED_WORDS:
        return {}
    return {word: embedder.neighbours(word, RELATED_WORDS, RELATED_MIN) for word in parsed.words}


def _embedder(store: MemoryStore) -> Embedder | None:
    """The meaning model for this store's user. A model folder the user named that can't
    be loaded is their error to fix, said in one sentence; the embedded model missing (a
    broken install) leaves search to rank by words alone rather than fail."""
    from serena_memory.search.semantic import ModelUnavailableError, configured_model, load_model

    folder = configured_model(store.home)
    if folder is not None:
        return load_model(folder)
    try:
        return load_model()
    except ModelUnavailableError:
        return None


def _collect(
    store: MemoryStore,
    index: Index,
    parsed: ParsedQuery,
    meaning_of: tuple[Any, dict[str, list[tuple[str, float]]]],
    current: dict[str, tuple[int, int]],
    topic: str,
    scope: str,
    limit: int,
) -> list[SearchHit]:
    """The hits: ``meaning_of`` is the query's vector and its words' related words."""
    vector, related = meaning_of
    pool = max(limit + len(parsed.references), SEMANTIC_CANDIDATES)
    words = index.ranked(parsed, topic, scope, pool, related)
    meaning = index.similar(vector, parsed, topic, scope, pool)
    ranked = fuse(words, meaning)
    top = ranked[0][2] if ranked else 0.0
    chosen = _named(index, parsed, current, (topic, scope), top + 1.0 / SCALE)
    picked = {name for name, _, _, _ in chosen}
    chosen += [hit for hit in ranked if hit[0] not in picked and hit[0] in current]
    patterns = store.settings.patterns
    return [_hit(index, parsed, entry, patterns) for entry in chosen[:limit]]


SCALE = 100.0  # scores are shown from 0 to 100 (above 100 only for a phrase held)


def _named(
    index: Index,
    parsed: ParsedQuery,
    current: dict[str, tuple[int, int]],
    where: tuple[str, str],
    score: float,
) -> list[tuple[str, int, float, str]]:
    """The memories the query names as ``mem:NAME`` that exist, in scope, ranked first."""
    chosen: list[tuple[str, int, float, str]] = []
    for raw in parsed.references:
        try:
            name = N.normalize_name(raw)
        except MemoryStoreError:
            continue
        rowid = index.rowid_of(name)
        if name in current and rowid is not None and in_scope(name, *where):
            chosen.append((name, rowid, score, "named in the query"))
    return chosen


def _hit(
    index: Index, parsed: ParsedQuery, entry: tuple[str, int, float, str], patterns: Any
) -> SearchHit:
    """One hit with its best lines and where the words matched."""
    name, rowid, score, why = entry
    marked = index.marked(parsed, rowid)
    lines = best_lines(marked[1]) if marked else []
    if not lines:
        lines = first_line(index.body(rowid) or "")
    return SearchHit(
        name,
        round(score * SCALE, 1),
        patterns.read_only_match(name) is not None,
        [(number, text) for number, text, _ in lines],
        name_marks(name, marked[0]) if marked else (),
        tuple(spans for _, _, spans in lines),
        why,
    )
