"""The dashboard's memory page tells what `read_memory` tells the agent: that the memory is
deprecated (with its successor) and who last wrote it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer

OLD = "---\nstatus: deprecated\nsuperseded_by: mem:auth/login\n---\n# Old login\n"


@pytest.fixture
def dashboard(store: MemoryStore) -> Iterator[httpx.Client]:
    server = DashboardServer(store.layout.project_root, home=store.layout.home, port=0)
    server.start()
    headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
    try:
        with httpx.Client(base_url=server.base_url, headers=headers) as client:
            yield client
    finally:
        server.stop()


def test_the_memory_page_says_deprecated_and_who_wrote_it(
    dashboard: httpx.Client, store: MemoryStore
) -> None:
    store.write("auth/login", "# Login\n")
    store.write("auth/old", OLD)
    page = dashboard.get("/api/memory", params={"name": "auth/old"}).json()
    assert page["lifecycle"].startswith("This memory is deprecated: read `mem:auth/login`")
    assert (
        page["trust"].startswith("Last written by ")
        and "(a person, in the command line)" in (page["trust"])
    )
    current = dashboard.get("/api/memory", params={"name": "auth/login"}).json()
    assert current["lifecycle"] == ""
