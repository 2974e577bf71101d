"""A store's references as the front-ends ask for them: :func:`backlinks` (the memories
with a ``mem:name`` reference, with line numbers; missing names too), :func:`build_graph`
(who references whom), :func:`fix_reference` (one memory's ``mem:old`` pointed at
``new``) and :func:`referrers_note` (what a delete is told of the memories still
referring to the name)."""

from __future__ import annotations

from serena_memory.core import names as N
from serena_memory.core.display import counted
from serena_memory.core.errors import MemoryNotFoundError, MemoryStoreError
from serena_memory.core.references import rewrite_references
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.references.check_report import Backlink
from serena_memory.integrity.references.graph import MemoryGraph
from serena_memory.integrity.references.reading import load_analyzer


def backlinks(store: MemoryStore, name: str) -> list[Backlink]:
    return load_analyzer(store).backlinks(N.normalize_name(name))


def referrers_note(store: MemoryStore, name: str) -> str:
    """What a delete of ``name`` is told of the memories that still reference it (their
    references are stale from now on); '' when none does."""
    try:
        sources = sorted({b.source for b in backlinks(store, name) if b.source != name})
    except (MemoryStoreError, OSError):
        return ""
    if not sources:
        return ""
    shown = ", ".join(sources[:5]) + (f" and {len(sources) - 5} more" if len(sources) > 5 else "")
    who = counted(len(sources), "memory still refers", "memories still refer")
    return f"{who} to it ({shown}): `mem:{N.normalize_name(name)}` is stale there now"


def build_graph(store: MemoryStore) -> MemoryGraph:
    return MemoryGraph.from_analyzer(load_analyzer(store))


def fix_reference(store: MemoryStore, source: str, old: str, new: str) -> int:
    """Point the ``mem:old`` references of one memory at ``new`` (an existing memory).

    ``old`` is taken as written (a stale target such as ``Tech_Stack`` or ``auth/`` is not
    a valid name); ``new`` is normalized and must exist.
    """
    source = N.normalize_name(source)
    new = N.normalize_name(new)
    old = old[len(N.MEM_PREFIX) :] if old.startswith(N.MEM_PREFIX) else old
    if not store.exists(new) or store.access().is_ignored(new):
        raise MemoryNotFoundError(f"memory '{new}' not found; a reference must point to one")
    rewritten = [0]

    def transform(text: str) -> str:
        new_text, rewritten[0] = rewrite_references(text, old, new, f"memory '{source}'")
        return new_text

    store.update({source: transform})
    if rewritten[0] == 0:
        raise MemoryStoreError(f"memory '{source}' has no reference `mem:{old}`; nothing changed")
    return rewritten[0]
