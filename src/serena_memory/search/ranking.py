"""Ranking: the words side, the meaning side, and the two fused into one list.

The words side is BM25 over name, headings and text, plus a weight for each query word a
memory holds that never falls to zero (BM25's does once a word is in half the memories,
which in a folder of eight is any shared word), plus a bonus for the query as a phrase; a
query word's closest words in the model's vocabulary count too, less. The meaning side
compares the query's vector with each memory's. The two sides' scores, each scaled to its
best, are added; each hit says why it matched.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from serena_memory.search import bm25
from serena_memory.search.query import (
    DEFAULT_MAX_RESULTS,
    ParsedQuery,
    exact_pattern,
    exact_phrase,
    in_scope,
)

if TYPE_CHECKING:
    import sqlite3

CANDIDATES = 50  # ranked by BM25 first, then re-ranked by the words each one holds
SEMANTIC_CANDIDATES = 50
RRF_K = 20  # reciprocal rank fusion: 1 / (RRF_K + rank) from each ranking
WORDS_WEIGHT, MEANING_WEIGHT = 1.0, 1.0  # for fuse_ranks
WORDS_SHARE = 0.7  # for fuse: the words side's share of the fused score
HOLD_WEIGHT = 0.3  # times log(1 + N / n) for each query word a memory holds
# Query words are looked for also as the model's closest words (RELATED_WORDS of them, at
# least RELATED_MIN close): "pictures" finds "images". Holding one counts as holding
# the query word times its closeness times RELATED_WEIGHT.
RELATED_WORDS, RELATED_MIN, RELATED_WEIGHT = 2, 0.5, 0.8
# Cosine below which a memory is not close enough in meaning to be found by meaning at all
# (with the embedded model, 95% of unrelated memory/question pairs of the labeled set are
# below 0.24, half of the answering ones above 0.29), and from which "similar meaning" is
# given as a reason.
MEANING_MIN = 0.2
MEANING_REASON_MIN = 0.3
# A memory about keeping memories shares words and tone with every question; it answers
# only questions about memories themselves.
GENERIC_MEMORIES = frozenset(["memory_maintenance"])
_GENERIC_SUBJECT = frozenset(["memories", "maintenance", "convention", "conventions"])

# Column weights for BM25: a word in a memory's name counts most, then in a heading.
NAME_WEIGHT, HEADING_WEIGHT, BODY_WEIGHT = 10.0, 4.0, 1.0


def fuse_ranks(
    words: list[tuple[str, int, float, tuple[str, ...], float]],
    meaning: list[tuple[str, int, float]],
) -> list[tuple[str, int, float, str]]:
    """Reciprocal rank fusion, kept for comparison (benchmarks/search_quality.py): each
    side gives 1 / (RRF_K + rank), the words side times its coverage. It ranks worse than
    ``fuse`` on the labeled queries: a memory in the middle of both lists beats one that
    a single side puts clearly first."""
    fused: dict[str, list[Any]] = {}
    for rank, (name, rowid, _, held, coverage) in enumerate(words, start=1):
        entry = fused.setdefault(name, [rowid, 0.0, (), False])
        entry[1] += WORDS_WEIGHT * coverage / (RRF_K + rank)
        entry[2] = held
    for rank, (name, rowid, cosine) in enumerate(meaning, start=1):
        entry = fused.setdefault(name, [rowid, 0.0, (), False])
        entry[1] += MEANING_WEIGHT / (RRF_K + rank)
        entry[3] = cosine >= MEANING_REASON_MIN and rank <= DEFAULT_MAX_RESULTS
    out = []
    for name, (rowid, score, held, close) in fused.items():
        out.append((name, rowid, score, why_text(held, close)))
    out.sort(key=lambda hit: -hit[2])
    return out


def fuse(
    words: list[tuple[str, int, float, tuple[str, ...], float]],
    meaning: list[tuple[str, int, float]],
) -> list[tuple[str, int, float, str]]:
    """The two sides as one ranking: (name, rowid, score from 0 to 1, why) best first.

    Each side's scores are scaled to its own best: the words side's score over the best
    one, times the share of the query's word weight the memory holds; the meaning side's
    cosine between the last candidate's (0) and the best one's (1). The sum is weighted
    WORDS_SHARE to the words (names, identifiers and phrases decide known items) and the
    rest to meaning (paraphrase). Measured against reciprocal rank fusion on the labeled
    queries (benchmarks/search_quality.py), this ranks better: a side that is sure of one
    memory keeps it first."""
    fused: dict[str, list[Any]] = {}
    if words:
        top = max(hit[2] for hit in words) or 1.0
        for name, rowid, value, held, coverage in words:
            entry = fused.setdefault(name, [rowid, 0.0, (), False])
            entry[1] += WORDS_SHARE * (value / top) * coverage
            entry[2] = held
    if meaning:
        best, floor = meaning[0][2], meaning[-1][2]
        span = max(best - floor, 1e-6)
        for rank, (name, rowid, cosine) in enumerate(meaning, start=1):
            if cosine < MEANING_MIN and name not in fused:
                continue  # holds none of the words and is not close enough in meaning
            entry = fused.setdefault(name, [rowid, 0.0, (), False])
            entry[1] += (1 - WORDS_SHARE) * (cosine - floor) / span
            entry[3] = cosine >= MEANING_REASON_MIN and rank <= DEFAULT_MAX_RESULTS
    out = [(n, r, sc, why_text(h, c)) for n, (r, sc, h, c) in fused.items()]
    out.sort(key=lambda hit: -hit[2])
    return out


def why_text(held: tuple[str, ...], close: bool) -> str:
    """A hit's reason in a few words."""
    reasons = []
    if held:
        shown = ", ".join(held[:4]) + (", …" if len(held) > 4 else "")
        reasons.append(f"words: {shown}")
    if close or not held:
        reasons.append("similar meaning")
    return "; ".join(reasons)


# -- the words side ---------------------------------------------------------------------------
WordHit = tuple[str, int, float, tuple[str, ...], float]  # name, rowid, score, held, coverage


def words_side(
    conn: sqlite3.Connection,
    total: int,
    parsed: ParsedQuery,
    where: tuple[str, str],
    limit: int,
    related: dict[str, list[tuple[str, float]]] | None = None,
) -> list[WordHit]:
    """The words side over ``total`` indexed memories, ``where`` being (topic, scope):
    (name, rowid, score, the query words it holds, coverage) best first; coverage is the
    share of the query's word weight the memory holds (a word no memory holds weighs most),
    how much the words side vouches for it.

    BM25 (name over headings over text) picks the candidates and is the base score.
    Each query word a memory holds adds log(1 + N / n), N memories, n holding the word:
    unlike BM25's weight it stays positive for a word in half the memories, so in a
    small folder the memory holding more of the asker's words still ranks higher.
    ``related`` gives words close in meaning to a query word (with their closeness):
    a memory that holds one instead of the word itself is a candidate too, and holds
    the query word to that degree times RELATED_WEIGHT."""
    if not parsed.words:
        return []
    counts: dict[str, int] = {}  # memories holding each quoted word, asked once
    pool = max(limit, CANDIDATES)
    candidates = _candidates(conn, parsed, where, (pool, counts), related or {})
    if not candidates:
        return []
    held = _Holdings(conn, [rowid for _, rowid, _ in candidates], max(total, 1))
    held.count(parsed, related or {}, counts)
    # The score: BM25 scaled to the best candidate's (its order survives even when
    # every idf is nearly zero), plus the share of the query's word weight held, plus 1
    # for holding the query as a phrase (BM25 sums words independently, and a
    # remembered heading or sentence is a phrase).
    best = max(score for _, _, score in candidates) or 1.0
    phrased = set(held.holders(parsed.phrase)) if parsed.phrase is not None else set()
    asks_about_memories = not _GENERIC_SUBJECT.isdisjoint(parsed.words)
    ranked = []
    for name, rowid, score in candidates:
        coverage = held.coverage(rowid)
        value = score / best + HOLD_WEIGHT * coverage + (rowid in phrased)
        if name in GENERIC_MEMORIES and not asks_about_memories:
            value /= 4
        ranked.append((name, rowid, value, tuple(held.holds[rowid]), coverage))
    ranked.sort(key=lambda hit: -hit[2])
    return ranked[:limit]


def _candidates(
    conn: sqlite3.Connection,
    parsed: ParsedQuery,
    where: tuple[str, str],
    sizes: tuple[int, dict[str, int]],
    related: dict[str, list[tuple[str, float]]],
) -> list[tuple[str, int, float]]:
    """(name, rowid, BM25 score) of the memories holding a query word, best first, then
    those holding only a related word (base score 0: BM25 over them would let a loose
    synonym outrank the words the asker used). ``sizes`` is the pool and the counts of
    holders each word's bound needed, kept for the caller."""
    pool, counts = sizes
    clauses, params = _filters(where)
    sql = (
        f"SELECT d.name, d.id, bm25(fts, {NAME_WEIGHT}, {HEADING_WEIGHT}, {BODY_WEIGHT}) "
        "AS rank FROM fts JOIN docs d ON d.id = fts.rowid WHERE "
        + " AND ".join(clauses)
        + " ORDER BY rank LIMIT ?"
    )
    best = bm25.best(conn, sql, parsed.words, params, pool, counts)
    candidates = [(name, rowid, -rank) for name, rowid, rank in best]
    extra = sorted(
        {other for word in parsed.words for other, _ in related.get(word, [])} - set(parsed.words)
    )
    if extra:
        seen = {rowid for _, rowid, _ in candidates}
        for name, rowid, _ in bm25.best(conn, sql, extra, params, pool, counts):
            if rowid not in seen:
                seen.add(rowid)
                candidates.append((name, rowid, 0.0))
    return candidates


def _filters(where: tuple[str, str]) -> tuple[list[str], list[Any]]:
    """The MATCH and the topic's and scope's conditions on ``d.name``, with their values
    after the MATCH expression."""
    topic, scope = where
    clauses = ["fts MATCH ?"]
    params: list[Any] = []
    if topic:
        clauses.append("(d.name = ? OR substr(d.name, 1, ?) = ?)")
        params += [topic, len(topic) + 1, topic + "/"]
    if scope == "project":
        clauses.append("substr(d.name, 1, 7) != 'global/'")
    elif scope == "global":
        clauses.append("substr(d.name, 1, 7) = 'global/'")
    return clauses, params


def holds_all(conn: sqlite3.Connection, parsed: ParsedQuery, where: tuple[str, str]) -> bool:
    """Whether a memory (in the topic and scope ``where``) holds every query word."""
    if not parsed.words:
        return False
    clauses, params = _filters(where)
    sql = "SELECT 1 FROM fts JOIN docs d ON d.id = fts.rowid WHERE " + " AND ".join(clauses)
    match = " AND ".join(f'"{word}"' for word in parsed.words)
    return conn.execute(sql + " LIMIT 1", [match, *params]).fetchone() is not None


# A query word that at most this share of the memories hold (one at least) is one some
# memory is specific about; chosen on the labeled queries (benchmarks/search_quality.py):
# no question about nothing finds a word that rare, and every subject question it turns
# down still has its answer among the closest two.
SPECIFIC_SHARE = 0.25


def specific(conn: sqlite3.Connection, total: int, parsed: ParsedQuery) -> bool:
    """Whether some memory is specific to the query: one holds a query word that few
    others hold, or names one in its name. Decided from the words alone, so an answer
    says the same yes or no whether or not the meaning side is ready. A query of common
    words ("run a single test file quickly") that every memory touches is no."""
    if not parsed.words:
        return True
    limit = max(1.0, SPECIFIC_SHARE * total)
    counts: dict[str, int] = {}
    if any(1 <= bm25.holding(conn, f'"{word}"', counts) <= limit for word in parsed.words):
        return True
    named = " OR ".join(f'name : "{word}"' for word in parsed.words)
    return (
        conn.execute("SELECT 1 FROM fts WHERE fts MATCH ? LIMIT 1", (named,)).fetchone() is not None
    )


# -- the exact side ---------------------------------------------------------------------------
EXACT_CANDIDATES = 500  # memories holding a term's words in order, checked for the term


def exact_side(
    conn: sqlite3.Connection, parsed: ParsedQuery, where: tuple[str, str]
) -> list[tuple[str, int, tuple[str, ...]]]:
    """The memories that hold the query's exact terms as written (in the name or the
    text): (name, rowid, the terms held), best BM25 of the terms first. FTS5 finds the
    memories holding a term's words next to each other, in order; the text of each is
    then checked for the term itself (its punctuation, no longer name around it)."""
    phrases = [(term, phrase) for term in parsed.exact if (phrase := exact_phrase(term))]
    if not phrases:
        return []
    clauses, params = _filters(where)
    sql = (
        "SELECT d.name, d.id, fts.body FROM fts JOIN docs d ON d.id = fts.rowid WHERE "
        + " AND ".join(clauses)
        + f" ORDER BY bm25(fts, {NAME_WEIGHT}, {HEADING_WEIGHT}, {BODY_WEIGHT}) LIMIT ?"
    )
    match = " OR ".join(phrase for _, phrase in phrases)
    patterns = [(term, exact_pattern(term)) for term, _ in phrases]
    found = []
    for name, rowid, body in conn.execute(sql, [match, *params, EXACT_CANDIDATES]):
        held = tuple(
            term for term, pattern in patterns if pattern.search(name) or pattern.search(body)
        )
        if held:
            found.append((name, rowid, held))
    return found


# the candidates holding a word are sought one by one once the word's holders outnumber
# them this many times (see _Holdings)
SEEK_FROM = 200


class _Holdings:
    """Which candidates hold which query words, and how much each word weighs."""

    def __init__(self, conn: sqlite3.Connection, ids: list[int], total: int) -> None:
        self.conn = conn
        self.ids = ids
        self.total = total
        # Which candidates match: the candidates probed in the matches' set, which SQLite
        # builds once (about 0.1 ms per 1,000 memories matching); "rowid IN (...)" instead
        # seeks the full-text index once per candidate (about 0.02 ms each). A phrase
        # (6 ms instead of 0.2 at 10,000 memories) and most words take the set; a word
        # most of 100,000 memories hold takes the seeks (2 ms instead of 9).
        marks = ",".join(["(?)"] * len(ids))
        self.among = (
            f"SELECT column1 FROM (VALUES {marks}) "
            "WHERE column1 IN (SELECT rowid FROM fts WHERE fts MATCH ?)"
        )
        self.seek = (
            "SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ("
            + ",".join(["?"] * len(ids))
            + ")"
        )
        self.holds: dict[int, list[str]] = {rowid: [] for rowid in ids}
        # how much of each query word's weight each candidate holds (1 for the word itself)
        self.share: dict[int, dict[str, float]] = {rowid: {} for rowid in ids}
        self.weights: dict[str, float] = {}
        self.asked = 0.0

    def holders(self, phrase: str) -> list[int]:
        """The candidates that match an FTS5 phrase (several words, quoted)."""
        return [rowid for (rowid,) in self.conn.execute(self.among, [*self.ids, phrase])]

    def word_holders(self, quoted: str, count: int) -> list[int]:
        """The candidates that hold a word (quoted), which ``count`` memories hold."""
        if count <= SEEK_FROM * len(self.ids):
            return self.holders(quoted)
        return [rowid for (rowid,) in self.conn.execute(self.seek, [quoted, *self.ids])]

    def count(
        self,
        parsed: ParsedQuery,
        related: dict[str, list[tuple[str, float]]],
        counts: dict[str, int],
    ) -> None:
        """Which candidates hold each query word or a word related to it; ``counts`` are
        the memories holding each quoted word, those already asked for."""
        for word in parsed.words:
            quoted = f'"{word}"'
            count = bm25.holding(self.conn, quoted, counts)
            weight = math.log1p(self.total / max(count, 0.5))
            self.asked += weight
            self.weights[word] = weight
            for rowid in self.word_holders(quoted, count) if count else []:
                self.holds[rowid].append(word)
                self.share[rowid][word] = 1.0
            for other, closeness in related.get(word, []):
                if other in self.weights:
                    continue
                other_quoted = f'"{other}"'
                holding = bm25.holding(self.conn, other_quoted, counts)
                for rowid in self.word_holders(other_quoted, holding) if holding else []:
                    held = self.share[rowid].get(word, 0.0)
                    self.share[rowid][word] = max(held, RELATED_WEIGHT * closeness)

    def coverage(self, rowid: int) -> float:
        held = self.share[rowid].items()
        return sum(self.weights[w] * part for w, part in held) / self.asked


# -- the meaning side -------------------------------------------------------------------------
def meaning_side(
    matrix: Any,
    vector_ids: list[int],
    names: dict[int, str],
    vector: Any,
    parsed: ParsedQuery,
    where: tuple[str, str],
    limit: int,
) -> list[tuple[str, int, float]]:
    """The meaning side: (name, rowid, cosine) best first; row i of ``matrix`` is the
    vector of memory ``vector_ids[i]``, ``where`` is (topic, scope)."""
    import numpy as np

    if matrix is None or vector is None or not np.any(vector):
        return []
    topic, scope = where
    scores = matrix @ vector
    asks_about_memories = not _GENERIC_SUBJECT.isdisjoint(parsed.words)
    found = []
    for i in _best_first(scores, limit, bool(topic or scope != "all")):
        rowid = vector_ids[int(i)]
        name = names.get(rowid)
        if name is None or not in_scope(name, topic, scope):
            continue
        if name in GENERIC_MEMORIES and not asks_about_memories:
            continue
        found.append((name, rowid, float(scores[i])))
        if len(found) >= limit:
            break
    return found


def _best_first(scores: Any, limit: int, filtered: bool) -> Any:
    """Row numbers by score, best first: the best few only, unless a topic or scope
    filters many out."""
    import numpy as np

    head = min(len(scores), limit * 4)
    if head >= len(scores) or filtered:
        return np.argsort(-scores)
    order = np.argpartition(-scores, head - 1)[:head]
    return order[np.argsort(-scores[order])]
