"""Where a symbol that is gone from the code went, as git's history shows it: the commit
that removed the last of its name (``git log -S``, the whole word), and in that commit's
diff the line that took the place of its definition or of a line using it, with another
name in the same place ("`build_index` is now `build_search_index` in `src/index.py`"). A name taken
away with nothing in its place was removed in that commit.

Each question is one bounded ``git log`` and one ``git show`` run with the safe settings
of :mod:`~serena_memory.integrity.code_drift.git` and a time limit; the answers are kept per
process for as long as HEAD is the same commit.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from serena_memory.core.process import PROCESS
from serena_memory.integrity.code_drift.git import GitUnavailable, run_git
from serena_memory.integrity.code_drift.symbols import DOC_EXTENSIONS

TRAIL_TIMEOUT = 5.0
"""How long one question to git about a symbol may take."""
MAX_HOPS = 3
"""Renames followed, one after the other, until a name that exists now."""

MAX_LINE = 400
"""Longer diff lines are data, not code: never paired."""
MAX_ADDED = 20_000
"""Added lines of one commit paired at most."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFINITION = re.compile(
    r"^\s*(?:export\s+|pub(?:\([^)]*\))?\s+|public\s+|private\s+|protected\s+|static\s+"
    r"|async\s+|default\s+)*(?:def|class|function|fn|func|const|let|var|type|interface"
    r"|struct|enum|trait|module|object|val)\s+\*?([A-Za-z_][A-Za-z0-9_]*)"
)


@dataclass(frozen=True)
class SymbolTrail:
    """What git's history says of a name gone from the code: ``commit`` removed it, and
    ``new_name`` in ``new_file`` took its place (both empty: removed, nothing instead)."""

    commit: str  # '': git never saw the name go (since the memory last changed)
    new_name: str = ""
    new_file: str = ""
    since: bool = False  # only the history since the memory last changed was asked
    new_files: tuple[str, ...] = ()  # every file where the new name took the old one's
    # place in that commit, ``new_file`` first (a C function and its Python twin)
    importers: tuple[str, ...] = ()  # those of ``new_files`` that import the new name
    # from another file (`import {quoteCommand} from './quote.js'`): users, not its home

    def describe(self) -> str:
        short = self.commit[:10]
        if not self.commit and self.since:
            return "gone before the memory last changed, or never in the code"
        if not self.commit:
            return "never in the git history: a plan or a typo?"
        if not self.new_name:
            return f"removed in commit {short}"
        return f"now `{self.new_name}` in `{self.new_file}`, commit {short}"


_PATHSPEC = [".", ":(exclude).serena", *(f":(exclude,glob)**/*.{e}" for e in DOC_EXTENSIONS)]


class _Trails(dict[tuple[str, str, str, int | None], SymbolTrail | None]):
    """Each symbol's trail through git's history, as this process found it."""


def trail(
    root: str,
    head: str,
    name: str,
    exists: Callable[[str], bool],
    until: float | None = None,
    since: float | None = None,
) -> SymbolTrail | None:
    """Where ``name`` (an identifier in no source file now) went, as the history up to
    ``head`` (a commit) shows, since the time ``since`` (when the memory last changed: the
    walk stays short) or ever: followed through up to :data:`MAX_HOPS` renames until a
    name that ``exists``; None when git can't tell (or not before the monotonic time
    ``until``)."""
    first: SymbolTrail | None = None
    current = name
    for _ in range(MAX_HOPS):
        step = _kept_step(root, head, current, until, since)
        if first is None and step is not None and not step.commit and since is not None:
            # nothing since the memory changed (an edit after the rename, say): ask it all
            step = _kept_step(root, head, current, until, None)
        if step is None or (first is not None and not step.commit):
            return first
        # the first rename's commit, the last one's name and files
        first = (
            step
            if first is None
            else SymbolTrail(
                first.commit,
                step.new_name,
                step.new_file,
                new_files=step.new_files,
                importers=step.importers,
            )
        )
        if not step.new_name or exists(step.new_name):
            return first
        current = step.new_name
    return first


def _kept_step(
    root: str, head: str, name: str, until: float | None, since: float | None
) -> SymbolTrail | None:
    """One step of :func:`trail`, asked of git once per process and HEAD."""
    key = (root, head, name, None if since is None else int(since))
    kept = PROCESS.owned(_Trails)
    if key not in kept:
        left = TRAIL_TIMEOUT if until is None else min(TRAIL_TIMEOUT, until - time.monotonic())
        if left <= 0:
            return None
        kept[key] = _one_step(root, name, left, since)
    return kept[key]


def _one_step(root: str, name: str, timeout: float, since: float | None) -> SymbolTrail | None:
    """The commit that removed the last of ``name`` and what took its place there."""
    after = [] if since is None else [f"--since=@{int(since) + 1}"]  # commits after it
    try:
        commit = run_git(
            root,
            "log",
            "-1",
            *after,
            "--format=%H",
            "--no-ext-diff",
            "--no-textconv",
            "--pickaxe-regex",
            "-S",
            f"(^|[^A-Za-z0-9_]){name}([^A-Za-z0-9_]|$)",  # the whole word, not a part
            "--",
            *_PATHSPEC,
            timeout=timeout,
        ).decode()
        commit = commit.strip()
        if not commit:
            return SymbolTrail("", since=since is not None)
        diff = run_git(
            root,
            "show",
            "-U0",
            "-M",
            "--relative",
            "--format=",
            "--no-ext-diff",
            "--no-textconv",
            commit,
            "--",
            *_PATHSPEC,
            timeout=timeout,
        ).decode("utf-8", "replace")
    except GitUnavailable:
        return None
    removed, added = _changed_lines(diff)
    found = _replacement(name, removed, added) or _renamed_module(name, diff)
    if found is None:
        return SymbolTrail(commit)
    defined = [path for text, path in added if _defines(text, found[0])]
    files = [*_module_files(name, found[0], diff), *defined, found[1]]
    files += _files_renamed_in(name, found[0], removed, added)
    kept = tuple(dict.fromkeys(files))  # in order, each once
    importers = _importers(found[0], added)
    return SymbolTrail(commit, found[0], kept[0], new_files=kept, importers=importers)


_IMPORT_LINE = re.compile(
    r"^\s*(?:import\b|from\s+\S+\s+import\b|(?:const|let|var)\b.*\brequire\s*\()"
)
"""A line that imports names from another file (JavaScript, TypeScript, Python)."""


def _importers(name: str, added: list[tuple[str, str]]) -> tuple[str, ...]:
    """The files whose added lines import ``name`` from another file: they use it, the
    file that defines it is elsewhere."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    return tuple(
        dict.fromkeys(
            path for text, path in added if _IMPORT_LINE.match(text) and word.search(text)
        )
    )


_RENAME = re.compile(r"^rename from ([^\n\"]+)\nrename to ([^\n\"]+)$", re.MULTILINE)


def _renamed_module(name: str, diff: str) -> tuple[str, str] | None:
    """(new name, file) when the commit renamed the one file of a module named ``name``
    (``pricing.py`` to ``billing.py``) while the lines importing it changed in more ways
    than the name (``from shop.pricing import total`` to ``from shop.billing import
    sum_all``)."""
    found = {
        (_stem(after), after) for before, after in _RENAME.findall(diff) if _stem(before) == name
    }
    if len(found) != 1:
        return None
    new, path = found.pop()
    return (new, path) if new != name and _IDENT.fullmatch(new) else None


def _module_files(old: str, new: str, diff: str) -> list[str]:
    """The files the commit renamed from a module named ``old`` to one named ``new``
    (``_native.py`` to ``_pure.py``): where a renamed module is now."""
    out = []
    for before, after in _RENAME.findall(diff):
        if _stem(before) == old and _stem(after) == new:
            out.append(after)
    return out


def _defines(line: str, name: str) -> bool:
    """Whether a line of code defines ``name`` (``def name(``, ``class name``...)."""
    found = _DEFINITION.match(line)
    return found is not None and found.group(1) == name


def _stem(path: str) -> str:
    """A file's name without its folders and extensions (``src/a/_pure.py`` -> ``_pure``)."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


def _files_renamed_in(
    old: str, new: str, removed: list[tuple[str, str]], added: list[tuple[str, str]]
) -> list[str]:
    """The files of a commit that lost lines with ``old`` and gained lines with ``new``
    (whole words): where the renamed symbol is now, its definition's file among them."""
    old_word = re.compile(rf"\b{re.escape(old)}\b")
    new_word = re.compile(rf"\b{re.escape(new)}\b")
    lost = {path for line, path in removed if old_word.search(line)}
    return sorted({path for text, path in added if path in lost and new_word.search(text)})


def _changed_lines(diff: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The removed and the added lines of a ``-U0`` diff, each with its file (as it is
    after the commit): lines of code (at most :data:`MAX_LINE` characters), the first
    :data:`MAX_ADDED` added."""
    removed: list[tuple[str, str]] = []
    added: list[tuple[str, str]] = []
    current = ""
    for line in diff.splitlines():
        if len(line) > MAX_LINE or len(added) >= MAX_ADDED:
            continue  # data, not code; or a commit far too large to pair lines in
        if line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else ""
        elif line.startswith("--- "):
            continue
        elif line.startswith("-"):
            removed.append((line[1:], current))
        elif line.startswith("+") and current:
            added.append((line[1:], current))
    return removed, added


def _replacement(
    name: str, removed: list[tuple[str, str]], added: list[tuple[str, str]]
) -> tuple[str, str] | None:
    """(new name, file) of the added line that is a removed line with ``name`` replaced
    by one other identifier everywhere, definitions first; else the one new definition of
    the same kind in the file where ``name`` was defined; None when nothing took its
    place. A removed line that several added lines match with different names (a table
    dropped while ten of its shape were created) names no successor: a fix that wrote the
    first of them would write a false fact."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    using = [(line, path) for line, path in removed if word.search(line)]
    using.sort(key=lambda item: _DEFINITION.match(item[0]) is None)
    for line, _path in using[:20]:
        shape, size = _shape(line, name), len(line.strip())
        named: dict[str, str] = {}
        for text, path in added:
            if abs(len(text.strip()) - size) > 80:
                continue  # no rename makes a line that much longer or shorter
            found = shape.match(text.strip())
            if found and len(set(found.groups())) == 1 and found.group(1) != name:
                named.setdefault(found.group(1), path)
        if len(named) == 1:
            return next(iter(named.items()))
    return _new_definition(using, removed, added)


def _shape(line: str, name: str) -> re.Pattern[str]:
    """A pattern for ``line`` with ``name`` free to be another identifier (the same one at
    every place) and its spacing free."""
    parts = re.split(rf"\b{re.escape(name)}\b", line.strip())
    pieces = [r"\s*".join(re.escape(p) for p in part.split()) for part in parts]
    glue = r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*"
    return re.compile("^" + glue.join(pieces) + "$")


def _new_definition(
    using: list[tuple[str, str]], removed: list[tuple[str, str]], added: list[tuple[str, str]]
) -> tuple[str, str] | None:
    """The one added definition, in a file where the name was defined and of the kind it
    had, whose name no removed line had."""
    defined = {(_kind(d), path) for d, path in ((_DEFINITION.match(t), p) for t, p in using) if d}
    if not defined:
        return None
    old_words = {w for line, _path in removed for w in _IDENT.findall(line)}
    others = _other_definitions(using, removed)
    fresh = set()
    for text, path in added:
        d = _DEFINITION.match(text)
        if (
            d
            and d.group(1) not in old_words
            and (_kind(d), path) in defined
            and not any(shape.match(text.strip()) for shape in others)
        ):
            fresh.add((d.group(1), path))
    return next(iter(fresh)) if len(fresh) == 1 else None


def _other_definitions(
    using: list[tuple[str, str]], removed: list[tuple[str, str]]
) -> list[re.Pattern[str]]:
    """The shapes of the removed definitions of other names than the one asked about
    (at most 50): an added definition of such a shape is their rename, not its."""
    own = {d.group(1) for line, _path in using if (d := _DEFINITION.match(line))}
    return [
        _shape(line, d.group(1))
        for line, _path in removed
        if (d := _DEFINITION.match(line)) and d.group(1) not in own
    ][:50]


def _kind(definition: re.Match[str]) -> str:
    """The keyword of a definition line (``def``, ``class``, ``function`` ...)."""
    return definition.group(0).split()[-2]
