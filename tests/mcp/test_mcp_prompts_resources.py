"""Prompts and memories as resources, with the SDK's own client: in memory, over stdio and
over streamable HTTP, on both protocol eras."""

from __future__ import annotations

import warnings
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_support import http_server, in_memory, over_stdio, write_memory_file

INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002


def run(fn, *args):
    return anyio.run(fn, *args)


@pytest.fixture
def memories(project: Path) -> Path:
    write_memory_file(project, "core", "# core\nSee `mem:auth/login` and `mem:gone`.\n")
    write_memory_file(project, "auth/login", "# login\nTokens expire after an hour.\n")
    write_memory_file(project, "orphan", "# nobody links here\n")
    return project


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_prompts_are_listed_and_the_review_carries_the_check(memories: Path, mode: str) -> None:
    async def go() -> None:
        async with in_memory(memories, mode=mode) as client:
            listed = await client.list_prompts()
            assert {p.name for p in listed.prompts} == {"onboarding", "memory_review"}
            assert all(p.description for p in listed.prompts)
            review = await client.get_prompt("memory_review")
            text = review.messages[0].content.text
            assert review.messages[0].role == "user"
            assert "`mem:gone`" in text or "mem:gone" in text  # the stale reference
            assert "orphan" in text  # unreachable from mem:core
            onboarding = await client.get_prompt("onboarding")
            assert "`onboarding` tool" in onboarding.messages[0].content.text
            with pytest.raises(MCPError) as unknown:
                await client.get_prompt("nope")
            assert unknown.value.code == INVALID_PARAMS
            assert "memory_review" in unknown.value.message

    run(go)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_memories_are_resources(memories: Path, mode: str) -> None:
    (memories / ".serena" / "project.yml").write_text(
        "ignored_memory_patterns: ['orphan']\n", encoding="utf-8"
    )

    async def go() -> None:
        async with in_memory(memories, mode=mode) as client:
            listed = await client.list_resources()
            uris = {r.uri for r in listed.resources}
            assert uris == {"memory://core", "memory://auth/login"}
            assert all(r.mime_type == "text/markdown" for r in listed.resources)
            read = await client.read_resource("memory://auth/login")
            assert read.contents[0].text == "# login\nTokens expire after an hour.\n"
            templates = await client.list_resource_templates()
            assert templates.resource_templates[0].uri_template == "memory://{name}"
            for uri, code in [
                ("memory://missing", RESOURCE_NOT_FOUND),
                ("memory://orphan", RESOURCE_NOT_FOUND),  # ignored memories are never served
                ("file:///etc/passwd", INVALID_PARAMS),
                ("memory://../../etc/passwd", INVALID_PARAMS),
            ]:
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                assert refused.value.code == code, uri

    run(go)


def test_listing_pages_through_many_memories(project: Path) -> None:
    folder = project / ".serena" / "memories" / "bulk"
    folder.mkdir(parents=True)
    for i in range(1200):
        (folder / f"note{i:04}.md").write_text(f"note {i}\n", encoding="utf-8")

    async def go() -> None:
        async with in_memory(project) as client:
            seen: list[str] = []
            cursor = None
            pages = 0
            while True:
                page = await client.list_resources(cursor=cursor)
                pages += 1
                seen += [r.name for r in page.resources]
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert pages == 3
            assert seen == [f"bulk/note{i:04}" for i in range(1200)]

    run(go)


def test_listen_stream_tells_of_a_changed_memory(memories: Path) -> None:
    async def go() -> None:
        async with (
            in_memory(memories, mode="auto") as client,
            client.listen(resource_subscriptions=["memory://core"]) as events,
        ):
            await client.call_tool("write_memory", {"memory_name": "core", "content": "# v2\n"})
            with anyio.fail_after(15):
                async for event in events:
                    assert event.uri == "memory://core"
                    break

    run(go)


def test_subscription_tells_of_an_edit_made_in_an_editor(memories: Path) -> None:
    updated: list[str] = []

    async def handler(message) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", "") == "notifications/resources/updated":
            updated.append(str(root.params.uri))

    async def go() -> None:
        from mcp import Client

        from serena_memory.mcp.server import create_server

        _state, server = create_server(memories, use_default_project=False)
        async with Client(server, mode="legacy", message_handler=handler) as client:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.subscribe_resource("memory://auth/login")
            path = memories / ".serena" / "memories" / "auth" / "login.md"
            path.write_text("# login\nTokens now expire after a day.\n", encoding="utf-8")
            with anyio.fail_after(15):
                while not updated:
                    await anyio.sleep(0.1)
            assert updated == ["memory://auth/login"]

    run(go)


def test_no_memories_mode_serves_no_resources_and_no_prompts(memories: Path) -> None:
    """Without the memory and onboarding tools, neither memories nor prompts are offered."""

    async def go() -> None:
        async with in_memory(memories, modes=["no-memories"]) as client:
            assert client.server_capabilities.resources is None
            assert client.server_capabilities.prompts is None

    run(go)


@pytest.mark.slow  # a real server process
def test_prompts_and_resources_over_stdio(memories: Path) -> None:
    async def go() -> None:
        async with over_stdio(["--project", str(memories), "--no-dashboard"]) as client:
            assert {p.name for p in (await client.list_prompts()).prompts} >= {"memory_review"}
            read = await client.read_resource("memory://core")
            assert read.contents[0].text.startswith("# core")

    run(go)


@pytest.mark.slow  # a real server process
def test_prompts_and_resources_over_http(memories: Path) -> None:
    with http_server(["--project", str(memories), "--no-dashboard"]) as server:

        async def go() -> None:
            async with server.connect() as client:
                review = await client.get_prompt("memory_review")
                assert "orphan" in review.messages[0].content.text
                listed = await client.list_resources()
                assert "memory://auth/login" in {r.uri for r in listed.resources}

        run(go)
