"""The store as the CLI, the MCP server and the dashboard use it: built here, in one place.

The core knows its collaborators only by their interfaces (core/changes.py, core/reads.py,
core/advice.py); this module, above every package it joins, hands it the ones that
implement them: the history package's recorder, the usage counter as read listener, and
the advisors: the size budget and the duplicates check told after a write, the references
a delete left stale, the code drift check a search asks. A store built with
:class:`MemoryStore` directly gets none of them (no history, no usage counts, no notes, no
drift marks) unless it is given them.

Each part is imported on its first use, not when the store is built: a command that only
lists memories starts without the history's git engine, the usage files or the code check.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from serena_memory.core.access import Context
from serena_memory.core.advice import Advisors, size_note
from serena_memory.core.changes import (
    ChangeHistory,
    ChangeRecord,
    ChangeRecorder,
    Provenance,
)
from serena_memory.core.reads import ReadEvent, RenameEvent
from serena_memory.core.store import MemoryStore, Snapshot


def build_store(
    project_root: str | Path,
    *,
    home: str | Path | None = None,
    context: Context = Context.HUMAN,
    protect_read_only: bool | None = None,
    provenance: Provenance | None = None,
    global_writes_floor: str = "direct",
) -> MemoryStore:
    """A store of ``project_root`` that keeps its history, counts its reads and marks the
    code its search hits mention that changed since; ``global_writes_floor``: see
    :class:`MemoryStore`."""
    return MemoryStore(
        project_root,
        home=home,
        context=context,
        protect_read_only=protect_read_only,
        provenance=provenance,
        recorder=History(),
        read_listeners=(UsageCounting(),),
        advisors=ADVISORS,
        global_writes_floor=global_writes_floor,
    )


def _recorder() -> ChangeRecorder:
    from serena_memory.history.recording import RECORDER

    return RECORDER


class History:
    """The history package's recorder (history/recording.py), imported on the first change."""

    def begin(
        self,
        store: MemoryStore,
        summary: str,
        names: Sequence[str],
        *,
        all_scopes: bool,
        snapshot: Snapshot,
        provenance: Provenance,
        project_folder: Path | None = None,
    ) -> ChangeRecord:
        return _recorder().begin(
            store,
            summary,
            names,
            all_scopes=all_scopes,
            snapshot=snapshot,
            provenance=provenance,
            project_folder=project_folder,
        )

    def history(self, store: MemoryStore) -> ChangeHistory:
        return _recorder().history(store)


class UsageCounting:
    """The usage counter (usage/counting.py), imported on the first read."""

    def memory_read(self, event: ReadEvent) -> None:
        from serena_memory.usage.counting import LISTENER

        LISTENER.memory_read(event)

    def memory_renamed(self, event: RenameEvent) -> None:
        from serena_memory.usage.counting import LISTENER

        LISTENER.memory_renamed(event)


def code_drift(
    root: str, home: str | None, memories: list[tuple[str, str]], seconds: float
) -> dict[str, list[tuple[int, str, str, str, str, str, str]]]:
    """The code check a search asks (integrity/code_drift/in_search.py), imported when a
    hit first mentions code."""
    from serena_memory.integrity.code_drift.in_search import search_findings

    return search_findings(root, home, memories, seconds)


def near_copy_note(store: MemoryStore, name: str, text: str) -> str:
    """The duplicates check on a memory just written (integrity/duplicates/write_note.py),
    imported on the first write."""
    from serena_memory.integrity.duplicates.write_note import write_note

    return write_note(store, name, text).strip()


def stale_references_note(store: MemoryStore, name: str) -> str:
    """The memories still referring to one just deleted (integrity/references/links.py)."""
    from serena_memory.integrity.references.links import referrers_note

    return referrers_note(store, name)


ADVISORS = Advisors(
    after_write=(size_note, near_copy_note),
    after_delete=(stale_references_note,),
    drift=code_drift,
)
