"""What an agent or a person reading one memory is told about the code it mentions: the
note that ends `read_memory` (:func:`drift_note`; it goes to stderr on `serena memories
read`), the marks on the dashboard's memory page (:func:`drift_findings`) and the drifted
memories named at the start. One checker per project and process serves them all: the git
history it walked is kept while git's index and refs stay the same; the list of files is
taken again after :data:`CACHE_SECONDS`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from serena_memory.core import names as N
from serena_memory.core.process import PROCESS
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.checker import TRAIL_SECONDS_ON_READ, CodeChecker
from serena_memory.integrity.code_drift.code_report import CodeFinding
from serena_memory.integrity.code_drift.drawn_tops import placed_tops
from serena_memory.integrity.code_drift.fixes import Replacement, replacements
from serena_memory.integrity.code_drift.git import Repository, locate
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, Mention, extract
from serena_memory.integrity.code_drift.trails import paths_by_line
from serena_memory.integrity.code_drift.within_statements import told_once


@dataclass
class _Held:
    listed: float
    stamp: tuple[Any, ...]
    checker: CodeChecker
    repo: Repository | None


class _Listings(dict[str, _Held]):
    """Each project's listing of files this process holds for the read notes."""


def _listings() -> _Listings:
    return PROCESS.owned(_Listings)


CACHE_SECONDS = 5.0
"""How long a listing of the project's files serves the read notes (new untracked files
show up after this; a commit, a checkout or a staged change at once)."""


def _stamp(repo: Repository | None) -> tuple[Any, ...]:
    """What says git's view changed: its index, HEAD, the branch HEAD names, packed refs."""
    if repo is None:
        return ()
    out: list[Any] = []
    places = [(repo.git_dir, "index"), (repo.git_dir, "HEAD"), (repo.common_dir, "packed-refs")]
    ref = repo.head()
    if ref.startswith("ref: refs/"):
        places.append((repo.common_dir, ref[5:]))
    for folder, name in places:
        try:
            st = os.stat(os.path.join(folder, name))
            out.append((name, st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            out.append((name, None))
    return tuple(out)


def cached_checker(root: str) -> CodeChecker:
    """One checker per project and process for the read notes: the git history it walked
    is kept while git's index and refs stay the same; the list of files is taken again
    after :data:`CACHE_SECONDS`."""
    real = os.path.realpath(root)
    now = time.monotonic()
    held = _listings().get(real)
    if held is not None:
        stamp = _stamp(held.repo)
        if stamp == held.stamp:
            if now - held.listed < CACHE_SECONDS:
                return held.checker
            # the same commits and index: the history walked before still holds
            checker = CodeChecker(real, changed_commits=0, past=held.checker.walked)
            _listings()[real] = _Held(now, stamp, checker, held.repo)
            return checker
    checker = CodeChecker(real, changed_commits=0)
    repo = locate(real) if checker.files.git else None
    _listings()[real] = _Held(now, _stamp(repo), checker, repo)
    return checker


def memory_findings(
    root: str,
    name: str,
    text: str,
    *,
    symbols: bool = False,
    cache_home: str | None = None,
    written: str | None = None,
    seconds: float | None = None,
) -> list[CodeFinding]:
    """The missing and moved paths of one memory, in the order written; with ``symbols``
    its missing symbols too (where git saw them go) and, given the memory's file
    (``written``), the files that changed a lot since it did: what `check --code` finds
    for it. Cheap enough for every read; with ``seconds``, git's history is asked where
    symbols went only within that time from now (a search's marks)."""
    until = time.monotonic() + seconds if seconds is not None else None
    written_in = [m for m in extract(text) if symbols or m.kind == PATH]
    checker = _checker_for(root, written_in)
    if checker is None:
        return []
    mentions = checker.without_sketches([m for m in written_in if checker.kept(m)])
    when = checker.memory_time(written) if written is not None else None
    found = _path_findings(checker, name, [m for m in mentions if m.kind == PATH], when)
    named = [m for m in mentions if m.kind == SYMBOL] if symbols else []
    if named:
        near = paths_by_line({name: mentions})
        found = told_once(
            found + _symbol_findings(checker, name, named, (cache_home, when, until), near),
            {name: mentions},
        )
    return sorted(found, key=lambda f: (f.line, f.kind != PATH))


def _checker_for(root: str, written_in: list[Mention]) -> CodeChecker | None:
    """The read notes' checker of ``root``; None when there is nothing to look up (no
    mention: git is not asked) or nothing to look it up in (no code, as `check --code`)."""
    if not written_in:
        return None
    checker = cached_checker(root)
    return checker if checker.holds_code else None


def _symbol_findings(
    checker: CodeChecker,
    name: str,
    named: list[Mention],
    asked: tuple[str | None, float | None, float | None],
    near: dict[tuple[str, int], list[str]],
) -> list[CodeFinding]:
    """The findings of one memory's symbols; none once ``until`` (of ``asked``: the cache
    home, when the memory last changed, until when git may be asked) is past."""
    cache_home, when, until = asked
    left = TRAIL_SECONDS_ON_READ if until is None else until - time.monotonic()
    if left <= 0:
        return []
    trails = min(left, TRAIL_SECONDS_ON_READ)
    return checker.symbol_findings(name, named, cache_home, when, near, seconds=trails)


def _path_findings(
    checker: CodeChecker, name: str, paths: list[Mention], when: float | None
) -> list[CodeFinding]:
    """The findings of one memory's paths, git-ignored ones (now, or when it was
    written) left alone."""
    if checker.history:
        paths = placed_tops(paths, checker.past, checker.files, when)
    found = [f for f in (checker.check_path(name, m, when) for m in paths) if f is not None]
    if not found:
        return []
    return checker.without_left_alone(found, {name: when} if when is not None else None)


def read_note(
    root: str,
    name: str,
    text: str,
    *,
    cache_home: str | None = None,
    written: str | None = None,
    applying: str = "",
) -> str:
    """A short note naming what `check --code` finds in one memory ('' when nothing):
    missing and moved paths, missing symbols (with their new name and place when git saw
    them renamed or moved), files changed a lot since: what an agent reading it must not
    act on. Then the exact replacements git's answers allow, written as the memory
    writes them, and ``applying``: how the reader applies them all."""
    found, exact = drift_of(root, name, text, cache_home=cache_home, written=written)
    if not found:
        return ""
    settled = {id(f) for r in exact for f in r.findings}
    unsettled = [f for f in found if id(f) not in settled]
    parts = []
    if unsettled:
        told = _grouped(unsettled)
        shown = told[:READ_NOTE_ITEMS]
        more = f" and {len(told) - len(shown)} more" if len(told) > len(shown) else ""
        parts.append(
            "this memory mentions code that has changed: "
            + "; ".join(shown)
            + more
            + ". Don't rely on those mentions; verify in the code (and update the memory)."
            + (" Its" if exact else "")
        )
    if exact:
        # the replacements say what changed: told once, as the memory writes it
        lines = sorted({r.line for r in exact})
        where = f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"
        said = "exact replacements" if unsettled else "code this memory mentions has changed"
        parts.append(
            f"{said} ({where}): "
            + ", ".join(dict.fromkeys(r.told() for r in exact))  # each once
            + (f". {applying}" if applying else ".")
        )
    return "\n\n---\nNote: " + " ".join(parts)


class _Offered(dict[tuple[str, str], tuple[str, tuple[Any, ...], list[Replacement]]]):
    """Per project and memory, the text and git's state a read note was last given for, with
    the replacements it offered: what drift mode applies while both stay the same."""


def _offered() -> _Offered:
    return PROCESS.owned(_Offered)


def drift_of(
    root: str,
    name: str,
    text: str,
    *,
    cache_home: str | None = None,
    written: str | None = None,
) -> tuple[list[CodeFinding], list[Replacement]]:
    """One memory's findings and the exact replacements they allow: the one source of the
    read note and of drift mode, so that what a note offers is what the edit applies (a
    time-limited answer of git can't make them differ)."""
    found = memory_findings(root, name, text, symbols=True, cache_home=cache_home, written=written)
    exact = replacements(found)
    held = _listings().get(os.path.realpath(root))
    stamp = held.stamp if held is not None else ()
    _offered()[(os.path.realpath(root), name)] = (text, stamp, exact)
    return found, exact


def offered_replacements(
    root: str, name: str, text: str, *, cache_home: str | None = None, written: str | None = None
) -> list[Replacement]:
    """The replacements the last read note of ``name`` offered, when the memory's text and
    git's state are what they were then; else those :func:`drift_of` finds now."""
    real = os.path.realpath(root)
    last = _offered().get((real, name))
    held = _listings().get(real)
    if last is not None and held is not None and last[0] == text and last[1] == _stamp(held.repo):
        return last[2]
    return drift_of(root, name, text, cache_home=cache_home, written=written)[1]


READ_NOTE_ITEMS = 8
"""The findings a read note names; the rest are counted."""


def _grouped(found: list[CodeFinding]) -> list[str]:
    """What the note says of each drifted mention, once however many lines write it (as
    the start of a conversation counts them): with all its lines (`_escape` (lines 9, 14)
    is now ...), and news that differ by line told by line, in the order first written."""
    lines: dict[str, dict[str, list[int]]] = {}
    for f in found:
        held = lines.setdefault(f.mention, {}).setdefault(f.news(), [])
        if f.line not in held:
            held.append(f.line)
    told = []
    for mention, by_news in lines.items():
        parts = [
            f"(line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}) {news}"
            for news, numbers in by_news.items()
        ]
        told.append(f"`{mention}` " + ", ".join(parts))
    return told


def drift_note(store: MemoryStore, name: str, text: str, applying: str = "") -> str:
    """The note that ends a project memory's text when `check --code` finds something in
    it: paths missing or moved, symbols missing (and where git saw them go), files changed
    a lot since ('' when none, for a global memory, and whenever the check itself fails: a
    read never fails because of it)."""
    try:
        canonical = N.normalize_name(name)
        if N.is_global(canonical):
            return ""
        return read_note(
            str(store.layout.project_root),
            canonical,
            text,
            cache_home=str(store.layout.home),
            written=str(store.real_path_of(canonical)),
            applying=applying,
        )
    except Exception:
        return ""


def drift_findings(store: MemoryStore, name: str, text: str) -> list[CodeFinding]:
    """The paths of a project memory that are missing or moved now, for marks next to
    them (none for a global memory, and none whenever the check itself fails)."""
    try:
        canonical = N.normalize_name(name)
        if N.is_global(canonical):
            return []
        return memory_findings(str(store.layout.project_root), canonical, text)
    except Exception:
        return []


def code_facts(store: MemoryStore) -> Callable[[str, str], tuple[list[tuple[str, str]], bool]]:
    """What an OKF export says of the code a project memory names: the files it names that
    exist, each with the ISO time of its last commit (of its last change, untracked), and
    whether it names code and the check finds every path and symbol of it as written."""
    root = os.path.realpath(store.layout.project_root)
    times: dict[str, str | None] = {}
    tracked: list[set[str]] = []  # git's tracked files, listed on first need

    def changed(target: str) -> str | None:
        if target.startswith(".serena/"):  # the memories themselves are no code
            return None
        if not tracked:
            tracked.append(_tracked(root))
        if target not in times:
            times[target] = _last_change(root, target, target.rstrip("/") in tracked[0])
        return times[target]

    def facts(name: str, text: str) -> tuple[list[tuple[str, str]], bool]:
        mentions = extract(text)
        if not mentions:
            return [], False
        checker = cached_checker(root)
        kept = [m for m in mentions if checker.kept(m)]
        files = []
        for target in dict.fromkeys(m.target for m in kept if m.kind == PATH):
            when = changed(target)
            if when is not None:
                files.append((target.rstrip("/"), when))
        found = memory_findings(root, name, text, symbols=True, cache_home=str(store.layout.home))
        return files, bool(kept) and not found

    return facts


def _tracked(root: str) -> set[str]:
    """The files git tracks in the project, with their folders ('' none: no git)."""
    from serena_memory.integrity.code_drift.git import GitUnavailable, run_git

    try:
        listed = run_git(root, "ls-files", "-z").decode("utf-8", "replace").split("\0")
    except GitUnavailable:
        return set()
    out = {f for f in listed if f}
    for path in list(out):
        while "/" in path:
            path = path.rsplit("/", 1)[0]
            out.add(path)
    return out


def _last_change(root: str, target: str, tracked: bool) -> str | None:
    """When the project file ``target`` last changed: its last commit's time when git
    tracks it, else its modification time; None when it is not a file or folder of the
    project."""
    from datetime import UTC, datetime

    from serena_memory.core import paths
    from serena_memory.integrity.code_drift.git import GitUnavailable, run_git

    path = os.path.join(root, target)
    if not os.path.exists(path) or not paths.is_inside(os.path.realpath(path), (root,)):
        return None
    told = ""
    if tracked:
        try:
            told = run_git(root, "log", "-1", "--format=%cI", "--", target).decode().strip()
        except GitUnavailable:
            told = ""
    if told:
        return datetime.fromisoformat(told).astimezone(UTC).isoformat()
    return datetime.fromtimestamp(os.stat(path).st_mtime, UTC).isoformat()
