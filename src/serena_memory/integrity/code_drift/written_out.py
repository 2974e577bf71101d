"""A bare file name as the path its memory writes out elsewhere: a note that names
`cmd/app/main.go` once and then says "main.go" means that file, not any other
`main.go` of the project, so the short name drifts with the long one (pure).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from serena_memory.integrity.code_drift.mentions import PATH, Mention


def _plain_path(m: Mention) -> bool:
    """Whether ``m`` is a path with a folder written out in prose or a code span (not a
    name in a tree, placed or not, a form such as a module, nor an example)."""
    target = m.target
    return (
        m.kind == PATH
        and not (m.form or m.placed or m.exact or m.weak or m.loose or m.linked or m.rooted)
        and "/" in target.rstrip("/")
        and not target.endswith("/")
    )


def _bare_name(m: Mention) -> bool:
    """Whether ``m`` is a file name written alone, with no folder nor form."""
    return (
        m.kind == PATH
        and not (m.form or m.placed or m.linked or m.exact or m.ran)
        and "/" not in m.target
        and "." in m.target.strip(".")
    )


def as_written_out(
    mentions: list[Mention], at_root: Callable[[str], bool] = lambda _name: False
) -> list[Mention]:
    """One memory's ``mentions``, each bare file name (``main.go``) as the one path ending
    with it that the memory writes out (``cmd/app/main.go``); a name the memory writes
    out in several paths, or none, or beside it on its line while ``at_root`` says the
    root had a file of that name too, is left as written."""
    full: dict[str, set[str]] = {}
    lines: set[tuple[int, str]] = set()  # (line, name) of each path written out
    for m in mentions:
        if _plain_path(m):
            name = m.target.rsplit("/", 1)[1]
            full.setdefault(name, set()).add(m.target)
            lines.add((m.line, name))
    if not full:
        return mentions
    out = []
    for m in mentions:
        paths = full.get(m.target) if _bare_name(m) else None
        # a line that writes the name both ways, of a file the root had too, names two
        # files ("root `compose.yaml`; backend's `backend/compose.yaml`"); without one at
        # the root, the long one says where the bare one is ("requirements.txt
        # (api/requirements.txt)")
        two = (m.line, m.target) in lines and at_root(m.target)
        if paths is not None and len(paths) == 1 and not two:
            m = replace(m, target=next(iter(paths)))
        out.append(m)
    return out


def all_written_out(
    mentions: dict[str, list[Mention]], at_root: Callable[[str, str], bool]
) -> dict[str, list[Mention]]:
    """:func:`as_written_out` of each memory's mentions (``at_root``: whether the root had
    a file of a name when that memory was written)."""
    return {
        memory: as_written_out(found, partial(at_root, memory))
        for memory, found in mentions.items()
    }
