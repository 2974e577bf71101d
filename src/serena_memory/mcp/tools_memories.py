"""The memory tools: list, read, write, edit, delete and rename the project's memories
and the global ones. Every rule lives in the store; these only word the answers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from serena_memory.agent import tools as T
from serena_memory.core import proposals
from serena_memory.core.display import counted
from serena_memory.core.errors import MemoryNotFoundError
from serena_memory.core.names import normalize_name
from serena_memory.mcp.state import ServerState
from serena_memory.mcp.tool_declaration import ToolDeclaration

MemoryName = Annotated[
    str,
    Field(
        description="The memory name, e.g. 'core' or 'auth/login'; a leading 'mem:' and a "
        "trailing '.md' are accepted."
    ),
]


def list_memories(
    state: ServerState,
    topic: Annotated[
        str, Field(description="Only this topic, e.g. 'auth' or 'global'; '' for all.")
    ] = "",
    page: Annotated[
        int, Field(description="Which page, when the answer says there are several.", ge=1)
    ] = 1,
) -> str:
    """List the names of the memories: this project's and the global ones (shared by all
    projects, names starting with 'global/'). Pass a topic such as 'auth' or 'global' to
    list only that part. Returns JSON {"memories": [...], "read_only_memories": [...]};
    read-only memories can be read but not changed. When there are too many names for one
    answer, it lists the memories directly in the topic and the topics below it with their
    counts ("topics"), and "note" says how to go further (a topic, the next page, or
    search_memories). "skipped" lists entries that look like memories but are not read
    (a broken link, a link leading outside the allowed folders, a file that is not
    regular), each with its reason. "rename_journal", when present, says why changes will fail until
    the user deals with an interrupted rename's journal: tell the user. "code_drift" lists
    the memories shown that mention files or folders missing or moved in the code now."""
    from serena_memory.agent.listing import listing_answer

    return listing_answer(
        state.require_store(), topic, page, search_tool=state.enabled("search_memories")
    )


def read_memory(state: ServerState, memory_name: MemoryName) -> str:
    """Read a memory whose name suggests it is relevant to the task at hand. Memories refer
    to each other as `mem:NAME`; follow a reference when its text says it applies. Don't
    read memories just in case. When the memory mentions code that is missing or moved now
    (files, folders, symbols: with their new name and place when git saw them go), the
    answer ends with a note naming them: don't act on those mentions without checking the
    code."""
    from serena_memory.integrity.service import drift_note

    store = state.require_store()
    try:
        text = store.read(memory_name)
    except MemoryNotFoundError:
        pending = proposals.agent_note(store, memory_name)  # a memory it proposed to create
        if pending:
            return f"Memory '{normalize_name(memory_name)}' does not exist yet." + pending
        raise
    return text + drift_note(store, memory_name, text) + proposals.agent_note(store, memory_name)


def write_memory(
    state: ServerState,
    memory_name: MemoryName,
    content: Annotated[str, Field(description="The whole memory, Markdown (UTF-8).")],
    max_chars: Annotated[
        int,
        Field(
            description="Refuse content longer than this many characters; -1 means the "
            "configured default (default_max_tool_answer_chars)."
        ),
    ] = -1,
) -> str:
    """Create or replace a memory: Markdown with knowledge about this project that is
    stable, not obvious from the code, and costly to find out again. Give it a meaningful
    name; use '/' to put it in a topic (e.g. 'auth/login'). Use the 'global/' prefix only
    when the user asks for a memory shared by all projects. Refer to other memories as
    `mem:NAME` inside backticks, saying when to read them."""
    store = state.require_store()
    if proposals.proposing(store):
        return proposals.propose_write(store, memory_name, content, max_chars).told()
    result = store.write(memory_name, content, max_chars=max_chars)
    how = "created" if result.created else "replaced"
    return f"Memory '{result.name}' written ({how}, {result.chars} characters)."


def edit_memory(
    state: ServerState,
    memory_name: MemoryName,
    needle: Annotated[str, Field(description="The text, or regex, to replace.")],
    repl: Annotated[str, Field(description="The replacement, inserted as given.")],
    mode: Annotated[
        Literal["literal", "regex"],
        Field(description="'literal' (exact text) or 'regex' (Python regular expression)."),
    ],
    allow_multiple_occurrences: Annotated[
        bool,
        Field(description="Replace every match instead of refusing when there are several."),
    ] = False,
) -> str:
    """Change part of a memory by replacing text, instead of rewriting it whole. In
    'literal' mode the needle is matched exactly; in 'regex' mode it is a Python regular
    expression (MULTILINE and DOTALL on). The replacement is inserted as given, except that
    in regex mode $!1, $!2 ... insert the matched groups. A needle that matches nothing, or
    several places without allow_multiple_occurrences, is an error."""
    store = state.require_store()
    if proposals.proposing(store):
        proposal, count = proposals.propose_edit(
            store, memory_name, needle, repl, mode, allow_multiple_occurrences
        )
        if proposal is not None:
            return f"{counted(count, 'replacement')}. {proposal.told()}"
        return f"Nothing to propose: the edit leaves '{normalize_name(memory_name)}' as it is."
    result = store.edit(memory_name, needle, repl, mode, allow_multiple_occurrences)
    return f"Memory '{result.name}' edited: {counted(result.replacements, 'replacement')}."


def delete_memory(state: ServerState, memory_name: MemoryName) -> str:
    """Delete a memory. Only do this when the user asked for it or agreed to it; prefer
    editing a memory that is partly outdated."""
    store = state.require_store()
    if proposals.proposing(store):
        proposal = proposals.propose_delete(store, memory_name)
        if proposal is None:
            return (
                f"Your pending proposal to create '{normalize_name(memory_name)}' is withdrawn; "
                "nothing else changed."
            )
        return proposal.told()
    store.delete(memory_name)
    return f"Memory '{normalize_name(memory_name)}' deleted."


def rename_memory(
    state: ServerState,
    old_name: Annotated[str, Field(description="The current name.")],
    new_name: Annotated[
        str, Field(description="The new name; 'global/...' moves it to the global scope.")
    ],
) -> str:
    """Rename or move a memory: to another topic, or between the project and 'global/'.
    Every `mem:OLD_NAME` reference in the other memories is rewritten to the new name; the
    answer says how many and which read-only memories were left alone. Use this instead of
    writing a copy and deleting the original."""
    store = state.require_store()
    if proposals.proposing(store):
        return proposals.propose_rename(store, old_name, new_name).told()
    return store.rename(old_name, new_name).summary()


TOOLS = (
    ToolDeclaration(T.LIST_MEMORIES, list_memories, read_only=True),
    ToolDeclaration(T.READ_MEMORY, read_memory, read_only=True),
    ToolDeclaration(T.WRITE_MEMORY, write_memory, read_only=False, destructive=True),
    ToolDeclaration(T.EDIT_MEMORY, edit_memory, read_only=False, destructive=True),
    ToolDeclaration(T.DELETE_MEMORY, delete_memory, read_only=False, destructive=True),
    ToolDeclaration(T.RENAME_MEMORY, rename_memory, read_only=False, destructive=True),
)
