"""Seeding of the memory_maintenance memory, the conventions every onboarding starts from."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from serena_memory.core.store import MemoryStore

MAINTENANCE_NAME = "memory_maintenance"
GLOBAL_MAINTENANCE_NAME = "global/" + MAINTENANCE_NAME


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

    def describe(self) -> str:
        if self.name == GLOBAL_MAINTENANCE_NAME:
            return (
                f"Using the global memory '{GLOBAL_MAINTENANCE_NAME}'; no project copy was created."
            )
        if self.created:
            return f"Created '{MAINTENANCE_NAME}' from the shipped template."
        return f"Kept the existing project memory '{MAINTENANCE_NAME}' (never overwritten)."


def seed_maintenance(store: MemoryStore) -> SeedResult:
    """Global copy wins; else an existing project copy; else write the template. Never
    overwrites, so a customized copy survives every onboarding."""
    if store.exists(GLOBAL_MAINTENANCE_NAME):
        return SeedResult(GLOBAL_MAINTENANCE_NAME, False)
    created = store.create_if_absent(MAINTENANCE_NAME, template_text())
    return SeedResult(MAINTENANCE_NAME, created)
