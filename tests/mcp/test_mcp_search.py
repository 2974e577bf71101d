"""The search_memories tool and the budgeted list_memories, over a real MCP client."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from conftest import write_config
from mcp_support import in_memory, ok, refused, tool_names, write_memory_file

from serena_memory.agent.listing import estimate_tokens


def run(fn):
    return anyio.run(fn)


def test_search_memories_tool(project: Path) -> None:
    write_memory_file(project, "billing/refunds", "# Refunds\nMoney goes back within 30 days.\n")
    write_memory_file(project, "core", "# Core\nRead `mem:billing/refunds` for refunds.\n")
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['core']\n")

    async def go() -> None:
        async with in_memory(project) as client:
            assert "search_memories" in await tool_names(client)
            text = await ok(client, "search_memories", query="how do refunds work")
            assert text.startswith("1. billing/refunds")
            assert "1: # Refunds" in text
            assert "core (read-only)" in text
            text = await ok(client, "search_memories", query="refunds", topic="billing")
            assert "core (read-only)" not in text
            text = await ok(client, "search_memories", query='NEAR("x" AND', max_results=1)
            assert "No memory holds 'x' as written, nor its words." in text
            await refused(client, "search_memories", "scope", query="x", scope="elsewhere")
            await refused(client, "search_memories", "max_results", query="x", max_results=0)

    run(go)


def test_search_is_gone_with_the_memory_tools(project: Path) -> None:
    async def go() -> None:
        async with in_memory(project, modes=["no-memories"]) as client:
            assert "search_memories" not in await tool_names(client)

    run(go)


def test_listing_and_instructions_keep_within_the_budget(project: Path) -> None:
    for t in range(30):
        for m in range(40):
            write_memory_file(project, f"topic_{t:02d}/a_memory_with_a_long_name_{m:02d}", "x\n")
    write_memory_file(project, "core", "# Core\n")

    async def go() -> None:
        async with in_memory(project) as client:
            instructions = await ok(client, "initial_instructions")
            assert estimate_tokens(instructions) <= 2000 + 100
            assert "search_memories" in instructions and "- topic_07/ (40 memories)" in instructions
            top = json.loads(await ok(client, "list_memories"))
            assert top["memories"] == ["core"] and len(top["topics"]) == 30
            one = json.loads(await ok(client, "list_memories", topic="topic_07"))
            assert len(one["memories"]) == 40 and "topics" not in one
            await refused(client, "list_memories", "page", topic="topic_07", page=3)

    run(go)
