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
from serena_memory.core.lifecycle import of_text
from serena_memory.search import drift, preparing
from serena_memory.search.database import Index, index_for, remove_database, sqlite
from serena_memory.search.hits import (
    Renamed,
    SearchHit,
    best_lines,
    first_line,
    lines_holding,
    name_marks,
)
from serena_memory.search.query import (
    DEFAULT_MAX_RESULTS,
    MAX_RESULTS_LIMIT,
    ParsedQuery,
    exact_pattern,
    in_scope,
    meaning_text,
    normalize_scope,
    parse_query,
)
from serena_memory.search.ranking import RELATED_MIN, RELATED_WORDS, fuse

if TYPE_CHECKING:
    from pathlib import Path

    from serena_memory.core.access import AccessPolicy
    from serena_memory.core.store import MemoryStore
    from serena_memory.search.query_cache import Kept
    from serena_memory.search.semantic import Embedder

SEMANTIC_CANDIDATES = 50
# A search that needs the meaning side makes the vectors its index lacks itself, unless
# they are being made in the background (a server's) and more than these are missing.
MADE_BY_SEARCH = 200


class SearchResults(list[SearchHit]):
    """The hits, best first, and what the answer says beside them."""

    def __init__(
        self,
        hits: list[SearchHit] = (),  # type: ignore[assignment]
        *,
        left_out: int = 0,
        preparing: bool = False,
        not_held: tuple[str, ...] = (),
        more: int = 0,
        not_named: tuple[str, ...] = (),
        empty_topic: str = "",
        renamed: tuple[Renamed, ...] = (),
        unspecific: bool = False,
    ) -> None:
        super().__init__(hits)
        self.unspecific = unspecific  # no memory is specific to the query: the closest few
        self.not_named = not_named  # the query's mem:NAME of no memory
        self.empty_topic = empty_topic  # the topic asked for, when no memory is in it
        self.left_out = left_out  # weaker hits not shown (they would have fit the limit)
        self.more = more  # hits as strong as those shown that the limit left out
        self.preparing = preparing  # ranked by words: the meaning vectors are being made
        self.not_held = not_held  # exact terms of the query no memory holds as written
        self.renamed = renamed  # of those, the ones memories hold by an old name or path

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": [hit.to_dict() for hit in self],
            "left_out": self.left_out,
            "more": self.more,
            "not_held": list(self.not_held),
            "renamed": [r.to_dict() for r in self.renamed],
            "not_named": list(self.not_named),
            "empty_topic": self.empty_topic,
            "preparing": self.preparing,
            "specific": not self.unspecific,
        }


def search_memories(
    store: MemoryStore,
    query: str,
    *,
    topic: str | None = None,
    scope: str | None = "all",
    max_results: int = DEFAULT_MAX_RESULTS,
) -> SearchResults:
    """The memories that best answer ``query``, best first.

    Names given as ``mem:NAME`` in the query come first when they exist, then the
    memories holding its quoted text and code-like tokens as written. ``topic`` keeps
    one topic (and its sub-topics); ``scope`` is ``all``, ``project`` or ``global``.
    """
    scope = normalize_scope(scope)
    topic = N.normalize_topic(topic or "")
    if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
        raise MemoryStoreError(f"max_results must be a whole number from 1, got {max_results!r}")
    limit = min(max_results, MAX_RESULTS_LIMIT)
    parsed = parse_query(query)
    sqlite()  # a clear sentence now when this Python has no usable SQLite
    index = index_for(store)
    with preparing.searching(), index.lock:
        current = index.current_stamps(store)
        for attempt in (1, 2):
            try:
                return _answer(store, index, (query, parsed), current, (topic, scope), limit)
            except MemoryStoreError:
                raise  # about the memories or the query, not the index
            except Exception:  # noqa: BLE001 - an index that can't be read is rebuilt,
                # whatever the error (sqlite3's, or a damaged name that isn't UTF-8)
                if attempt == 2 or str(index.path) == ":memory:":
                    raise MemoryStoreError(_unusable(index.path)) from None
                # broken under our feet (a truncated or overwritten file): rebuild it
                index.reset()
                with contextlib.suppress(OSError):
                    remove_database(index.path)
    raise AssertionError("unreachable")  # pragma: no cover


def _unusable(path: Path) -> str:
    """Why the index file can't be used, in one sentence that says what to do."""
    if path.is_dir() and not path.is_symlink():
        return (
            f"the search index {path} is a folder, not the index file; move it away (the "
            "index is a cache: it is made again, nothing is lost) and search again"
        )
    return (
        f"the search index {path} can't be used even after a rebuild; delete it and check "
        "that the disk has space"
    )


def _answer(
    store: MemoryStore,
    index: Index,
    asked: tuple[str, ParsedQuery],
    current: dict[str, tuple[int, int]],
    where: tuple[str, str],
    limit: int,
) -> SearchResults:
    """The words first; the meaning side only when they don't answer well enough (see
    needs_meaning), and then only once the vectors are there."""
    query, parsed = asked
    index.refresh(store, current, None)
    exact = index.exact(parsed, *where) if parsed.exact else []
    pool = max(limit + len(parsed.references), SEMANTIC_CANDIDATES)

    def by_words(preparing_meaning: bool = False) -> SearchResults:
        words = index.ranked(parsed, *where, pool)
        answer = _collect(store, index, parsed, (exact, words, []), current, where, limit)
        answer.preparing = preparing_meaning
        return answer

    if not needs_meaning(parsed, exact, index.holds_all(parsed, *where)):
        return by_words()
    model, kept = _kept(store, query, parsed)
    if kept is not None and _answers(kept, parsed) and index.vectors_ready(kept):
        vector, related = kept.vector, (kept.related if RELATED_WORDS else {})
    else:  # the model is loaded
        embedder = embedder_for(store)
        if embedder is None:
            return by_words()
        if not index.vectors_ready(embedder) and (
            preparing.running(index)
            or (preparing.in_background(index) and index.vectors_missing() > MADE_BY_SEARCH)
        ):
            if not preparing.running(index):
                preparing.start(store)
            return by_words(preparing_meaning=True)
        index.refresh(store, current, embedder)
        vector, related = _asked(store, model, kept, embedder, (query, parsed))
    words = index.ranked(parsed, *where, pool, related)
    meaning = index.similar(vector, parsed, *where, pool)
    return _collect(store, index, parsed, (exact, words, meaning), current, where, limit)


def _kept(
    store: MemoryStore, query: str, parsed: ParsedQuery
) -> tuple[tuple[str, str] | None, Kept | None]:
    """The stamp of the user's model and what it said about this query before, from the
    cache of queries (search/query_cache.py), without loading it. Not in a process that
    holds the model already (a server): its questions don't load it again, and reading
    and writing the cache would only slow them."""
    from serena_memory.search import query_cache
    from serena_memory.search.semantic import model_held, model_stamp

    if store.layout.home is None or model_held():
        return None, None
    model = model_stamp(store.layout.home)
    if model is None:
        return None, None
    text = meaning_text(query)
    return model, query_cache.recall(
        store.layout.home, model, text, parsed.words, RELATED_WORDS, RELATED_MIN
    )


def _answers(kept: Kept, parsed: ParsedQuery) -> bool:
    """Whether the cache holds all the model would be asked for this query."""
    words = not RELATED_WORDS or all(word in kept.related for word in parsed.words)
    return kept.vector is not None and words


def _asked(
    store: MemoryStore,
    model: tuple[str, str] | None,
    kept: Kept | None,
    embedder: Embedder,
    asked: tuple[str, ParsedQuery],
) -> tuple[Any, dict[str, list[tuple[str, float]]]]:
    """The query's vector and its words' closest words from the loaded model (a word's
    kept closest words reused), kept for the next process when the model is the one the
    stamp was read for."""
    from serena_memory.search import query_cache

    query, parsed = asked
    text = meaning_text(query)
    current = _current(store, model, embedder)
    if current is not None and kept is not None and embedder.vocabulary is None:
        embedder.vocabulary = query_cache.vocabulary(current[0], current[1], kept.told)
    vector = embedder.query_vector(text)
    known = kept.related if kept is not None else {}
    related = {}
    if RELATED_WORDS:
        for word in parsed.words:
            found = known.get(word)
            related[word] = (
                found
                if found is not None
                else embedder.neighbours(word, RELATED_WORDS, RELATED_MIN)
            )
    if current is not None:
        home, stamp = current
        query_cache.keep(home, stamp, text, vector, related, RELATED_WORDS, RELATED_MIN)
        if embedder.tokenizer_loaded() and kept is not None:
            _learn(store, stamp, kept, embedder, [word for word in text.split(" ") if word])
    return vector, related


def _current(
    store: MemoryStore, model: tuple[str, str] | None, embedder: Embedder
) -> tuple[Path, tuple[str, str]] | None:
    """The user's home and the model's stamp when the loaded model is the one the stamp
    was read for (what it says may be kept under that stamp), else None."""
    from serena_memory.search.semantic import model_stamp

    if store.layout.home is None or model is None or model[0] != embedder.identity:
        return None
    return (store.layout.home, model) if model_stamp(store.layout.home) == model else None


MEMORY_WORDS = 20_000  # the memories' words whose token ids are kept, at most
PIECES_CHECKED = 64  # of them, cut from the kept pieces and by the whole tokenizer alike


def _learn(
    store: MemoryStore, model: tuple[str, str], kept: Kept, embedder: Embedder, words: list[str]
) -> None:
    """What the loaded tokenizer says, kept for the next processes: the first load in a
    home marks that it was loaded; the second learns the vocabulary's whole words and its
    pieces (search/pieces.py: any word's ids without the tokenizer), or, for a model that
    has none, every whole word's and the memories' words' ids (once, ~0.2 s); each later
    load the ids of its question's words."""
    from serena_memory.search import query_cache

    if store.layout.home is None:
        return
    if not kept.told.get(query_cache.SEEN):
        query_cache.keep_told(store.layout.home, model, embedder.learned([], whole=False))
        return
    if embedder.vocabulary is not None and embedder.vocabulary.rows is not None:
        query_cache.keep_told(store.layout.home, model, embedder.learned(words, whole=False))
        return
    index = index_for(store)
    found = embedder.pieces([*words, *index.memory_words(PIECES_CHECKED)])
    if found is None:
        words = [*words, *index.memory_words(MEMORY_WORDS)]
    learned = embedder.learned(words, whole=True, every_word=found is None)
    query_cache.keep_told(store.layout.home, model, learned)
    query_cache.keep_pieces(store.layout.home, model, found)


def needs_meaning(
    parsed: ParsedQuery, exact: list[tuple[str, int, tuple[str, ...]]], held_whole: bool
) -> bool:
    """Whether the meaning side is asked: not when memories hold the query's exact terms,
    nor when a memory holds all of its words (``held_whole``); it is when the words find
    less. Decided from the words alone, so the same query gets the same answer whether
    or not the vectors are ready."""
    return bool(parsed.words) and not exact and not held_whole


def related_words(
    parsed: ParsedQuery, embedder: Embedder | None
) -> dict[str, list[tuple[str, float]]]:
    """Each query word's closest words in the model's vocabulary, for the words side."""
    if embedder is None or not RELATED_WORDS:
        return {}
    return {word: embedder.neighbours(word, RELATED_WORDS, RELATED_MIN) for word in parsed.words}


def embedder_for(store: MemoryStore) -> Embedder | None:
    """The meaning model for this store's user (see semantic.model_for)."""
    from serena_memory.search.semantic import model_for

    return model_for(store.layout.home)


def _collect(
    store: MemoryStore,
    index: Index,
    parsed: ParsedQuery,
    found: tuple[list[Any], list[Any], list[Any]],
    current: dict[str, tuple[int, int]],
    where: tuple[str, str],
    limit: int,
) -> SearchResults:
    """The hits from ``found``: the exact side's, the words side's and the meaning
    side's. Named memories first, then those holding exact terms (the most terms first),
    then the rest, but a weak tail is cut (see ranked_answer)."""
    exact, words, meaning = found
    ranked = fuse(words, meaning)
    top = ranked[0][2] if ranked else 0.0
    chosen = _named(index, parsed, current, where, top + len(parsed.exact) + 1.0 / SCALE)
    chosen += _current_first(
        index, _holding_exactly(exact, ranked, {name for name, *_ in chosen}, current)
    )
    picked = {name for name, _, _, _ in chosen}
    rest = [hit for hit in ranked if hit[0] not in picked and hit[0] in current]
    room = max(limit - len(chosen), 0)
    strong = _current_first(index, ranked_answer(rest)) if not exact else []
    unspecific = not chosen and _unspecific(index, parsed, where)
    if unspecific:  # the closest few are named, never the whole folder
        strong = rest[: min(room, UNSPECIFIC_SHOWN)]
    shown = strong[:room]
    policy = store.access()
    entries = (chosen + shown)[:limit]
    hits = [_hit(index, parsed, entry, policy) for entry in entries]
    more = len(strong) - len(shown) + max(len(chosen) - limit, 0)
    left_out = min(len(rest), room) - len(shown)
    answer = SearchResults(
        hits,
        left_out=0 if unspecific else left_out,
        more=more,
        unspecific=unspecific,
        **_absent(parsed, exact, current, where),
    )
    candidates = chosen[limit:] + [entry for entry in rest if entry not in shown]
    return _with_drift(store, index, parsed, answer, (entries, candidates), limit)


def _current_first(index: Index, entries: list[drift.Entry]) -> list[drift.Entry]:
    """``entries`` with the deprecated and stale memories (core/lifecycle.py) after the
    current ones, each group in its order: an outdated memory is found, never first."""

    def outdated(entry: drift.Entry) -> bool:
        text = index.body(entry[1]) or ""
        return text.startswith("---") and not of_text(text).current()

    return sorted(entries, key=outdated)


def _with_drift(
    store: MemoryStore,
    index: Index,
    parsed: ParsedQuery,
    answer: SearchResults,
    considered: tuple[list[tuple[str, int, float, str]], list[tuple[str, int, float, str]]],
    limit: int,
) -> SearchResults:
    """``answer`` with the drifted mentions of the lines it shows marked and, for a term
    no memory holds that is the new name or path of a mention, the memories holding the
    old one first, showing it (search/drift.py)."""
    entries, candidates = considered
    memories = drift.considered(answer, entries, candidates, index.body, bool(answer.not_held))
    found = drift.findings(store, memories) if memories else {}
    if not found:
        return answer
    renamed = drift.renamed(answer.not_held, [name for name, _ in memories], found)
    shown = {hit.name: hit for hit in answer}
    rows = {entry[0]: entry for entry in entries + candidates}
    first = _old_names_first(store, index, parsed, renamed, shown, rows)
    hits = [*first.values(), *(hit for hit in answer if hit.name not in first)]
    # shown now: no longer among those left out; pushed out by them: counted
    raised = len([name for name in first if name not in shown])
    answer.left_out, raised = max(answer.left_out - raised, 0), max(raised - answer.left_out, 0)
    answer.more = max(answer.more - raised, 0) + max(len(hits) - limit, 0)
    terms = [*parsed.exact, *parsed.words]
    answer[:] = [drift.marked(hit, found.get(hit.name, ()), terms) for hit in hits[:limit]]
    answer.renamed = tuple(renamed)
    return answer


def _old_names_first(
    store: MemoryStore,
    index: Index,
    parsed: ParsedQuery,
    renamed: list[Renamed],
    shown: dict[str, SearchHit],
    rows: dict[str, tuple[str, int, float, str]],
) -> dict[str, SearchHit]:
    """The hits of the memories holding the old names of terms no memory holds, each
    showing the line that does, in the order of ``renamed``."""
    first: dict[str, SearchHit] = {}
    policy = store.access()
    for told in renamed:
        for name in dict.fromkeys(name for name, _, _ in told.held):
            if name not in first:
                hit = shown.get(name) or _hit(index, parsed, rows[name], policy)
                text = index.body(rows[name][1]) or ""
                held = [(line, old) for n, line, old in told.held if n == name]
                first[name] = drift.showing(hit, text, told, held)
    return first


def _absent(
    parsed: ParsedQuery,
    exact: list[tuple[str, int, tuple[str, ...]]],
    current: dict[str, tuple[int, int]],
    where: tuple[str, str],
) -> dict[str, Any]:
    """What the query asked for that is not there, for the answer to say: exact terms no
    memory holds, names of no memory, a topic no memory is in."""
    topic = where[0]
    return {
        "not_held": tuple(t for t in parsed.exact if not any(t in ts for _, _, ts in exact)),
        "not_named": tuple(raw for raw in parsed.references if _canonical(raw) not in current),
        "empty_topic": topic if topic and not any(in_scope(n, *where) for n in current) else "",
    }


def _canonical(raw: str) -> str | None:
    try:
        return N.normalize_name(raw)
    except MemoryStoreError:
        return None


def _holding_exactly(
    exact: list[tuple[str, int, tuple[str, ...]]],
    ranked: list[tuple[str, int, float, str]],
    picked: set[str],
    current: dict[str, tuple[int, int]],
) -> list[tuple[str, int, float, str]]:
    """The memories holding exact terms, but those ``picked`` already: the most terms
    first, then by their words and meaning score, then by BM25 of the terms."""
    fused = {hit[0]: hit[2] for hit in ranked}
    held = []
    for order, (name, rowid, terms) in enumerate(exact):
        if name in picked or name not in current:
            continue
        score = len(terms) + fused.get(name, 0.0)
        held.append((-len(terms), -score, order, (name, rowid, score, _exact_why(terms))))
    return [entry for *_, entry in sorted(held)]


# A hit whose score is below this share of the best one's is weak: left out (and counted)
WEAK_SHARE = 0.1
UNSPECIFIC_SHOWN = 2  # the closest memories named when no memory is specific to a query


def _unspecific(index: Index, parsed: ParsedQuery, where: tuple[str, str]) -> bool:
    """Whether no memory is specific to a query that names none: no exact term, no rare
    word nor a name holding one (search/ranking.py), and no memory holding all its words
    (a word every memory holds, asked alone, is still answered)."""
    if parsed.exact or index.specific(parsed):
        return False
    return not index.holds_all(parsed, *where)


def ranked_answer(ranked: list[tuple[str, int, float, str]]) -> list[tuple[str, int, float, str]]:
    """The hits worth showing: those scoring at least WEAK_SHARE of the best one."""
    if not ranked:
        return []
    floor = ranked[0][2] * WEAK_SHARE
    return [hit for hit in ranked if hit[2] >= floor]


EXACT_WHY = "exact: "


def _exact_why(terms: tuple[str, ...]) -> str:
    return EXACT_WHY + ", ".join(terms[:3]) + (", …" if len(terms) > 3 else "")


NAMED_WHY = "named in the query"
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
            chosen.append((name, rowid, score, NAMED_WHY))
    return chosen


def _hit(
    index: Index, parsed: ParsedQuery, entry: tuple[str, int, float, str], policy: AccessPolicy
) -> SearchHit:
    """One hit with its best lines and where the words matched."""
    name, rowid, score, why = entry
    marked = index.marked(parsed, rowid)
    terms = [exact_pattern(term) for term in parsed.exact] if why.startswith(EXACT_WHY) else []

    def holds_a_term(line: str) -> bool:  # such lines are shown first
        return any(term.search(line) for term in terms)

    lines = best_lines(marked[1], first=holds_a_term if terms else None) if marked else []
    if terms and not any(holds_a_term(text) for _, text, _ in lines):
        lines = lines_holding(index.body(rowid) or "", terms) or lines
    if not lines:
        lines = first_line(index.body(rowid) or "")
    return SearchHit(
        name,
        round(score * SCALE, 1),
        policy.is_read_only(name),
        [(number, text) for number, text, _ in lines],
        name_marks(name, marked[0]) if marked else (),
        tuple(spans for _, _, spans in lines),
        why,
    )
