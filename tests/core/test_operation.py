"""One operation per command or request: the settings are read once for it, and what it
must tell reaches the front-end that opened it and no other."""

from __future__ import annotations

import re
import time
from pathlib import Path

import anyio
import httpx
import pytest
from mcp_support import free_port, http_server

from serena_memory.core import config, operation
from serena_memory.core.store import MemoryStore
from serena_memory.history.location import history_root, repository_path
from serena_memory.history.notices import take_notices
from serena_memory.wiring import build_store


def _counting_loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = config.load_settings

    def counted(*args: object) -> config.Settings:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr("serena_memory.core.store.load_settings", counted)
    return calls


def test_the_settings_are_loaded_once_per_operation(
    store: MemoryStore, serena_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = _counting_loads(monkeypatch)
    with operation.operation():
        store.write("fact", "v1\n")
        store.edit("fact", "v1", "v2")
        assert store.read("fact") == "v2\n"
        store.rename("fact", "topic/fact")
    assert len(loads) == 1
    # the next operation reads them again: an edit to the file between two applies
    (serena_home / "serena_config.yml").write_text('read_only_memory_patterns: ["topic/.*"]\n')
    with operation.operation():
        assert store.access().is_read_only("topic/fact")
    assert len(loads) == 2
    # outside any operation they are read at every use, as before
    store.access().is_read_only("topic/fact")
    store.access().is_read_only("topic/fact")
    assert len(loads) == 4


def test_each_change_outside_an_operation_reads_the_settings_once(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change takes one snapshot of the settings for its access rules, its path gate and
    its history entry, so an edit to the file never applies half-way through one."""
    store.write("fact", "v1\n")
    loads = _counting_loads(monkeypatch)
    store.write("fact", "v2\n")
    store.edit("fact", "v2", "v3")
    store.rename("fact", "topic/fact")
    store.delete("topic/fact")
    assert len(loads) == 4
    assert not store.exists("topic/fact") and not store.exists("fact")


def test_a_name_resolves_afresh_after_the_store_removed_its_file(
    store: MemoryStore, tmp_path: Path
) -> None:
    """A memory that is a link resolves to its target; once deleted, the same operation
    must not read the target through what it resolved before."""
    target = store.layout.memories_dir / "real.md"
    store.write("real", "the target\n")
    (store.layout.memories_dir / "alias.md").symlink_to(target)
    with operation.operation():
        assert store.read("alias") == "the target\n"
        store.delete("alias")
        assert not store.exists("alias")
        assert store.read("real") == "the target\n"


def _break_history(store: MemoryStore, folder: Path) -> None:
    """Make the git history of ``folder`` unwritable: its object store is a file."""
    repo = repository_path(history_root(store), folder)
    objects = repo / "objects"
    objects.rename(repo / "objects.moved")
    objects.write_text("a file where the object folder should be")


def _dashboard_url(lines: list[str]) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in lines:
            found = re.search(r"Memories dashboard: (\S+)", line)
            if found:
                return found.group(1)
        time.sleep(0.05)
    raise AssertionError(f"no dashboard started: {lines}")


@pytest.mark.slow  # real HTTP and dashboard servers
def test_two_http_clients_and_the_dashboard_each_see_only_their_own_notices(
    project: Path, serena_home: Path
) -> None:
    """One server process, two MCP clients over HTTP and the dashboard beside them. The
    global memories' history is broken, so each change of a global memory is saved but
    not recorded: whoever made it is told, in its own answer; the others are not."""
    store = build_store(project, home=serena_home)
    store.write("global/shared", "g0\n")  # starts the global folder's history
    store.write("local", "p0\n")
    _break_history(store, store.layout.global_dir)
    take_notices()
    port = free_port()
    with http_server(["--project", str(project), "--dashboard-port", str(port)]) as server:
        url = _dashboard_url(server.stderr)
        token = url.split("?token=")[1]
        base = f"http://127.0.0.1:{port}"  # what the page sends: its token and Origin
        dashboard = httpx.Client(
            base_url=base, headers={"X-Serena-Token": token, "Origin": base}, timeout=60
        )

        async def scenario() -> dict[str, list[str]]:
            said: dict[str, list[str]] = {"a": [], "b": [], "dashboard": []}

            def answer(result: object) -> str:
                return "\n".join(getattr(b, "text", "") for b in result.content)  # type: ignore[attr-defined]

            async with server.connect() as a, server.connect() as b:
                # the dashboard's change of a global memory: told in its JSON answer
                made = dashboard.post(
                    "/api/memory", json={"name": "global/from-dashboard", "content": "d\n"}
                )
                assert made.status_code == 201, made.text
                said["dashboard"] += made.json().get("notices", [])
                # another client's change right after: nothing of the dashboard's
                done = await b.call_tool(
                    "write_memory", {"memory_name": "b-note", "content": "b\n"}
                )
                said["b"].append(answer(done))
                # client A changes a global memory: told in its own answer
                done = await a.call_tool(
                    "write_memory", {"memory_name": "global/from-a", "content": "a\n"}
                )
                said["a"].append(answer(done))
                done = await b.call_tool(
                    "write_memory", {"memory_name": "b-note", "content": "b2\n"}
                )
                said["b"].append(answer(done))
            made = dashboard.post("/api/memory", json={"name": "d-note", "content": "d\n"})
            assert made.status_code == 201, made.text
            said["dashboard"] += made.json().get("notices", [])
            return said

        try:
            said = anyio.run(scenario)
        finally:
            dashboard.close()
    assert store.read("global/from-dashboard") == "d\n" and store.read("global/from-a") == "a\n"
    [dashboard_notice] = said["dashboard"]
    assert "could not be recorded" in dashboard_notice and "global" in dashboard_notice
    a_text = "\n".join(said["a"])
    assert "Note: the history of the memories in" in a_text
    assert "could not be recorded" in a_text
    for text in said["b"]:
        assert "could not be recorded" not in text and "Note:" not in text, text
