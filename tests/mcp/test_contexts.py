"""Contexts: a coding client is handed the memory tools only, in few characters, and keeps
every capability; a desktop client gets the exploration tools too; `serena setup` writes
the context that fits each client into the entry it makes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
from cli_support import run_cli
from mcp_support import EXPLORATION_TOOLS, ok

from serena_memory.agent.contexts import CONTEXTS, DEFAULT_CONTEXT

# started as a hand-made entry starts it: no --context, no --project
BARE_SERVER = [sys.executable, "-m", "serena_memory.cli", "start-mcp-server", "--no-dashboard"]
CAPABILITIES = {
    "read_memory",
    "write_memory",
    "edit_memory",
    "delete_memory",
    "rename_memory",
    "list_memories",
    "search_memories",
    "onboarding",
}
PERSONS = {"memory_history", "restore_memory"}  # the command line's and the dashboard's
# instructions + name, description and input schema of every tool a coding client lists,
# for a project not onboarded yet (what a client shows before the first user turn)
CODING_BUDGET = 3000


def _listed(args: list[str], cwd: Path) -> tuple[dict, str]:
    from mcp import Client, StdioServerParameters

    async def go() -> tuple[dict, str]:
        params = StdioServerParameters(
            command=BARE_SERVER[0], args=[*BARE_SERVER[1:], *args], env=dict(os.environ), cwd=cwd
        )
        async with Client(params, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools, client.instructions or ""

    return anyio.run(go)


def _defined(tool) -> int:
    schema = json.dumps(tool.input_schema, separators=(",", ":"), ensure_ascii=False)
    return len(tool.name) + len(tool.description or "") + len(schema)


def test_a_hand_made_entry_gets_the_coding_surface_within_its_budget(project: Path) -> None:
    tools, instructions = _listed([], project)
    assert DEFAULT_CONTEXT == "coding"
    assert set(tools) >= CAPABILITIES
    assert not (EXPLORATION_TOOLS | PERSONS) & set(tools)
    assert "check_onboarding_performed" not in tools  # onboarding answers what is left
    assert "Onboarding has not been performed" in instructions
    assert sum(_defined(t) for t in tools.values()) + len(instructions) <= CODING_BUDGET
    for tool in tools.values():  # pydantic's titles ("Memory Name") are not sent
        for prop in tool.input_schema.get("properties", {}).values():
            assert "title" not in prop, tool.name
        assert "title" not in tool.input_schema


def test_the_desktop_context_adds_the_exploration_tools(project: Path) -> None:
    tools, _ = _listed(["--context", "desktop"], project)
    assert EXPLORATION_TOOLS | CAPABILITIES | PERSONS | {"check_onboarding_performed"} <= set(tools)


def test_an_unknown_context_stops_start_up_with_the_known_ones(project: Path) -> None:
    done = subprocess.run(
        [*BARE_SERVER, "--context", "idee"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "unknown context 'idee'" in done.stderr
    assert "coding, desktop" in done.stderr and "claude-code" in done.stderr
    assert "Traceback" not in done.stderr


def test_onboarding_in_the_coding_context_says_what_is_left_itself(project: Path) -> None:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    async def go() -> None:
        _state, server = create_server(project, [], use_default_project=False)
        async with Client(server) as client:
            brief = await ok(client, "onboarding")
            assert "Explore with your own file tools" in brief
            assert "Calling `onboarding` again says which are still missing" in brief
            await ok(client, "write_memory", memory_name="core", content="# core\n")
            again = await ok(client, "onboarding")
            assert "`mem:core` exists already. Read it," in again and "`mem:tech_stack`" in again
            for name in ("tech_stack", "suggested_commands", "conventions", "task_completion"):
                await ok(client, "write_memory", memory_name=name, content=f"# {name}\n")
            done = await ok(client, "onboarding")  # the status, not the whole brief again
            assert done.startswith("Onboarding has been performed")
            assert "`.serena/memories` is meant to be committed" in done
            assert len(done) < len(brief) // 3

    anyio.run(go)


def _setup(home: Path, *args: str) -> dict:
    env = {"XDG_CONFIG_HOME": None, "CODEX_HOME": None, "HOME": str(home)}
    done = run_cli("setup", *args, "--print", env=env)
    assert done.returncode == 0, done.stderr
    text = done.stdout.split("\n", 1)[1]  # after the "# path" line
    return json.loads(text)


def test_setup_writes_the_context_that_fits_the_client(tmp_path: Path) -> None:
    for client, context in [("claude-desktop", "desktop"), ("claude-code", "coding")]:
        entry = _setup(tmp_path, client)["mcpServers"]["serena-memory"]
        args = entry["args"]
        assert args[args.index("--context") + 1] == context, client
        assert context in CONTEXTS
    shared = _setup(tmp_path, "cursor", "--project", str(tmp_path))["mcpServers"]
    assert shared["serena-memory"]["args"][:3] == ["start-mcp-server", "--context", "coding"]


def test_rare_parts_of_a_listing_are_explained_in_the_answer(project: Path) -> None:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    folder = project / ".serena" / "memories"
    folder.mkdir(parents=True)
    (folder / "core.md").write_text("# core\n", encoding="utf-8")
    (folder / "gone.md").symlink_to(project / "nowhere.md")

    async def go() -> None:
        _state, server = create_server(project, [], use_default_project=False)
        async with Client(server) as client:
            plain = json.loads(await ok(client, "list_memories", topic=""))
            assert plain["skipped"] and "not read" in plain["skipped_note"]
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "skipped" not in tools["list_memories"].description

    anyio.run(go)


def test_a_memory_over_the_size_budget_is_written_with_a_word_on_splitting(
    project: Path,
) -> None:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    async def go() -> None:
        _state, server = create_server(project, [], use_default_project=False)
        async with Client(server) as client:
            small = await ok(client, "write_memory", memory_name="a", content="x\n")
            assert "split" not in small
            big = await ok(client, "write_memory", memory_name="b", content="word " * 1000)
            assert "written (created, 5000 characters)" in big and "split it" in big

    anyio.run(go)
