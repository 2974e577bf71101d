"""How a tool is declared: a typed module-level function whose docstring is what the agent
reads about it, with hints for the client (does it change anything, can it destroy data).

A tool function takes the server's state as its first argument and the caller's
arguments after it, so it can be called and tested alone; `server.py` binds the state and
hands the rest of the signature to the SDK, which derives the input schema from it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolDeclaration:
    fn: Callable[..., str]
    read_only: bool
    destructive: bool = False

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").capitalize()

    @property
    def description(self) -> str:
        """The docstring, its wrapped lines joined into paragraphs."""
        text = inspect.cleandoc(self.fn.__doc__ or "")
        paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
        return "\n\n".join(p for p in paragraphs if p)
