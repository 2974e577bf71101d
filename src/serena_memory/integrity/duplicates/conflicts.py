"""Conflicting statements: two memories that say the same thing but for one value or a
negation. Statements (and slots: a value with the same words around it) meet by a key
they share; a key held by more memories than :data:`MAX_KEY_MEMORIES`, or by one memory
with several values, is a field or a list, not one claim; only the pairs that meet are
compared word for word."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from serena_memory.integrity.duplicates import (
    commands,
    fields,
    files,
    languages,
    named,
    orders,
    policies,
    tools,
)
from serena_memory.integrity.duplicates.buckets import bucket_pairs
from serena_memory.integrity.duplicates.commands import option_held
from serena_memory.integrity.duplicates.findings import Conflict, as_written
from serena_memory.integrity.duplicates.named import value_named
from serena_memory.integrity.duplicates.slot_compare import differ, restated
from serena_memory.integrity.duplicates.slots import NEARBY, SLOT_MARK, value_of
from serena_memory.integrity.duplicates.text import Statement

if TYPE_CHECKING:
    from serena_memory.integrity.duplicates.detect import _Parses
    from serena_memory.integrity.duplicates.features import Features

MAX_KEY_MEMORIES = 4
"""A statement key more memories share is a pattern, not one statement restated."""


def find_conflicts(
    kept: list[str], features: Mapping[str, Features], parses: _Parses
) -> list[Conflict]:
    """Statements of two memories alike but for one value or a negation."""
    found: dict[tuple[str, int, str, int], Conflict] = {}
    met: set[tuple[tuple[str, int, int], tuple[str, int, int]]] = set()
    arrays = [features[n].statement_keys for n in kept]  # each memory's rows, taken once
    for members, rows in _key_groups(arrays):
        entries = [(kept[m], i, v) for m, (_k, i, v) in zip(members, rows.tolist(), strict=True)]
        for a, b in bucket_pairs(sorted(_not_listed(entries))):
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
    told = _not_records([found[k] for k in sorted(found)], arrays, parses)
    return [
        replace(
            c,
            first_value=as_written(c.first_value, c.first_text),
            second_value=as_written(c.second_value, c.second_text),
        )
        for c in told
    ]


def _not_records(found: list[Conflict], arrays: list, parses: _Parses) -> list[Conflict]:
    """The conflicts but those of a record's field (:mod:`.fields`): a line starting
    with a label that many memories fill in, each for itself (``arrays``: each memory's
    statement rows)."""
    if not found:
        return found
    import numpy as np

    owners = np.repeat(np.arange(len(arrays)), [len(a) for a in arrays])
    rows = np.concatenate([np.zeros((0, 3), np.uint32), *arrays])
    held = fields.record_fields(rows, owners)
    if not held:
        return found

    def field(name: str, line: int) -> bool:
        text = parses.line(name, line << 3)
        return text is not None and fields.in_field(text, held)

    return [
        c for c in found if not (field(c.first, c.first_line) or field(c.second, c.second_line))
    ]


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
    slot = (every[starts, 1] >= SLOT_MARK) & (every[starts, 1] & NEARBY == 0)
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
    same but for the value (:func:`.slot_compare.differ`; met by a word near the values,
    :func:`.slot_compare.restated`)."""
    loose = bool((ea[1] | eb[1]) & NEARBY)
    told = None if loose else _line_conflict(ea, eb, parses)
    if told is not None:
        return told
    ua, ub = parses.unit(ea[0], ea[1]), parses.unit(eb[0], eb[1])
    if ua is None or ub is None:
        return None
    va, vb = value_of(ua, ea[2]), value_of(ub, eb[2])
    if va is not None and vb is not None:
        if not (restated if loose else differ)(ua, ub, va, vb):
            return None
        return Conflict(ea[0], ua.line, ua.text, eb[0], ub.line, ub.text, va, vb)
    na, nb = value_named(ua, ea[2]), value_named(ub, eb[2])
    if na is not None and nb is not None:
        if not named.contradict(ua, ub, na, nb):
            return None
        return Conflict(ea[0], ua.line, ua.text, eb[0], ub.line, ub.text, na.word, nb.word)
    oa, ob = option_held(ua, ea[2]), option_held(ub, eb[2])
    if oa is None or ob is None or not commands.contradict(ua, ub, oa, ob):
        return None
    first, second = commands.said(*oa), commands.said(*ob)
    return Conflict(ea[0], ua.line, ua.text, eb[0], ub.line, ub.text, first, second)


def _line_conflict(
    ea: tuple[str, int, int], eb: tuple[str, int, int], parses: _Parses
) -> Conflict | None:
    """Two rows of whole lines (tools, policies, orders, files, languages: told apart by
    their piece bits) read by the rule that made them."""
    piece = ea[1] & 7
    if piece != eb[1] & 7:
        return None
    if piece == tools.TOOL_PIECE:
        return _tool_conflict(ea, eb, parses)
    rule = _LINE_RULES.get(piece)
    if rule is None:
        return None
    la, lb = parses.line(ea[0], ea[1]), parses.line(eb[0], eb[1])
    if la is None or lb is None:
        return None
    said = rule(la, lb, ea[2], eb[2])
    if said is None:
        return None
    first, second = " ".join(la.split()), " ".join(lb.split())
    return Conflict(ea[0], _line_of(ea[1]), first, eb[0], _line_of(eb[1]), second, *said)


_LINE_RULES: dict[int, Callable[[str, str, int, int], tuple[str, str] | None]] = {
    policies.POLICY_PIECE: policies.contradict,
    orders.ORDER_PIECE: lambda la, lb, _a, _b: orders.contradict(la, lb),
    files.FILE_PIECE: files.contradict,
    languages.LANGUAGE_PIECE: languages.contradict,
}
"""The rules that read two whole lines, by the piece bits of their rows' places: each
gives what the two lines say where they disagree, or None."""


def _line_of(where: int) -> int:
    """The line number of a line rule's row place."""
    return where >> 3 & _PLACE_LINES


_PLACE_LINES = (1 << 27) - 1


def _tool_conflict(
    ea: tuple[str, int, int], eb: tuple[str, int, int], parses: _Parses
) -> Conflict | None:
    """Two lines naming two tools of one kind beside one role word (:mod:`.tools`)."""
    la, lb = parses.line(ea[0], ea[1]), parses.line(eb[0], eb[1])
    if la is None or lb is None:
        return None
    ta, tb = tools.tool_at(la, ea[2]), tools.tool_at(lb, eb[2])
    if ta is None or tb is None:
        return None
    text_a, text_b = parses.text(ea[0]), parses.text(eb[0])
    if text_a is None or text_b is None or not tools.contradict((la, lb), (text_a, text_b), ta, tb):
        return None
    first, second = " ".join(la.split()), " ".join(lb.split())
    return Conflict(ea[0], _line_of(ea[1]), first, eb[0], _line_of(eb[1]), second, ta, tb)


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
