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
        Field(description="Plain words; quoted text and code tokens match as written."),
    ],
    topic: str = "",
    scope: Literal["all", "project", "global"] = "all",
    max_results: Annotated[int, Field(ge=1, le=100)] = 10,
) -> str:
    """Find memories by subject when their names don't say which to read."""
    from serena_memory.search.hits import format_hits
    from serena_memory.search.index import search_memories as search

    hits = search(
        state.require_store(), query, topic=topic or None, scope=scope, max_results=max_results
    )
    return format_hits(hits, query)


TOOLS = (ToolDeclaration(T.SEARCH_MEMORIES, search_memories, read_only=True),)
