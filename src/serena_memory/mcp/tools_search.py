"""Finding memories by subject: ranked search over names, headings and text. The engine
and its rules (freshness, ignored memories, read-only marks) live in search.index."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from serena_memory.agent import tools as T
from serena_memory.mcp.state import ServerState
from serena_memory.mcp.tool_declaration import ToolDeclaration


def search_memories(
    state: ServerState,
    query: Annotated[
        str,
        Field(
            description="What you are looking for, in plain words (e.g. 'how are refunds "
            "retried'); a `mem:NAME` in it puts that memory first; text in quotes and code-"
            "like tokens (tests/test_api.py, _load_config, --dry-run) are found as written."
        ),
    ],
    topic: Annotated[
        str | None, Field(description="Only this topic and its sub-topics, e.g. 'billing'.")
    ] = None,
    scope: Annotated[
        Literal["all", "project", "global"],
        Field(description="'project', 'global' (shared by all projects) or 'all'."),
    ] = "all",
    max_results: Annotated[
        int, Field(description="How many memories to return at most (1 to 100).", ge=1, le=100)
    ] = 10,
) -> str:
    """Find the memories about a subject when their names don't tell which to read, or
    when there are too many to list. Ask for what you need in your own words: memories are
    ranked by the words they share with the query (name first, then headings, then text)
    and by similar meaning; the memories holding quoted text or an identifier as written
    come first, and weak matches are left out (the answer says how many). Each hit gives
    the name, why it matched and up to three matching lines with their numbers; read the
    ones that matter with read_memory."""
    from serena_memory.search.hits import format_hits
    from serena_memory.search.index import search_memories as search

    hits = search(state.require_store(), query, topic=topic, scope=scope, max_results=max_results)
    return format_hits(hits, query)


TOOLS = (ToolDeclaration(T.SEARCH_MEMORIES, search_memories, read_only=True),)
