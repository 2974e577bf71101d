"""What a fenced block still says about the project's files (pure, no file access).

A fenced block mostly holds commands, sample output and sketches of code to be written,
so its names are not taken as claims the way prose is. Three shapes in one are: a folder
tree drawn with ``├──``/``└──`` (a name in it names the file at that place in the tree),
a comment naming a file (``// webpack.config.js``, ``# In src/app.py``) and the module
an import loads (``import X from "./components/X"``, ``import("@/pages/home")``).
Each is a weak claim: the checker reports it only when git knew the file it names.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

_BRANCH = re.compile(r"(?:[├└]──|[|`+]--)[─-]*\s*")
"""The branch before a name in a drawn tree: ``├── ``, ``└── ``, ``|-- ``, ``+-- ``."""
_NAME = re.compile(r"[\w@.+-][\w@.+/-]*")
_ROOT = re.compile(r"^([\w@.+-][\w@.+/-]*/)\s*(?:#.*)?$")
"""A tree's top line: a folder on a line of its own (``docs/``)."""
_COMMENT = re.compile(r"^\s*(?://+|#+(?!!)|/\*+|\*|<!--|--)\s?(.*)$")
_IMPORT = re.compile(
    r"""(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']([^"'\s]+)["']""",
)
_LOCAL_IMPORT = re.compile(r"^(?:\.{1,2}/|[@~#][\w-]*/)")
"""An import of the project's own code: relative, or through an alias (``@/x``,
``~/x``, ``@shared/x``; a package's scope, ``@tanstack/x``, is told apart by the
checker, which knows the project's aliases)."""


def tree_entries(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """(line number, name as written, path from the tree's top) of every name in the
    trees drawn in a block's ``lines``; a name with ``/`` at the end is a folder."""
    stack: list[tuple[int, str]] = []  # (column of the branch, folder)
    for number, line in lines:
        branch = _BRANCH.search(line)
        if branch is None:
            if _tree_prefix(line):
                continue  # a line of the drawing alone (`│`) or a blank one
            root = _ROOT.match(line.strip())
            stack = [(-1, root.group(1))] if root and not line[:1].isspace() else []
            continue
        name = _NAME.match(line, branch.end())
        if name is None or not _tree_prefix(line[: branch.start()]):
            continue
        column = branch.start()
        while stack and stack[-1][0] >= column:
            stack.pop()
        written = name.group(0)
        path = "".join(folder for _column, folder in stack) + written
        yield number, written, path
        if written.endswith("/"):
            stack.append((column, written))


def _tree_prefix(before: str) -> bool:
    """Whether what comes before a branch is only the tree's drawing (``│   ``)."""
    return not before.replace("│", "").replace("|", "").strip()


def comment_text(line: str) -> str | None:
    """The text of a line that is a comment as a whole (None: it is code or nothing)."""
    found = _COMMENT.match(line)
    return found.group(1) if found else None


def imported(line: str) -> Iterator[str]:
    """The project modules a line of code imports, as written (``./components/X``)."""
    if "import" not in line and "require" not in line and "from" not in line:
        return
    for found in _IMPORT.finditer(line):
        spec = found.group(1)
        if _LOCAL_IMPORT.match(spec) and "*" not in spec:
            yield spec


def normal_import(spec: str) -> str | None:
    """An import's path as a mention's target: ``./`` and a final ``/`` cut (None: it
    leaves its folder, ``../``, which the checker reads as a suffix of its own)."""
    if spec.startswith("./"):
        spec = posixpath.normpath(spec)
    return None if spec.startswith("..") else spec.rstrip("/")
