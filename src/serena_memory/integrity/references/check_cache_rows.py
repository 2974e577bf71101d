"""What the check cache stores, as text, and how it is read back: the rows of memories
(references and findings as compact JSON) and what the name indexes answered.

Text read back is used only when it has exactly the shape this module writes (one pattern
per text), so it decodes to the right types and needs no check value by value; anything
else (damaged, hand-edited, from another version) is analysed again, never trusted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from serena_memory.integrity.references.check_report import BareMention, StaleReference

Refs = list[tuple[str, tuple[int, ...]]]
Answers = dict[tuple[str, str], Any]  # {(kind, question): answer}, see IntegrityAnalyzer

# The exact shape of the JSON this module writes (json.dumps, compact separators): a row
# that matches decodes to the right types, so it needs no check value by value.
_STR = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # unrolled: runs of plain characters at C speed
_INT = r"(?:0|[1-9][0-9]*)"


def _list_of(item: str) -> str:
    return rf"\[(?:{item}(?:,{item})*)?\]"


def _tuple_of(*items: str) -> str:
    return r"\[" + ",".join(items) + r"\]"


_INTS, _STRS = _list_of(_INT), _list_of(_STR)
_STALE = _list_of(_tuple_of(_STR, _INTS, _STRS))
_BARE = _list_of(_tuple_of(_STR, _INTS, "(?:true|false)"))
_NEAR = _list_of(_tuple_of(_STR, _INT, _STR))
FOUND_SHAPE = re.compile(rf'\{{"stale":{_STALE},"bare":(?:null|{_BARE}),"near":(?:null|{_NEAR})\}}')
REFS_SHAPE = re.compile(_list_of(_tuple_of(_STR, _INTS)))


# one encoder for every text (json.dumps with separators makes a new one each call)
_compact = json.JSONEncoder(separators=(",", ":")).encode


# -- one memory's row --------------------------------------------------------------------------
# columns of a row of `memo`
NAME, INO, MTIME, SIZE, RACY, SHA, REFS, NAMES, FOUND = range(9)


def row_findings(
    row: tuple[Any, ...], names_key: str, include_unmarked: bool, fuzzy: bool
) -> dict[str, Any] | None:
    """What the row says `check` reports about its memory, when it holds that for this
    set of names and these options and has the shape this module writes; else None."""
    raw = row[FOUND]
    if (
        row[NAMES] != names_key
        or not isinstance(raw, str)
        or not isinstance(row[REFS], str)
        or FOUND_SHAPE.fullmatch(raw) is None
    ):
        return None
    try:
        found: dict[str, Any] = json.loads(raw)
    except ValueError:  # a bad escape inside a string
        return None
    if (include_unmarked and found["bare"] is None) or (fuzzy and found["near"] is None):
        return None
    return found


def row_refs(row: tuple[Any, ...]) -> Refs | None:
    raw = row[REFS]
    if not isinstance(raw, str) or REFS_SHAPE.fullmatch(raw) is None:
        return None
    try:
        return [(target, tuple(lines)) for target, lines in json.loads(raw)]
    except ValueError:
        return None


# -- what the name indexes answered ---------------------------------------------------------
def answer_json(kind: str, answer: Any) -> str:
    if kind == "near":
        return _compact([[score, name] for score, name in answer])
    return _compact(list(answer))


def answer_value(kind: str, raw: Any, existing: frozenset[str]) -> Any:
    """A kept answer, if it has the shape this module writes and names only existing
    memories; else None (asked again)."""
    try:
        data = json.loads(raw)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, list):
        return None
    if kind == "near":
        ranked = []
        for item in data:
            if not isinstance(item, list) or len(item) != 2:
                return None
            score, name = item
            if type(score) is not float or not isinstance(name, str) or name not in existing:
                return None
            ranked.append((score, name))
        return ranked
    if kind == "candidates":
        if not all(isinstance(name, str) and name in existing for name in data):
            return None
        return tuple(data)
    return None


def found_json(
    stale: list[StaleReference], bare: list[BareMention] | None, near: list[BareMention] | None
) -> str:
    return _compact(
        {
            "stale": [[s.target, list(s.lines), list(s.candidates)] for s in stale],
            "bare": None
            if bare is None
            else [[m.name, list(m.lines), m.high_confidence] for m in bare],
            "near": None if near is None else [[m.name, m.occurrences, m.token] for m in near],
        },
    )


def decoded(raws: list[str]) -> list[Any]:
    """Each JSON text decoded (None: it can't be), in one call to the decoder when every
    one can (each is a whole JSON value, so joined they are the list of them)."""
    try:
        return list(json.loads("[" + ",".join(raws) + "]"))
    except ValueError:  # a bad escape inside a string somewhere: one at a time
        found: list[Any] = []
        for raw in raws:
            try:
                found.append(json.loads(raw))
            except ValueError:
                found.append(None)
        return found


def as_refs(data: list[Any] | None) -> Refs | None:
    return None if data is None else [(target, tuple(lines)) for target, lines in data]


def refs_json(refs: Refs) -> str:
    return _compact([[t, list(li)] for t, li in refs])
