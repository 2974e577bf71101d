"""Paths git ignored when a memory was written: a pattern the project's ``.gitignore``
dropped since (``.ichimi`` for a runtime folder that the project renamed, ``data/`` for
a local database) still says the path was a local file then, not the project's code, so
a memory's mention of it is no drift.

Git is asked once, for the lines taken out of the top ``.gitignore`` since the earliest
memory, and only when that file changed since. The patterns come from the repository, so
they are matched here without regular expressions, in time bounded by their length and
the path's.
"""

from __future__ import annotations

from typing import NamedTuple

from serena_memory.integrity.code_drift.git import GitUnavailable, run_git
from serena_memory.integrity.code_drift.history import GitPast

IGNORE_FILE = ".gitignore"
MAX_PATTERN = 200
"""A longer pattern is not read (no project writes one; it would only cost time)."""


class IgnoreChanges(NamedTuple):
    """The lines the top ``.gitignore`` lost and gained since a time, each (when, line)."""

    dropped: list[tuple[float, str]]
    added: list[tuple[float, str]]


NO_CHANGES = IgnoreChanges([], [])


def ignore_changes(root: str, past: GitPast, since: float) -> IgnoreChanges:
    """The lines the top ``.gitignore`` lost after ``since`` (and are not back now) and
    those it gained after ``since`` (and still has): none when it did not change since,
    or git can't tell. A line gained says the project chose to keep a path local from
    then on (a file untracked then ignored is on its writer's disk, not gone)."""
    if not any(t > since for t in past.changes.get(IGNORE_FILE, ())):
        return NO_CHANGES
    try:
        out = run_git(
            root,
            "log",
            "-p",
            "-U0",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            f"--since={int(since)}",
            "--format=%x01%ct",
            "--",
            IGNORE_FILE,
        )
    except GitUnavailable:
        return NO_CHANGES
    now = set(_current_lines(root))
    changes = IgnoreChanges([], [])
    for block in out.decode("utf-8", "replace").split("\x01")[1:]:
        stamp, _, diff = block.partition("\n")
        try:
            when = float(stamp.strip())
        except ValueError:
            continue
        for line in diff.splitlines():
            sign, pattern = line[:1], line[1:].strip()
            if sign not in "+-" or line.startswith(("---", "+++")) or not _usable(pattern):
                continue
            if sign == "-" and pattern not in now:
                changes.dropped.append((when, pattern))
            elif sign == "+" and pattern in now:
                changes.added.append((when, pattern))
    return changes


def _usable(pattern: str) -> bool:
    """Whether a ``.gitignore`` line is a pattern read here (no comment, negation, nor
    an overlong line)."""
    return bool(pattern) and not pattern.startswith(("#", "!")) and len(pattern) <= MAX_PATTERN


def _current_lines(root: str) -> list[str]:
    """The lines of the top ``.gitignore`` as committed now (a line a rewrite took out and
    put back is not dropped)."""
    try:
        text = run_git(root, "show", f"HEAD:./{IGNORE_FILE}")
    except GitUnavailable:
        return []
    return [line.strip() for line in text.decode("utf-8", "replace").splitlines()]


def is_kind(pattern: str) -> bool:
    """Whether a ``.gitignore`` line names a kind of path, not one file or folder: a
    glob (``test-*.js``, ``*.png``)."""
    return any(c in pattern for c in "*?[")


def ignored_by(pattern: str, target: str) -> bool:
    """Whether a ``.gitignore`` line ``pattern`` ignores the path ``target`` (a folder
    with its ``/``): a pattern with a ``/`` before its end from the top, else any part;
    one ending with ``/`` only folders (a part with more below it)."""
    folder_only = pattern.endswith("/")
    body = pattern.rstrip("/")
    anchored = "/" in body
    body = body.lstrip("/")
    parts = target.rstrip("/").split("/")
    if not body or not all(parts):
        return False
    last = len(parts) - (0 if target.endswith("/") else 1)  # parts that are folders
    if anchored:
        depth = body.count("/") + 1
        return any(
            _glob(body, "/".join(parts[:n])) and (not folder_only or n <= last)
            for n in range(depth, len(parts) + 1)
            if "**" in body or n == depth
        )
    return any(_glob(body, part) and (not folder_only or i < last) for i, part in enumerate(parts))


def _glob(pattern: str, text: str) -> bool:
    """Whether ``text`` matches a ``.gitignore`` glob (``*`` and ``?`` within a part,
    ``**`` across parts, ``[abc]`` a class; ``\\`` quotes): a table over both lengths."""
    tokens = _tokens(pattern)
    if tokens is None:
        return False
    n = len(text)
    reach = [False] * (n + 1)  # reach[j]: the tokens so far match text[:j]
    reach[0] = True
    for kind, value in tokens:
        nxt = [False] * (n + 1)
        if kind == "**":
            ok = False
            for j in range(n + 1):
                ok = ok or reach[j]
                nxt[j] = ok
        elif kind == "*":
            ok = False
            for j in range(n + 1):
                ok = (ok and text[j - 1] != "/") or reach[j]
                nxt[j] = ok
        else:
            for j in range(n):
                if reach[j] and _one(kind, value, text[j]):
                    nxt[j + 1] = True
        reach = nxt
        if not any(reach):
            return False
    return reach[n]


def _one(kind: str, value: str, char: str) -> bool:
    if kind == "?":
        return char != "/"
    if kind == "[":
        negate = value[:1] in "!^" and len(value) > 1
        body = value[1:] if negate else value
        inside = any(a <= char <= b for a, b in _ranges(body))
        return inside != negate and char != "/"
    return char == value


def _ranges(body: str) -> list[tuple[str, str]]:
    out = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            out.append((body[i], body[i + 2]))
            i += 3
        else:
            out.append((body[i], body[i]))
            i += 1
    return out


def _tokens(pattern: str) -> list[tuple[str, str]] | None:
    """The glob's parts: ("**"|"*"|"?", ""), ("[", class), ("c", a character)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(("c", pattern[i + 1]))
            i += 2
        elif c == "*":
            star = 1
            while i + star < len(pattern) and pattern[i + star] == "*":
                star += 1
            out.append(("**" if star > 1 else "*", ""))
            i += star
        elif c == "?":
            out.append(("?", ""))
            i += 1
        elif c == "[":
            close = pattern.find("]", i + 2)
            if close < 0:
                out.append(("c", c))
                i += 1
            else:
                out.append(("[", pattern[i + 1 : close]))
                i = close + 1
        else:
            out.append(("c", c))
            i += 1
    return out
