"""The drifted memories named where an agent starts and marked in `list_memories`: the
project memories that mention paths missing or moved now, or symbols no source file holds
(renamed, removed or never there), found within a short time from the read notes' list of
files and the kept scan of the source files' identifiers.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from serena_memory.core import names as N
from serena_memory.core.display import counted
from serena_memory.core.process import PROCESS
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.listing import MemoryListingReader

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.checker import CodeChecker
    from serena_memory.integrity.code_drift.code_report import CodeFinding
    from serena_memory.integrity.code_drift.mentions import Mention

DRIFT_COUNT_SECONDS = 0.5
"""How long the activation message may spend finding drifted memories."""
DRIFT_NAMES_SHOWN = 8
"""The drifted memories the activation message names; the rest are counted."""
START_SCAN_FILES = 3000
"""Up to this many files, the source files' identifiers are scanned at the start when no
scan is kept yet (a larger project's symbols are checked at the start once a check or a
read kept a scan for git's index as it is)."""

Drifted = tuple[dict[str, int], bool]
"""The drifted memories with how many of their mentions drifted, and whether the search
stopped when time ran out."""


class _Found(dict[str, tuple[float, Drifted]]):
    """Each folder's drifted memories as this process last found them, with when."""


def drifted_memories(
    store: MemoryStore, among: Iterable[str] | None = None
) -> tuple[list[str], bool]:
    """The project memories (all, or those ``among`` the names given) that mention code
    missing, moved or renamed now, sorted, and whether the search stopped after
    :data:`DRIFT_COUNT_SECONDS` (then there may be more); nothing when the check itself
    fails."""
    counts, partial = _drifted_counts(store, among)
    return sorted(counts), partial


def _drifted_counts(store: MemoryStore, among: Iterable[str] | None) -> Drifted:
    """:func:`drifted_memories` with the counts; the search of all serves the same process
    for as long as the read notes' list of files (``CACHE_SECONDS``)."""
    from serena_memory.integrity.code_drift.read_note import CACHE_SECONDS

    if among is not None:
        among = [n for n in among if not N.is_global(n)]
        if not among:
            return {}, False  # nothing to look up: git is not asked
    key = str(store.layout.project_root)
    held = PROCESS.owned(_Found).get(key)
    if held is not None and time.monotonic() - held[0] < CACHE_SECONDS:
        counts, partial = held[1]
        if among is None or not partial:
            wanted = None if among is None else set(among)
            return {n: c for n, c in counts.items() if wanted is None or n in wanted}, partial
    if among is not None:
        return _search(store, sorted(set(among)))
    found = _search(store)
    PROCESS.owned(_Found)[key] = (time.monotonic(), found)
    return found


def _search(store: MemoryStore, among: list[str] | None = None) -> Drifted:
    """Every (or each named) project memory's drifted mentions counted: each path looked
    up once, git asked about ignored files once for all memories, the symbols' words
    looked up in one scan of the source files."""
    from serena_memory.integrity.code_drift.read_note import cached_checker

    try:
        checker = cached_checker(str(store.layout.project_root))
        if not checker.holds_code:
            return {}, False
        unresolved, symbols, partial = _unresolved(store, checker, among)
        # one question to git for every memory's unresolved paths (ignored ones are left alone)
        kept = checker.without_left_alone(unresolved) if unresolved else []
        counts: dict[str, int] = {}
        # each drifted mention once, however many lines write it: as the read note tells it
        told = {(f.memory, f.mention) for f in kept} | _missing_symbols(store, checker, symbols)
        for name, _mention in told:
            counts[name] = counts.get(name, 0) + 1
    except Exception:
        return {}, False
    return counts, partial


def _unresolved(
    store: MemoryStore, checker: CodeChecker, among: list[str] | None
) -> tuple[list[CodeFinding], list[tuple[str, Mention]], bool]:
    """The paths no file of the project has, the symbols to look up, and whether time ran
    out (after :data:`DRIFT_COUNT_SECONDS`) before every memory was read."""
    from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, extract

    started = time.monotonic()
    listing = MemoryListingReader(store)
    found: dict[str, bool] = {}  # target -> found in the project's files
    unresolved: list[CodeFinding] = []
    symbols: list[tuple[str, Mention]] = []
    for name in listing.names if among is None else among:
        if N.is_global(name):
            continue
        if time.monotonic() - started > DRIFT_COUNT_SECONDS:
            return unresolved, symbols, True
        texts, _u, _r = listing.read([name])
        for m in checker.without_sketches(extract(texts.get(name, ""))):
            if m.kind == SYMBOL:
                symbols.append((name, m))
            elif m.kind == PATH and checker.kept(m):
                told = _path_told(checker, found, name, m)
                if told is not None:
                    unresolved.append(told)
    return unresolved, symbols, False


def _path_told(
    checker: CodeChecker, found: dict[str, bool], name: str, m: Mention
) -> CodeFinding | None:
    """A path of memory ``name`` that names no file now (``found``: target -> found, the
    answers so far). A module, a relative path, a link, a name in a tree or a weak name
    is asked of the checker: git's history tells what it named."""
    from serena_memory.integrity.code_drift.code_report import MISSING, MOVED, CodeFinding
    from serena_memory.integrity.code_drift.mentions import PATH

    if m.form or m.weak or m.linked or m.placed or m.loose:
        told = checker.check_path(name, m, None)
        return told if told is not None and told.status in (MISSING, MOVED) else None
    exists = found.get(m.target)
    if exists is None:
        exists = found[m.target] = checker.files.resolve(m.target) is not None
    return None if exists else CodeFinding(name, m.line, m.text, PATH, MISSING, m.target)


def _missing_symbols(
    store: MemoryStore, checker: CodeChecker, symbols: list[tuple[str, Mention]]
) -> set[tuple[str, str]]:
    """The memory and the text of each mentioned symbol no source file holds, when
    the source files' identifiers are cheap to have: a kept scan for git's index as it is,
    or a project of at most :data:`START_SCAN_FILES` files."""
    if not symbols or not checker.files.git:
        return set()
    from serena_memory.integrity.code_drift.identifier_cache import kept_for_index

    home = str(store.layout.home)
    if len(checker.files.files) > START_SCAN_FILES and not kept_for_index(checker.root, home):
        return set()
    present = checker.present_words({w for _name, m in symbols for w in m.words}, home)
    return {(name, m.text) for name, m in symbols if any(w not in present for w in m.words)}


def drift_summary(store: MemoryStore) -> str:
    """One sentence for the activation message: under how many project memories code is
    missing, moved or renamed now ("code changed"), naming the first
    :data:`DRIFT_NAMES_SHOWN` with how many of their mentions drifted, and how to fix them
    ('' when none)."""
    counts, partial = _drifted_counts(store, None)
    if not counts:
        return ""
    names = sorted(counts)
    count = ("at least " if partial else "") + counted(len(names), "memory", "memories")
    first = "mention" if counts[names[0]] == 1 else "mentions"
    shown = ", ".join(
        f"'{n}' ({counts[n]}{' ' + first if i == 0 else ''})"
        for i, n in enumerate(names[:DRIFT_NAMES_SHOWN])
    )
    if len(names) > DRIFT_NAMES_SHOWN:
        shown += f" and {len(names) - DRIFT_NAMES_SHOWN} more"
    return (
        f"Code changed under {count}: {shown}; reading one gives the fixes; "
        "edit_memory(mode='drift') applies them."
    )
