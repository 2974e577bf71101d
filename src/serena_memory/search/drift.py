"""What a search says of the code its hits mention that changed since: a mark beside a
shown line whose mention the code check finds missing, moved or renamed now, and, for an
exact term of the query no memory holds as written, the memories holding its old name or
path (a query for the new name leads to the memories that still say the old one).

The findings are the read note's (integrity.code_drift, a layer above search), asked
through the store's ``advisors.drift`` (serena_memory.wiring gives it; a store built without
one has no marks), so that search imports nothing above it. Only the hits returned are
checked, and the memories the answer considered when a term is not held, a bounded few,
within :data:`DRIFT_SECONDS` of asking git; memories whose text holds no code span and no
path ask nothing, a folder outside git asks git
nothing, a global memory has no marks, and a check that fails gives no marks: a search
never fails because of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from serena_memory.core import names as N
from serena_memory.search.hits import (
    MAX_LINES_PER_HIT,
    LineDrift,
    Renamed,
    SearchHit,
    lines_at,
)
from serena_memory.search.query import exact_pattern

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

DRIFT_SECONDS = 0.4
"""How long one search may spend on the code check (git's answers are kept for the next)."""
CHECKED_HITS = 10
"""The hits whose shown lines are checked, at most (the first ones)."""
CHECKED_MEMORIES = 20
"""The memories checked in all, at most, when a term is not held (hits first, then the
other memories the answer ranked, best first)."""
NAMED_HOLDERS = 4
"""The memories a sentence about a term's old name names, at most."""

Entry = tuple[str, int, float, str]  # a ranked memory: name, rowid, score, why


_REFERENCE = re.compile(r"(?<![\w.-])mem:[\w/.-]*\w")
_CODE_HINT = re.compile(r"`|\S/|\/\S|\S\.[A-Za-z][A-Za-z0-9]")


def may_mention_code(text: str) -> bool:
    """Whether ``text`` may mention code: the check finds mentions only in code spans,
    in paths with a ``/`` and in file names (``login.py``) (integrity.code_drift.mentions),
    never in a ``mem:`` reference."""
    return bool(_CODE_HINT.search(_REFERENCE.sub(" ", text) if "mem:" in text else text))


def considered(
    hits: list[SearchHit],
    entries: list[Entry],
    candidates: list[Entry],
    body: Callable[[int], str | None],
    terms: bool,
) -> list[tuple[str, str]]:
    """The memories (name, text) to check: the first hits whose shown lines may mention
    code, and, when the query has ``terms`` no memory holds, every hit and then the
    candidates, up to :data:`CHECKED_MEMORIES`."""
    out: list[tuple[str, str]] = []
    for hit, (name, rowid, *_) in list(zip(hits, entries, strict=False))[:CHECKED_HITS]:
        text = "" if N.is_global(name) else body(rowid) or ""
        lines = text.split("\n")
        shown = [lines[n - 1] for n, _ in hit.lines if 0 < n <= len(lines)]
        if any(may_mention_code(line) for line in shown) or (terms and may_mention_code(text)):
            out.append((name, text))
    return out + (_candidates(candidates, body, CHECKED_MEMORIES - len(out)) if terms else [])


def _candidates(
    candidates: list[Entry], body: Callable[[int], str | None], room: int
) -> list[tuple[str, str]]:
    """The first ``room`` candidates, best first, that may mention code."""
    out: list[tuple[str, str]] = []
    for name, rowid, *_ in candidates:
        if len(out) >= room:
            break
        text = "" if N.is_global(name) else body(rowid) or ""
        if may_mention_code(text):
            out.append((name, text))
    return out


def findings(
    store: MemoryStore, memories: list[tuple[str, str]], seconds: float = DRIFT_SECONDS
) -> dict[str, list[LineDrift]]:
    """The drifted mentions of ``memories`` (name -> those found, in line order), from
    the code check (``memories``: those :func:`considered` chose); nothing for a global
    memory, and whenever the check fails."""
    wanted = [(n, t) for n, t in memories if not N.is_global(n)]
    source = store.advisors.drift
    if not wanted or source is None:
        return {}
    try:
        found = source(str(store.layout.project_root), str(store.layout.home), wanted, seconds)
        return {name: [LineDrift(*row) for row in rows] for name, rows in found.items() if rows}
    except Exception:  # noqa: BLE001 - the marks are a help: a search never fails for them
        return {}


def marked(hit: SearchHit, found: Iterable[LineDrift], terms: Iterable[str] = ()) -> SearchHit:
    """``hit`` with one mark per shown line holding a drifted mention: one written with a
    term of the query, or now named by it, first (the agent asked for it), then one
    whose new name or place is known."""
    patterns = [exact_pattern(_bare(t)) for t in terms if t.strip()]
    drift = []
    found = list(found)

    def rank(d: LineDrift) -> tuple[bool, bool]:
        asked = any(p.search(d.mention) or _now_is(p, d) for p in patterns)
        return (not asked, not (d.new_name or d.new_path))

    for number, _ in hit.lines:
        here = [d for d in found if d.line == number]
        if here:
            drift.append(min(here, key=rank))
    return hit._replace(drift=tuple(drift))


def _bare(term: str) -> str:
    """A term as a name: without the call's parentheses (``_escape_str()``)."""
    return re.sub(r"\([^()]*\)$", "", term.strip()).strip() or term


def renamed(
    terms: Iterable[str], order: list[str], found: dict[str, list[LineDrift]]
) -> list[Renamed]:
    """For each term, the memories (in ``order``, at most :data:`NAMED_HOLDERS`) holding
    mentions whose new name, or paths whose new path, is the term or holds it as a whole
    name or path: every such line of each."""
    out = []
    for term in terms:
        pattern = exact_pattern(_bare(term))
        held: list[tuple[str, int, str]] = []
        kinds: list[str] = []
        memories = 0
        for name in order:
            matches = [d for d in found.get(name, ()) if _now_is(pattern, d)]
            if matches and memories < NAMED_HOLDERS:
                memories += 1
                held += [(name, d.line, _old_name(d)) for d in matches]
                kinds += [d.kind for d in matches]
        if held:
            kind = kinds[0] if len(set(kinds)) == 1 else "name or path"
            out.append(Renamed(term, kind, tuple(held)))
    return out


def _old_name(d: LineDrift) -> str:
    """The name a drifted mention was written with: a signature's or a call's name
    (``_escape(s: str) -> str`` -> ``_escape``), a path as written."""
    if d.kind == "path":
        return d.mention
    found = _NAME_OPENING.match(d.mention)
    return found.group(1) if found else d.mention


_NAME_OPENING = re.compile(r"^(?:(?:async\s+)?def\s+|class\s+|function\s+)?([\w.:#]+)")


def _now_is(pattern: re.Pattern[str], d: LineDrift) -> bool:
    if d.new_name and pattern.search(d.new_name):
        return True
    return d.kind == "path" and bool(d.new_path) and bool(pattern.search(d.new_path))


def showing(hit: SearchHit, text: str, told: Renamed, held: list[tuple[int, str]]) -> SearchHit:
    """``hit`` showing the lines that hold the old names of ``told.term`` (``held``: line,
    old name) first, with why it is shown."""
    numbers = list(dict.fromkeys(line for line, _ in held))[:MAX_LINES_PER_HIT]
    first = lines_at(text, numbers, [exact_pattern(m) for _, m in held])
    rest = [
        (n, t, s)
        for (n, t), s in zip(hit.lines, hit.line_marks or ((),) * len(hit.lines), strict=True)
        if n not in numbers
    ]
    lines = sorted(first + rest[: max(MAX_LINES_PER_HIT - len(first), 0)])
    what = told.kind if told.kind in ("path", "name or path") else "name"
    return hit._replace(
        lines=[(n, t) for n, t, _ in lines],
        line_marks=tuple(s for _, _, s in lines),
        why=f"old {what} of {told.term}",
    )
