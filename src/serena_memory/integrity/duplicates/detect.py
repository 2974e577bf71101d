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

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

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
from serena_memory.integrity.duplicates.slots import SLOT_MARK, Unit, differ, unit_at, value_of
from serena_memory.integrity.duplicates.text import Parsed, Statement, parse

MEMORY_SIMILARITY = 0.6
"""Share of lines two whole memories have alike to be near-duplicates."""
WHOLE_SHARE = 0.7
"""Share of the longer memory's lines the other must have to be a copy of it whole (else
the shorter one is a part of the longer: a duplicate section)."""
SECTION_SIMILARITY = 0.75
"""Share of a section's lines another memory must have for a duplicate section."""
MAX_FUZZY = 40_000
"""Pairs of lines compared word by word at most for two memories."""
MAX_BUCKET = 8
"""A band or statement key more memories share is a template: neighbours only."""
T = TypeVar("T")
RESTATED_SHARE = 0.57
"""Share of the weight of the smaller memory's words the other holds, for a restatement."""
RESTATED_OF_LARGER = 0.25
"""And of the larger one's: else the smaller is one note on the larger one's topic."""
MIN_RESTATED_WORDS = 10
"""Rarer words two memories must share to be compared as restatements."""
MAX_KEY_MEMORIES = 4
REWRITTEN_SHARE = 0.3
"""Share of the smaller memory's word weight enough for a restatement when the two also
keep the same values (:data:`MIN_KEPT_VALUES`): a rewrite changes the prose around the
commands, paths and names, and keeps those."""
MIN_KEPT_VALUES = 4
"""Values (code in backticks) two memories must share to be called a rewrite by them."""
KEPT_OF_SMALLER = 0.8
"""Share of the values of the memory with fewer that the other must hold, for a rewrite."""
KEPT_OF_LARGER = 0.7
"""And of the one with more: else one holds a few commands of a longer list."""
_CODE = re.compile(r"`([^`\n]+)`")
"""A statement key more memories share is a pattern, not one statement restated."""


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
    conflicts = _conflicts(kept, features, parses)
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
    """Memories that say mostly what another says in other words: of the rarer of the
    two, :data:`RESTATED_SHARE` of its words' weight (rare words weigh more) is in the
    other, and :data:`RESTATED_OF_LARGER` of the other's: a memory rewritten, not two
    memories on one topic. Or :data:`REWRITTEN_SHARE` of it when the two keep the same
    values (:func:`_same_values`, read from ``parses``): prose paraphrased around the
    same commands loses more words than a copy edited."""
    import numpy as np

    words = [np.unique(features[n].words) for n in kept]
    rarity = rarity or Rarity.of(np.concatenate([np.zeros(0, np.uint32), *words]), len(kept))
    weights = [rarity.weights(w) for w in words]
    totals = [float(w.sum()) for w in weights]
    found = []
    for a, b in _sharing_words(words, max(MAX_BUCKET, rarity.memories // 10)):
        weight = float(weights[a][np.isin(words[a], words[b])].sum())
        small, large = sorted((totals[a], totals[b]))
        if not small or weight < RESTATED_OF_LARGER * large:
            continue  # none of the smaller memory, or a note on the larger one's topic
        if weight >= RESTATED_SHARE * small or (
            weight >= REWRITTEN_SHARE * small and _rewritten(parses, kept[a], kept[b])
        ):
            first, second = kept[a], kept[b]
            found.append(
                NearDuplicate(first, (1, 1), second, (1, 1), weight / small, False, restated=True)
            )
    return found


def _sharing_words(words: list, common: int) -> list[tuple[int, int]]:
    """The pairs of memories (indexes, in order) with :data:`MIN_RESTATED_WORDS` words in
    common, counting only words of ``common`` memories or fewer: a word most memories
    hold says nothing of two being one rewritten."""
    shared: dict[tuple[int, int], int] = {}
    for members, _rows in _groups(words):
        if len(members) <= common:
            for a, b in _bucket_pairs(members):
                shared[(a, b)] = shared.get((a, b), 0) + 1
    return [pair for pair, count in sorted(shared.items()) if count >= MIN_RESTATED_WORDS]


def _rewritten(parses: _Parses | None, first: str, second: str) -> bool:
    """Whether two memories keep the same values (:func:`_same_values`), when their texts
    can be read: read only for a pair whose words alone are too few for a restatement."""
    return parses is not None and _same_values(parses.values(first), parses.values(second))


def _same_values(va: frozenset[str] | None, vb: frozenset[str] | None) -> bool:
    """Whether two memories keep the same values (code in backticks, spaced alike): at
    least :data:`MIN_KEPT_VALUES` shared, :data:`KEPT_OF_SMALLER` of the fewer and
    :data:`KEPT_OF_LARGER` of the more."""
    if va is None or vb is None:
        return False
    both = len(va & vb)
    fewer, more = sorted((len(va), len(vb)))
    if both < MIN_KEPT_VALUES:
        return False
    return both >= KEPT_OF_SMALLER * fewer and both >= KEPT_OF_LARGER * more


def values_of(text: str) -> frozenset[str]:
    """The code in backticks of a text (three characters or more, casefolded, spaced
    alike; a `mem:` reference is no value): what a rewrite keeps word for word."""
    found = set()
    for code in _CODE.findall(text):
        value = " ".join(code.split()).casefold()
        if len(value) > 2 and not value.startswith("mem:"):
            found.add(value)
    return frozenset(found)


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

    def unit(self, name: str, where: int) -> Unit | None:
        """The unit of a memory at ``where`` (:func:`.slots.unit_at`): a slot's check
        reads its line, not the whole memory."""
        if name not in self.lines:
            held = self.held.get(name)
            text = held[0] if held is not None else self.text_of(name)
            self.lines[name] = None if text is None else text.split("\n")
        lines = self.lines[name]
        return None if lines is None else unit_at(lines, where)

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


def _bucket_pairs(members: list[T]) -> Iterable[tuple[T, T]]:
    """The pairs of one bucket: all of them, or each with the next when it is big."""
    if len(members) <= MAX_BUCKET:
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                yield a, b
    else:
        yield from zip(members, members[1:], strict=False)


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
            found.update(_bucket_pairs(sorted(names[i] for i in group)))
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
        for a, b in _bucket_pairs(members):  # a memory's lines are distinct: a != b
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


def _conflicts(
    kept: list[str], features: Mapping[str, Features], parses: _Parses
) -> list[Conflict]:
    """Statements of two memories alike but for one value or a negation."""
    found: dict[tuple[str, int, str, int], Conflict] = {}
    met: set[tuple[tuple[str, int, int], tuple[str, int, int]]] = set()
    for members, rows in _key_groups([features[n].statement_keys for n in kept]):
        entries = [(kept[m], i, v) for m, (_k, i, v) in zip(members, rows.tolist(), strict=True)]
        for a, b in _bucket_pairs(sorted(_not_listed(entries))):
            if a[0] == b[0] or a[2] == b[2]:
                continue  # one memory, or one value: nothing said two ways
            if a[1] >= SLOT_MARK:  # two slots meet by several keys: compared once
                met.add((a, b))
                continue
            conflict = _conflict(a, b, parses)
            if conflict is not None:
                where = (conflict.first, conflict.first_line, conflict.second, conflict.second_line)
                found.setdefault(where, conflict)
    slots = _slot_conflicts(met, parses)
    said = {(c.first, c.second) for c in found.values()}
    for pair, conflict in slots.items():
        if pair not in said:  # a statement of the two said it already
            found[(pair[0], conflict.first_line, pair[1], conflict.second_line)] = conflict
    return [found[k] for k in sorted(found)]


def _slot_conflicts(
    met: set[tuple[tuple[str, int, int], tuple[str, int, int]]], parses: _Parses
) -> dict[tuple[str, str], Conflict]:
    """The first conflict of the slots that ``met`` of each pair of memories (in order):
    one per pair says where they part, and the rest of the pair's slots are not read."""
    slots: dict[tuple[str, str], Conflict] = {}
    for a, b in sorted(met):
        if (a[0], b[0]) not in slots:
            conflict = _conflict(a, b, parses)
            if conflict is not None:
                slots[(a[0], b[0])] = conflict
    return slots


def _key_groups(arrays: list) -> list[tuple[list[int], Any]]:
    """The keys (statement or slot rows, one array per memory) worth comparing: held by
    two to :data:`MAX_KEY_MEMORIES` memories with two values or more, as (the indexes of
    the memories, their rows), but the rows of a slot that a key of it shows to be a
    field (a key more memories hold with values of their own: `Impact: 8/10`, no claim).
    Counted in numpy: Python sees only the few keys kept."""
    import numpy as np

    if not arrays:
        return []
    owners = np.repeat(np.arange(len(arrays)), [len(a) for a in arrays])
    every = np.concatenate([np.zeros((0, 3), np.uint32), *arrays]).astype(np.int64)
    order = np.lexsort((owners, every[:, 0]))
    keys, owners, every = every[order, 0], owners[order], every[order]
    if not len(keys):
        return []
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    group = np.cumsum(np.concatenate(([True], keys[1:] != keys[:-1]))) - 1
    new_owner = np.concatenate(([True], (keys[1:] != keys[:-1]) | (owners[1:] != owners[:-1])))
    holders = np.bincount(group, weights=new_owner)
    varied = np.minimum.reduceat(every[:, 2], starts) != np.maximum.reduceat(every[:, 2], starts)
    slot = every[starts, 1] >= SLOT_MARK
    field = (holders > MAX_KEY_MEMORIES) & slot
    with np.errstate(over="ignore"):  # a slot's place: its memory, unit and value, mixed
        wide = every.astype(np.uint64)
        place = (
            (owners.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
            ^ (wide[:, 1] * np.uint64(0xBF58476D1CE4E5B9))
            ^ wide[:, 2]
        )
    fielded = np.isin(place, place[field[group]])
    keep = (holders >= 2) & (holders <= MAX_KEY_MEMORIES) & varied
    chosen = keep[group] & ~fielded
    found: list[tuple[list[int], Any]] = []
    if not chosen.any():
        return found
    at = np.flatnonzero(chosen)
    cuts = np.flatnonzero(np.diff(group[at])) + 1
    for part in np.split(at, cuts):
        found.append((owners[part].tolist(), every[part].astype(np.uint32)))
    return found


def _not_listed(entries: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The entries of a key but those of a memory that has it with two values or more: the
    same words around several values is a list or a template (`File: a.ts`, `File:
    b.ts`), not one statement."""
    values: dict[str, set[int]] = {}
    for name, _i, value in entries:
        values.setdefault(name, set()).add(value)
    kept = [e for e in entries if len(values[e[0]]) == 1]
    if len({e[2] for e in kept}) > 2:
        return []  # three values or more, each in its memory: a count that moves on
    return kept


def _conflict(
    ea: tuple[str, int, int], eb: tuple[str, int, int], parses: _Parses
) -> Conflict | None:
    """The two statements (or slots) compared word for word: a conflict, or None."""
    if ea[1] >= SLOT_MARK or eb[1] >= SLOT_MARK:
        return _slot_conflict(ea, eb, parses) if ea[1] >= SLOT_MARK <= eb[1] else None
    sa, sb = _statement_at(ea, parses), _statement_at(eb, parses)
    if sa is None or sb is None:
        return None
    said = _what_differs(sa, sb)
    if said is None:
        return None
    return Conflict(ea[0], sa.line, sa.text, eb[0], sb.line, sb.text, *said)


def _slot_conflict(
    ea: tuple[str, int, int], eb: tuple[str, int, int], parses: _Parses
) -> Conflict | None:
    """Two slots with the same words around them: a conflict when their units say the
    same but for the value (:func:`.slots.differ`)."""
    found = []
    for name, middle, held in (ea, eb):
        unit = parses.unit(name, middle)
        if unit is None:
            return None
        value = value_of(unit, held)
        if value is None:
            return None
        found.append((unit, value))
    (ua, va), (ub, vb) = found
    if not differ(ua, ub, va, vb):
        return None
    return Conflict(ea[0], ua.line, ua.text, eb[0], ub.line, ub.text, va, vb)


def _statement_at(entry: tuple[str, int, int], parses: _Parses) -> Statement | None:
    """The statement an entry (memory, statement's index, key) points at, or None when
    the memory is gone or no longer holds it."""
    parsed = parses.get(entry[0], statements=True)
    if parsed is None or entry[1] >= len(parsed.statements):
        return None
    return parsed.statements[entry[1]]


def _what_differs(sa: Statement, sb: Statement) -> tuple[str, str] | None:
    """What each of two statements says where they differ (a negation, or the one value
    that changed), or None when they say the same, differ in more, or one value only
    says the other more precisely."""
    if sa.template != sb.template or len(sa.values) != len(sb.values):
        return None
    differ = [i for i, (x, y) in enumerate(zip(sa.values, sb.values, strict=True)) if x != y]
    if sa.negated != sb.negated and not differ:
        return ("not" if sa.negated else ""), ("not" if sb.negated else "")
    if sa.negated != sb.negated or len(differ) != 1:
        return None
    va, vb = sa.values[differ[0]], sb.values[differ[0]]
    if _one_more_precise(va, vb) or _one_more_precise(vb, va):
        return None
    return va, vb


def _one_more_precise(short: str, long: str) -> bool:
    """Whether ``long`` says what ``short`` says, more precisely: a version with more
    parts (`1.8` / `1.8.2602`), a command with more arguments (`gh pr view` / `gh pr
    view --json state`) or a path with more folders (`build.py` / `scripts/build.py`).
    Not a contradiction."""
    return long.startswith((short + ".", short + " ")) or long.endswith("/" + short)


__all__ = ["detect", "find_duplicates"]
