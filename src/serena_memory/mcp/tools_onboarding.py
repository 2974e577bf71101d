"""Getting an agent started: the project's first memories (onboarding), whether they are
written, the server's instructions for clients that don't show them, and switching to
another project."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from serena_memory.agent import tools as T
from serena_memory.mcp.state import EXPLORATION_TOOLS, ServerState
from serena_memory.mcp.tool_declaration import ToolDeclaration


def onboarding(state: ServerState) -> str:
    """Call this once, when the project has no memories yet (the activation message says
    so). It prepares the memory conventions and returns instructions for exploring the
    project and writing its first memories, with facts detected from the project's
    files."""
    from serena_memory.agent.onboarding import run_onboarding

    return run_onboarding(
        state.require_store(),
        exploration_tools=all(state.enabled(t) for t in EXPLORATION_TOOLS),
    )


def check_onboarding_performed(state: ServerState) -> str:
    """Tell whether the onboarding memories (core, tech_stack, suggested_commands,
    conventions, task_completion) exist, and which are still missing."""
    from serena_memory.agent.onboarding import onboarding_status

    return onboarding_status(state.require_store()).describe()


def initial_instructions(state: ServerState) -> str:
    """Call this first if this server's instructions were not shown to you: returns them
    (the names of the project's memories, whether onboarding is needed, and the project's
    own instructions)."""
    return state.instructions()


def activate_project(
    state: ServerState,
    project: Annotated[
        str, Field(description="Path of the project folder (absolute, or '~/...').")
    ],
) -> str:
    """Make the project in the given folder the active one. The answer lists the names of
    its memories and what to do with them; call this before using the other tools."""
    return state.activate(project)


TOOLS = (
    ToolDeclaration(T.ONBOARDING, onboarding, read_only=False),
    ToolDeclaration(T.CHECK_ONBOARDING_PERFORMED, check_onboarding_performed, read_only=True),
    ToolDeclaration(T.INITIAL_INSTRUCTIONS, initial_instructions, read_only=True),
    ToolDeclaration(T.ACTIVATE_PROJECT, activate_project, read_only=True),
)
