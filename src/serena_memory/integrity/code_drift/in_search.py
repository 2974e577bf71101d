"""What a search is told of the code its hits mention (search/drift.py names this module):
the read note's findings of a few memories, missing and moved mentions only, as plain
rows, within a time budget. Light to import: the checker is loaded only inside a git
work tree, so a folder outside git costs no git command and no import of the check.
"""

from __future__ import annotations

import os
import time


def _may_be_in_git(root: str) -> bool:
    """Whether a ``.git`` is in ``root`` or a folder above: what git needs to find a work
    tree, looked for before git's module is even imported (a search of a folder outside
    git stays as quick as before)."""
    folder = os.path.realpath(root)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def search_findings(
    root: str, home: str | None, memories: list[tuple[str, str]], seconds: float
) -> dict[str, list[tuple[int, str, str, str, str, str, str]]]:
    """For each memory (name, text), in order, while ``seconds`` last: its mentions that
    are missing or moved now, as (line, mention, kind, status, new name, new path, what
    the read note says of it) in line order. Outside a git work tree nothing (git is not
    asked); a memory whose check fails has none."""
    started = time.monotonic()
    if not _may_be_in_git(root):
        return {}
    from serena_memory.integrity.code_drift.git import locate

    if locate(root) is None:
        return {}
    from serena_memory.integrity.code_drift.code_report import MISSING, MOVED
    from serena_memory.integrity.code_drift.read_note import memory_findings

    out: dict[str, list[tuple[int, str, str, str, str, str, str]]] = {}
    for name, text in memories:
        left = seconds - (time.monotonic() - started)
        if left <= 0:
            break
        try:
            found = memory_findings(root, name, text, symbols=True, cache_home=home, seconds=left)
        except Exception:  # noqa: BLE001, S112 - a memory whose check fails gets no marks
            continue
        out[name] = [
            (f.line, f.mention, f.kind, f.status, f.new_name or "", f.new_path or "", f.news())
            for f in found
            if f.status in (MISSING, MOVED)
        ]
    return out
