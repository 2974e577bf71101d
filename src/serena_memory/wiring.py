"""The store as the CLI, the MCP server and the dashboard use it: built here, in one place.

The core knows its collaborators only by their interfaces (core/changes.py, core/reads.py,
the store's ``DriftSource``); this module, above every package it joins, hands it the ones
that implement them: the history package's recorder, the usage counter as read listener and
the code drift check a search asks. A store built with :class:`MemoryStore` directly gets
none of them (no history, no usage counts, no drift marks) unless it is given them.
"""

from __future__ import annotations

from pathlib import Path

from serena_memory.core.access import Context
from serena_memory.core.changes import Provenance
from serena_memory.core.store import MemoryStore
from serena_memory.history.recording import RECORDER
from serena_memory.integrity.code_drift.in_search import search_findings
from serena_memory.usage.counting import LISTENER


def build_store(
    project_root: str | Path,
    *,
    home: str | Path | None = None,
    context: Context = Context.HUMAN,
    protect_read_only: bool | None = None,
    provenance: Provenance | None = None,
) -> MemoryStore:
    """A store of ``project_root`` that keeps its history, counts its reads and marks the
    code its search hits mention that changed since."""
    return MemoryStore(
        project_root,
        home=home,
        context=context,
        protect_read_only=protect_read_only,
        provenance=provenance,
        recorder=RECORDER,
        read_listeners=(LISTENER,),
        drift_source=search_findings,
    )
