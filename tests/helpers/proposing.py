"""The agent's changes in review mode, as the tests ask them: through the verbs
(core/verbs.py), which plan the change and save it as a proposal."""

from __future__ import annotations

from serena_memory.core import verbs
from serena_memory.core.editing import apply_edit
from serena_memory.core.proposals import Proposal
from serena_memory.core.store import MemoryStore


def _proposed(outcome: verbs.Outcome) -> verbs.Proposed:
    assert isinstance(outcome, verbs.Proposed), outcome
    return outcome


def propose_write(store: MemoryStore, name: str, text: str) -> Proposal:
    proposal = _proposed(verbs.write(store, name, text)).proposal
    assert proposal is not None
    return proposal


def propose_edit(
    store: MemoryStore, name: str, needle: str, repl: str, mode: str, many: bool = False
) -> tuple[Proposal | None, int]:
    outcome = _proposed(
        verbs.edit(store, name, lambda text: apply_edit(text, needle, repl, mode, many))
    )
    return outcome.proposal, outcome.replacements


def propose_delete(store: MemoryStore, name: str) -> Proposal | None:
    return _proposed(verbs.delete(store, name)).proposal


def propose_rename(store: MemoryStore, old: str, new: str) -> Proposal:
    proposal = _proposed(verbs.rename(store, old, new)).proposal
    assert proposal is not None
    return proposal
