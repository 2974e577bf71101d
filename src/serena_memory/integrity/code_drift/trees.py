"""Folder trees a memory draws, and where each name in one is: a name in a tree names
the file at that place (``00-index.md`` under ``docs/`` and ``research/`` is
``docs/research/00-index.md``), so a move out of it is drift even when a file of that
name is found elsewhere (pure).

Two shapes are read: a drawing with branches (``├──``, ``└──``, ``|--``; the output of
``tree`` too, whose folders have no ``/``: a name with deeper names under it is a
folder), and a list whose item is a folder (``- `src/```) with deeper items below it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_BRANCH = re.compile(r"(?:[├└]──|[|`+]--)[─-]*\s*")
"""The branch before a name in a drawn tree: ``├── ``, ``└── ``, ``|-- ``, ``+-- ``."""
_NAME = re.compile(r"[\w@.+-][\w@.+/-]*")
_ROOT = re.compile(r"^([\w@.+-][\w@.+/-]*/|\.)\s*(?:#.*)?$")
"""A tree's top line: a folder on a line of its own (``docs/``, or ``.``)."""
_ITEM = re.compile(r"^( *)[-*+] +(?:\*\*)?`?([\w@.+-][\w@.+/-]*)`?(?:\*\*)?(?=$|[\s:,(])")
"""A list item that starts with a name (``  - `app.ts` - the entry``)."""


def drawn_entries(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """(line number, name as written, path from the tree's top) of every name in the
    trees drawn in ``lines`` (a fenced block's)."""
    if not any("──" in line or "--" in line for _number, line in lines):
        return
    entries: list[tuple[int, int, str, str]] = []  # number, column, name, top
    top = ""
    for number, line in lines:
        branch = _BRANCH.search(line)
        if branch is None:
            if not _drawing(line):
                root = _ROOT.match(line.strip())
                top = _top(root.group(1)) if root and not line[:1].isspace() else ""
                entries.append((number, -2, "", top))  # the tree ends here
            continue
        name = _NAME.match(line, branch.end())
        if name is not None and _drawing(line[: branch.start()]):
            entries.append((number, branch.start(), name.group(0), top))
    yield from _placed(entries)


def _top(root: str) -> str:
    return "" if root == "." else root


def _placed(entries: list[tuple[int, int, str, str]]) -> Iterator[tuple[int, str, str]]:
    """Each entry with its path: the folders above it (an entry with deeper entries right
    after it is a folder, written with ``/`` or not)."""
    stack: list[tuple[int, str]] = []
    for index, (number, column, name, top) in enumerate(entries):
        if column == -2:
            stack = [(-1, top)] if top else []
            continue
        while stack and stack[-1][0] >= column:
            stack.pop()
        path = "".join(folder for _column, folder in stack) + name
        yield number, name, path
        following = entries[index + 1][1] if index + 1 < len(entries) else -2
        if name.endswith("/") or following > column:
            stack.append((column, name.rstrip("/") + "/"))


def _drawing(text: str) -> bool:
    """Whether ``text`` is only a tree's drawing (``│   ``) or nothing."""
    return not text.replace("│", "").replace("|", "").strip()


class ListTree:
    """The folders a list of the memory opens (``- `src/```), read line by line: the
    path a deeper item's name stands for."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []  # (indent, folder path with '/')

    @property
    def open(self) -> bool:
        """Whether a folder item is open: the lines that follow may be its items."""
        return bool(self._stack)

    def place(self, line: str) -> tuple[str, str] | None:
        """(name as written, its path under the folders above it) for a list item below
        a folder item; None for any other line (a line out of the list ends it)."""
        item = _ITEM.match(line) if line[:1] in " -*+" else None
        if item is None:
            if line.strip():
                self._stack = []
            return None
        indent, name = len(item.group(1)), item.group(2)
        while self._stack and self._stack[-1][0] >= indent:
            self._stack.pop()
        parent = self._stack[-1][1] if self._stack else ""
        if name.endswith("/") and not name.startswith(("./", "/")):
            self._stack.append((indent, (parent + name).replace("//", "/")))
        if not parent or name.startswith(("./", "/", parent)):
            return None
        return name, parent + name
