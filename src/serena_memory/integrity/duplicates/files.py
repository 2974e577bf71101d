"""One file said to be in two folders: "Run `./tests/test_mcp_comprehensive.sh`" / a shell
block's `./scripts/test_mcp_comprehensive.sh`. A file of a distinctive name is one file of
the project; two memories that put it in two folders disagree (one was written before it
moved), however the rest of each line is worded, and a line of a block that holds only
the path (no statement :mod:`.slots` reads) counts.

A *file row* is one per path of a line whose file name is distinctive (its stem of two
words or more joined by `_`, `-` or case, eight letters or more, and no placeholder):
keyed by the file name, its value column the folder's hash (:func:`held_of`). Two lines
meet when they put one file name in two folders; :func:`contradict` leaves out a line
that also names the other's path (a move told, a copy), and one folder inside the other
(`scripts/x.sh` / `tools/scripts/x.sh`: one says it more precisely). The check's key
groups leave out a file a memory puts in two folders (two copies of it) and one that
three memories put in three (one name in several packages). Not read: source code blocks.
"""

from __future__ import annotations

import re
import zlib

from serena_memory.integrity.duplicates.slots import SLOT_MARK, stated_lines

FILE_PIECE = 4
"""The piece bits of a file row's place (shared with :mod:`.fields`, whose rows all hold
one value and are never compared)."""
_SALT = "\x1efile"
_LINES = (1 << 27) - 1
_PATH = re.compile(
    r"(?<![\w/:.@~$<{-])(?:\./)?((?:[\w.-]+/)+)([A-Za-z][\w-]*?)(\.[a-z][a-z0-9]{0,4})(?![\w/])"
)
_PARTS = re.compile(r"[_-]|(?<=[a-z])(?=[A-Z])")
_MIN_STEM = 8
_MAYBE = re.compile(r"\w/[\w.-]+\.[a-z]")


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def held_of(folder: str) -> int:
    """The value column of a file row: its folder, salted apart."""
    return _hash(_SALT, folder)


def paths(line: str) -> list[tuple[str, str]]:
    """The (folder, file name) of each path of a line whose file name is distinctive."""
    found = []
    for match in _PATH.finditer(line):
        folder, stem, suffix = match.groups()
        if len(stem) >= _MIN_STEM and len(_PARTS.split(stem)) >= 2 and ".." not in folder:
            found.append((folder.rstrip("/"), stem + suffix))
    return found


def file_keys(text: str) -> list[tuple[int, int, int]]:
    """One row per distinctive path of each line (but in source blocks): (key of its file
    name, its line's place, :func:`held_of` its folder)."""
    if _MAYBE.search(text) is None:
        return []
    rows = []
    for number, said, fenced in stated_lines(text):
        if "/" not in said:
            continue
        where = SLOT_MARK | fenced << 30 | (number & _LINES) << 3 | FILE_PIECE
        for folder, name in set(paths(said)):
            rows.append((_hash(_SALT, name), where, held_of(folder)))
    return rows


def file_at(line: str, held: int) -> tuple[str, str] | None:
    """The (folder, file name) of ``line`` whose row holds ``held``, if any."""
    return next((p for p in paths(line) if held_of(p[0]) == held), None)


def contradict(line_a: str, line_b: str, held_a: int, held_b: int) -> tuple[str, str] | None:
    """The two paths, when two lines put one file in two folders, neither line names the
    other's path and neither folder ends with the other: (first's, second's)."""
    pa, pb = file_at(line_a, held_a), file_at(line_b, held_b)
    if pa is None or pb is None or pa[1] != pb[1] or pa[0] == pb[0]:
        return None
    if pb in paths(line_a) or pa in paths(line_b):
        return None
    if pa[0].endswith("/" + pb[0]) or pb[0].endswith("/" + pa[0]):
        return None
    return f"{pa[0]}/{pa[1]}", f"{pb[0]}/{pb[1]}"
