"""Helpers for the MCP tests: connecting as clients do, and scenarios every transport runs.

The scenarios take a connected SDK client, so the same user-visible behaviour is checked
in memory, over stdio against a subprocess and over streamable HTTP.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path

from conftest import write_config

from serena_memory.agent import tools as T

# every tool on offer (the desktop context); a later --context wins
SERVER_CMD = [
    sys.executable,
    "-m",
    "serena_memory.cli",
    "start-mcp-server",
    "--context",
    "desktop",
]

REFERENCE_PARAMETERS = {
    "list_memories": ["topic", "page"],  # page: ours, optional (long listings)
    "read_memory": ["memory_name"],
    "write_memory": ["memory_name", "content", "max_chars"],
    "edit_memory": ["memory_name", "needle", "repl", "mode", "allow_multiple_occurrences"],
    "delete_memory": ["memory_name"],
    "rename_memory": ["old_name", "new_name"],
    "onboarding": [],
    "check_onboarding_performed": [],
    "list_dir": ["relative_path", "recursive", "skip_ignored_files", "max_answer_chars"],
    "find_file": ["file_mask", "relative_path", "skip_ignored_files"],
    "read_file": ["relative_path", "start_line", "end_line", "max_answer_chars"],
}
MEMORY_TOOLS = set(T.names_in(T.Group.MEMORY, T.Group.SEARCH, T.Group.HISTORY))
ONBOARDING_TOOLS = set(T.names_in(T.Group.ONBOARDING))
EXPLORATION_TOOLS = set(T.names_in(T.Group.EXPLORATION))
TARGETS = ["core", "tech_stack", "suggested_commands", "conventions", "task_completion"]


def handshake(version: str = "2025-06-18") -> list[dict]:
    """The raw JSON-RPC lines a client sends first: initialize, initialized, tools/list."""
    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]


@dataclass
class Answer:
    text: str
    error: bool


async def call(client, name: str, **arguments) -> Answer:
    result = await client.call_tool(name, arguments)
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    assert "Traceback" not in text, text
    return Answer(text, bool(result.is_error))


async def ok(client, name: str, **arguments) -> str:
    answer = await call(client, name, **arguments)
    assert not answer.error, answer.text
    return answer.text


def text_read(answer: str) -> str:
    """A `read_memory` answer without the line that ends a read of a memory with a history
    or code references (who last wrote it, whether they hold: agent/trust.py), for tests
    about the text itself."""
    head, rule, tail = answer.rpartition("\n\n---\n")
    told = rule and "\n" not in tail and tail.startswith(("Last written by ", "Its "))
    return head if told else answer


async def read_text(client, name: str) -> str:
    """The text `read_memory` gives of memory ``name``, without its trust line."""
    return text_read(await ok(client, "read_memory", memory_name=name))


async def refused(client, name: str, *words: str, **arguments) -> str:
    answer = await call(client, name, **arguments)
    assert answer.error, answer.text
    for word in words:
        assert word in answer.text, (word, answer.text)
    return answer.text


async def tool_names(client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


def mem_file(root: Path, name: str) -> Path:
    return root / ".serena" / "memories" / f"{name}.md"


def write_memory_file(root: Path, name: str, text: str) -> None:
    path = mem_file(root, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_global(home: Path, name: str, text: str) -> None:
    path = home / "memories" / "global" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def protect(project: Path, home: Path) -> None:
    """Read-only: frozen/* (project) and global/team/* (global); ignored: _archive/*."""
    write_config(home / "serena_config.yml", 'read_only_memory_patterns: ["global/team/.*"]\n')
    write_config(
        project / ".serena" / "project.yml",
        'read_only_memory_patterns: ["frozen/.*"]\nignored_memory_patterns: ["_archive/.*"]\n',
    )


# -- connecting ----------------------------------------------------------------------------------
@contextlib.asynccontextmanager
async def in_memory(
    project: Path | None, modes: Iterable[str] = (), mode: str = "auto", context: str = "desktop"
) -> AsyncIterator:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    _state, server = create_server(project, modes, use_default_project=False, context=context)
    async with Client(server, mode=mode) as client:
        yield client


def stdio_params(args: list[str], cwd: Path | None = None):
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=SERVER_CMD[0], args=[*SERVER_CMD[1:], *args], env=dict(os.environ), cwd=cwd
    )


@contextlib.asynccontextmanager
async def over_stdio(args: list[str], cwd: Path | None = None, mode: str = "legacy"):
    from mcp import Client

    async with Client(stdio_params(args, cwd), mode=mode) as client:
        yield client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class HttpServer:
    """A running HTTP server as a client sees it: the URL and the header it printed."""

    url: str
    header: str | None  # the printed line "Authorization: Bearer TOKEN"; None with --no-auth
    stderr: list[str]

    @property
    def token(self) -> str | None:
        return None if self.header is None else self.header.removeprefix("Authorization: Bearer ")

    @property
    def headers(self) -> dict[str, str]:
        """The printed header, as a client sends it."""
        if self.header is None:
            return {}
        name, _, value = self.header.partition(": ")
        return {name: value}

    @contextlib.asynccontextmanager
    async def connect(self, headers: dict[str, str] | None = None, **options) -> AsyncIterator:
        """An SDK client sending ``headers`` (default: the printed one) with every request."""
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        sent = self.headers if headers is None else headers
        # the SDK's documented way to send headers: an HTTP client of one's own
        async with httpx2.AsyncClient(headers=sent, timeout=httpx2.Timeout(30, read=300)) as http:
            transport = streamable_http_client(self.url, http_client=http)
            async with Client(transport, **options) as client:
                yield client


AUTH_PREFIX = "Authorization: Bearer "
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(
    url: str,
    extra: dict[str, str] | list[tuple[str, str]],
    body: object = INITIALIZE,
    timeout: float = 60,
):
    """A raw POST as any HTTP client sends it, with the JSON headers and ``extra``."""
    import json

    import httpx

    pairs = list(extra.items()) if isinstance(extra, dict) else extra
    headers = httpx.Headers([*JSON_HEADERS.items(), *pairs])  # a name given twice stays twice
    return httpx.post(url, content=json.dumps(body), headers=headers, timeout=timeout)


@contextlib.contextmanager
def http_server(
    args: list[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    open_files: int | None = None,
):
    """A real `serena start-mcp-server --transport streamable-http` process; yields it once
    it listens and has printed what a client needs (the URL and the Authorization header).
    ``open_files``: the server's limit on open files (soft and hard), as `ulimit -n` sets it."""
    import threading

    def limit_files() -> None:
        import resource

        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    port = free_port()
    proc = subprocess.Popen(
        [*SERVER_CMD, "--transport", "streamable-http", "--port", str(port), *args],
        cwd=cwd,
        env=dict(os.environ) if env is None else env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=None if open_files is None else limit_files,
    )
    lines: list[str] = []

    def collect() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=collect, daemon=True)
    reader.start()
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                reader.join(5)
                raise AssertionError(f"server exited: {lines}")
            said = any(line.startswith(AUTH_PREFIX) or "--no-auth" in line for line in lines)
            with socket.socket() as sock:
                if said and sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise AssertionError(f"server did not start listening: {lines}")
            time.sleep(0.05)
        header = next((line for line in lines if line.startswith(AUTH_PREFIX)), None)
        assert f"Serving MCP over streamable HTTP at {url}" in lines, lines
        yield HttpServer(url, header, lines)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(10)
        assert not any("Traceback" in line for line in lines), lines


# -- scenarios -----------------------------------------------------------------------------------
async def every_tool(client, project: Path, home: Path) -> None:
    """Each tool once with its reference parameters, plus the protections an agent meets."""
    names = await tool_names(client)
    assert names >= MEMORY_TOOLS | ONBOARDING_TOOLS | EXPLORATION_TOOLS

    out = await ok(client, "write_memory", memory_name="auth/login", content="Tokens.\n")
    assert "auth/login" in out and "written" in out
    await ok(client, "write_memory", memory_name="core", content="See `mem:auth/login`.\n")
    assert await read_text(client, "mem:auth/login.md") == "Tokens.\n"
    listing = await ok(client, "list_memories")
    import json

    data = json.loads(listing)
    assert "auth/login" in data["memories"] and "core" in data["memories"]
    assert "frozen/rules" in data["read_only_memories"]
    assert "global/team/style" in data["read_only_memories"]
    assert not any("_archive" in n for n in data["memories"] + data["read_only_memories"])
    assert json.loads(await ok(client, "list_memories", topic="auth")) == {
        "memories": ["auth/login"],
        "read_only_memories": [],
        "unreviewed": ["auth/login"],  # the agent wrote it; no person reviewed it
        "unreviewed_note": "'unreviewed' memories were last written by an agent; "
        "no person reviewed them.",
    }
    out = await ok(
        client, "edit_memory", memory_name="auth/login", needle="Tokens", repl="JWT", mode="literal"
    )
    assert "1 replacement" in out
    assert mem_file(project, "auth/login").read_text() == "JWT.\n"
    out = await ok(client, "rename_memory", old_name="auth/login", new_name="security/login")
    assert "1 reference" in out and "frozen/rules" in out  # the read-only one left alone
    assert mem_file(project, "core").read_text() == "See `mem:security/login`.\n"
    assert "`mem:auth/login`" in mem_file(project, "frozen/rules").read_text()
    out = await ok(client, "delete_memory", memory_name="security/login")
    assert "deleted" in out
    assert not mem_file(project, "security/login").exists()

    # read-only: readable, never changed, and the message names the pattern
    assert "Frozen" in await ok(client, "read_memory", memory_name="frozen/rules")
    await refused(client, "write_memory", "frozen/.*", memory_name="frozen/rules", content="x")
    await refused(
        client,
        "edit_memory",
        "read-only",
        memory_name="global/team/style",
        needle="a",
        repl="b",
        mode="literal",
    )
    await refused(client, "delete_memory", "global/team/.*", memory_name="global/team/style")
    await refused(client, "rename_memory", "read-only", old_name="core", new_name="frozen/core")
    assert "Frozen" in mem_file(project, "frozen/rules").read_text()
    # ignored: unreachable by name, reachable as a raw file
    await refused(client, "read_memory", "ignored", "_archive", memory_name="_archive/old")
    await refused(client, "write_memory", "ignored", memory_name="_archive/new", content="x")
    raw = await ok(client, "read_file", relative_path=".serena/memories/_archive/old.md")
    assert raw == "Archived.\n"

    # onboarding status and the exploration tools
    status = await ok(client, "check_onboarding_performed")
    assert "`mem:core`" in status and "`mem:tech_stack`" in status
    listing = json.loads(await ok(client, "list_dir", relative_path=".", recursive=False))
    assert "README.md" in listing["files"]
    found = json.loads(await ok(client, "find_file", file_mask="*.md", relative_path="."))
    assert "README.md" in found["files"]
    hits = json.loads(await ok(client, "search_for_pattern", substring_pattern="Demo"))
    assert hits["README.md"] == ["1:# Demo project"]
    assert (await ok(client, "read_file", relative_path="README.md")).startswith("# Demo")
    await refused(client, "read_file", "outside the project", relative_path="../x")
    # hostile input: one clear tool error each, no traceback, nothing written outside
    await refused(client, "read_memory", "..", memory_name="../../etc/passwd")
    await refused(client, "write_memory", "absolute", memory_name="/tmp/evil", content="x")
    await refused(client, "write_memory", "limit", memory_name="big", content="x" * 300)
    await refused(client, "read_memory", "not found", memory_name="nothing/here")
    assert not (project.parent / "evil.md").exists()


def prepare_every_tool(project: Path, home: Path) -> None:
    protect(project, home)
    write_config(home / "serena_config.yml", 'read_only_memory_patterns: ["global/team/.*"]\n'
                 "default_max_tool_answer_chars: 200\n")  # fmt: skip
    write_memory_file(project, "frozen/rules", "Frozen. Login: `mem:auth/login`.\n")
    write_memory_file(project, "_archive/old", "Archived.\n")
    write_global(home, "team/style", "Team style.\n")
    (project / "README.md").write_text("# Demo project\n", encoding="utf-8")


async def scripted_onboarding(client, project: Path) -> None:
    """An empty project onboarded the way an agent is told to."""
    assert "Onboarding has not been performed" in (client.instructions or "")
    brief = await ok(client, "onboarding")
    assert "`mem:memory_maintenance`" in brief
    for target in TARGETS:
        assert f"`mem:{target}`" in brief
    conventions = await ok(client, "read_memory", memory_name="memory_maintenance")
    assert conventions.strip()
    status = await ok(client, "check_onboarding_performed")
    assert "not been performed" in status or "missing" in status.lower()
    for target in TARGETS[:2]:
        await ok(client, "write_memory", memory_name=target, content=f"# {target}\n")
    status = await ok(client, "check_onboarding_performed")
    assert "incomplete" in status and "`mem:conventions`" in status
    for target in TARGETS[2:]:
        await ok(client, "write_memory", memory_name=target, content=f"# {target}\n")
    status = await ok(client, "check_onboarding_performed")
    assert status.startswith("Onboarding has been performed")
    for target in TARGETS:
        assert mem_file(project, target).is_file()
