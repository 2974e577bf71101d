"""Contexts: which kind of client the server serves, and so which tools it is handed.

Every tool definition a client lists is paid for in every conversation, read or not. A
coding client (Claude Code, Codex, Cursor, VS Code, Gemini CLI) has file tools of its own,
so it gets the memory and onboarding tools only; a client without them (Claude Desktop)
also gets the read-only exploration tools, so an onboarding can look at the project.
`serena setup CLIENT` writes the context that fits into the entry it makes; an entry
made by hand gets ``coding``, the kind of client most entries are for.

Serena's context names (serena-agent 0.1 to 2.1) are accepted too, so that client entries
written for it keep working: each is the surface of the kind of client it names. A context
file of a person's own (Serena's ``--context PATH`` or ``$SERENA_HOME/contexts/NAME.yml``)
gets the coding surface, said once on stderr.

Plain data, like the tool registry: importing it costs nothing.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from serena_memory.agent import tools as T
from serena_memory.core.display import escape_line
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

SERENA_CONTEXTS: dict[str, str] = {
    # clients whose own tools read and edit files and run commands
    **dict.fromkeys(
        (
            "antigravity",
            "claude-code",
            "codebuddy",
            "codex",
            "copilot-cli",
            "grok",
            "ide",
            "ide-assistant",
            "jb-ai-assistant",
            "jb-copilot-plugin",
            "junie",
            "vscode",
            "zcode",
        ),
        CODING.name,
    ),
    # chat applications and agents built on the server's tools alone
    **dict.fromkeys(("agent", "chatgpt", "desktop-app", "oaicompat-agent"), DESKTOP.name),
}
"""Serena's context names, each mapped to the surface of the kind of client it names."""


def load_context(name: str | None, home: Path | None = None) -> ClientContext:
    """The context called ``name`` (None: the default; one of Serena's names: the surface
    it maps to), or one sentence naming the known."""
    if name is None:
        return CONTEXTS[DEFAULT_CONTEXT]
    key = name.strip().lower() if isinstance(name, str) else ""
    key = SERENA_CONTEXTS.get(key, CODING.name if key.startswith("jb-") else key)
    found = CONTEXTS.get(key)
    if found is None and _context_file(name, home) is not None:
        print(
            f"Note: context '{escape_line(name)}' is a context file of Serena's; serving the "
            "coding surface (memory and onboarding tools).",
            file=sys.stderr,
        )
        found = CODING
    if found is None:
        known = ", ".join([*CONTEXTS, *sorted(SERENA_CONTEXTS)])
        raise ConfigError(f"unknown context {name!r}: the contexts are {known}")
    return found


def _context_file(name: str, home: Path | None) -> Path | None:
    """A context file a person wrote for Serena: ``name`` as a path to a YAML file, or
    ``$SERENA_HOME/contexts/NAME.yml``; only whether it exists is looked at."""
    from serena_memory.core.config import serena_home

    if name.endswith((".yml", ".yaml")):
        path = Path(name).expanduser()
    elif re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", name):
        path = (home or serena_home()) / "contexts" / f"{name}.yml"
    else:
        return None
    return path if path.is_file() else None
