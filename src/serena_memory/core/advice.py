"""Advisors: what the rest of the system tells about a change, handed to the store where it
is built (serena_memory.wiring), never found by the core itself.

A change's outcome (core/verbs.py) carries their notes: a memory written or edited past the
size the conventions keep memories under, a near-copy of another memory, the references a
delete left stale. A search asks the code drift source
which mentions of its hits moved. A store built without advisors tells nothing of the
kind; an advisor that fails tells nothing either (its failure is logged at debug level).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from serena_memory.core.paths import MEMORY_SIZE_BUDGET

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

_LOG = logging.getLogger(__name__)

WriteAdvisor = Callable[["MemoryStore", str, str], str]
"""(store, memory written, its text) -> a note, '' when there is nothing to say."""
DeleteAdvisor = Callable[["MemoryStore", str], str]
"""(store, memory deleted) -> a note, '' when there is nothing to say."""


class DriftSource(Protocol):
    """The code check a search asks (search/drift.py): for each memory (name, text), within
    ``seconds``, its mentions that are missing or moved now, as rows of seven fields."""

    def __call__(
        self, root: str, home: str | None, memories: list[tuple[str, str]], seconds: float
    ) -> dict[str, list[tuple[int, str, str, str, str, str, str]]]: ...


@dataclass(frozen=True)
class Advisors:
    """The advisors of one store; each list is asked in order."""

    after_write: tuple[WriteAdvisor, ...] = ()
    after_delete: tuple[DeleteAdvisor, ...] = ()
    drift: DriftSource | None = None

    def on_write(self, store: MemoryStore, name: str, text: str) -> tuple[str, ...]:
        """The notes on memory ``name`` just written with ``text``."""
        return _asked(self.after_write, store, name, text)

    def on_delete(self, store: MemoryStore, name: str) -> tuple[str, ...]:
        """The notes on memory ``name`` just deleted."""
        return _asked(self.after_delete, store, name)


def _asked(advisors: tuple[Callable[..., str], ...], *args: object) -> tuple[str, ...]:
    """The non-empty notes; the change is made already, so an advisor's failure is silent."""
    notes = []
    for advisor in advisors:
        try:
            note = advisor(*args)
        except Exception:  # noqa: BLE001 - a note is a help, never a reason to fail
            _LOG.debug("advisor %r failed", advisor, exc_info=True)
            continue
        if note:
            notes.append(note)
    return tuple(notes)


def size_note(store: MemoryStore, name: str, text: str) -> str:
    """Said when a memory grew past the size the conventions keep memories under."""
    if len(text) <= MEMORY_SIZE_BUDGET:
        return ""
    return (
        f"It is longer than the {MEMORY_SIZE_BUDGET:,} characters a memory should stay under: "
        "split it by subject, with a `mem:` reference to each part."
    )
