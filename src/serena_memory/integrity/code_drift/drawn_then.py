"""Where a tree was drawn from, from what git had when its memory was written: a tree whose
top folder the project did not have at its root then, but had below exactly one folder
(``backend/`` drawn while the code was in ``lumen-gcp/backend/``), draws that folder, so a
root ``backend/`` made later does not hide that the drawn one is gone.

Only the history already walked is looked at (git is not asked again).
"""

from __future__ import annotations

from serena_memory.integrity.code_drift.history import GitPast


def placed_then(past: GitPast, placed: str, when: float) -> str:
    """``placed`` (a name's place in a tree, from the tree's top) under the one folder
    that held the tree's top when the memory was written, when the root did not; else
    as it is."""
    top, _, rest = placed.partition("/")
    if not rest or past.folder_there_at(top, when):
        return placed
    second = rest.split("/", 1)[0].rstrip("/")
    held = [
        folder
        for folder in past.folders_named(top)
        if folder != top
        and past.folder_there_at(folder, when)
        and (past.folder_there_at(f"{folder}/{second}", when) or f"{folder}/{second}" in past.seen)
    ]
    return f"{held[0]}/{rest}" if len(held) == 1 else placed
