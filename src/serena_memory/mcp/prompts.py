"""Prompts: what a person starts from the client's prompt menu (a slash command in most
clients), as opposed to tools, which the agent calls on its own.

`onboarding` starts the project's onboarding; `memory_review` puts the check's findings in
front of the agent with what to do about each. The texts come from the library
(`agent.onboarding`, `agent.review`); this module only serves them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError

from serena_memory.agent import tools as T
from serena_memory.mcp.errors import for_agent
from serena_memory.mcp.state import ServerState


def onboarding(state: ServerState) -> str:
    state.require_store()
    status_tool = T.CHECK_ONBOARDING_PERFORMED
    asks = status_tool if state.enabled(status_tool.name) else T.ONBOARDING
    return (
        f"Onboard this project: call the `{T.ONBOARDING}` tool and follow the instructions it "
        f"returns, step by step, until `{asks}` reports nothing missing. "
        "Then tell me which memories you wrote."
    )


def memory_review(state: ServerState) -> str:
    from serena_memory.agent.review import review_brief

    return review_brief(state.require_store())


@dataclass(frozen=True)
class PromptDeclaration:
    fn: Callable[[ServerState], str]
    title: str
    description: str
    needs_tool: str | None = None  # the prompt is offered only while this tool is

    @property
    def name(self) -> str:
        return self.fn.__name__


PROMPTS = (
    PromptDeclaration(
        onboarding,
        "Onboard this project",
        "Have the agent study the project and write its first memories (core, tech "
        "stack, commands, conventions, task completion).",
        needs_tool=T.ONBOARDING.name,
    ),
    PromptDeclaration(
        memory_review,
        "Review the memories",
        "Have the agent review the memories: fix stale references, link or prune "
        "memories unreachable from mem:core, and propose what to merge or delete.",
        needs_tool=T.READ_MEMORY.name,
    ),
)


class Prompts:
    """The prompts the active modes leave, served to the SDK's prompt handlers."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.offered = {
            p.name: p for p in PROMPTS if p.needs_tool is None or state.enabled(p.needs_tool)
        }

    async def list(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(name=p.name, title=p.title, description=p.description)
                for p in self.offered.values()
            ]
        )

    async def get(self, ctx: Any, params: types.GetPromptRequestParams) -> Any:
        declared = self.offered.get(params.name)
        if declared is None:
            names = ", ".join(self.offered) or "none"
            raise MCPError(
                types.INVALID_PARAMS,
                f"there is no prompt '{params.name}'; the prompts are: {names}",
            )
        try:
            text = await anyio.to_thread.run_sync(declared.fn, self.state)
        except Exception as exc:
            raise MCPError(types.INTERNAL_ERROR, for_agent(exc)) from None
        return types.GetPromptResult(
            description=declared.description,
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
            ],
        )
