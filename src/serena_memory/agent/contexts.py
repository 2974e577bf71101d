"""Contexts: which kind of client the server serves, and so which tools it is handed.

Every tool definition a client lists is paid for in every conversation, read or not. A
coding client (Claude Code, Codex, Cursor, VS Code, Gemini CLI) has file tools of its own,
so it gets the memory and onboarding tools only; a client without them (Claude Desktop)
also gets the read-only exploration tools, so an onboarding can look at the project.
`serena setup CLIENT` writes the context that fits into the entry it makes; an entry
made by hand gets ``coding``, the kind of client most entries are for.

Plain data, like the tool registry: importing it costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from serena_memory.agent import tools as T
from serena_memory.core.errors import ConfigError


@dataclass(frozen=True)
class ClientContext:
    name: str
    description: str
    excluded_tools: frozenset[str]


CODING = ClientContext(
    "coding",
    "A client with file tools of its own (Claude Code, Codex, Cursor, VS Code, Gemini CLI): "
    "the memory and onboarding tools only.",
    # its own tools read files; onboarding's answer says what is left, so no status tool
    frozenset([*T.names_in(T.Group.EXPLORATION), T.CHECK_ONBOARDING_PERFORMED.name]),
)
DESKTOP = ClientContext(
    "desktop",
    "A client without file tools (Claude Desktop): the exploration tools list_dir, "
    "find_file, search_for_pattern and read_file too.",
    frozenset(),
)
CONTEXTS: dict[str, ClientContext] = {c.name: c for c in (CODING, DESKTOP)}
DEFAULT_CONTEXT = CODING.name


def load_context(name: str | None) -> ClientContext:
    """The context called ``name`` (None: the default), or one sentence naming the known."""
    if name is None:
        return CONTEXTS[DEFAULT_CONTEXT]
    found = CONTEXTS.get(name.strip().lower()) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(CONTEXTS)
        raise ConfigError(f"unknown context {name!r}: the contexts are {known}")
    return found
