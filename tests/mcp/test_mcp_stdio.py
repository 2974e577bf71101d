"""`serena start-mcp-server` over stdio, started as a subprocess the way MCP clients do."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest
from conftest import write_config
from mcp_support import (
    EXPLORATION_TOOLS,
    MEMORY_TOOLS,
    ONBOARDING_TOOLS,
    SERVER_CMD,
    every_tool,
    handshake,
    ok,
    over_stdio,
    prepare_every_tool,
    read_text,
    refused,
    scripted_onboarding,
    tool_names,
    write_memory_file,
)


def run(fn, *args):
    return anyio.run(fn, *args)


def test_every_tool_over_stdio(project: Path, serena_home: Path) -> None:
    prepare_every_tool(project, serena_home)

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            await every_tool(client, project, serena_home)

    run(go)


@pytest.mark.slow  # real server processes
def test_scripted_onboarding_over_stdio_with_the_current_folder_as_project(
    project: Path,
) -> None:
    async def go() -> None:
        async with over_stdio([], cwd=project) as client:
            await scripted_onboarding(client, project)
        async with over_stdio([], cwd=project) as client:
            text = client.instructions or ""
            assert "- task_completion" in text and "Onboarding has not been" not in text
            assert await read_text(client, "core") == "# core\n"
        async with over_stdio([], cwd=project, mode="auto") as client:
            text = client.instructions or ""
            assert "- core" in text and "Start from `mem:core`" in text
            assert "Onboarding has not been performed" not in text

    run(go)


@pytest.mark.slow  # real server processes
def test_modes_given_on_the_command_line(project: Path, serena_home: Path) -> None:
    write_config(
        serena_home / "modes" / "quiet.yml",
        "description: No exploring.\nprompt: Use your own file tools.\n"
        "excluded_tools: [list_dir, find_file, search_for_pattern, read_file]\n",
    )

    async def go() -> None:
        async with over_stdio(
            ["--project", str(project), "--mode", "no-onboarding", "--mode", "quiet"]
        ) as client:
            names = await tool_names(client)
            assert names == MEMORY_TOOLS | {"initial_instructions"}
            assert "Use your own file tools." in (client.instructions or "")
        async with over_stdio(["--project", str(project), "--mode", "no-memories"]) as client:
            names = await tool_names(client)
            assert not names & (MEMORY_TOOLS | ONBOARDING_TOOLS)
            assert names >= EXPLORATION_TOOLS

    run(go)


@pytest.mark.slow  # real server processes
def test_started_in_the_home_folder_it_waits_for_activation(project: Path, tmp_path: Path) -> None:
    write_memory_file(project, "core", "Entry.\n")
    home = tmp_path / "user-home"
    home.mkdir()

    async def go() -> None:
        from mcp import Client, StdioServerParameters

        params = StdioServerParameters(
            command=SERVER_CMD[0],
            args=SERVER_CMD[1:],
            env=dict(os.environ, HOME=str(home), USERPROFILE=str(home)),
            cwd=home,
        )
        async with Client(params, mode="legacy") as client:
            assert "activate_project" in (client.instructions or "")
            await refused(client, "read_memory", "activate_project", memory_name="core")
            answer = await ok(client, "activate_project", project=str(project))
            assert "- core" in answer
            assert await read_text(client, "core") == "Entry.\n"

    run(go)
    assert not (home / ".serena").exists()


def start_failure(*args: str, cwd: Path | None = None) -> str:
    result = subprocess.run(
        [*SERVER_CMD, *args],
        input="",
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=cwd,
        timeout=60,
    )
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


@pytest.mark.slow  # real server processes
def test_start_up_problems_stop_the_server_with_one_clear_line(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    line = start_failure("--project", str(project), "--mode", "no-such-mode")
    assert "unknown mode 'no-such-mode'" in line and "no-memories" in line
    write_config(serena_home / "modes" / "broken.yml", "prompt: [unclosed\n")
    line = start_failure("--project", str(project), "--mode", "broken")
    assert "broken.yml" in line and "invalid YAML" in line
    write_config(serena_home / "modes" / "typed.yml", "excluded_tools: read_memory\n")
    line = start_failure("--project", str(project), "--mode", "typed")
    assert "excluded_tools" in line
    line = start_failure("--project", str(tmp_path / "missing"))
    assert "does not exist" in line
    write_config(serena_home / "serena_config.yml", "base_modes: [nope]\n")
    assert "unknown mode 'nope'" in start_failure("--project", str(project))
    write_config(serena_home / "serena_config.yml", "base_modes: nope\n")
    assert "base_modes" in start_failure("--project", str(project))
    write_config(serena_home / "serena_config.yml", "")
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['(']\n")
    assert "project.yml" in start_failure("--project", str(project))


@pytest.mark.parametrize("option", ["--port", "--dashboard-port"])
def test_a_port_out_of_range_is_a_usage_error(project: Path, option: str) -> None:
    args = ["--project", str(project), "--transport", "streamable-http", option, "99999"]
    result = subprocess.run(
        [*SERVER_CMD, *args], input="", capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"Invalid value for '{option}'" in result.stderr


@pytest.mark.slow  # real server processes
def test_the_protocol_stream_carries_nothing_but_messages(project: Path) -> None:
    """Raw JSON-RPC over the pipes, odd lines included: every line the server writes is one
    JSON message."""
    messages = [
        *handshake(),
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "onboarding", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "read_memory", "arguments": {"memory_name": "../../x"}},
        },
    ]
    # a lone surrogate is valid JSON but no text: refused with an answer, not left hanging
    # (sent before id 4, so its answer comes first: the line is refused as it is read)
    messages.insert(
        -1,
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {
                "name": "write_memory",
                "arguments": {"memory_name": "s", "content": "\ud800"},
            },
        },
    )
    odd = ['{"jsonrpc": "2.0", "id": [1], "method": "tools/list"}', "[1, 2]", "{}", "null"]
    lines = [json.dumps(messages[0]), *odd, *(json.dumps(m) for m in messages[1:])]
    stdin = "\n".join(lines) + "\nthis is not json\n"
    proc = subprocess.Popen(
        [*SERVER_CMD, "--project", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    answers: dict[int, dict] = {}
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    for line in proc.stdout:
        message = json.loads(line)  # every line is a JSON message
        if message.get("id") in (1, 2, 3, 4, 5):
            answers[message["id"]] = message
        if answers.keys() >= {1, 2, 3, 4}:
            break
    proc.stdin.close()
    rest = proc.stdout.read()
    proc.wait(timeout=30)
    for line in rest.splitlines():
        json.loads(line)
    assert answers[1]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[3]["result"]["isError"] is False
    assert answers[4]["result"]["isError"] is True
    assert "surrogate" in answers.get(5, {}).get("error", {}).get("message", "")
    assert not (project / ".serena" / "memories" / "s.md").exists()
    assert "Traceback" not in proc.stderr.read()


@pytest.mark.slow  # real server processes
@pytest.mark.parametrize("transport_mode", ["auto"])
def test_the_modern_protocol_over_stdio(project: Path, transport_mode: str) -> None:
    async def go() -> None:
        async with over_stdio(["--project", str(project)], mode=transport_mode) as client:
            await ok(client, "write_memory", memory_name="a", content="b")
            assert await read_text(client, "a") == "b"
            big = "é€\n" * 50_000  # 150,000 characters, 300 KB of UTF-8 through the pipes
            await ok(client, "write_memory", memory_name="big", content=big)
            assert await read_text(client, "big") == big
            await refused(client, "write_memory", "150000", memory_name="b2", content=big + "x")

    run(go)
