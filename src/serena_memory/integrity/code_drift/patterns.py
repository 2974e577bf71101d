"""What a pattern of paths says about the project's files (pure, no file access).

A glob (``.githooks/**``, ``scripts/tests/*.Tests.ps1``) says that the folder it starts
from holds files ending like it: it names that folder, as a weak claim (a glob of a
configuration to write may be made up), found while a file below it ends so. A brace
pattern (``docs/{api,guide}.md``) names each file it expands to, as a path written out
would.
"""

from __future__ import annotations

import re

_WILD = re.compile(r"[*?\[]")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
MAX_EXPANSIONS = 8
"""A brace pattern with more alternatives than this is a rule, not a list of files."""


def glob_folder(raw: str) -> str | None:
    """The folder a glob starts from, with its ``/`` (``scripts/tests/`` for
    ``scripts/tests/*.Tests.ps1``); None when it is no glob or starts with a wildcard
    (``*.md``, ``**/x``) or a brace."""
    wild = _WILD.search(raw)
    if wild is None or "{" in raw[: wild.start()]:
        return None
    folder = raw[: wild.start()].rpartition("/")[0]
    return folder + "/" if folder else None


def glob_tail(raw: str) -> str:
    """How the files a glob matches end: what follows its last wildcard (``.Tests.ps1``
    for ``scripts/tests/*.Tests.ps1``; ``''`` for ``.githooks/**``)."""
    return re.split(r"[*?\]]", raw)[-1]


def expansions(raw: str) -> list[str]:
    """The paths a pattern with one brace list expands to (``a/{b,c}.md``: ``a/b.md``
    and ``a/c.md``); none for anything else."""
    found = _BRACES.findall(raw)
    if len(found) != 1 or "*" in raw:
        return []
    options = [o.strip() for o in found[0].split(",")]
    if len(options) > MAX_EXPANSIONS or not all(options):
        return []
    head, _, tail = raw.partition("{" + found[0] + "}")
    return [head + option + tail for option in options]
