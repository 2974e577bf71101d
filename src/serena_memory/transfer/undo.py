"""How a person undoes an import: the commands that take every folder it wrote to back.

An import is one operation, but the project's and the global memories keep separate
histories, and `restore --all --at ENTRY` takes back the folder of that entry only; so
each folder the import wrote to gets its own command (the entry before the import's entry
in that folder). Where the import is a folder's first entry there is nothing to go back
to, and the memories it created there are deleted instead.
"""

from __future__ import annotations

import shlex
from itertools import islice

from serena_memory.core.store import MemoryStore

LOOKED_AT = 20  # the newest entries of a folder searched for the import's own


def undo_commands(store: MemoryStore, summary: str, created: list[str]) -> list[str]:
    """The commands that undo an import recorded as ``summary`` which created
    ``created``: one restore per folder it wrote to (none when no history is kept)."""
    from serena_memory.history.restore import MemoryHistory

    project = shlex.quote(str(store.layout.project_root))
    commands: list[str] = []
    for folder in MemoryHistory(store).folders:
        mine = [n for n in created if folder.folder.rel_of(n) is not None]
        if not mine:
            continue
        record = next(
            (r for r in islice(folder.records(), LOOKED_AT) if r.entry().summary == summary),
            None,
        )
        if record is None:
            continue  # not recorded (history off, or it failed and will catch up)
        parents = record.commit.parent_ids
        if parents:
            entry = str(parents[0])[:12]
            commands.append(f"serena memories restore --all --at {entry} -p {project}")
        else:
            commands += [f"serena memories delete {shlex.quote(n)} -p {project}" for n in mine]
    return commands
