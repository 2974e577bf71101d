"""The verbs as callers ask them: write, edit, delete and rename, each planned once, then
applied by the store or, when the access policy says the agent proposes (review mode),
saved as a proposal (core/proposals.py).

The outcome is typed: :class:`Applied`, carrying the notes of the advisors the store was
built with (core/advice.py: the size budget, a near-copy of another memory, references a
delete left stale), or :class:`Proposed`. The MCP tools, the CLI and the code drift fix
only word it; none of them chooses between writing and proposing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from serena_memory.core import names as N
from serena_memory.core.errors import MemoryNotFoundError
from serena_memory.core.planned_change import (
    PlannedChange,
    gate_rename,
    gate_text,
    refuse_taken,
    version_of,
)

if TYPE_CHECKING:
    from serena_memory.core.proposals import Proposal
    from serena_memory.core.store import MemoryStore
    from serena_memory.core.store_rename import RenameResult

Edit = Callable[[str], tuple[str, int]]
"""A computed edit: the new text and how many places it changed."""


@dataclass(frozen=True)
class Applied:
    """A change the store made: its canonical names (an edit's replacements), whether a
    write created the memory, the memory's length after it, what its writer must know."""

    change: PlannedChange
    created: bool = False
    chars: int = 0
    notes: tuple[str, ...] = ()
    renamed: RenameResult | None = None


@dataclass(frozen=True)
class Proposed:
    """A change kept for review; no proposal when there was nothing to propose (an edit
    that changes nothing) or a delete withdrew a pending proposal that created the memory."""

    proposal: Proposal | None
    replacements: int = 0
    withdrawn: bool = False


Outcome = Applied | Proposed


def write(
    store: MemoryStore,
    name: str,
    content: str,
    *,
    max_chars: int | None = None,
    allow_secret: bool = False,
) -> Outcome:
    """Create or replace memory ``name``; ``max_chars`` as :meth:`MemoryStore.write`.
    Proposed, ``allow_secret`` is not heard: the agent never overrides the secret gate."""
    snap = store.snapshot()  # the settings of this write, taken once and handed down
    if snap.policy.proposing(name):
        from serena_memory.core import proposals  # review mode's storage, when proposing

        return Proposed(proposals.save(store, plan_write(store, name, content, max_chars)))
    result = store.write(name, content, max_chars, allow_secret=allow_secret, snap=snap)
    told: tuple[str, ...] = (result.note,) if result.note else ()
    return Applied(
        PlannedChange("write", result.name),
        result.created,
        result.chars,
        told + store.advisors.on_write(store, result.name, content),
    )


def plan_write(
    store: MemoryStore, name: str, content: str, max_chars: int | None = None
) -> PlannedChange:
    """The agent's write of ``name`` as a change to propose: a deprecation a person set is
    kept (core/lifecycle.py), the version it replaces is its base."""
    from serena_memory.core import proposals  # review mode's storage, when proposing

    snap = store.snapshot()
    name = snap.policy.check(name, write=True, proposing=True)
    gate_text(store, name, content, snap.settings, max_chars=max_chars)
    current = proposals.current_text(store, name)
    if current is None:
        N.check_portable(name)
        return PlannedChange("write", name, content)
    return PlannedChange("write", name, _keep_deprecation(current, content), version_of(current))


def edit(store: MemoryStore, name: str, change: Edit) -> Outcome:
    """Edit memory ``name`` by ``change`` under the lock; proposed, it edits the text the
    agent's pending proposal gives the memory, if any."""
    if store.access().proposing(name):
        return _propose_edit(store, name, change)
    result = store.edit_with(name, change)
    told: tuple[str, ...] = (result.note,) if result.note else ()
    if result.replacements:  # what a write of the new text is told, an edit is told too
        told += store.advisors.on_write(store, result.name, result.text)
    return Applied(
        PlannedChange("edit", result.name, replacements=result.replacements),
        chars=result.chars,
        notes=told,
    )


def _propose_edit(store: MemoryStore, name: str, change: Edit) -> Proposed:
    from serena_memory.core import proposals  # review mode's storage, when proposing

    snap = store.snapshot()
    name = snap.policy.check(name, write=True, proposing=True)
    text, base = proposals.pending_text(store, name)
    if text is None:
        _not_found(store, name)
    new_text, count = change(text)
    new_text = _keep_deprecation(text, new_text)  # a person retired it (core/lifecycle.py)
    if new_text == text:
        return Proposed(None, count)
    gate_text(store, name, new_text, snap.settings, verb="changed")
    planned = PlannedChange("edit", name, new_text, base, replacements=count)
    return Proposed(proposals.save(store, planned), count)


def delete(store: MemoryStore, name: str) -> Outcome:
    """Delete memory ``name``; proposed, a memory only a pending proposal creates is
    withdrawn instead."""
    if not store.access().proposing(name):
        deleted = store.delete(name)
        return Applied(
            PlannedChange("delete", deleted), notes=store.advisors.on_delete(store, deleted)
        )
    from serena_memory.core import proposals  # review mode's storage, when proposing

    name = store.snapshot().policy.check(name, write=True, proposing=True)
    current = proposals.current_text(store, name)
    if current is not None:
        planned = PlannedChange("delete", name, base=version_of(current))
        return Proposed(proposals.save(store, planned))
    if proposals.withdraw_creation(store, name):
        return Proposed(None, withdrawn=True)
    _not_found(store, name)


def rename(store: MemoryStore, old: str, new: str, *, allow_secret: bool = False) -> Outcome:
    """Rename memory ``old`` to ``new``, every `mem:OLD` reference following (proposed,
    ``allow_secret`` is not heard, as for :func:`write`)."""
    if not store.access().proposing(old, new):
        result = store.rename(old, new, allow_secret=allow_secret)
        return Applied(PlannedChange("rename", result.old, new_name=result.new), renamed=result)
    from serena_memory.core import proposals  # review mode's storage, when proposing

    old, new = gate_rename(store, store.snapshot(), old, new, proposing=True)
    current = proposals.current_text(store, old)
    if current is None:
        _not_found(store, old)
    if store.exists(new):
        refuse_taken(new)
    planned = PlannedChange("rename", old, base=version_of(current), new_name=new)
    return Proposed(proposals.save(store, planned))


def _not_found(store: MemoryStore, name: str) -> NoReturn:
    store.read(name, announce=False)  # the store's own not-found error, with its advice
    raise MemoryNotFoundError(f"memory '{name}' not found", name=name)


def _keep_deprecation(current: str, new: str) -> str:
    from serena_memory.core.lifecycle import keep_deprecation

    return keep_deprecation(current, new)
