"""`memory_sync: auto` with a real server process: a pull when the server starts, a push
after the agent's writes (in the background), an unreachable remote said once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from conftest import run_cli_process, write_config
from mcp_support import SERVER_CMD, HttpServer, free_port, ok, over_stdio

from serena_memory.core.store import MemoryStore
from serena_memory.sync.merge import sync
from serena_memory.wiring import build_store

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]


def _wait_for(check, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "did not happen in time"
        time.sleep(0.1)


@pytest.fixture
def laptop(tmp_path: Path) -> MemoryStore:
    (tmp_path / "laptop" / "project").mkdir(parents=True)
    (tmp_path / "laptop" / "home").mkdir()
    return build_store(tmp_path / "laptop" / "project", home=tmp_path / "laptop" / "home")


def test_the_server_pulls_at_start_and_pushes_after_writes(
    tmp_path: Path, project: Path, serena_home: Path, laptop: MemoryStore
) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    laptop.write("global/from-laptop", "written on the laptop\n")
    sync(laptop, "global", str(remote))
    write_config(
        serena_home / "serena_config.yml", f"memory_sync: auto\nmemory_sync_remote: {remote}\n"
    )
    pulled = serena_home / "memories" / "global" / "from-laptop.md"

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            await anyio.to_thread.run_sync(lambda: _wait_for(pulled.is_file))
            await ok(client, "write_memory", memory_name="global/from-agent", content="agent\n")

            def pushed() -> bool:
                sync(laptop, "global", str(remote))
                return laptop.exists("global/from-agent")

            await anyio.to_thread.run_sync(lambda: _wait_for(pushed))

    anyio.run(go)
    assert laptop.read("global/from-agent") == "agent\n"
    assert pulled.read_text() == "written on the laptop\n"


def test_an_unreachable_remote_is_said_once_and_never_fails_a_tool(
    tmp_path: Path, project: Path, serena_home: Path
) -> None:
    gone = tmp_path / "unplugged" / "memories.git"
    write_config(
        serena_home / "serena_config.yml", f"memory_sync: auto\nmemory_sync_remote: {gone}\n"
    )
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [*SERVER_CMD, "--transport", "streamable-http", "--port", str(port)]
            + ["--project", str(project), "--no-dashboard"],
            env=dict(os.environ),
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        _wait_for(lambda: "automatic sync of the global memories failed" in log.read_text())

        _wait_for(lambda: "Authorization: Bearer " in log.read_text())
        header = next(
            line for line in log.read_text().splitlines() if line.startswith("Authorization: ")
        )
        server = HttpServer(f"http://127.0.0.1:{port}/mcp", header, [])

        async def go() -> None:
            async with server.connect() as client:
                for i in range(3):
                    text = await ok(client, "write_memory", memory_name=f"global/n{i}", content="x")
                    assert "sync" not in text.lower()

        anyio.run(go)
        time.sleep(4)  # past the debounce: the push after the writes failed too
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    said = log.read_text()
    assert said.count("automatic sync of the global memories failed") == 1, said
    assert "Traceback" not in said
    assert (serena_home / "memories" / "global" / "n2.md").read_text() == "x"


def test_a_server_records_and_syncs_on_after_its_history_was_removed_under_it(
    tmp_path: Path, project: Path, serena_home: Path, laptop: MemoryStore
) -> None:
    """docs/secrets.md followed at a terminal while the agent's server runs: the person's
    secret replaced, the history removed; the server's next write is recorded in a new
    history and synced, and nothing of the secret reaches the remote."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    write_config(
        serena_home / "serena_config.yml", f"memory_sync: auto\nmemory_sync_remote: {remote}\n"
    )
    token = "ghp_" + "Q7bX2mK9pL4vR8sT1wY6zA3cE5gH0jN2uF4d"  # GitHub's format, not a real one
    first, rotated = "# Deploy\n\nv1\n", "# Deploy\n\nThe CI token is <github-token>, rotated.\n"

    def on_the_laptop(text: str) -> None:
        def there() -> bool:
            sync(laptop, "global", str(remote))
            return laptop.exists("global/deploy") and laptop.read("global/deploy") == text

        _wait_for(there)

    def person(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli_process("memories", *args, cwd=project)

    def follow_the_docs() -> None:
        """A token pasted, then docs/secrets.md, steps 2 and 3."""
        pasted = f"# Deploy\n\nThe CI token is {token}\n"
        person("write", "global/deploy", "--content", pasted, "--allow-secret")
        found = json.loads(person("check", "--secrets", "--json").stdout)
        assert found["history_repositories"]
        person("edit", "global/deploy", "--needle", token, "--repl", "<github-token>")
        for repository in found["history_repositories"]:
            shutil.rmtree(repository)
        assert person("check", "--secrets").returncode == 0

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            await ok(client, "write_memory", memory_name="global/deploy", content=first)
            await anyio.to_thread.run_sync(lambda: on_the_laptop(first))
            await anyio.to_thread.run_sync(follow_the_docs)
            await ok(client, "write_memory", memory_name="global/deploy", content=rotated)
            shown = (await ok(client, "memory_history", memory_name="global/deploy")).splitlines()
            assert len(shown) == 2 and "History started" in shown[1]
            await anyio.to_thread.run_sync(lambda: on_the_laptop(rotated))

    anyio.run(go)
    logged = subprocess.run(
        ["git", "--git-dir", str(remote), "log", "--all", "-p"], capture_output=True, text=True
    )
    assert logged.returncode == 0 and token not in logged.stdout
