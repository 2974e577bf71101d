"""Search finds a deprecated or stale memory after the current ones that match: the agent
reads the memory that replaced it first."""

from __future__ import annotations

from serena_memory.core.store import MemoryStore
from serena_memory.search.index import search_memories

OLD = (
    "---\nstatus: deprecated\nsuperseded_by: deploy/new\n---\n# Deploying the service\n"
    "Deploy the service with kubectl apply, then deploy the worker; deploy again on error.\n"
)
NEW = "# Deploying\nThe service deploy uses helm upgrade.\n"


def test_a_deprecated_memory_ranks_after_a_current_one(store: MemoryStore) -> None:
    store.write("deploy/old", OLD)
    store.write("deploy/new", NEW)
    assert [hit.name for hit in search_memories(store, "deploy the service")] == [
        "deploy/new",
        "deploy/old",
    ]


def test_a_stale_memory_ranks_after_a_current_one(store: MemoryStore) -> None:
    stale = OLD.replace("status: deprecated\nsuperseded_by: deploy/new", "stale_after: 2001-01-01")
    store.write("deploy/old", stale)
    store.write("deploy/new", NEW)
    assert [hit.name for hit in search_memories(store, "deploy the service")][0] == "deploy/new"
    store.write("deploy/old", stale.replace("2001-01-01", "2999-01-01"))  # not stale yet
    assert [hit.name for hit in search_memories(store, "deploy the service")][0] == "deploy/old"
