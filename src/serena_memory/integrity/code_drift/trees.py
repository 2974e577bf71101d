"""Folder trees a memory draws, and where each name in one is: a name in a tree names
the file at that place (``00-index.md`` under ``docs/`` and ``research/`` is
``docs/research/00-index.md``), so a move out of it is drift even when a file of that
name is found elsewhere (pure).

Three shapes are read: a drawing with branches (``├──``, ``└──``, ``|--``; the output of
``tree`` too, whose folders have no ``/``: a name with deeper names under it is a
folder), a map drawn by indentation alone under a top folder (``src/`` then ``  app/``,
each name with a ``# comment`` or none), and a list whose item is a folder (``- `src/```)
with deeper items below it, or that a line opens ("Located in `src/bin/`:") or a heading
(``### src/claude/``: the file names its section's items list). In a map
drawn by indentation, a comment line under a folder that lists names in CamelCase
(``# Header, Footer``) lists the folder's files by their stems; in a list under a
folder, a bare name (``smtop``) is a file of that stem there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_BRANCH = re.compile(r"(?:[├└]──|[|`+]--)[─-]*\s*")
"""The branch before a name in a drawn tree: ``├── ``, ``└── ``, ``|-- ``, ``+-- ``."""
_NAME = re.compile(r"(?:[\w@.+-]|\$(?=\.[A-Za-z]))[\w@.+/-]*")
_ROOT = re.compile(r"^([\w@.+-][\w@.+/-]*/|\.)\s*(?:#.*)?$")
"""A tree's top line: a folder on a line of its own (``docs/``, or ``.``)."""
_EXAMPLE_ROOT = re.compile(r"^[\w@.+/-]*(?:<[^>\s]+>|\{[^}\s]+\})[\w@.+/<>{}-]*/\s*(?:#.*)?$")
"""A tree's top that is a placeholder (``<module>/tests/``, ``{app}/``): the tree shows
how every such folder is laid out, no folder of the project."""
_PLACEHOLDER = re.compile(r"<[^>\s]+>|\{[^}\s]+\}")
"""A name drawn in a tree that stands for any (``{spec-id}/``, ``<library>/``)."""
_ITEM = re.compile(r"^( *)[-*+] +(?:\*\*)?`?([\w@.+-][\w@.+/-]*)`?(?:\*\*)?(?=$|[\s:,(])")
"""A list item that starts with a name (``  - `app.ts` - the entry``)."""
_MORE_NAMES = re.compile(r"\s*(?:/|,|\bor\b|&)\s*`([\w@.+-][\w@.+-]*)`")
"""A further name of the item's head: ``- `db_check` / `check_db_contents` - ...``."""
_SPAN = re.compile(r"`([\w@.+-]+)`")
_OPENS = re.compile(r"`([\w@.+-][\w@.+/-]*/)`\**:\**\s*$")
"""A line that opens a folder for the list below it: "Located in `src/bin/`:"."""
_MAP_ENTRY = re.compile(r"^( *)((?:[\w@.+-]|\[{1,2}(?:\.{3})?[\w-]+\]{1,2}|/)+)(?:\s+#.*)?$")
"""A line of a map drawn by indentation: a name, and a comment after it or nothing."""
_MAP_COMMENT = re.compile(r"^( *)#\s*(?:([\w@.+-]+/):)?(.*)$")
_CAMEL_NAME = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")
_ASIDE = re.compile(r"\([^()]*\)")


def drawn_entries(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """(line number, name as written, path from the tree's top) of every name in the
    trees drawn in ``lines`` (a fenced block's)."""
    if not any("──" in line or "--" in line for _number, line in lines):
        return
    entries: list[tuple[int, int, str, str]] = []  # number, column, name, top
    top = ""
    example = False  # a tree drawn from a placeholder (`<module>/tests/`): a pattern
    pattern_at = -1  # the column of a placeholder drawn in the tree (`└── {spec-id}/`)
    for number, line in lines:
        branch = _BRANCH.search(line)
        if branch is None:
            if not _drawing(line) and not _comment_only(line):
                root = _ROOT.match(line.strip())
                top = _top(root.group(1)) if root and not line[:1].isspace() else ""
                example = _EXAMPLE_ROOT.match(line.strip()) is not None
                entries.append((number, -2, "", top))  # the tree ends here
                pattern_at = -1
            continue
        if 0 <= pattern_at < branch.start():
            continue  # below a placeholder: how every such folder is laid out
        pattern_at = branch.start() if _PLACEHOLDER.match(line, branch.end()) else -1
        name = _NAME.match(line, branch.end())
        if name is not None and not example and _drawing(line[: branch.start()]):
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
            if top and index + 1 < len(entries) and entries[index + 1][1] >= 0:
                yield number, top, top  # the tree's top folder, names drawn below it
            continue
        while stack and stack[-1][0] >= column:
            stack.pop()
        path = "".join(folder for _column, folder in stack) + name
        yield number, name, path
        following = entries[index + 1][1] if index + 1 < len(entries) else -2
        if name.endswith("/") or following > column:
            stack.append((column, name.rstrip("/") + "/"))


def _comment_only(line: str) -> bool:
    """Whether ``line`` is a tree's drawing with a comment going on from the line above
    (``│       # more of the comment``): the tree goes on below it."""
    rest = line.replace("│", "").replace("|", "").lstrip()
    return len(rest) < len(line) and rest.startswith(("#", "//"))


def _drawing(text: str) -> bool:
    """Whether ``text`` is only a tree's drawing (``│   ``) or nothing."""
    return not text.replace("│", "").replace("|", "").strip()


_HEADING = re.compile(r"^#{1,6}\s+`?([\w@.+-][\w@.+/-]*/)`?(?:\s+[\w ()-]*)?$")
"""A heading that names a folder for its section: ``### src/claude/``, ``## `docs/` Directory``."""
_FILE_NAMES = re.compile(r"(?:^|,)\s*`?([\w@+-][\w@.+-]*\.[A-Za-z]\w*)`?(?=\s*(?:,|$| - | — ))")
"""The file names an item of a section lists: ``- memory.md, planner.md``."""


class ListTree:
    """The folders a list of the memory opens (``- `src/```), or a heading opens for its
    section (``### src/claude/``), read line by line: the path a deeper item's name
    stands for."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []  # (indent, folder path with '/')
        self._section = ""  # the folder the last heading named, with its '/'

    @property
    def open(self) -> bool:
        """Whether a folder item is open: the lines that follow may be its items."""
        return bool(self._stack or self._section)

    def _sections(self, line: str, item: re.Match[str] | None) -> bool:
        """Whether a heading or an item of a heading's section that is no folder."""
        if line.startswith("#"):
            return True
        return (
            item is not None
            and bool(self._section)
            and not self._stack
            and (item.group(2)[-1] != "/")
        )

    def _in_section(self, line: str) -> list[tuple[str, str, bool]]:
        """A heading opens its folder or closes the last one; an item of the section
        that is no folder names files there (``- memory.md, planner.md``)."""
        if line.startswith("#"):
            heading = _HEADING.match(line)
            self._section = heading.group(1) if heading else ""
            self._stack = []
            return []
        body = line.lstrip()[1:].split(" - ", 1)[0].split(" — ", 1)[0]
        names = _FILE_NAMES.findall(body.strip())
        return [(n, self._section + n, False) for n in names if not n.startswith(".")]

    def place(self, line: str) -> list[tuple[str, str, bool]]:
        """(name as written, its path under the folders above it, whether it is a bare
        name: a stem) for each name a list item below a folder gives, or a folder item
        gives after itself (``- `lib/widgets/` — `a.dart`, `b.dart```); none for any other
        line (a line out of the list ends it, but one that opens a folder for it)."""
        item = _ITEM.match(line) if line[:1] in " -*+" else None
        if self._sections(line, item):
            return self._in_section(line)
        if item is None:
            self._not_an_item(line)
            return []
        indent, name = len(item.group(1)), item.group(2)
        while self._stack and self._stack[-1][0] >= indent:
            self._stack.pop()
        parent = self._stack[-1][1] if self._stack else ""
        if name.endswith("/") and not name.startswith(("./", "/")):
            folder = (parent + name).replace("//", "/")
            self._stack.append((indent, folder))
            return [(n, folder + n, False) for n in _SPAN.findall(line, item.end()) if "." in n]
        if not parent or name.startswith(("./", "/", parent)):
            return []
        return [(n, parent + n, "." not in n) for n in _head_names(name, line, item.end())]

    def _not_an_item(self, line: str) -> None:
        """A line out of the list ends it, but one that opens a folder for the next."""
        opens = _OPENS.search(line) if line.endswith(":") else None
        if opens is not None:
            self._stack = [(-1, opens.group(1))]
        elif line.strip():
            self._stack = []


def _head_names(name: str, line: str, at: int) -> list[str]:
    """The names an item starts with: ``name`` and those after it (`` / `b` ``)."""
    names = [name]
    while (more := _MORE_NAMES.match(line, at)) is not None:
        names.append(more.group(1))
        at = more.end()
    return names


def mapped_entries(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str, str, bool]]:
    """(line number, name as written, path from the map's top, whether it is a stem) of
    every name of a map drawn by indentation alone: its first line a folder (``src/``)
    and every line a name with a ``# comment`` or a comment (else it is no map)."""
    body = [(n, line) for n, line in lines if line.strip()]
    if len(body) < 3 or not _ROOT.match(body[0][1]) or body[0][1][:1].isspace():
        return
    if not all(_MAP_ENTRY.match(line) or _MAP_COMMENT.match(line) for _n, line in body):
        return
    stack: list[tuple[int, str]] = []
    for number, line in body:
        entry = _MAP_ENTRY.match(line)
        if entry is None:
            yield from _comment_stems(number, line, stack)
            continue
        column, name = len(entry.group(1)), entry.group(2)
        while stack and stack[-1][0] >= column:
            stack.pop()
        path = (stack[-1][1] if stack else "") + name
        yield number, name, path, False
        if name.endswith("/"):
            stack.append((column, path))
            comment = line.partition("#")[2]
            yield from _stems(number, comment, path)


def _comment_stems(
    number: int, line: str, stack: list[tuple[int, str]]
) -> Iterator[tuple[int, str, str, bool]]:
    """The stems a comment line lists for the folder it is under (``# editor/: A, B``:
    for that folder's ``editor/``)."""
    found = _MAP_COMMENT.match(line)
    if found is None or not stack or len(found.group(1)) <= stack[-1][0]:
        return
    yield from _stems(number, found.group(3), stack[-1][1] + (found.group(2) or ""))


def _stems(number: int, comment: str, folder: str) -> Iterator[tuple[int, str, str, bool]]:
    """The CamelCase names a comment lists (asides in parentheses left out)."""
    for name in _CAMEL_NAME.findall(_ASIDE.sub("", comment)):
        yield number, name, folder + name, True


def places_of(placed: str) -> list[str]:
    """Where a tree may put a name, surest first: the path from the tree's top, then
    without its top folders one by one (a tree's top is often the project's folder under
    its own name or an old one: ``ichimi-server/``), down to a folder's name alone, or to
    one folder and a file's name."""
    parts = placed.rstrip("/").split("/")
    end = "/" if placed.endswith("/") else ""
    last = len(parts) if end else len(parts) - 1
    return ["/".join(parts[i:]) + end for i in range(max(last, 1))]
