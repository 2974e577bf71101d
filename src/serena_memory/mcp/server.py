"""The MCP server: the agent's way to its memories, on the official MCP Python SDK.

A thin layer. Every rule lives in the library (store, onboarding, modes, exploration);
this module names the tools, words their descriptions for the agent, and turns every
failure into a tool error with a message the agent can act on. The SDK is imported only
here, and only when a server is built, so the command line stays fast.
"""

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from serena_memory.agent import exploration
from serena_memory.agent.modes import MEMORY_TOOLS, ONBOARDING_TOOLS, Mode, excluded_tools
from serena_memory.core.config import load_global_config, serena_home
from serena_memory.core.errors import MemoryStoreError, NoProjectError
from serena_memory.core.store import Context, MemoryStore

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "serena-memory"
EXPLORATION_TOOLS = ("list_dir", "find_file", "search_for_pattern", "read_file")
ACTIVATION_TOOL = "activate_project"
INSTRUCTIONS_TOOL = "initial_instructions"


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
        from serena_memory.agent.onboarding import activation_message

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
        except Exception as exc:  # e.g. project.yml broken since start-up; never fail here
            return f"The active project can't be used right now: {_message(exc)}"
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


# -- tool wording (ours) ------------------------------------------------------------------------
MEMORY_NAME_HELP = (
    "The memory name, e.g. 'core' or 'auth/login'; a leading 'mem:' and a trailing '.md' "
    "are accepted."
)

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
    "initial_instructions": (
        "Call this first if this server's instructions were not shown to you: returns "
        "them (the names of the project's memories, whether onboarding is needed, and the "
        "project's own instructions)."
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


def _message(exc: Exception) -> str:
    """One line saying what went wrong; never a traceback."""
    if isinstance(exc, MemoryStoreError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "the input is too deeply nested or the pattern too complex"
    if isinstance(exc, MemoryError):
        return "the input is too large to process"
    if isinstance(exc, OSError):
        return f"file system error: {exc.strerror or exc}"
    return f"unexpected {type(exc).__name__}: {exc}"


def _fail(exc: Exception) -> Exception:
    """The tool error the SDK turns into an `isError` result with our message."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(_message(exc))


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


def build_server(state: ServerState, *, inline_memory_tools: bool = True) -> "MCPServer":
    """An MCPServer offering exactly the tools the active modes leave.

    ``inline_memory_tools``: run the memory tools on the event loop (fastest for the one
    client of a stdio server); False puts every tool in a worker thread, so that one
    session's slow call (a lock held by another process, a big rename) never stalls the
    others of a streamable-HTTP server.

    Tool parameters are annotated here, inside the function, so that importing this module
    costs no pydantic: the stdio fast start answers before the SDK is loaded.
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations
    from pydantic import Field

    from serena_memory import __version__

    MemoryName = Annotated[str, Field(description=MEMORY_NAME_HELP)]
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
        in_thread: bool = not inline_memory_tools,
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
        from serena_memory.core.names import normalize_name

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
        from serena_memory.agent.onboarding import run_onboarding

        return run_onboarding(
            state.require_store(),
            exploration_tools=all(state.enabled(t) for t in EXPLORATION_TOOLS),
        )

    def check_onboarding_performed() -> str:
        from serena_memory.agent.onboarding import onboarding_status

        return onboarding_status(state.require_store()).describe()

    add(onboarding, read_only=False, in_thread=True)
    add(check_onboarding_performed, read_only=True)

    # -- for clients that don't show the server's instructions to the agent -----------------
    def initial_instructions() -> str:
        return state.instructions()

    add(initial_instructions, read_only=True)

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
ANSWERS_FILE = "mcp-stdio-answers.json"
MAX_ANSWER_SETS = 16
_FAST_START_OFF = "SERENA_MEMORY_NO_FAST_START"


def _answers_key(state: ServerState) -> str:
    """What the SDK's answers to `initialize` and `tools/list` depend on: this module (tool
    names, wording, signatures), the SDK and pydantic as installed, and the enabled tools.
    Installed packages are identified by their files' stamps, which costs no import."""
    import hashlib
    import importlib.util

    from serena_memory import __version__

    digest = hashlib.sha256(__version__.encode())
    digest.update(Path(__file__).read_bytes())
    for package in ("mcp", "mcp_types", "pydantic", "pydantic_core"):
        spec = importlib.util.find_spec(package)
        origin = spec.origin if spec else None
        stat = os.stat(origin) if origin else None
        digest.update(f"{package}:{origin}:{stat and (stat.st_mtime_ns, stat.st_size)}".encode())
    digest.update(",".join(t for t in all_tool_names() if state.enabled(t)).encode())
    return digest.hexdigest()[:32]


class AnswerCache:
    """The SDK's own answers to `initialize` and `tools/list`, recorded on an earlier start.

    Loading the SDK takes around a second, most of it building pydantic models. A client
    waits for exactly two answers before it can use the server, and both depend only on
    the things in :func:`_answers_key`; so they are recorded from the wire the first time
    and replayed, byte for byte apart from the live instructions, while the SDK loads.
    Every other message is answered by the SDK.
    """

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self.entry: dict[str, Any] = {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entry = data.get(key) if isinstance(data, dict) else None
            if isinstance(entry, dict):
                self.entry = entry
        except (OSError, ValueError):
            pass

    def negotiate(self, requested: object) -> str | None:
        versions = self.entry.get("handshake_versions") or []
        if isinstance(requested, str) and requested in versions:
            return requested
        return self.entry.get("latest_handshake")

    def answers_for(self, version: str | None) -> dict[str, Any] | None:
        answers = (self.entry.get("versions") or {}).get(version or "")
        if isinstance(answers, dict) and "initialize" in answers and "tools/list" in answers:
            return answers
        return None

    def record(self, version: str, initialize: dict[str, Any], tools: dict[str, Any]) -> None:
        """Store one protocol version's answers (other keys kept, oldest dropped)."""
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

        from serena_memory.core.files import atomic_write

        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        entry = data.pop(self.key, None) or {}
        entry["handshake_versions"] = list(HANDSHAKE_PROTOCOL_VERSIONS)
        entry["latest_handshake"] = LATEST_HANDSHAKE_VERSION
        entry.setdefault("versions", {})[version] = {
            "initialize": {k: v for k, v in initialize.items() if k != "instructions"},
            "tools/list": tools,
        }
        data[self.key] = entry  # newest last
        while len(data) > MAX_ANSWER_SETS:
            data.pop(next(iter(data)))
        with contextlib.suppress(OSError):  # a cache that can't be written only costs speed
            atomic_write(self.path, json.dumps(data, separators=(",", ":")).encode("utf-8"))


def _dump(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


class StdioWire:
    """The client's pipes, owned from the first moment of the process.

    One thread reads the client's lines for the server's life (the SDK's own wrapper hops
    to a worker thread for every line and every write; this costs each tool call less).
    While the SDK is still loading, that thread answers `initialize` and `tools/list` from
    the :class:`AnswerCache` and queues every line, those two included, for the SDK, whose
    duplicate answers are then dropped. On a start without recorded answers it notes the
    SDK's answers to record them for the next start.
    """

    def __init__(self, instructions: str, cache: AnswerCache | None) -> None:
        import queue
        import threading

        self.instructions = instructions
        self.cache = cache
        self.lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.write_lock = threading.Lock()
        self.sdk_ready = False
        self.loop: Any = None
        self.wakeup: Any = None
        self.fast_version: str | None = None
        self.lines_seen = 0
        self.looking = True  # until the first initialize and tools/list have gone by
        self.drop_ids: set[object] = set()  # answered here; the SDK's answer is dropped
        self.watch: dict[object, str] = {}  # request id -> method, answers to record
        self.seen: dict[str, dict[str, Any]] = {}
        # Private copies of the pipes; fd 0 then reads nothing and fd 1 goes to stderr,
        # so a stray print can't corrupt the message stream.
        self.wire_in, self.wire_out = os.dup(0), os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        threading.Thread(target=self._pump, name="mcp-stdin", daemon=True).start()

    def restore(self) -> None:
        os.dup2(self.wire_in, 0)
        os.dup2(self.wire_out, 1)

    # -- reading (the pump thread) ---------------------------------------------------------
    def _pump(self) -> None:
        with open(self.wire_in, "rb", closefd=False) as stream:
            for raw in stream:
                if _SURROGATE_ESCAPE.search(raw) and self._refuse_lone_surrogates(raw):
                    continue
                if self.looking:
                    try:
                        self._look_at(raw)
                    except Exception:  # never let a strange line stop the reading
                        self.looking = False
                self.lines.put(raw)
                self._wake()
        self.lines.put(None)
        self._wake()

    def _refuse_lone_surrogates(self, raw: bytes) -> bool:
        """Answer a request whose JSON escapes a lone UTF-16 surrogate (`"\\ud800"`).

        Such a line is valid JSON, but the SDK's parser rejects it and answers nothing, so
        the client would wait forever; it gets an error naming the problem instead.
        """
        try:
            message = json.loads(raw)
        except ValueError:
            return False  # not JSON: the SDK's to answer
        try:
            json.dumps(message, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            return False  # only valid surrogate pairs
        if isinstance(message, dict) and _plain_id(message.get("id")):
            error = {
                "code": -32602,
                "message": "the request holds a lone UTF-16 surrogate escape (such as "
                "\\ud800), which is not text; send valid Unicode",
            }
            self._write(_dump({"jsonrpc": "2.0", "id": message["id"], "error": error}))
        return True

    def _wake(self) -> None:
        loop = self.loop
        if loop is not None:
            loop.call_soon_threadsafe(self.wakeup.set)

    def _look_at(self, raw: bytes) -> None:
        self.lines_seen += 1
        first = self.lines_seen == 1
        if self.lines_seen >= 20 or set(self.watch.values()) >= {"initialize", "tools/list"}:
            self.looking = False
        try:
            message = json.loads(raw)
        except ValueError:
            return
        if not isinstance(message, dict) or not _plain_id(message.get("id")):
            return
        method, params = message.get("method"), message.get("params")
        if method not in ("initialize", "tools/list") or method in self.watch.values():
            return
        if method == "tools/list" and isinstance(params, dict) and params.get("cursor"):
            return
        self.watch[message["id"]] = method
        if self.cache is None or self.sdk_ready:
            return
        if method == "initialize" and first and _plain_initialize(params):
            version = self.cache.negotiate(params.get("protocolVersion"))
            answers = self.cache.answers_for(version)
            if answers is not None:
                result = dict(answers["initialize"], instructions=self.instructions)
                self._answer(message["id"], result)
                self.fast_version = version
        elif method == "tools/list" and self.fast_version is not None:
            answers = self.cache.answers_for(self.fast_version)
            if answers is not None:
                self._answer(message["id"], answers["tools/list"])

    def _answer(self, request_id: object, result: dict[str, Any]) -> None:
        self.drop_ids.add(request_id)
        self._write(_dump({"jsonrpc": "2.0", "id": request_id, "result": result}))

    # -- writing -----------------------------------------------------------------------------
    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        with self.write_lock:
            while view:
                view = view[os.write(self.wire_out, view) :]

    def send(self, text: str) -> None:
        """One message from the SDK (a JSON line)."""
        if self.drop_ids or self.watch:  # only until the handshake has gone by
            message = json.loads(text)
            request_id = message.get("id") if isinstance(message, dict) else None
            if not _plain_id(request_id):
                request_id = None
            method = self.watch.pop(request_id, None) if request_id is not None else None
            if method is not None and isinstance(message.get("result"), dict):
                self._note(method, message["result"])
            if request_id in self.drop_ids:
                self.drop_ids.discard(request_id)
                return
        self._write(text.encode("utf-8"))

    def _note(self, method: str, result: dict[str, Any]) -> None:
        """Keep the SDK's answers; record them once both are in (not when replayed)."""
        self.seen[method] = result
        if self.fast_version is not None or self.cache is None:
            return
        if "initialize" in self.seen and "tools/list" in self.seen:
            init = self.seen["initialize"]
            version = init.get("protocolVersion")
            if isinstance(version, str):
                self.cache.record(version, init, self.seen["tools/list"])
            self.watch.clear()

    # -- the SDK's side ----------------------------------------------------------------------
    def reader(self) -> "_SdkLines":
        return _SdkLines(self)

    def writer(self) -> "_SdkWriter":
        return _SdkWriter(self)


# `\uD800`-`\uDFFF` in a JSON line: a surrogate, alone or (mostly) in a valid pair.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _plain_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _plain_initialize(params: object) -> bool:
    """An `initialize` the SDK will accept as we would (else it answers it itself)."""
    if not isinstance(params, dict):
        return False
    info = params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


class _SdkLines:
    """The queued lines, as the async iterator the SDK's stdio transport reads."""

    def __init__(self, wire: StdioWire) -> None:
        self.wire = wire

    def __aiter__(self) -> "_SdkLines":
        import asyncio

        self.wire.wakeup = asyncio.Event()
        self.wire.loop = asyncio.get_running_loop()
        return self

    async def __anext__(self) -> str:
        import queue

        wire = self.wire
        while True:
            wire.wakeup.clear()
            try:
                raw = wire.lines.get_nowait()
            except queue.Empty:
                await wire.wakeup.wait()
                continue
            if raw is None:
                raise StopAsyncIteration
            return raw.decode("utf-8", errors="replace")


class _SdkWriter:
    def __init__(self, wire: StdioWire) -> None:
        self.wire = wire

    async def write(self, text: str) -> None:
        self.wire.send(text)

    async def flush(self) -> None:
        return None


def open_stdio_wire(state: ServerState, home: Path | None = None) -> StdioWire:
    """Take over stdin/stdout before the SDK loads (see :class:`StdioWire`)."""
    cache = None
    if not os.environ.get(_FAST_START_OFF):
        try:
            path = (home or serena_home()) / "cache" / ANSWERS_FILE
            cache = AnswerCache(path, _answers_key(state))
        except OSError:
            cache = None
    return StdioWire(state.instructions(), cache)


def run_stdio(server: "MCPServer", wire: StdioWire) -> None:
    """Serve one client over the wire until it closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server
    lowlevel.instructions = wire.instructions  # the text a fast answer may have given
    wire.sdk_ready = True

    async def main() -> None:
        stdin, stdout = wire.reader(), wire.writer()
        async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):  # type: ignore[arg-type]
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        wire.restore()


def all_tool_names() -> tuple[str, ...]:
    return (
        *MEMORY_TOOLS,
        *ONBOARDING_TOOLS,
        INSTRUCTIONS_TOOL,
        ACTIVATION_TOOL,
        *EXPLORATION_TOOLS,
    )


def create_state(
    project: str | Path | None = None,
    modes: Iterable[str] = (),
    *,
    home: Path | None = None,
    use_default_project: bool = True,
) -> ServerState:
    """Resolve modes and project; raises MemoryStoreError (with a message for the user) when
    start-up can't go on. Imports nothing of the SDK."""
    from serena_memory.agent.modes import resolve_modes

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
    return ServerState(root, active_modes, home=home, allow_activation=not explicit)


def create_server(
    project: str | Path | None = None,
    modes: Iterable[str] = (),
    *,
    home: Path | None = None,
    use_default_project: bool = True,
) -> tuple[ServerState, "MCPServer"]:
    """The state and the server built on it (see :func:`create_state`)."""
    state = create_state(project, modes, home=home, use_default_project=use_default_project)
    return state, build_server(state)
