"""Near-duplicate memories and sections, and conflicting statements, among many memories
without comparing every pair: memories with the same words are grouped by digest; the
others meet when they share two lines, their MinHash signatures share a band
(locality-sensitive hashing) or two statements share a key; only those pairs are
compared line for line and word for word.

Bounded on purpose: a band or key that many memories share (a template line, thousands
of near-copies) pairs each memory with its neighbour only, and a report keeps
:data:`MAX_FINDINGS` findings and counts the rest.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from serena_memory.integrity.duplicates.buckets import MAX_BUCKET, T, bucket_pairs
from serena_memory.integrity.duplicates.conflicts import find_conflicts
from serena_memory.integrity.duplicates.features import (
    BANDS,
    MIN_LINES,
    ROWS,
    Features,
    features_of,
)
from serena_memory.integrity.duplicates.findings import (
    MAX_FINDINGS,
    MAX_LINES_LISTED,
    Conflict,
    DuplicateReport,
    NearDuplicate,
)
from serena_memory.integrity.duplicates.rewrites import Values, restated, values_of
from serena_memory.integrity.duplicates.slots import Unit, unit_at
from serena_memory.integrity.duplicates.text import Parsed, parse

MEMORY_SIMILARITY = 0.6
"""Share of lines two whole memories have alike to be near-duplicates."""
WHOLE_SHARE = 0.7
"""Share of the longer memory's lines the other must have to be a copy of it whole (else
the shorter one is a part of the longer: a duplicate section)."""
SECTION_SIMILARITY = 0.75
"""Share of a section's lines another memory must have for a duplicate section."""
MAX_FUZZY = 40_000
"""Pairs of lines compared word by word at most for two memories."""
MIN_RESTATED_WORDS = 10
"""Rarer words two memories must share to be compared as restatements."""


def find_duplicates(memories: Mapping[str, str]) -> DuplicateReport:
    """Every near-duplicate and conflict among ``memories`` ({name: text})."""
    features = {name: features_of(text)[0] for name, text in memories.items()}
    return detect(features, memories.get)


def detect(
    features: Mapping[str, Features],
    text_of: Callable[[str], str | None],
    rarity: Rarity | None = None,
) -> DuplicateReport:
    """The report from each memory's features; ``text_of`` gives the text of a memory
    that must be compared word for word (None: it can't be read any more). ``rarity``
    tells how rare each word is among all memories, when ``features`` are only some."""
    report = DuplicateReport(compared=len(features))
    parses = _Parses(text_of)
    kept = _identical(features, report)
    pairs = _near_duplicates(kept, features, parses)
    found = {(d.first, d.second) for d in pairs}
    for d in _restated(kept, features, rarity, parses):
        pa, pb = parses.get(d.first), parses.get(d.second)
        if (d.first, d.second) not in found and pa is not None and pb is not None:
            pairs.append(
                replace(d, first_lines=(1, len(pa.lines)), second_lines=(1, len(pb.lines)))
            )
    pairs.sort(key=lambda d: (d.first, d.second))
    conflicts = find_conflicts(kept, features, parses)
    paired = {(d.first, d.second): i for i, d in enumerate(pairs)}
    loose: list[Conflict] = []
    for c in conflicts:
        at = paired.get((c.first, c.second))
        if at is None:
            loose.append(c)
        elif len(pairs[at].conflicts) < MAX_LINES_LISTED:
            pairs[at] = replace(pairs[at], conflicts=(*pairs[at].conflicts, c))
    room = MAX_FINDINGS - len(report.identical)
    room = _keep([d for d in pairs if not d.section], report.memories, room, report)
    room = _keep([d for d in pairs if d.section], report.sections, room, report)
    _keep(loose, report.conflicts, room, report)
    return report


class Rarity:
    """How many memories hold each word (of the words kept), and of how many: a word in
    one memory of a hundred says more than one in half of them."""

    def __init__(self, words: Any, counts: Any, memories: int) -> None:
        self.words, self.counts, self.memories = words, counts, memories

    @classmethod
    def of(cls, every: Any, memories: int) -> Rarity:
        """From the words of all memories (each memory's once) in one array."""
        import numpy as np

        words, counts = np.unique(every, return_counts=True)
        return cls(words, counts, memories)

    def weights(self, words: Any) -> Any:
        """The weight (inverse document frequency) of each of ``words``."""
        import numpy as np

        if not len(self.words):
            return np.full(len(words), np.log(self.memories + 1))
        at = np.clip(np.searchsorted(self.words, words), 0, len(self.words) - 1)
        counts = np.where(self.words[at] == words, self.counts[at], 1)
        return np.log((self.memories + 1) / counts)


def _restated(
    kept: list[str],
    features: Mapping[str, Features],
    rarity: Rarity | None,
    parses: _Parses | None = None,
) -> list[NearDuplicate]:
    """Memories that say mostly what another says in other words: the weight of the
    words they share (rare words weigh more), of the smaller's and of the larger's, and
    the values they keep (read from ``parses`` when the words alone do not tell) make
    one a restatement of the other (:func:`.rewrites.restated`)."""
    import numpy as np

    words = [np.unique(features[n].words) for n in kept]
    rarity = rarity or Rarity.of(np.concatenate([np.zeros(0, np.uint32), *words]), len(kept))
    weights = [rarity.weights(w) for w in words]
    totals = [float(w.sum()) for w in weights]
    found = []
    for a, b in _sharing_words(words, max(MAX_BUCKET, rarity.memories // 10)):
        weight = float(weights[a][np.isin(words[a], words[b])].sum())
        (small, first), (large, second) = sorted(((totals[a], a), (totals[b], b)))
        if not small:
            continue

        def values(first: int = first, second: int = second) -> tuple[Values, Values] | None:
            return _values(parses, kept[first], kept[second])

        if restated(weight / small, weight / large, values):
            found.append(
                NearDuplicate(
                    kept[a], (1, 1), kept[b], (1, 1), weight / small, False, restated=True
                )
            )
    return found


def _sharing_words(words: list, common: int) -> list[tuple[int, int]]:
    """The pairs of memories (indexes, in order) with :data:`MIN_RESTATED_WORDS` words in
    common, counting only words of ``common`` memories or fewer: a word most memories
    hold says nothing of two being one rewritten."""
    shared: dict[tuple[int, int], int] = {}
    for members, _rows in _groups(words):
        if len(members) <= common:
            for a, b in bucket_pairs(members):
                shared[(a, b)] = shared.get((a, b), 0) + 1
    return [pair for pair, count in sorted(shared.items()) if count >= MIN_RESTATED_WORDS]


def _values(parses: _Parses | None, first: str, second: str) -> tuple[Values, Values] | None:
    """The values of two memories (:func:`.rewrites.values_of`), when both can be read:
    read only for a pair whose words alone are too few for a restatement."""
    if parses is None:
        return None
    va, vb = parses.values(first), parses.values(second)
    return None if va is None or vb is None else (va, vb)


def _keep(found: list[T], target: list[T], room: int, report: DuplicateReport) -> int:
    """Add to ``target`` what there is room for, count the rest; the room left."""
    target.extend(found[: max(room, 0)])
    report.left_out += max(len(found) - max(room, 0), 0)
    return room - len(found)


class _Parses:
    """The parse of each memory compared word for word, read once; its statements only
    when a statement of it is compared."""

    def __init__(self, text_of: Callable[[str], str | None]) -> None:
        self.text_of = text_of
        self.held: dict[str, tuple[str, Parsed, bool] | None] = {}
        self.lines: dict[str, list[str] | None] = {}
        self.kept: dict[str, frozenset[str] | None] = {}

    def values(self, name: str) -> frozenset[str] | None:
        """The values of a memory (:func:`values_of`), None when it can't be read."""
        if name not in self.kept:
            held = self.held.get(name)
            text = held[0] if held is not None else self.text_of(name)
            self.kept[name] = None if text is None else values_of(text)
        return self.kept[name]

    def _lines(self, name: str) -> list[str] | None:
        if name not in self.lines:
            held = self.held.get(name)
            text = held[0] if held is not None else self.text_of(name)
            self.lines[name] = None if text is None else text.split("\n")
        return self.lines[name]

    def unit(self, name: str, where: int) -> Unit | None:
        """The unit of a memory at ``where`` (:func:`.slots.unit_at`): a slot's check
        reads its line, not the whole memory."""
        lines = self._lines(name)
        return None if lines is None else unit_at(lines, where)

    def line(self, name: str, where: int) -> str | None:
        """The line of a memory a row's place ``where`` points at, None when gone."""
        lines, number = self._lines(name), where >> 3 & ((1 << 27) - 1)
        return None if lines is None or not 0 < number <= len(lines) else lines[number - 1]

    def text(self, name: str) -> str | None:
        """A memory's whole text (its lines, read once)."""
        lines = self._lines(name)
        return None if lines is None else "\n".join(lines)

    def get(self, name: str, statements: bool = False) -> Parsed | None:
        if name not in self.held:
            text = self.text_of(name)
            self.held[name] = None if text is None else (text, parse(text, statements), statements)
        held = self.held[name]
        if held is None:
            return None
        text, parsed, complete = held
        if statements and not complete:
            parsed = parse(text)
            self.held[name] = (text, parsed, True)
        return parsed


def _identical(features: Mapping[str, Features], report: DuplicateReport) -> list[str]:
    """Group memories with the same words (a copy under another name); returns one
    memory of each group, and every memory alone, sorted."""
    groups: dict[str, list[str]] = {}
    for name in sorted(features):
        f = features[name]
        if not f.empty:
            groups.setdefault(f.digest, []).append(name)
    kept = []
    for names in groups.values():
        kept.append(names[0])
        if len(names) > 1 and len(report.identical) < MAX_FINDINGS:
            report.identical.append(tuple(names[:MAX_LINES_LISTED]))
            report.identical_sizes.append(len(names))
        elif len(names) > 1:
            report.left_out += 1
    return sorted(kept)


def _band_candidates(names: list[str], signatures: list) -> set[tuple[str, str]]:
    """Pairs of memories whose signatures share a band."""
    import numpy as np

    if len(names) < 2:
        return set()
    matrix = np.stack(signatures).astype(np.uint64)
    found: set[tuple[str, str]] = set()
    for band in range(BANDS):
        part = matrix[:, band * ROWS : (band + 1) * ROWS]
        keys = part[:, 0] * np.uint64(0x9E3779B97F4A7C15)
        with np.errstate(over="ignore"):
            for r in range(1, ROWS):
                keys = (keys ^ part[:, r]) * np.uint64(0xBF58476D1CE4E5B9)
        for group in _shared(keys):
            found.update(bucket_pairs(sorted(names[i] for i in group)))
    return found


def _shared(values: Any) -> Iterable[list[int]]:
    """The indexes of each value of ``values`` that occurs more than once, in order (one
    sort in numpy: Python sees only the values shared, a few of thousands)."""
    import numpy as np

    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    sizes = np.diff(np.concatenate((starts, [len(ordered)])))
    for start, size in zip(starts[sizes > 1].tolist(), sizes[sizes > 1].tolist(), strict=True):
        yield order[start : start + size].tolist()


def _groups(arrays: list, column: int | None = None) -> Iterable[tuple[list[int], Any]]:
    """The values that occur in more than one of ``arrays`` (one per memory; of a table's
    ``column``), each as (the indexes of the arrays, their rows of it), sorted in numpy:
    Python sees only the values shared."""
    import numpy as np

    if not arrays:
        return
    owners = np.repeat(np.arange(len(arrays)), [len(a) for a in arrays])
    every = np.concatenate(arrays)
    values = every if column is None else every[:, column]
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    sizes = np.diff(np.concatenate((starts, [len(ordered)])))
    for start, size in zip(starts[sizes > 1].tolist(), sizes[sizes > 1].tolist(), strict=True):
        rows = order[start : start + size]
        yield owners[rows].tolist(), every[rows]


def _line_candidates(kept: list[str], features: Mapping[str, Features]) -> set[tuple[str, str]]:
    """Pairs of memories that have at least two lines the same, word for word."""
    shared: dict[tuple[str, str], int] = {}
    for members, _rows in _groups([features[n].lines for n in kept]):
        for a, b in bucket_pairs(members):  # a memory's lines are distinct: a != b
            pair = (kept[a], kept[b])
            shared[pair] = shared.get(pair, 0) + 1
    return {pair for pair, count in shared.items() if count >= 2}


def _near_duplicates(
    kept: list[str], features: Mapping[str, Features], parses: _Parses
) -> list[NearDuplicate]:
    """The near-duplicate memories, and the best near-duplicate section pair of two
    memories that are not near-duplicates whole."""
    signed = [n for n in kept if features[n].signature is not None]
    candidates = _line_candidates(kept, features) | _band_candidates(
        signed, [features[n].signature for n in signed]
    )
    found = []
    for a, b in sorted(candidates):
        pa, pb = parses.get(a), parses.get(b)
        if pa is not None and pb is not None:
            pair = _compare(a, pa, b, pb)
            if pair is not None:
                found.append(pair)
    return found


def _compare(a: str, pa: Parsed, b: str, pb: Parsed) -> NearDuplicate | None:
    """Two memories line for line: near-duplicates whole, or one's section (or all of a
    short one) inside the other; None when neither."""
    match = _matched_lines(pa, pb)
    la, lb = len(pa.content), len(pb.content)
    if min(la, lb) < MIN_LINES:
        return None
    similarity = 2 * len(match) / (la + lb)
    if similarity >= MEMORY_SIMILARITY and len(match) >= WHOLE_SHARE * max(la, lb):
        only_a = tuple(n for n, _w in pa.content if n not in match)
        matched_b = set(match.values())
        only_b = tuple(n for n, _w in pb.content if n not in matched_b)
        return NearDuplicate(
            a,
            (1, len(pa.lines)),
            b,
            (1, len(pb.lines)),
            similarity,
            False,
            only_a[:MAX_LINES_LISTED],
            only_b[:MAX_LINES_LISTED],
        )
    inside = _section_inside(a, pa, b, match)
    back = {v: k for k, v in match.items()}
    other = _section_inside(b, pb, a, back)
    best = max(
        (p for p in (inside, other) if p is not None), key=lambda p: p.similarity, default=None
    )
    if best is not None and best.first != a:  # names in order: the first is ``a``
        best = NearDuplicate(a, best.second_lines, b, best.first_lines, best.similarity, True)
    return best


def _section_inside(a: str, pa: Parsed, b: str, match: dict[int, int]) -> NearDuplicate | None:
    """The largest section of ``a`` (all of it, when it has no sections) whose lines are
    mostly in ``b``, with the lines of ``b`` they are on."""
    sections = pa.sections if len(pa.sections) > 1 else [(1, len(pa.lines))]
    numbers = [n for n, _w in pa.content]  # in order: a section's are found by bisection
    best = None
    for first, last in sections:
        lines = [
            n
            for n in numbers[bisect_left(numbers, first) : bisect_right(numbers, last)]
            if n not in pa.aside
        ]
        hits = [match[n] for n in lines if n in match]
        if len(lines) < MIN_LINES or len(hits) < SECTION_SIMILARITY * len(lines):
            continue
        if best is None or len(hits) > best[0]:
            best = (len(hits), (first, last), (min(hits), max(hits)), len(hits) / len(lines))
    if best is None:
        return None
    return NearDuplicate(a, best[1], b, best[2], best[3], True)


def _matched_lines(pa: Parsed, pb: Parsed) -> dict[int, int]:
    """{line of a: line of b} for the content lines of ``a`` that ``b`` has word for word,
    or nearly (half their words in common, for lines of 3+ words)."""
    where: dict[str, list[int]] = {}
    for n, words in pb.content:
        where.setdefault(words, []).append(n)
    match: dict[int, int] = {}
    used: set[int] = set()
    taken: dict[str, int] = {}  # of each line's places in b, how many are matched (in order)
    left: list[tuple[int, set[str]]] = []
    for n, words in pa.content:
        spots = where.get(words, ())
        if taken.get(words, 0) < len(spots):
            match[n] = spots[taken.get(words, 0)]
            used.add(match[n])
            taken[words] = taken.get(words, 0) + 1
        elif words.count(" ") >= 2:
            left.append((n, set(words.split())))
    rest = [(m, set(w.split())) for m, w in pb.content if m not in used and w.count(" ") >= 2]
    if len(left) * len(rest) > MAX_FUZZY:
        return match  # too many to compare one by one: the lines the same only
    for n, mine in left:
        for m, other in rest:
            if m not in used and len(mine & other) * 2 >= len(mine | other):
                match[n] = m
                used.add(m)
                break
    return match


__all__ = ["detect", "find_duplicates"]
