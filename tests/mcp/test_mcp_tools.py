"""The MCP tools through the SDK's own client, connected to the server in memory."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from conftest import write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_support import (
    EXPLORATION_TOOLS,
    MEMORY_TOOLS,
    ONBOARDING_TOOLS,
    REFERENCE_PARAMETERS,
    TARGETS,
    call,
    every_tool,
    in_memory,
    mem_file,
    ok,
    prepare_every_tool,
    protect,
    read_text,
    refused,
    scripted_onboarding,
    tool_names,
    write_global,
    write_memory_file,
)


def run(fn, *args):
    return anyio.run(fn, *args)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_every_tool_in_memory(project: Path, serena_home: Path, mode: str) -> None:
    prepare_every_tool(project, serena_home)

    async def go() -> None:
        async with in_memory(project, mode=mode) as client:
            await every_tool(client, project, serena_home)

    run(go)


def test_tools_keep_the_reference_names_and_parameters(project: Path) -> None:
    async def go() -> None:
        async with in_memory(project) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        for name, params in REFERENCE_PARAMETERS.items():
            schema = tools[name].input_schema
            assert list(schema.get("properties", {})) == params, name
            assert tools[name].description
        required = {n: set(t.input_schema.get("required", [])) for n, t in tools.items()}
        assert required["write_memory"] == {"memory_name", "content"}
        # needle and repl may be left out in drift mode (Serena's callers always give them)
        assert required["edit_memory"] == {"memory_name", "mode"}
        assert required["list_memories"] == set()
        props = tools["write_memory"].input_schema["properties"]
        assert props["max_chars"]["default"] == -1
        assert tools["edit_memory"].input_schema["properties"]["mode"]["enum"] == [
            "literal",
            "regex",
            "drift",
        ]
        assert tools["read_memory"].annotations.read_only_hint is True
        assert tools["delete_memory"].annotations.destructive_hint is True
        assert "search_for_pattern" in tools
        # descriptions carry the conventions the seed asks the agent to follow
        write = tools["write_memory"].description
        assert "global/" in write and "auth/login" in props["memory_name"]["description"]
        assert "`mem:NAME`" in props["content"]["description"]
        assert "user" in tools["delete_memory"].description

    run(go)


def test_instructions_list_every_name_and_append_the_initial_prompt(
    project: Path, serena_home: Path
) -> None:
    protect(project, serena_home)
    write_config(
        project / ".serena" / "project.yml",
        'read_only_memory_patterns: ["frozen/.*"]\nignored_memory_patterns: ["_archive/.*"]\n'
        "initial_prompt: Always answer in haiku.\n",
    )
    write_memory_file(project, "core", "Entry.\n")
    write_memory_file(project, "auth/login", "Login.\n")
    write_memory_file(project, "frozen/rules", "Frozen.\n")
    write_memory_file(project, "_archive/old", "Archived.\n")
    write_global(serena_home, "style", "Style.\n")
    write_global(serena_home, "team/rules", "Rules.\n")

    async def go() -> str:
        async with in_memory(project) as client:
            return client.instructions or ""

    text = run(go)
    for name in ["core", "auth/login", "global/style"]:
        assert f"- {name}\n" in text + "\n", name
    assert "- frozen/rules (read-only)" in text
    assert "- global/team/rules (read-only)" in text
    assert "_archive" not in text
    assert "Start from `mem:core`" in text
    assert "read_memory" in text
    assert text.rstrip().endswith("Always answer in haiku.")
    assert "Onboarding has not been performed" not in text
    assert "Entry." not in text  # names only, never content


def test_an_empty_project_is_offered_onboarding_unless_switched_off(project: Path) -> None:
    async def instructions(modes) -> tuple[str, set[str]]:
        async with in_memory(project, modes) as client:
            return client.instructions or "", await tool_names(client)

    text, names = run(instructions, [])
    assert "Onboarding has not been performed" in text and "`onboarding`" in text
    assert "Start from `mem:core`" not in text
    assert names >= ONBOARDING_TOOLS
    text, names = run(instructions, ["no-onboarding"])
    assert "Onboarding has not been performed" not in text
    assert not ONBOARDING_TOOLS & names and names >= MEMORY_TOOLS
    assert "Onboarding is switched off" in text
    text, names = run(instructions, ["no-memories"])
    assert not (MEMORY_TOOLS | ONBOARDING_TOOLS) & names
    assert names >= EXPLORATION_TOOLS
    assert "Onboarding" not in text and "read_memory" not in text


def test_initial_instructions_gives_clients_that_hide_instructions_the_same_text(
    project: Path,
) -> None:
    async def go() -> tuple[str, str, str]:
        async with in_memory(project) as client:
            before = await ok(client, "initial_instructions")
            await ok(client, "write_memory", memory_name="core", content="entry")
            after = await ok(client, "initial_instructions")
            return client.instructions or "", before, after

    shown, before, after = run(go)
    assert before == shown
    assert "Onboarding has not been performed" in before
    # answered from disk at each call: the memory written since is listed now
    assert "- core" in after and "Onboarding has not been performed" not in after


def test_the_maintenance_memory_alone_does_not_count_as_onboarded(project: Path) -> None:
    write_memory_file(project, "memory_maintenance", "Conventions.\n")

    async def go() -> str:
        async with in_memory(project) as client:
            return client.instructions or ""

    assert "Onboarding has not been performed" in run(go)


def test_modes_from_base_modes_and_user_mode_files(project: Path, serena_home: Path) -> None:
    write_config(serena_home / "serena_config.yml", "base_modes: [no-onboarding]\n")
    write_config(
        serena_home / "modes" / "reviewer.yml",
        "description: Only reads.\nprompt: You are reviewing; don't change memories.\n"
        "excluded_tools: [write_memory, edit_memory, delete_memory, rename_memory, no_such]\n",
    )

    async def go() -> tuple[str, set[str]]:
        async with in_memory(project, ["reviewer"]) as client:
            return client.instructions or "", await tool_names(client)

    text, names = run(go)
    assert names >= {"list_memories", "read_memory"}
    assert not names & {"write_memory", "edit_memory", "delete_memory", "rename_memory"}
    assert not names & ONBOARDING_TOOLS
    assert "You are reviewing; don't change memories." in text


def test_write_memory_limit_comes_from_configuration(project: Path, serena_home: Path) -> None:
    write_config(serena_home / "serena_config.yml", "default_max_tool_answer_chars: 50\n")

    async def go() -> None:
        async with in_memory(project) as client:
            await ok(client, "write_memory", memory_name="a", content="x" * 50)
            text = await refused(client, "write_memory", "50", memory_name="b", content="x" * 51)
            assert "51" in text
            await ok(client, "write_memory", memory_name="c", content="x" * 80, max_chars=100)
            await refused(
                client, "write_memory", "10", memory_name="d", content="x" * 11, max_chars=10
            )

    run(go)
    assert not mem_file(project, "b").exists() and not mem_file(project, "d").exists()


def test_edit_memory_modes_and_failures(project: Path) -> None:
    write_memory_file(project, "notes", "alpha beta alpha\nport = 8080\n")

    async def go() -> None:
        async with in_memory(project) as client:
            await refused(
                client, "edit_memory", "alpha", memory_name="notes", needle="alpha", repl="A",
                mode="literal",
            )  # fmt: skip
            out = await ok(
                client, "edit_memory", memory_name="notes", needle="alpha", repl="A",
                mode="literal", allow_multiple_occurrences=True,
            )  # fmt: skip
            assert "2 replacement" in out
            # the new length, as a write says it, so an agent can keep to a budget
            assert out.endswith("now 21 characters."), out
            await ok(
                client, "edit_memory", memory_name="notes", needle=r"port = (\d+)",
                repl="port: $!1", mode="regex",
            )  # fmt: skip
            await refused(
                client, "edit_memory", "regex", memory_name="notes", needle="(",
                repl="x", mode="regex",
            )  # fmt: skip
            await refused(
                client, "edit_memory", "mode", memory_name="notes", needle="A", repl="x",
                mode="fuzzy",
            )  # fmt: skip

    run(go)
    assert mem_file(project, "notes").read_text() == "A beta A\nport: 8080\n"


def test_wrong_arguments_are_tool_errors_and_the_server_keeps_going(project: Path) -> None:
    async def go() -> None:
        async with in_memory(project) as client:
            await refused(client, "write_memory", "content", memory_name="a")
            await refused(client, "write_memory", "memory_name", memory_name=5, content="x")
            await refused(client, "read_memory", "memory_name", memory_name=None)
            from mcp.shared.exceptions import MCPError

            with pytest.raises(MCPError) as unknown:  # the specification's answer: -32602
                await client.call_tool("no_such_tool", {})
            assert unknown.value.code == -32602 and "no_such_tool" in unknown.value.message
            await refused(
                client, "read_memory", "read_memory has no argument 'memory'", memory="fine"
            )
            await ok(client, "write_memory", memory_name="fine", content="still here")
            assert await read_text(client, "fine") == "still here"

    run(go)


def test_without_a_project_the_tools_ask_for_activation(tmp_path: Path, project: Path) -> None:
    write_memory_file(project, "core", "Entry point.\n")

    async def go() -> None:
        async with in_memory(None) as client:
            assert "activate_project" in (client.instructions or "")
            assert "activate_project" in await tool_names(client)
            for name, args in [
                ("list_memories", {}),
                ("read_memory", {"memory_name": "core"}),
                ("onboarding", {}),
                ("list_dir", {"relative_path": ".", "recursive": False}),
            ]:
                await refused(client, name, "activate_project", **args)
            await refused(
                client, "activate_project", "does not exist", project=str(tmp_path / "no")
            )
            answer = await ok(client, "activate_project", project=str(project))
            assert "- core" in answer and str(project) in answer
            assert await read_text(client, "core") == "Entry point.\n"

    run(go)


def test_activation_is_offered_only_without_an_explicit_project(project: Path) -> None:
    async def go() -> set[str]:
        async with in_memory(project) as client:
            return await tool_names(client)

    assert "activate_project" not in run(go)


def test_a_later_session_sees_memories_written_since_start(project: Path) -> None:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    async def go() -> None:
        _state, server = create_server(project, [])
        async with Client(server) as first:
            assert "Onboarding has not been performed" in (first.instructions or "")
            await ok(first, "write_memory", memory_name="core", content="x")
        async with Client(server) as second:
            text = second.instructions or ""
            assert "- core" in text and "Onboarding has not been performed" not in text

    run(go)


def test_scripted_onboarding_in_memory(project: Path) -> None:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n[tool.pytest.ini_options]\n[tool.ruff]\n', encoding="utf-8"
    )
    (project / "demo.py").write_text("print('hi')\n", encoding="utf-8")

    async def go() -> None:
        _state, server = create_server(project, [], context="desktop")
        async with Client(server) as client:
            brief = await ok(client, "onboarding")
            assert "Python (1)" in brief and "`pytest`" in brief and "`ruff check`" in brief
        async with Client(server) as client:
            # a new session: maintenance alone still means "not onboarded"
            await scripted_onboarding(client, project)
        async with Client(server) as client:
            text = client.instructions or ""
            for target in TARGETS:
                assert f"- {target}\n" in text + "\n"
            assert "Onboarding has not been performed" not in text
            assert "Start from `mem:core`" in text

    run(go)


def test_onboarding_never_overwrites_and_prefers_the_global_maintenance(
    project: Path, serena_home: Path
) -> None:
    write_global(serena_home, "memory_maintenance", "Team conventions.\n")

    async def go() -> str:
        async with in_memory(project) as client:
            return await ok(client, "onboarding")

    brief = run(go)
    assert "`mem:global/memory_maintenance`" in brief
    assert not mem_file(project, "memory_maintenance").exists()


names = st.lists(
    st.sampled_from(list("ab/\\.:-_ \x00\n*?<>|\"'`~$é") + ["mem:", ".md", "..", "global"]),
    max_size=8,
).map("".join)


@pytest.mark.slow  # sixty generated names, each through every tool
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=names)
def test_hostile_names_never_crash_or_escape(tmp_path: Path, name: str) -> None:
    project = tmp_path / "hostile"
    project.mkdir(exist_ok=True)

    async def go() -> None:
        async with in_memory(project) as client:
            for tool, args in [
                ("write_memory", {"memory_name": name, "content": "x"}),
                ("read_memory", {"memory_name": name}),
                (
                    "edit_memory",
                    {"memory_name": name, "needle": "x", "repl": "y", "mode": "literal"},
                ),
                ("rename_memory", {"old_name": name, "new_name": name + "2"}),
                ("delete_memory", {"memory_name": name}),
                ("list_memories", {"topic": name}),
            ]:
                answer = await call(client, tool, **args)
                if answer.error:
                    assert len(answer.text.splitlines()) == 1, answer.text

    run(go)
    allowed = (
        project / ".serena" / "memories",
        tmp_path / "serena-home" / "memories" / "global",
        tmp_path / "serena-home" / "history",  # the history repositories (history.md)
        tmp_path / "serena-home" / "usage",  # the read counts (usage.md)
    )
    outside = [
        p
        for p in tmp_path.rglob("*")
        if p.is_file() and not any(p.is_relative_to(a) for a in allowed)
    ]
    assert outside == []


def test_oversized_and_odd_content(project: Path) -> None:
    async def go() -> None:
        async with in_memory(project) as client:
            big = "€" * 150_000
            await ok(client, "write_memory", memory_name="big", content=big)
            assert await read_text(client, "big") == big
            await refused(client, "write_memory", "150000", memory_name="bigger", content=big + "x")
            odd = "line\r\nnul\x00tab\t\U0001f600\n"
            await ok(client, "write_memory", memory_name="odd", content=odd)
            assert await read_text(client, "odd") == odd

    run(go)


def test_undecodable_memory_is_a_clear_error(project: Path) -> None:
    path = mem_file(project, "latin")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"caf\xe9\n")

    async def go() -> None:
        async with in_memory(project) as client:
            await refused(client, "read_memory", "UTF-8", memory_name="latin")

    run(go)


def test_broken_configuration_is_reported_by_the_tools(project: Path) -> None:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    async def go() -> None:
        _state, server = create_server(project, [], context="desktop")
        async with Client(server) as client:
            write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: [\n")
            await refused(client, "list_memories", "project.yml", "invalid YAML")
        async with Client(server) as client:
            text = client.instructions or ""
            assert "can't be used right now" in text and "project.yml" in text
            write_config(
                project / ".serena" / "project.yml", 'read_only_memory_patterns: ["(unclosed"]\n'
            )
            await refused(client, "write_memory", "invalid regex", memory_name="a", content="b")

    run(go)


def test_list_memories_returns_both_keys_even_when_empty(project: Path) -> None:
    async def go() -> str:
        async with in_memory(project) as client:
            return await ok(client, "list_memories")

    assert json.loads(run(go)) == {"memories": [], "read_only_memories": []}
