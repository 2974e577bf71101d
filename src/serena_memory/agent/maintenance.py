"""Seeding of the memory_maintenance memory, the conventions every onboarding starts from.

The template is the project's, but the agent's session is what writes it, so a person
reviewing the agent's changes (``memory_agent_writes``) sees it as one of them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

from serena_memory.core import names as N
from serena_memory.core import proposals
from serena_memory.core.access import DIRECT, PROPOSE, AccessPolicy
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import MemoryStore
from serena_memory.core.verbs import plan_write

MAINTENANCE_NAME = N.MAINTENANCE
GLOBAL_MAINTENANCE_NAME = "global/" + MAINTENANCE_NAME
SEED_SUMMARY = f"Create {MAINTENANCE_NAME}"  # as a write creating it says


def template_text() -> str:
    return (
        resources.files("serena_memory.agent")
        .joinpath("templates", "memory_maintenance.md")
        .read_text(encoding="utf-8")
    )


@dataclass(frozen=True)
class SeedResult:
    name: str  # the memory in force
    created: bool
    proposal: str | None = None  # review mode: the proposal that would create it
    withheld: str | None = None  # why the agent's session did not seed it

    def describe(self) -> str:
        if self.withheld is not None:
            return self.withheld
        if self.name == GLOBAL_MAINTENANCE_NAME:
            return (
                f"Using the global memory '{GLOBAL_MAINTENANCE_NAME}'; no project copy was created."
            )
        if self.proposal is not None:
            return (
                f"Proposed to create '{MAINTENANCE_NAME}' from the shipped template (proposal "
                f"{self.proposal}); it is written when the user accepts it "
                "(memory_agent_writes: propose). Reading it shows the proposed text."
            )
        if self.created:
            return f"Created '{MAINTENANCE_NAME}' from the shipped template."
        return f"Kept the existing project memory '{MAINTENANCE_NAME}' (never overwritten)."


def seed_maintenance(store: MemoryStore) -> SeedResult:
    """Global copy wins; else an existing project copy; else write the template. Never
    overwrites, so a customized copy survives every onboarding. The agent's session seeds
    under its review mode like any change of its own: a proposal, or nothing when
    memories are read-only for it."""
    if store.exists(GLOBAL_MAINTENANCE_NAME):
        return SeedResult(GLOBAL_MAINTENANCE_NAME, False)
    policy = store.access()
    if policy.agent_mode() != DIRECT:
        return _seed_for_review(store, policy)
    try:
        created = store.create_many({MAINTENANCE_NAME: template_text()}, SEED_SUMMARY)
    except MemoryStoreError as exc:  # ignored or read-only for the agent here
        return SeedResult(
            MAINTENANCE_NAME, False, withheld=f"'{MAINTENANCE_NAME}' was not created: {exc}."
        )
    return SeedResult(MAINTENANCE_NAME, bool(created))


def _seed_for_review(store: MemoryStore, policy: AccessPolicy) -> SeedResult:
    """The seed of an agent whose changes are proposals or refused: an existing copy is
    kept, a pending proposal for it stays the one, else the template is proposed."""
    if os.path.lexists(store.real_path_of(MAINTENANCE_NAME)):
        return SeedResult(MAINTENANCE_NAME, False)
    if policy.agent_writes != PROPOSE:
        return SeedResult(
            MAINTENANCE_NAME,
            False,
            withheld=(
                f"'{MAINTENANCE_NAME}' was not created: memories are read-only for the agent "
                "here (memory_agent_writes: read-only); the user can create it with "
                "`serena memories initialize`."
            ),
        )
    for earlier in proposals.for_memory(store, MAINTENANCE_NAME):
        if earlier.memory == MAINTENANCE_NAME and earlier.action == "write":
            return SeedResult(MAINTENANCE_NAME, False, proposal=earlier.id)
    try:
        proposal = proposals.save(store, plan_write(store, MAINTENANCE_NAME, template_text()))
    except MemoryStoreError as exc:
        return SeedResult(
            MAINTENANCE_NAME, False, withheld=f"'{MAINTENANCE_NAME}' was not proposed: {exc}."
        )
    return SeedResult(MAINTENANCE_NAME, False, proposal=proposal.id)
