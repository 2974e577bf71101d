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
    """Study the project and write its first memories, when the instructions ask; called
    again, says what is left."""
    from serena_memory.agent.onboarding import run_onboarding

    return run_onboarding(
        state.require_store(),
        exploration_tools=all(state.enabled(t) for t in EXPLORATION_TOOLS),
        status_tool=state.enabled(T.CHECK_ONBOARDING_PERFORMED.name),
    )


def check_onboarding_performed(state: ServerState) -> str:
    """Tell whether the onboarding memories (core, tech_stack, suggested_commands,
    conventions, task_completion) exist, and which are still missing."""
    from serena_memory.agent.onboarding import onboarding_status

    return onboarding_status(state.require_store()).describe()


def initial_instructions(state: ServerState) -> str:
    """The server's instructions (memory names, onboarding), if you were not shown them."""
    return state.instructions()


def activate_project(
    state: ServerState,
    project: Annotated[str, Field(description="Folder path.")],
) -> str:
    """Make the project in this folder active; answers with its memory names."""
    return state.activate(project)


TOOLS = (
    ToolDeclaration(T.ONBOARDING, onboarding, read_only=False),
    ToolDeclaration(T.CHECK_ONBOARDING_PERFORMED, check_onboarding_performed, read_only=True),
    ToolDeclaration(T.INITIAL_INSTRUCTIONS, initial_instructions, read_only=True),
    ToolDeclaration(T.ACTIVATE_PROJECT, activate_project, read_only=True),
)
