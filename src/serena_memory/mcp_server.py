"""The MCP server: the agent's way to its memories, on the official MCP Python SDK.

A thin layer. Every rule lives in the library (store, onboarding, modes, exploration);
this module names the tools, words their descriptions for the agent, and turns every
failure into a tool error with a message the agent can act on. The SDK is imported only
here, and only when a server is built, so the command line stays fast.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from serena_memory import exploration
from serena_memory.config import load_global_config, serena_home
from serena_memory.errors import MemoryStoreError, NoProjectError
from serena_memory.modes import MEMORY_TOOLS, ONBOARDING_TOOLS, Mode, excluded_tools
from serena_memory.store import Context, MemoryStore

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "serena-memory"
EXPLORATION_TOOLS = ("list_dir", "find_file", "search_for_pattern", "read_file")
ACTIVATION_TOOL = "activate_project"


def default_project(cwd: Path | None = None, home: Path | None = None) -> Path | None:
    """The current folder, unless it can't be meant as a project: the file-system root, the
    user's home folder, or Serena's own home (clients configured once for every project
    often start servers there; memories written there would land in the wrong place)."""
    cwd = Path(os.path.realpath(cwd or os.getcwd()))
    serena = Path(os.path.realpath(home or serena_home()))
    if cwd == Path(cwd.anchor) or cwd == Path(os.path.realpath(Path.home())):
        return None
    if cwd == serena or cwd.is_relative_to(serena):
        return None
    return cwd


class ServerState:
    """The active project and the tools on offer; shared by every session of one server."""

    def __init__(
        self,
        project: Path | None,
        modes: list[Mode],
        *,
        home: Path | None = None,
        allow_activation: bool = False,
    ) -> None:
        self.home = home
        self.modes = modes
        self.allow_activation = allow_activation or project is None
        self.excluded = excluded_tools(modes)
        self.store: MemoryStore | None = None
        if project is not None:
            self.store = self._open(project)

    def _open(self, project: Path) -> MemoryStore:
        store = MemoryStore(project, home=self.home, context=Context.AGENT)
        store.validate_config()  # a broken project.yml is reported now, not mid-task
        return store

    def enabled(self, tool: str) -> bool:
        if tool == ACTIVATION_TOOL:
            return self.allow_activation
        return tool not in self.excluded

    def require_store(self) -> MemoryStore:
        if self.store is None:
            raise NoProjectError(
                "no project is active yet: call `activate_project` with the path of the "
                "project folder first"
            )
        return self.store

    def activate(self, project: str) -> str:
        if not isinstance(project, str) or not project.strip():
            raise MemoryStoreError("give the path of the project folder to activate")
        path = Path(project.strip()).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if not path.exists():
            raise MemoryStoreError(
                f"project folder {path} does not exist; give the path of an existing folder"
            )
        if not path.is_dir():
            raise MemoryStoreError(f"{path} is a file; give the path of the project folder")
        self.store = self._open(Path(os.path.realpath(path)))
        return self.activation_message()

    def mode_prompts(self) -> list[str]:
        return [m.prompt for m in self.modes if m.prompt]

    def activation_message(self) -> str:
        from serena_memory.onboarding import activation_message

        return activation_message(
            self.require_store(),
            memory_tools=self.enabled("read_memory"),
            onboarding_tool=self.enabled("onboarding"),
            mode_prompts=self.mode_prompts(),
        )

    def instructions(self) -> str:
        """What the client hands the agent at connection: the activation message, or how to
        activate a project when none is active."""
        try:
            if self.store is not None:
                return self.activation_message()
        except MemoryStoreError as exc:  # e.g. project.yml broken since start-up
            return f"The active project can't be used right now: {exc}"
        text = (
            "No project is active yet. Call `activate_project` with the path of the project "
            "folder you are working in; it answers with the names of the project's memories."
        )
        return "\n\n".join([text, *self.mode_prompts()])

    def answer_limit(self, max_answer_chars: int) -> int:
        if max_answer_chars is not None and max_answer_chars > 0:
            return max_answer_chars
        if self.store is not None:
            return self.store.settings.global_config.default_max_tool_answer_chars
        return load_global_config(self.home).default_max_tool_answer_chars


# -- parameter and tool wording (ours) ----------------------------------------------------------
MemoryName = Annotated[
    str,
    Field(
        description="The memory name, e.g. 'core' or 'auth/login'; a leading 'mem:' and a "
        "trailing '.md' are accepted."
    ),
]

DESCRIPTIONS: dict[str, str] = {
    "list_memories": (
        "List the names of the memories: this project's and the global ones (shared by all "
        "projects, names starting with 'global/'). Pass a topic such as 'auth' or 'global' "
        "to list only that part. Returns JSON "
        '{"memories": [...], "read_only_memories": [...]}; read-only memories can be read '
        "but not changed."
    ),
    "read_memory": (
        "Read a memory whose name suggests it is relevant to the task at hand. Memories "
        "refer to each other as `mem:NAME`; follow a reference when its text says it "
        "applies. Don't read memories just in case."
    ),
    "write_memory": (
        "Create or replace a memory: Markdown with knowledge about this project that is "
        "stable, not obvious from the code, and costly to find out again. Give it a "
        "meaningful name; use '/' to put it in a topic (e.g. 'auth/login'). Use the "
        "'global/' prefix only when the user asks for a memory shared by all projects. "
        "Refer to other memories as `mem:NAME` inside backticks, saying when to read them."
    ),
    "edit_memory": (
        "Change part of a memory by replacing text, instead of rewriting it whole. In "
        "'literal' mode the needle is matched exactly; in 'regex' mode it is a Python "
        "regular expression (MULTILINE and DOTALL on). The replacement is inserted as "
        "given, except that in regex mode $!1, $!2 ... insert the matched groups. A needle "
        "that matches nothing, or several places without allow_multiple_occurrences, is "
        "an error."
    ),
    "delete_memory": (
        "Delete a memory. Only do this when the user asked for it or agreed to it; prefer "
        "editing a memory that is partly outdated."
    ),
    "rename_memory": (
        "Rename or move a memory: to another topic, or between the project and 'global/'. "
        "Every `mem:OLD_NAME` reference in the other memories is rewritten to the new name; "
        "the answer says how many and which read-only memories were left alone. Use this "
        "instead of writing a copy and deleting the original."
    ),
    "onboarding": (
        "Call this once, when the project has no memories yet (the activation message says "
        "so). It prepares the memory conventions and returns instructions for exploring "
        "the project and writing its first memories, with facts detected from the "
        "project's files."
    ),
    "check_onboarding_performed": (
        "Tell whether the onboarding memories (core, tech_stack, suggested_commands, "
        "conventions, task_completion) exist, and which are still missing."
    ),
    "activate_project": (
        "Make the project in the given folder the active one. The answer lists the names "
        "of its memories and what to do with them; call this before using the other "
        "tools."
    ),
    "list_dir": (
        "List the folders and files of a project folder, optionally recursively. Returns "
        'JSON {"dirs": [...], "files": [...]} with paths relative to the project root.'
    ),
    "find_file": (
        "Find files whose name matches a mask (wildcards * and ?) below a project folder. "
        'Returns JSON {"files": [...]}.'
    ),
    "search_for_pattern": (
        "Search the project's text files for a regular expression. Returns JSON mapping "
        "each file to its matching lines as 'N:text' (context lines as 'N-text', '--' "
        "between groups). Narrow big searches with relative_path or paths_include_glob."
    ),
    "read_file": (
        "Read a text file of the project, whole or a range of lines (0-based, end "
        "inclusive). Also opens raw memory files by path, including ignored ones."
    ),
}

MAX_CHARS_HELP = (
    "Largest answer to return, in characters; -1 means the configured default "
    "(default_max_tool_answer_chars)."
)


def _fail(exc: Exception) -> Exception:
    """A tool error carrying a one-line message; never a traceback."""
    from mcp.server.mcpserver.exceptions import ToolError

    if isinstance(exc, MemoryStoreError):
        return ToolError(str(exc))
    if isinstance(exc, RecursionError):
        return ToolError("the input is too deeply nested or the pattern too complex")
    if isinstance(exc, MemoryError):
        return ToolError("the input is too large to process")
    if isinstance(exc, OSError):
        return ToolError(f"file system error: {exc.strerror or exc}")
    return ToolError(f"unexpected {type(exc).__name__}: {exc}")


def _guard(fn: Callable[..., str], *, in_thread: bool) -> Callable[..., Any]:
    """Wrap a tool body so every exception reaches the agent as a clear tool error.

    Memory operations take well under a millisecond, so they run on the event loop (a
    worker-thread hop would cost more than the work); file searches, which can take a
    while, run in a worker thread and leave the loop free.
    """
    import functools

    if in_thread:

        @functools.wraps(fn)
        def threaded(*args: Any, **kwargs: Any) -> str:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                raise _fail(exc) from None

        return threaded

    @functools.wraps(fn)
    async def inline(*args: Any, **kwargs: Any) -> str:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise _fail(exc) from None

    return inline


def build_server(state: ServerState) -> MCPServer:
    """An MCPServer offering exactly the tools the active modes leave."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from serena_memory import __version__

    server = MCPServer(
        SERVER_NAME,
        title="Serena memory",
        version=__version__,
        instructions=state.instructions(),
        log_level="WARNING",
        warn_on_duplicate_tools=False,
    )

    async def refresh_instructions(ctx: Any, call_next: Any) -> Any:
        # Sessions that connect later (streamable HTTP) see the memories as they are now.
        if ctx.method in ("initialize", "server/discover"):
            server._lowlevel_server.instructions = state.instructions()
        return await call_next(ctx)

    server.middleware.append(refresh_instructions)

    def add(
        fn: Callable[..., str],
        *,
        read_only: bool,
        destructive: bool = False,
        in_thread: bool = False,
    ) -> None:
        name = fn.__name__
        if not state.enabled(name):
            return
        title = name.replace("_", " ").capitalize()
        server.add_tool(
            _guard(fn, in_thread=in_thread),
            name=name,
            title=title,
            description=DESCRIPTIONS[name],
            annotations=ToolAnnotations(
                title=title,
                read_only_hint=read_only,
                destructive_hint=destructive if not read_only else None,
                open_world_hint=False,
            ),
            structured_output=False,
        )

    # -- memory tools --------------------------------------------------------------------
    def list_memories(
        topic: Annotated[
            str, Field(description="Only this topic, e.g. 'auth' or 'global'; '' for all.")
        ] = "",
    ) -> str:
        return json.dumps(state.require_store().list(topic).to_dict(), ensure_ascii=False)

    def read_memory(memory_name: MemoryName) -> str:
        return state.require_store().read(memory_name)

    def write_memory(
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
        result = state.require_store().write(memory_name, content, max_chars=max_chars)
        how = "created" if result.created else "replaced"
        return f"Memory '{result.name}' written ({how}, {result.chars} characters)."

    def edit_memory(
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
        result = state.require_store().edit(
            memory_name, needle, repl, mode, allow_multiple_occurrences
        )
        return f"Memory '{result.name}' edited: {result.replacements} replacement(s)."

    def delete_memory(memory_name: MemoryName) -> str:
        from serena_memory.names import normalize_name

        state.require_store().delete(memory_name)
        return f"Memory '{normalize_name(memory_name)}' deleted."

    def rename_memory(
        old_name: Annotated[str, Field(description="The current name.")],
        new_name: Annotated[
            str, Field(description="The new name; 'global/...' moves it to the global scope.")
        ],
    ) -> str:
        return state.require_store().rename(old_name, new_name).summary()

    add(list_memories, read_only=True)
    add(read_memory, read_only=True)
    add(write_memory, read_only=False, destructive=True)
    add(edit_memory, read_only=False, destructive=True)
    add(delete_memory, read_only=False, destructive=True)
    add(rename_memory, read_only=False, destructive=True)

    # -- onboarding ------------------------------------------------------------------------
    def onboarding() -> str:
        from serena_memory.onboarding import run_onboarding

        return run_onboarding(
            state.require_store(),
            exploration_tools=all(state.enabled(t) for t in EXPLORATION_TOOLS),
        )

    def check_onboarding_performed() -> str:
        from serena_memory.onboarding import onboarding_status

        return onboarding_status(state.require_store()).describe()

    add(onboarding, read_only=False, in_thread=True)
    add(check_onboarding_performed, read_only=True)

    # -- project activation ----------------------------------------------------------------
    def activate_project(
        project: Annotated[
            str, Field(description="Path of the project folder (absolute, or '~/...').")
        ],
    ) -> str:
        return state.activate(project)

    add(activate_project, read_only=True)

    # -- read-only exploration -------------------------------------------------------------
    def _root() -> Path:
        return state.require_store().project_root

    def _answer(data: object, max_answer_chars: int, hint: str) -> str:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        return exploration.check_answer_size(text, state.answer_limit(max_answer_chars), hint)

    def list_dir(
        relative_path: Annotated[
            str, Field(description="Folder relative to the project root; '.' for the root.")
        ],
        recursive: Annotated[bool, Field(description="Also list everything below.")],
        skip_ignored_files: Annotated[
            bool, Field(description="Leave out what .gitignore ignores.")
        ] = True,
        max_answer_chars: Annotated[int, Field(description=MAX_CHARS_HELP)] = -1,
    ) -> str:
        data = exploration.list_dir(_root(), relative_path, recursive, skip_ignored_files)
        return _answer(data, max_answer_chars, "list a subfolder or without recursion")

    def find_file(
        file_mask: Annotated[str, Field(description="File name or mask, e.g. '*.toml'.")],
        relative_path: Annotated[
            str, Field(description="Folder to search below; '.' for the whole project.")
        ],
        skip_ignored_files: Annotated[
            bool, Field(description="Leave out what .gitignore ignores.")
        ] = True,
    ) -> str:
        data = exploration.find_file(_root(), file_mask, relative_path, skip_ignored_files)
        return _answer(data, -1, "use a narrower mask or folder")

    def search_for_pattern(
        substring_pattern: Annotated[str, Field(description="Python regular expression.")],
        context_lines_before: Annotated[int, Field(description="Lines shown before a match.")] = 0,
        context_lines_after: Annotated[int, Field(description="Lines shown after a match.")] = 0,
        paths_include_glob: Annotated[
            str, Field(description="Only paths matching this glob, e.g. 'src/**/*.py'.")
        ] = "",
        paths_exclude_glob: Annotated[
            str, Field(description="Skip paths matching this glob (wins over include).")
        ] = "",
        relative_path: Annotated[
            str, Field(description="Only this file or folder (relative to the root).")
        ] = "",
        restrict_search_to_code_files: Annotated[
            bool, Field(description="Only source-code files (by extension).")
        ] = False,
        skip_ignored_files: Annotated[
            bool, Field(description="Leave out what .gitignore ignores.")
        ] = True,
        multiline: Annotated[
            bool, Field(description="DOTALL and MULTILINE flags, so '.' also matches newlines.")
        ] = True,
        max_answer_chars: Annotated[int, Field(description=MAX_CHARS_HELP)] = -1,
    ) -> str:
        data = exploration.search_for_pattern(
            _root(),
            substring_pattern,
            context_lines_before=context_lines_before,
            context_lines_after=context_lines_after,
            paths_include_glob=paths_include_glob,
            paths_exclude_glob=paths_exclude_glob,
            relative_path=relative_path,
            skip_ignored_files=skip_ignored_files,
            multiline=multiline,
            code_files_only=restrict_search_to_code_files,
        )
        return _answer(
            data, max_answer_chars, "use a more specific pattern, relative_path or a glob"
        )

    def read_file(
        relative_path: Annotated[str, Field(description="File path relative to the project root.")],
        start_line: Annotated[
            int, Field(description="First line, 0-based; negative counts from the end.")
        ] = 0,
        end_line: Annotated[
            int | None, Field(description="Last line (inclusive); null for the end of the file.")
        ] = None,
        max_answer_chars: Annotated[int, Field(description=MAX_CHARS_HELP)] = -1,
    ) -> str:
        text = exploration.read_file(_root(), relative_path, start_line, end_line)
        return _answer(text, max_answer_chars, "read a range of lines with start_line/end_line")

    add(list_dir, read_only=True, in_thread=True)
    add(find_file, read_only=True, in_thread=True)
    add(search_for_pattern, read_only=True, in_thread=True)
    add(read_file, read_only=True, in_thread=True)
    return server


# -- stdio ------------------------------------------------------------------------------------
class _StdinLines:
    """The client's messages, one line each, read by one thread for the server's life.

    The SDK's own stdio wrapper hops to a worker thread for every line read and every
    write; a dedicated reader and direct writes take that cost off each tool call.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.queue: Any = None

    def __aiter__(self) -> _StdinLines:
        import asyncio
        import threading

        loop = asyncio.get_running_loop()
        self.queue = asyncio.Queue()

        def pump() -> None:
            with open(self.fd, "rb", closefd=False) as stream:
                for raw in stream:
                    loop.call_soon_threadsafe(self.queue.put_nowait, raw)
            loop.call_soon_threadsafe(self.queue.put_nowait, None)

        threading.Thread(target=pump, name="mcp-stdin", daemon=True).start()
        return self

    async def __anext__(self) -> str:
        raw = await self.queue.get()
        if raw is None:
            raise StopAsyncIteration
        return raw.decode("utf-8", errors="replace")


class _StdoutWriter:
    """Writes whole messages straight to the client's pipe."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def write(self, text: str) -> None:
        data = memoryview(text.encode("utf-8"))
        while data:
            written = os.write(self.fd, data)
            data = data[written:]

    async def flush(self) -> None:
        return None


def run_stdio(server: MCPServer) -> None:
    """Serve one client over stdin/stdout until it closes stdin.

    The protocol gets private copies of both descriptors; fd 0 then reads nothing and
    fd 1 goes to stderr, so a stray print can't corrupt the message stream.
    """
    import anyio
    from mcp.server.stdio import stdio_server

    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    lowlevel = server._lowlevel_server

    async def main() -> None:
        stdin, stdout = _StdinLines(wire_in), _StdoutWriter(wire_out)
        async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):  # type: ignore[arg-type]
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)


def all_tool_names() -> tuple[str, ...]:
    return (*MEMORY_TOOLS, *ONBOARDING_TOOLS, ACTIVATION_TOOL, *EXPLORATION_TOOLS)


def create_server(
    project: str | Path | None = None,
    modes: Iterable[str] = (),
    *,
    home: Path | None = None,
    use_default_project: bool = True,
) -> tuple[ServerState, MCPServer]:
    """Resolve modes and project, and build the server; raises MemoryStoreError (with a
    message for the user) when start-up can't go on."""
    from serena_memory.modes import resolve_modes

    global_config = load_global_config(home)
    active_modes = resolve_modes(modes, global_config.base_modes, home)
    explicit = project is not None
    if explicit:
        path = Path(project).expanduser()
        if not path.exists():
            raise MemoryStoreError(f"project folder {path} does not exist")
        if not path.is_dir():
            raise MemoryStoreError(f"project folder {path} is a file, not a folder")
        root: Path | None = Path(os.path.realpath(path))
    else:
        root = default_project(home=home) if use_default_project else None
    state = ServerState(root, active_modes, home=home, allow_activation=not explicit)
    return state, build_server(state)
