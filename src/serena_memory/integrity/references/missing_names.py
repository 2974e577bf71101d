"""What a person or an agent is told of a name that is no memory: :func:`closest_names`
(the existing names it most likely meant) and :func:`renamed_note` (the rename the history
saw)."""

from __future__ import annotations

from serena_memory.core import names as N
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import MemoryStore


def renamed_note(store: MemoryStore, name: str) -> str:
    """What a read of a name that is gone is told when the history saw it renamed:
    ``it was renamed to 'routing/core' on 2026-12-04 (entry ...)``;
    '' when it was not (or the history can't say)."""
    from serena_memory.history.restore import MemoryHistory

    try:
        found = MemoryHistory(store).renamed_to(N.normalize_name(name))
    except (MemoryStoreError, OSError):
        return ""
    if found is None:
        return ""
    new, entry = found
    day = entry.time.astimezone().strftime("%Y-%m-%d")
    gone = "" if store.exists(new) else ", which is gone too"
    return f"it was renamed to '{new}' on {day} (entry {entry.short}){gone}"


def closest_names(store: MemoryStore, name: str, limit: int = 3) -> tuple[str, ...]:
    """The existing memories a mistyped or shortened ``name`` most likely meant, best
    first: the ranking that proposes the target of a stale reference, else the names that
    begin with ``name`` (`cor` for `core`), so a person is never left to guess."""
    from serena_memory.integrity.references.similarity import NameIndex

    try:
        wanted = N.normalize_name(name)
    except MemoryStoreError:
        wanted = name.strip()
    existing = [n for n in store.scan().files if n != wanted]
    found = NameIndex(existing).candidates(wanted, limit)
    if found or len(wanted) < 2:
        return found
    folded = wanted.casefold()
    starting = sorted(n for n in existing if n.casefold().startswith(folded))
    return tuple(starting[:limit])
