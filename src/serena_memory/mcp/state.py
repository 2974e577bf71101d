"""What one MCP server knows between calls: the active project and the tools on offer.

Shared by every session of one server (over streamable HTTP, by every client), and by the
dashboard started next to it, which follows the project the agent activates.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from serena_memory.agent import tools as T
from serena_memory.agent.contexts import ClientContext, load_context
from serena_memory.agent.modes import Mode, excluded_tools
from serena_memory.core.changes import Provenance
from serena_memory.core.config import load_global_config, serena_home, stricter
from serena_memory.core.discovery import ProjectChoice, discover_project
from serena_memory.core.errors import MemoryStoreError, NoProjectError, NotAProjectError
from serena_memory.core.paths import project_folder
from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store

EXPLORATION_TOOLS = T.names_in(T.Group.EXPLORATION)
ACTIVATION_TOOL = T.ACTIVATE_PROJECT.name


def client_provenance(ctx: Any, action: str) -> Provenance:
    """Who the history and the read events name for a request: the client as it
    introduced itself in `initialize` (name and version), and the tool or method."""
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    if info is None:
        return Provenance("mcp", "unknown client", action)
    return Provenance("mcp", f"{info.name} {info.version}".strip(), action)


def all_tool_names() -> tuple[str, ...]:
    return T.all_names()


def default_project(cwd: Path | None = None, home: Path | None = None) -> ProjectChoice | None:
    """The project found from the current folder the way git finds a repository
    (`core.discovery`), unless there is none to be meant: the file-system root, the user's
    home folder, or Serena's own home (clients configured once for every project often
    start servers there; memories written there would land in the wrong place)."""
    cwd = Path(os.path.realpath(cwd or os.getcwd()))
    serena = Path(os.path.realpath(home or serena_home()))
    if cwd == serena or cwd.is_relative_to(serena):
        return None
    try:
        return discover_project(cwd, serena)
    except NotAProjectError:
        return None


class ServerState:
    """The active project and the tools on offer; shared by every session of one server.

    Tools run in worker threads: a switch of projects replaces the store in one assignment,
    so a call works on the old store or the new one, never on half of a switch.
    """

    def __init__(
        self,
        project: Path | None,
        modes: list[Mode],
        *,
        home: Path | None = None,
        allow_activation: bool = False,
        context: ClientContext | None = None,
    ) -> None:
        self.home = home
        self.modes = modes
        self.context = context or load_context(None)
        self.allow_activation = allow_activation or project is None
        self.excluded = excluded_tools(modes) | self.context.excluded_tools
        self.store: MemoryStore | None = None
        # Called after a tool that may have changed memories (automatic sync hooks in here)
        self.after_write: Callable[[], None] | None = None
        self.choice: ProjectChoice | None = None  # how the start-up project was chosen
        self.global_writes_floor = "direct"  # see _open
        self.search_in_background = False  # a running server's: vectors made in a thread
        if project is not None:
            self.store = self._open(project)

    def _open(self, project: Path) -> MemoryStore:
        # Global memories are changed under the strictest review mode of every project this
        # server served (the one it started for, each one activated since): see
        # AccessPolicy.agent_writes_for and docs/review.md. The new project's own mode
        # counts through its policy.
        served = [self.global_writes_floor]
        if self.store is not None:
            served.append(self.store.access().agent_writes)
        floor = stricter(*served)
        store = build_store(
            project, home=self.home, context=Context.AGENT, global_writes_floor=floor
        )
        policy = store.access()  # a broken project.yml is reported now, not mid-task
        self.global_writes_floor = stricter(floor, policy.agent_writes)
        return store

    def enabled(self, tool: str) -> bool:
        if tool == ACTIVATION_TOOL:
            return self.allow_activation
        return tool not in self.excluded

    def require_store(self) -> MemoryStore:
        store = self.store
        if store is None:
            raise NoProjectError(
                f"no project is active yet: call `{T.ACTIVATE_PROJECT}` with the path of the "
                "project folder first"
            )
        return store

    def take_notices(self) -> tuple[str, ...]:
        """What the store did on the side and must be told (see MemoryStore.take_notices)."""
        return self.store.take_notices() if self.store is not None else ()

    def activate(self, project: str) -> str:
        if not isinstance(project, str) or not project.strip():
            raise MemoryStoreError("give the path of the project folder to activate")
        self.store = self._open(project_folder(project))
        if self.search_in_background:
            self.prepare_search_in_background()
        return self.activation_message()

    def prepare_search_in_background(self) -> None:
        """A running server makes the search's meaning vectors of its project in a
        thread, so that no search waits for them (search/preparing.py)."""
        self.search_in_background = True
        if self.store is not None and self.enabled(T.SEARCH_MEMORIES.name):
            from serena_memory.search import preparing

            preparing.start(self.store)

    def mode_prompts(self) -> list[str]:
        return [m.prompt for m in self.modes if m.prompt]

    def activation_message(self) -> str:
        from serena_memory.agent.onboarding import activation_message

        return activation_message(
            self.require_store(),
            memory_tools=self.enabled(T.READ_MEMORY.name),
            onboarding_tool=self.enabled(T.ONBOARDING.name),
            search_tool=self.enabled(T.SEARCH_MEMORIES.name),
            mode_prompts=self.mode_prompts(),
        )

    def instructions(self) -> str:
        """What the client hands the agent at connection: the activation message, or how to
        activate a project when none is active."""
        from serena_memory.mcp.errors import for_agent

        try:
            if self.store is not None:
                return self.activation_message()
        except Exception as exc:  # e.g. project.yml broken since start-up; never fail here
            return f"The active project can't be used right now: {for_agent(exc)}"
        text = (
            f"No project is active yet. Call `{T.ACTIVATE_PROJECT}` with the path of the project "
            "folder you are working in; it answers with the names of the project's memories."
        )
        return "\n\n".join([text, *self.mode_prompts()])

    def answer_limit(self, max_answer_chars: int) -> int:
        if max_answer_chars is not None and max_answer_chars > 0:
            return max_answer_chars
        if self.store is not None:
            return self.store.settings.global_config.default_max_tool_answer_chars
        return load_global_config(self.home).default_max_tool_answer_chars


def create_state(
    project: str | Path | None = None,
    modes: Iterable[str] = (),
    *,
    home: Path | None = None,
    use_default_project: bool = True,
    context: str | None = None,
    added_modes: Iterable[str] = (),
) -> ServerState:
    """Resolve context (`agent.contexts`; None: the default), project and modes (the
    global file's, the start-up project's and the options', as `agent.modes` says); raises
    MemoryStoreError (with a message for the user) when start-up can't go on. Imports
    nothing of the SDK."""
    from serena_memory.agent.modes import resolve_modes, tell_no_effect
    from serena_memory.core.config import load_project_config

    client_context = load_context(context)
    global_config = load_global_config(home)
    explicit = project is not None
    if project is not None:
        choice: ProjectChoice | None = ProjectChoice(project_folder(project), "given")
    else:
        choice = default_project(home=home) if use_default_project else None
    root = None if choice is None else choice.root
    project_config = load_project_config(root, home) if root is not None else None
    default_modes = global_config.default_modes
    if project_config is not None and project_config.default_modes is not None:
        default_modes = project_config.default_modes
    active_modes = resolve_modes(
        modes,
        global_config.base_modes,
        home,
        default_modes=default_modes,
        added_modes=[*(project_config.added_modes if project_config else ()), *added_modes],
    )
    tell_no_effect(active_modes)
    state = ServerState(
        root,
        active_modes,
        home=home,
        allow_activation=not explicit,
        context=client_context,
    )
    state.choice = choice
    return state
