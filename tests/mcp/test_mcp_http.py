"""`serena start-mcp-server --transport streamable-http`: a real server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_support import (
    INITIALIZE,
    JSON_HEADERS,
    MEMORY_TOOLS,
    ONBOARDING_TOOLS,
    HttpServer,
    every_tool,
    http_server,
    ok,
    post,
    prepare_every_tool,
    scripted_onboarding,
    tool_names,
    write_memory_file,
)

pytestmark = pytest.mark.slow  # real HTTP server processes, restarted


def run(fn, *args):
    return anyio.run(fn, *args)


def test_every_tool_and_onboarding_over_streamable_http(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    prepare_every_tool(project, serena_home)

    async def go(server: HttpServer) -> None:
        async with server.connect() as client:
            await every_tool(client, project, serena_home)
        # a second client of the same server switches it to an empty project and onboards it
        async with server.connect() as client:
            await ok(client, "activate_project", project=str(fresh))
        async with server.connect(mode="legacy") as client:
            await scripted_onboarding(client, fresh)
        async with server.connect() as client:
            text = client.instructions or ""
            assert "- tech_stack" in text and "Start from `mem:core`" in text

    with http_server([], cwd=project) as server:
        run(go, server)


def test_modes_over_streamable_http(project: Path) -> None:
    write_memory_file(project, "core", "Entry.\n")

    async def go(server: HttpServer) -> None:
        async with server.connect() as client:
            names = await tool_names(client)
            assert not names & (MEMORY_TOOLS | ONBOARDING_TOOLS)
            with pytest.raises(MCPError) as hidden:  # a tool the mode hides is unknown: -32602
                await client.call_tool("read_memory", {"memory_name": "core"})
            assert hidden.value.code == -32602 and "read_memory" in str(hidden.value)

    with http_server(["--project", str(project), "--mode", "no-memories"]) as server:
        run(go, server)


def test_a_taken_port_is_one_clear_line(project: Path) -> None:
    import os
    import socket
    import subprocess

    from mcp_support import SERVER_CMD

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


REFUSAL = (
    "Unauthorized: send the header 'Authorization: Bearer TOKEN' with the token that "
    "`serena start-mcp-server` printed (serena setup CLIENT --url URL writes it for you).\n"
)


def test_every_request_without_the_right_token_is_refused(project: Path) -> None:
    import httpx

    with http_server(["--project", str(project), "--no-dashboard"]) as server:
        assert server.token is not None
        wrong = server.token[:-1] + ("A" if server.token[-1] != "A" else "B")
        refusals = [
            {},
            {"Authorization": f"Bearer {wrong}"},
            {"Authorization": f"Bearer {server.token}x"},
            {"Authorization": "Bearer"},
            {"Authorization": f"Basic {server.token}"},
            {"Authorization": server.token},
            {"X-Serena-Token": server.token},
            [("Authorization", f"Bearer {server.token}"), ("Authorization", f"Bearer {wrong}")],
        ]
        for extra in refusals:
            response = post(server.url, extra)
            assert response.status_code == 401, (extra, response.status_code)
            assert response.headers["www-authenticate"] == "Bearer"
            assert response.text == REFUSAL
        for method in ("GET", "DELETE"):
            response = httpx.request(method, server.url, headers=JSON_HEADERS, timeout=60)
            assert response.status_code == 401 and response.text == REFUSAL
        response = post(server.url, {"Authorization": f"bearer {server.token}"})
        assert response.status_code == 200, response.text  # the scheme is case-insensitive
        assert post(server.url, server.headers).status_code == 200


def test_another_local_process_cannot_read_files_or_plant_memories(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    """What a process without the token tries: activate a folder of secrets and read a key,
    or write a global memory every project's agent reads. Both are refused; the same calls
    with the printed header show they would work."""
    secrets = tmp_path / "dot-ssh"
    secrets.mkdir()
    (secrets / "id_ed25519").write_text("PRIVATE KEY\n")
    planted = serena_home / "memories" / "global" / "planted.md"

    async def attack(server: HttpServer, headers: dict[str, str]) -> None:
        async with server.connect(headers=headers) as client:
            await client.call_tool("activate_project", {"project": str(secrets)})
            await client.call_tool(
                "write_memory", {"memory_name": "global/planted", "content": "x"}
            )

    async def as_the_agent(server: HttpServer) -> str:
        async with server.connect() as client:
            await ok(client, "activate_project", project=str(secrets))
            return await ok(client, "read_file", relative_path="id_ed25519")

    for args in ([], ["--project", str(project)]):
        with http_server([*args, "--no-dashboard"], cwd=project) as server:
            for headers in ({}, {"Authorization": "Bearer not-the-token-at-all"}):
                try:
                    run(attack, server, headers)
                except Exception:  # noqa: BLE001 - the SDK's error for a 401, whichever it is
                    pass
                else:
                    raise AssertionError(f"connected without the token: {headers}")
                for body in (
                    {**INITIALIZE, "method": "tools/call", "params": {"name": "read_file"}},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                ):
                    assert post(server.url, headers, body).status_code == 401
            assert not planted.exists()
            if not args:
                assert "PRIVATE KEY" in run(as_the_agent, server)


def test_no_auth_warns_and_serves_without_a_token(project: Path) -> None:
    with http_server(["--project", str(project), "--no-dashboard", "--no-auth"]) as server:
        assert server.header is None
        assert (
            "Warning: --no-auth: any process or account on this machine can use this server "
            "(read files, switch its project, write memories)."
        ) in server.stderr
        assert post(server.url, {}).status_code == 200


def test_the_printed_header_is_kept_across_restarts_until_rotated(
    project: Path, serena_home: Path
) -> None:
    import stat

    args = ["--project", str(project), "--no-dashboard"]
    stored = serena_home / "mcp-token"
    with http_server(args) as first:
        assert first.header is not None and first.token is not None
        assert first.header == f"Authorization: Bearer {first.token}"
        assert stored.read_text() == first.token + "\n"
        assert stat.S_IMODE(stored.stat().st_mode) == 0o600
        assert any(str(stored) in line and "serena setup" in line for line in first.stderr)

        async def tools(server: HttpServer) -> set[str]:
            async with server.connect() as client:
                return await tool_names(client)

        assert "read_memory" in run(tools, first)
    with http_server(args) as again:
        assert again.header == first.header
    with http_server([*args, "--rotate-token"]) as rotated:
        assert rotated.token != first.token
        assert stored.read_text() == f"{rotated.token}\n"
        assert post(rotated.url, first.headers).status_code == 401
        assert post(rotated.url, rotated.headers).status_code == 200


def test_a_token_from_the_environment_is_used_and_not_stored(
    project: Path, serena_home: Path
) -> None:
    import os

    token = "a-token-the-person-manages-0123456789"
    env = {**os.environ, "SERENA_MCP_TOKEN": token}
    with http_server(["--project", str(project), "--no-dashboard"], env=env) as server:
        assert server.header == f"Authorization: Bearer {token}"
        assert post(server.url, server.headers).status_code == 200
    assert not (serena_home / "mcp-token").exists()


def start_failure(args: list[str], env: dict[str, str] | None = None) -> str:
    import os
    import subprocess

    from mcp_support import SERVER_CMD, free_port

    result = subprocess.run(
        [*SERVER_CMD, "--transport", "streamable-http", "--port", str(free_port()), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    return result.stderr


def test_an_unsafe_or_unusable_token_is_one_clear_line(project: Path, serena_home: Path) -> None:
    args = ["--project", str(project), "--no-dashboard"]
    said = start_failure(args, {"SERENA_MCP_TOKEN": "short"})
    assert "fewer than 16" in said
    said = start_failure(args, {"SERENA_MCP_TOKEN": "has spaces in the middle of it"})
    assert "printable ASCII without spaces" in said
    stored = serena_home / "mcp-token"
    stored.write_text("readable-by-everyone-0123456789\n")
    stored.chmod(0o644)
    said = start_failure(args)
    assert "can be read by other accounts" in said and "--rotate-token" in said
    stored.unlink()
    stored.symlink_to(project)
    assert "not a link" in start_failure(args)
