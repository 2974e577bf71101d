"""The read event: every read of a memory, whatever the front-end, is announced with who
read it; listings and the library's own reads are not. Checked through the usage counts it
feeds (the CLI in a subprocess, a real MCP client over stdio, the dashboard over HTTP) and
through a listener of the test's own."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest
from conftest import run_cli
from helpers.mcp_support import ok, over_stdio

from serena_memory.core.changes import Provenance, acting_as
from serena_memory.core.errors import MemoryNotFoundError, MemoryStoreError
from serena_memory.core.reads import ReadEvent
from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer
from serena_memory.usage.report import store_usage
from serena_memory.wiring import build_store


class Heard:
    """A listener that keeps what it is told."""

    def __init__(self) -> None:
        self.events: list[ReadEvent] = []

    def memory_read(self, event: ReadEvent) -> None:
        self.events.append(event)


class Failing:
    def memory_read(self, event: ReadEvent) -> None:
        raise RuntimeError("a listener that breaks")


def reads_of(project: Path, home: Path) -> dict[str, tuple[int, dict[str, int]]]:
    store = build_store(project, home=home)
    return {m.name: (m.reads, m.clients) for m in store_usage(store).memories}


def test_a_read_is_announced_with_its_canonical_name_and_who_read(store: MemoryStore) -> None:
    store.write("auth/login", "# login\n")
    heard = Heard()
    store.reads.subscribe(heard)
    with acting_as(Provenance("mcp", "claude-code 1.2", "read_memory")):
        assert store.read("mem:auth/login.md") == "# login\n"
    assert store.load("auth/login").content == "# login\n"
    assert [e.name for e in heard.events] == ["auth/login", "auth/login"]
    assert heard.events[0].provenance.who == "claude-code 1.2"
    assert heard.events[1].provenance.entry_point == "cli"  # the store's own default
    assert heard.events[0].project_root == store.layout.project_root


def test_listing_writing_and_the_librarys_own_reads_are_no_reads(store: MemoryStore) -> None:
    heard = Heard()
    store.reads.subscribe(heard)
    store.write("core", "see `mem:notes`\n")
    store.write("notes", "n\n")
    store.edit("notes", "n", "m")
    store.list()
    list(store.read_many(["core", "notes"]))
    store.read("notes", announce=False)
    store.rename("notes", "topic/notes")
    assert heard.events == []


def test_a_failed_read_announces_nothing_and_a_broken_listener_fails_no_read(
    store: MemoryStore,
) -> None:
    heard = Heard()
    store.reads.subscribe(Failing())
    unsubscribe = store.reads.subscribe(heard)
    store.write("core", "x")
    with pytest.raises(MemoryNotFoundError):
        store.read("missing")
    assert store.read("core") == "x"
    unsubscribe()
    store.read("core")
    assert [e.name for e in heard.events] == ["core"]


def test_a_store_given_no_listeners_counts_nothing(project: Path, serena_home: Path) -> None:
    quiet = MemoryStore(project, home=serena_home, read_listeners=[])
    quiet.write("core", "x")
    quiet.read("core")
    assert reads_of(project, serena_home)["core"][0] == 0


def test_the_cli_read_is_counted_as_cli_and_the_listing_is_not(
    project: Path, serena_home: Path
) -> None:
    build_store(project, home=serena_home).write("core", "# core\n")
    assert run_cli("memories", "read", "core", str(project)).returncode == 0
    assert run_cli("memories", "read", "core", str(project), "--json").returncode == 0
    assert run_cli("memories", "list", str(project)).returncode == 0
    assert reads_of(project, serena_home)["core"] == (2, {"cli": 2})


def test_an_mcp_client_s_reads_are_counted_under_its_name(project: Path, serena_home: Path) -> None:
    store = build_store(project, home=serena_home)
    store.write("core", "# core\n")
    store.write("other", "# other\n")

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            assert (await ok(client, "read_memory", memory_name="core")).startswith("# core")
            await ok(client, "list_memories")
            read = await client.read_resource("memory://core")
            assert read.contents[0].text == "# core\n"

    anyio.run(go)
    reads, clients = reads_of(project, serena_home)["core"]
    assert reads == 2
    [client] = clients  # the SDK client as it introduced itself, not "cli"
    assert client not in ("cli", "dashboard", "unknown client")
    assert reads_of(project, serena_home)["other"][0] == 0  # listed, never read


def test_the_dashboard_counts_opening_a_memory_not_the_page_s_polls(
    project: Path, serena_home: Path
) -> None:
    build_store(project, home=serena_home).write("core", "# core\n")
    server = DashboardServer(project, home=serena_home, port=0)
    server.start()
    try:
        headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
        with httpx.Client(base_url=server.base_url, headers=headers) as client:
            assert client.get(server.url).status_code == 200
            first = client.get("/api/memory?name=core")
            assert first.json()["usage"]["reads"] == 1  # this opening is in it
            tag = first.headers["etag"]
            for _ in range(3):
                assert (
                    client.get("/api/memory?name=core", headers={"If-None-Match": tag}).status_code
                    == 304
                )
            client.get("/api/state")
    finally:
        server.stop()
    assert reads_of(project, serena_home)["core"] == (1, {"dashboard": 1})


def test_usage_is_kept_under_serena_home_never_in_the_project(
    project: Path, serena_home: Path
) -> None:
    build_store(project, home=serena_home).write("core", "# core\n")
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    assert run_cli("memories", "read", "core", str(project)).returncode == 0
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before
    files = sorted(p.name for p in (serena_home / "usage").iterdir())
    assert files and all(name.startswith("project-") for name in files)
    text = "".join((serena_home / "usage" / f).read_text() for f in files)
    assert str(project) not in text  # the file is named after the project, holds no path
    assert (
        json.loads(run_cli("memories", "usage", str(project), "--json").stdout)["memories"][0][
            "reads"
        ]
        == 1
    )


def test_a_store_built_directly_keeps_no_history_and_counts_no_read(
    project: Path, serena_home: Path
) -> None:
    """The store's parts are handed in by serena_memory.wiring: a store built directly is
    the plain one (its changes are made, none is recorded; its reads are not counted)."""
    plain = MemoryStore(project, home=serena_home)
    plain.write("core", "# core\n")
    assert plain.read("core") == "# core\n"
    with pytest.raises(MemoryStoreError, match="keeps no history"):
        plain.history()
    assert not (serena_home / "history").exists()
    assert store_usage(plain).memories[0].reads == 0
    wired = build_store(project, home=serena_home)
    wired.write("core", "# core, again\n")
    wired.read("core")
    assert [entry.summary for entry in wired.history().entries("core")][:1]
    assert store_usage(wired).memories[0].reads == 1
