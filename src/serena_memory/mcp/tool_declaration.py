"""How a tool is declared: its entry in the registry (`agent.tools`: name and group), a
typed module-level function of that name whose docstring is what the agent reads about it,
and hints for the client (does it change anything, can it destroy data).

A tool function takes the server's state as its first argument and the caller's
arguments after it, so it can be called and tested alone; `server.py` binds the state and
hands the rest of the signature to the SDK, which derives the input schema from it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

from serena_memory.agent.tools import Group, Tool


@dataclass(frozen=True)
class ToolDeclaration:
    tool: Tool
    fn: Callable[..., str]
    read_only: bool
    destructive: bool = False

    def __post_init__(self) -> None:
        if self.fn.__name__ != self.tool.name:  # the SDK and the docs know it by this name
            raise ValueError(f"tool {self.tool.name!r} is declared with {self.fn.__name__}()")

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def group(self) -> Group:
        return self.tool.group

    @property
    def title(self) -> str:
        return self.tool.title

    @property
    def description(self) -> str:
        """The docstring, its wrapped lines joined into paragraphs."""
        text = inspect.cleandoc(self.fn.__doc__ or "")
        paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
        return "\n\n".join(p for p in paragraphs if p)
