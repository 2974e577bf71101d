"""Who may read, write and propose which memory: every access rule, in one place.

An :class:`AccessPolicy` is built from one snapshot of the settings (the open operation's,
or one load outside any operation) and says, for a memory name, whether it is ignored,
read-only, the team's, and what the agent's change of it does (``memory_agent_writes``:
land at once, become a proposal, or be refused). The store asks it before every read and
write; the front-ends and the agent's helpers ask it instead of reading the settings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core.config import Settings, SyncConfig, stricter
from serena_memory.core.errors import (
    AgentWritesError,
    IgnoredMemoryError,
    MemoryStoreError,
    ReadOnlyMemoryError,
)

DIRECT = "direct"
PROPOSE = "propose"
READ_ONLY = "read-only"


class Context(StrEnum):
    """Who is calling: the agent (MCP tools) or a person (command line, dashboard)."""

    AGENT = "agent"
    HUMAN = "human"


@dataclass(frozen=True)
class AccessPolicy:
    """The access rules of one store under one snapshot of its settings.

    ``protect_read_only``: whether read-only patterns bind this caller (the agent always;
    a person's tools may opt in, as the dashboard does). ``global_writes_floor``: the
    strictest review mode of every project the same server served before this one.
    ``path_of``: the file behind a name, as written, for messages.
    """

    settings: Settings
    sync: SyncConfig
    context: Context
    protect_read_only: bool
    global_writes_floor: str
    path_of: Callable[[str], Path]
    team_prefix: str | None = field(init=False)
    """``global/<topic>/`` when the team's memories are pulled and read-only, else None."""

    @property
    def is_agent(self) -> bool:
        return self.context is Context.AGENT

    def __post_init__(self) -> None:
        # the team's prefix, asked of every memory of a listing: looked up once
        object.__setattr__(self, "team_prefix", self.sync.team_prefix())

    # -- patterns --------------------------------------------------------------------------
    def read_only_pattern(self, name: str) -> str | None:
        """The read-only pattern ``name`` (normalized) matches; the team's memories, pulled
        from its repository, are read-only as if a pattern said so."""
        team = self.team_prefix
        if team is not None and name.startswith(team):
            return re.escape(team) + ".*"
        return self.settings.patterns.read_only_match(name)

    def is_read_only(self, name: str) -> bool:
        return self.read_only_pattern(name) is not None

    def ignored_pattern(self, name: str) -> str | None:
        return self.settings.patterns.ignored_match(name)

    def sorted_out(self, names: Iterable[str]) -> tuple[set[str], set[str]]:
        """(ignored, read-only) among ``names`` (normalized), as :meth:`ignored_pattern` and
        :meth:`read_only_pattern` say one by one: for a listing, which asks of every
        memory, with the patterns and the team's topic looked up once for all of them."""
        patterns = self.settings.patterns
        team = self.team_prefix
        ignored: set[str] = set()
        read_only: set[str] = set()
        for name in names:
            if any(compiled.fullmatch(name) for _text, compiled in patterns.ignored):
                ignored.add(name)
            elif (team is not None and name.startswith(team)) or any(
                compiled.fullmatch(name) for _text, compiled in patterns.read_only
            ):
                read_only.add(name)
        return ignored, read_only

    def is_ignored(self, name: str) -> bool:
        return self.ignored_pattern(name) is not None

    # -- the agent's write mode --------------------------------------------------------------
    @property
    def agent_writes(self) -> str:
        """What the agent's change of a project memory does (``memory_agent_writes``)."""
        return self.settings.agent_writes

    def agent_writes_for(self, name: str) -> str:
        """What the agent's change of memory ``name`` does. A project memory follows the
        stricter of the user's and the project's setting. A global one, shared by every
        project, follows the strictest of those and of every project the same server
        served before: activating a project that doesn't review can't open the global
        memories of one that does."""
        try:
            is_global = N.is_global(N.normalize_name(name))
        except MemoryStoreError:
            return self.agent_writes  # not a name: refused as such before any write
        return self.global_agent_writes() if is_global else self.agent_writes

    def global_agent_writes(self) -> str:
        """What the agent's changes of global memories do (see :meth:`agent_writes_for`)."""
        return stricter(self.agent_writes, self.global_writes_floor)

    def agent_mode(self) -> str:
        """What this caller's changes of project memories do: a person's land at once."""
        return self.agent_writes if self.is_agent else DIRECT

    def proposing(self, *names: str) -> bool:
        """Whether this caller's change of ``names`` becomes a proposal: the agent's, when
        the strictest mode among them is ``propose`` (``read-only`` refuses it instead)."""
        if not self.is_agent:
            return False
        modes = [self.agent_writes_for(name) for name in names] or [self.agent_writes]
        return stricter(*modes) == PROPOSE

    # -- the checks of a read or a change ------------------------------------------------------
    def check(self, raw: str, *, write: bool, proposing: bool = False) -> str:
        """The normalized name, once the ignored, team, read-only and write-mode rules let
        this caller reach it; else the error that says why. ``proposing``: the agent's
        change becomes a proposal, which review mode allows where it refuses the change."""
        name = N.normalize_name(raw)
        if write and self.is_agent:
            _refuse_agent_write(name, self.agent_writes_for(name), proposing)
        ignored = self.ignored_pattern(name)
        if ignored is not None:
            raise IgnoredMemoryError(
                f"memory '{name}' is ignored (it matches the ignored_memory_patterns entry "
                f"{ignored!r}), so memory operations can't reach it; the raw file can still "
                f"be opened at {self.path_of(name)}"
            )
        if write:
            self._refuse_team(name)
        if write and self.protect_read_only:
            pattern = self.settings.patterns.read_only_match(name)
            if pattern is not None:
                advice = (
                    "ask the user to change it or to lift the pattern"
                    if self.is_agent
                    else "change the file in an editor, or lift the pattern in the configuration"
                )
                raise ReadOnlyMemoryError(
                    f"memory '{name}' is read-only (it matches the read_only_memory_patterns "
                    f"entry {pattern!r}); {advice}"
                )
        return name

    def _refuse_team(self, name: str) -> None:
        """The team's memories are pulled from its repository and read-only for the agent
        and the person alike, unless ``memory_sync_team_writable: true``."""
        prefix = self.team_prefix
        if prefix is not None and name.startswith(prefix):
            raise ReadOnlyMemoryError(
                f"memory '{name}' comes from the team's repository (memory_sync_team_remote), "
                "so it is read-only here; change it in the team's repository, or set "
                "memory_sync_team_writable: true in serena_config.yml"
            )

    def usable(self, names: Iterable[str]) -> tuple[list[str], list[str]]:
        """Split names a bulk restore may write (valid, not ignored, writable here) from
        the rest, which it leaves alone."""
        usable: list[str] = []
        refused: list[str] = []
        for name in names:
            try:
                self.check(name, write=True)
            except MemoryStoreError:
                refused.append(name)
            else:
                usable.append(name)
        return usable, refused


def _refuse_agent_write(name: str, mode: str, proposing: bool) -> None:
    """``memory_agent_writes``: read-only refuses every change of the agent; propose lets
    through only the changes that become proposals."""
    if mode == READ_ONLY:
        raise AgentWritesError(
            f"memory '{name}' was not changed: memories are read-only for the agent here "
            "(memory_agent_writes: read-only); tell the user what you would change instead"
        )
    if mode == PROPOSE and not proposing:
        raise AgentWritesError(
            f"memory '{name}' was not changed: the agent's changes are proposals for the user "
            "to review here (memory_agent_writes: propose), and this one can't be proposed; "
            "tell the user what you would change instead"
        )
