"""Which lines of a memory are fenced blocks (```` ``` ````, ``~~~``) and which are prose,
a block the memory left open closed where its prose goes on (pure)."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
OPEN, IN, CLOSE = "open", "in", "close"
"""A line's part in a fenced block: it opens one, is in one, closes one ('' : prose)."""


def fence_roles(lines: list[str]) -> list[str]:
    """Each line's part in a fenced block: it opens one, is in one, closes one, or is
    prose (''). A block the memory left open is closed where its prose goes on: before a
    heading (after a blank line) that the next fence follows right after it, or before
    the first such heading of a block a fence with a language ends (```` ```bash ````
    opens a block, it never closes one) or the end of the memory ends; else a fence
    closes the block."""
    roles = [""] * len(lines)
    fence: str | None = None
    start = 0
    for i, line in enumerate(lines):
        opened = _FENCE.match(line) if ("`" in line or "~" in line) else None
        if fence is None:
            if opened:
                fence, start, roles[i] = opened.group(1), i, OPEN
            continue
        if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
            cut = _left_open(lines, start + 1, i, bool(line[opened.end() :].strip()))
            if cut is None:
                fence, roles[i] = None, CLOSE
                continue
            roles[cut - 1] = CLOSE  # the blank line before the heading
            roles[cut:i] = [""] * (i - cut)
            fence, start, roles[i] = opened.group(1), i, OPEN
            continue
        roles[i] = IN
    if fence is not None:
        _close_at_end(lines, roles, start)
    return roles


def _close_at_end(lines: list[str], roles: list[str], start: int) -> None:
    """A block left open to the end of the memory (from ``start``): closed before its
    first heading after a blank line, where the prose goes on, else at the end."""
    headings = [
        i
        for i in range(start + 2, len(lines))
        if _MD_HEADING.match(lines[i]) and not lines[i - 1].strip()
    ]
    if headings:
        cut = headings[0]
        roles[cut - 1] = CLOSE  # the blank line before the heading
        roles[cut:] = [""] * (len(lines) - cut)


_MD_HEADING = re.compile(r"^#{1,6}\s+\S")


def _left_open(lines: list[str], first: int, end: int, info: bool) -> int | None:
    """Where the prose starts in a block (``lines[first:end]``) a fence at ``end`` shows
    was left open (None: the fence closes it)."""
    headings = [
        i for i in range(first + 1, end) if _MD_HEADING.match(lines[i]) and not lines[i - 1].strip()
    ]
    if not headings:
        return None
    if info:
        return headings[0]
    last = next((i for i in range(end - 1, first - 1, -1) if lines[i].strip()), None)
    return last if last == headings[-1] else None
