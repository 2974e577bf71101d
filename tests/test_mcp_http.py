"""`serena start-mcp-server --transport streamable-http`: a real server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import anyio
from test_mcp_support import (
    MEMORY_TOOLS,
    ONBOARDING_TOOLS,
    every_tool,
    http_server,
    ok,
    prepare_every_tool,
    refused,
    scripted_onboarding,
    tool_names,
    write_memory_file,
)


def run(fn, *args):
    return anyio.run(fn, *args)


def test_every_tool_and_onboarding_over_streamable_http(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    from mcp import Client

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    prepare_every_tool(project, serena_home)

    async def go(url: str) -> None:
        async with Client(url) as client:
            await every_tool(client, project, serena_home)
        # a second client of the same server switches it to an empty project and onboards it
        async with Client(url) as client:
            await ok(client, "activate_project", project=str(fresh))
        async with Client(url, mode="legacy") as client:
            await scripted_onboarding(client, fresh)
        async with Client(url) as client:
            text = client.instructions or ""
            assert "- tech_stack" in text and "Start from `mem:core`" in text

    with http_server([], cwd=project) as url:
        run(go, url)


def test_modes_over_streamable_http(project: Path) -> None:
    from mcp import Client

    write_memory_file(project, "core", "Entry.\n")

    async def go(url: str) -> None:
        async with Client(url) as client:
            names = await tool_names(client)
            assert not names & (MEMORY_TOOLS | ONBOARDING_TOOLS)
            await refused(client, "read_memory", "read_memory", memory_name="core")

    with http_server(["--project", str(project), "--mode", "no-memories"]) as url:
        run(go, url)


def test_a_taken_port_is_one_clear_line(project: Path) -> None:
    import os
    import socket
    import subprocess

    from test_mcp_support import SERVER_CMD

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [*SERVER_CMD, "--project", str(project), "--transport", "streamable-http",
             "--port", str(port)],
            capture_output=True, text=True, env=dict(os.environ), timeout=60,
        )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"Error: can't listen on 127.0.0.1:{port}: Address already in use; is another "
        "server running there? Choose another --port"
    ]
