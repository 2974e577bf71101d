"""The history tools: a memory's recorded changes, and bringing back an earlier text of it,
so the agent can undo its own mistake. Every rule lives in the library
(:mod:`serena_memory.history.restore`); a restore is a new entry and obeys the read-only rules."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from serena_memory.agent import tools as T
from serena_memory.core.names import normalize_name
from serena_memory.history.restore import MemoryHistory
from serena_memory.history.times import parse_when
from serena_memory.mcp.state import ServerState
from serena_memory.mcp.tool_declaration import ToolDeclaration
from serena_memory.mcp.tools_memories import MemoryName

MAX_ENTRIES = 50


def memory_history(
    state: ServerState,
    memory_name: MemoryName,
    since: Annotated[str, Field(description="e.g. '2h', '3 days ago'.")] = "",
) -> str:
    """A memory's recorded changes, newest first: to find the revision before a change that
    lost something, for restore_memory."""
    store = state.require_store()
    name = normalize_name(memory_name)
    entries = MemoryHistory(store).entries(name, parse_when(since) if since else None)
    if not entries:
        return f"No recorded changes of '{name}'."
    lines = []
    for entry in entries[:MAX_ENTRIES]:
        who = f"{entry.entry_point} {entry.who}" + (f" ({entry.action})" if entry.action else "")
        who += f" on {entry.machine}" if entry.machine else ""
        when = entry.time.strftime("%Y-%m-%d %H:%M:%S UTC")
        lines.append(f"{entry.short}  {when}  {who}  {entry.summary}")
    if len(entries) > MAX_ENTRIES:
        lines.append(f"... and {len(entries) - MAX_ENTRIES} older entries (narrow with since).")
    return "\n".join(lines)


def restore_memory(
    state: ServerState,
    memory_name: MemoryName,
    revision: Annotated[
        str, Field(description="From memory_history; '': before the latest change.")
    ] = "",
) -> str:
    """Bring back an earlier text of a memory, or a deleted memory, to undo a change."""
    store = state.require_store()
    name = normalize_name(memory_name)
    return MemoryHistory(store).restore(name, revision or None).summary()


TOOLS = (
    ToolDeclaration(T.MEMORY_HISTORY, memory_history, read_only=True),
    ToolDeclaration(T.RESTORE_MEMORY, restore_memory, read_only=False, destructive=True),
)
