"""The memory tools: list, read, write, edit, delete and rename the project's memories
and the global ones. Every rule lives in the store; these only word the answers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from serena_memory.agent import tools as T
from serena_memory.core import proposals, verbs
from serena_memory.core.display import counted
from serena_memory.core.editing import apply_edit
from serena_memory.core.errors import MemoryNotFoundError
from serena_memory.core.names import normalize_name
from serena_memory.core.store import MemoryStore
from serena_memory.mcp.state import ServerState
from serena_memory.mcp.tool_declaration import ToolDeclaration

MemoryName = str  # described once, where a name is made (write_memory)
NewMemoryName = Annotated[str, Field(description="e.g. 'auth/login'.")]


def list_memories(
    state: ServerState,
    topic: Annotated[str, Field(description="e.g. 'auth' or 'global'.")] = "",
    page: Annotated[int, Field(ge=1)] = 1,
) -> str:
    """List memory names (all, or one topic's) when the ones given may be stale or cut
    short."""
    from serena_memory.agent.listing import listing_answer

    return listing_answer(
        state.require_store(), topic, page, search_tool=state.enabled("search_memories")
    )


def read_memory(state: ServerState, memory_name: MemoryName) -> str:
    """Read a memory that matters for the task; follow its `mem:NAME` references when
    they apply."""
    from serena_memory.agent.trust import reading_note
    from serena_memory.integrity.code_drift.read_note import drift_note

    store = state.require_store()
    try:
        text = store.read(memory_name)
    except MemoryNotFoundError:
        pending = proposals.agent_note(store, memory_name)  # a memory it proposed to create
        if pending:
            return f"Memory '{normalize_name(memory_name)}' does not exist yet." + pending
        raise
    applying = (
        f"edit_memory(memory_name='{normalize_name(memory_name)}', mode='drift') "
        "applies them all in one call."
    )
    drift = drift_note(store, memory_name, text, applying)
    told = reading_note(store, memory_name, text, drift)
    return text + drift + told + proposals.agent_note(store, memory_name)


def write_memory(
    state: ServerState,
    memory_name: NewMemoryName,
    content: Annotated[str, Field(description="Markdown; cite memories as `mem:NAME`.")],
    max_chars: int = -1,  # -1: the server's limit (default_max_tool_answer_chars)
) -> str:
    """Create or replace a memory: something stable, costly to rediscover; a 'global/'
    name (shared by all projects) only when the user asks."""
    outcome = verbs.write(state.require_store(), memory_name, content, max_chars=max_chars)
    if isinstance(outcome, verbs.Proposed):
        assert outcome.proposal is not None
        return outcome.proposal.told()
    how = "created" if outcome.created else "replaced"
    told = f"Memory '{outcome.change.memory}' written ({how}, {outcome.chars} characters)."
    return " ".join((told, *outcome.notes))


def edit_memory(
    state: ServerState,
    memory_name: MemoryName,
    needle: Annotated[str, Field(description="Text, or a Python regex (DOTALL).")] = "",
    repl: Annotated[str, Field(description="As given; in regex mode $!1 is group 1.")] = "",
    *,
    mode: Literal["literal", "regex", "drift"],
    allow_multiple_occurrences: bool = False,
) -> str:
    """Replace part of a memory, instead of rewriting it whole; mode 'drift' applies
    a drift note's fixes."""
    store = state.require_store()
    if mode == "drift":
        return _apply_drift(store, memory_name)
    outcome = verbs.edit(
        store,
        memory_name,
        lambda text: apply_edit(text, needle, repl, mode, allow_multiple_occurrences),
    )
    if isinstance(outcome, verbs.Proposed):
        if outcome.proposal is None:
            return f"Nothing to propose: the edit leaves '{normalize_name(memory_name)}' as it is."
        return f"{counted(outcome.replacements, 'replacement')}. {outcome.proposal.told()}"
    # the length, as a write says it: an agent keeping a memory under a budget needs it
    told = (
        f"Memory '{outcome.change.memory}' edited: "
        f"{counted(outcome.change.replacements, 'replacement')}, now {outcome.chars:,} characters."
    )
    return " ".join((told, *outcome.notes))


def _apply_drift(store: MemoryStore, memory_name: str) -> str:
    """Words what applying a memory's drift replacements did."""
    from serena_memory.integrity.code_drift.fixing import fix_memory_drift

    planned, count, proposal = fix_memory_drift(store, memory_name)
    name = normalize_name(memory_name)
    if not planned:
        return f"Nothing to apply: no mention of code in '{name}' has an exact replacement now."
    made = ", ".join(r.told() for r in planned)
    if proposal:
        return f"{counted(count, 'replacement')} ({made}). {proposal}"
    if count == 0:
        return f"Nothing applied: '{name}' no longer holds {made} as written."
    return f"Memory '{name}' edited: {counted(count, 'replacement')} ({made})."


def delete_memory(state: ServerState, memory_name: MemoryName) -> str:
    """Delete a memory, only when the user asked or agreed."""
    outcome = verbs.delete(state.require_store(), memory_name)
    if isinstance(outcome, verbs.Proposed):
        if outcome.withdrawn:
            return (
                f"Your pending proposal to create '{normalize_name(memory_name)}' is withdrawn; "
                "nothing else changed."
            )
        assert outcome.proposal is not None
        return outcome.proposal.told()
    told = f"Memory '{outcome.change.memory}' deleted."
    return told + (f" {'; '.join(outcome.notes)}; fix them or say so." if outcome.notes else "")


def rename_memory(
    state: ServerState,
    old_name: str,
    new_name: str,
) -> str:
    """Rename or move a memory (also to or from 'global/'); `mem:` references follow."""
    outcome = verbs.rename(state.require_store(), old_name, new_name)
    if isinstance(outcome, verbs.Proposed):
        assert outcome.proposal is not None
        return outcome.proposal.told()
    assert outcome.renamed is not None
    return outcome.renamed.summary()


TOOLS = (
    ToolDeclaration(T.LIST_MEMORIES, list_memories, read_only=True),
    ToolDeclaration(T.READ_MEMORY, read_memory, read_only=True),
    ToolDeclaration(T.WRITE_MEMORY, write_memory, read_only=False, destructive=True),
    ToolDeclaration(T.EDIT_MEMORY, edit_memory, read_only=False, destructive=True),
    ToolDeclaration(T.DELETE_MEMORY, delete_memory, read_only=False, destructive=True),
    ToolDeclaration(T.RENAME_MEMORY, rename_memory, read_only=False, destructive=True),
)
