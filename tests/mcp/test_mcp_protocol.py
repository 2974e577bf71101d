"""The protocol as a client meets it: every malformed message gets the JSON-RPC error the
specification names, over stdio (a real subprocess) and streamable HTTP (a real server);
the server advertises only what it serves; argument errors are sentences; and no slow
call stops the server from answering the others."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp_support import (
    SERVER_CMD,
    HttpServer,
    handshake,
    http_server,
    in_memory,
    write_memory_file,
)

pytestmark = pytest.mark.slow  # raw messages to real stdio and HTTP server processes

PARSE, INVALID_REQUEST, INVALID_PARAMS, METHOD_NOT_FOUND = -32700, -32600, -32602, -32601


def _call(request_id: object, name: str, arguments: object) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def _line(message: object) -> bytes:
    return json.dumps(message).encode()


def _nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def _deep_line(depth: int) -> bytes:
    """A write_memory call whose content is `depth` lists deep, built as text (json.dumps
    of a structure this deep would itself overflow the interpreter's stack)."""
    head = b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"write_memory",'
    return (
        head
        + b'"arguments":{"memory_name":"deep","content":'
        + b"[" * depth
        + b"]" * depth
        + b"}}}"
    )


# (case, raw message, expected code, expected id); None: no answer at all (a notification)
MALFORMED: list[tuple[str, bytes, int | None, object]] = [
    ("invalid JSON", b'{"jsonrpc": "2.0", "id": 1, "method":', PARSE, None),
    ("not JSON at all", b"this is not json", PARSE, None),
    (
        "invalid UTF-8",
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_memory",'
        b'"arguments":{"memory_name":"latin","content":"caf\xe9"}}}',
        PARSE,
        None,
    ),
    ("a batch", _line([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]), INVALID_REQUEST, None),
    ("an empty batch", b"[]", INVALID_REQUEST, None),
    ("a bare number", b"42", INVALID_REQUEST, None),
    ("a bare string", b'"ping"', INVALID_REQUEST, None),
    ("a bare null", b"null", INVALID_REQUEST, None),
    ("an empty object", b"{}", INVALID_REQUEST, None),
    ("no method", _line({"jsonrpc": "2.0", "id": 3}), INVALID_REQUEST, 3),
    (
        "a method that is no string",
        _line({"jsonrpc": "2.0", "id": 9, "method": 5}),
        INVALID_REQUEST,
        9,
    ),
    ("wrong jsonrpc", _line({"jsonrpc": "1.0", "id": 4, "method": "ping"}), INVALID_REQUEST, 4),
    ("missing jsonrpc", _line({"id": 5, "method": "ping"}), INVALID_REQUEST, 5),
    ("id null", _line({"jsonrpc": "2.0", "id": None, "method": "ping"}), INVALID_REQUEST, None),
    ("id 1.5", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID_REQUEST, None),
    ("id true", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST, None),
    ("id a list", b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', INVALID_REQUEST, None),
    (
        "params a list",
        _line({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": [1]}),
        INVALID_PARAMS,
        6,
    ),
    (
        "params a string",
        _line({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": "x"}),
        INVALID_PARAMS,
        6,
    ),
    (
        "a 10 MB line",
        _line(_call(10, "write_memory", {"memory_name": "huge", "content": "x" * 10_000_000})),
        INVALID_REQUEST,
        None,
    ),
    ("arguments nested 300 deep", _deep_line(300), INVALID_PARAMS, 8),
    ("arguments nested 100,000 deep", _deep_line(100_000), INVALID_REQUEST, None),
    (
        "a lone surrogate",
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"write_memory",'
        b'"arguments":{"memory_name":"s","content":"\\ud800"}}}',
        INVALID_PARAMS,
        11,
    ),
    (
        "a response without result or error",
        _line({"jsonrpc": "2.0", "id": 12, "result": 5}),
        INVALID_REQUEST,
        None,
    ),
    (
        "a notification with params that are no object",
        _line({"jsonrpc": "2.0", "method": "notifications/initialized", "params": [1]}),
        None,
        None,
    ),
]
IDS = [case for case, *_ in MALFORMED]


THREADED_METHODS = ("tools/call", "resources/read", "prompts/get")
ANSWER_WAIT = 60.0


def _threaded_request_id(raw: bytes) -> list[object]:
    """The id of a well-formed request the server answers from a worker thread, if `raw` is one."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):
        return []
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return []
    ident = message.get("id")
    if message.get("method") not in THREADED_METHODS or isinstance(ident, bool):
        return []
    if not isinstance(ident, str | int) or not isinstance(message.get("params", {}), dict):
        return []
    return [ident]


class StdioServer:
    """A real `serena start-mcp-server` on pipes, spoken to line by line.

    A reader thread queues what the server prints, so every wait has a deadline: a missing
    answer fails the test that expected it instead of stopping the whole run."""

    def __init__(self, project: Path, home: Path) -> None:
        self.proc = subprocess.Popen(
            [*SERVER_CMD, "--project", str(project), "--no-dashboard"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ, SERENA_HOME=str(home)),
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 1000
        for message in handshake():
            self.send(_line(message))
        self.handshake_answers = self.until({1, 2})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def until(self, ids: set[object], wait: float = ANSWER_WAIT) -> list[dict]:
        """Every message up to and including the answers to `ids`, or up to `wait` seconds."""
        received: list[dict] = []
        deadline = time.monotonic() + wait
        while not ids <= {m.get("id") for m in received}:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return received
            assert line, "the server closed its output"
            received.append(json.loads(line))
        return received

    def exchange(self, raw: bytes) -> list[dict]:
        """Send `raw`, then a ping; everything answered to `raw` (the ping's answer left out).

        Tools, resource reads and prompts run in worker threads, so the ping may be
        answered first: for a well-formed request of those, its own answer is awaited too,
        for a bounded time (an id the server cannot echo is answered under another id)."""
        self.next_id += 1
        ping = f"ping-{self.next_id}"
        self.send(raw)
        self.send(_line({"jsonrpc": "2.0", "id": ping, "method": "ping"}))
        received = self.until({ping})
        pong = {"jsonrpc": "2.0", "id": ping, "result": {}}
        assert pong in received, received
        owed = [i for i in _threaded_request_id(raw) if i not in {m.get("id") for m in received}]
        if owed:
            received += self.until(set(owed))
        return [m for m in received if m != pong]

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        return self.proc.stderr.read().decode("utf-8", "replace")


@pytest.fixture(scope="module")
def stdio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StdioServer, Path]]:
    root = tmp_path_factory.mktemp("stdio")
    project, home = root / "project", root / "home"
    project.mkdir()
    home.mkdir()
    server = StdioServer(project, home)
    yield server, project
    assert "Traceback" not in server.close()


@pytest.mark.parametrize(("case", "raw", "code", "request_id"), MALFORMED, ids=IDS)
def test_malformed_messages_over_stdio(stdio, case, raw, code, request_id) -> None:
    server, project = stdio
    answers = server.exchange(raw)
    if code is None:
        assert answers == [], case
        return
    assert len(answers) == 1, answers
    (answer,) = answers
    assert answer["jsonrpc"] == "2.0" and answer["id"] == request_id, answer
    assert answer["error"]["code"] == code, answer
    assert "pydantic" not in answer["error"]["message"]
    assert not any((project / ".serena" / "memories").glob("*.md"))  # nothing written


@pytest.fixture(scope="module")
def http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HttpServer, Path]]:
    root = tmp_path_factory.mktemp("http")
    project, home = root / "project", root / "home"
    project.mkdir()
    home.mkdir()
    old = os.environ.get("SERENA_HOME")
    os.environ["SERENA_HOME"] = str(home)
    try:
        with http_server(["--project", str(project), "--no-dashboard"]) as server:
            yield server, project
    finally:
        if old is not None:
            os.environ["SERENA_HOME"] = old


HTTP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize(("case", "raw", "code", "request_id"), MALFORMED, ids=IDS)
def test_malformed_messages_over_streamable_http(http_url, case, raw, code, request_id) -> None:
    import httpx

    server, project = http_url
    headers = {**HTTP_HEADERS, **server.headers}
    response = httpx.post(server.url, content=raw, headers=headers, timeout=60)
    if code is None:
        assert response.status_code == 202 and response.content == b"", case
        return
    assert response.status_code == 400, (response.status_code, response.text)
    answer = response.json()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == request_id, answer
    assert answer["error"]["code"] == code, answer
    assert not any((project / ".serena" / "memories").glob("*.md"))  # nothing written


def test_well_formed_messages_are_answered_by_the_sdk_over_stdio(stdio) -> None:
    """Nothing is answered in the SDK's place: its own errors come through as it words them."""
    server, _project = stdio
    (unknown,) = server.exchange(_line({"jsonrpc": "2.0", "id": 20, "method": "no/such"}))
    assert unknown["id"] == 20 and unknown["error"]["code"] == METHOD_NOT_FOUND
    odd_init = {
        "jsonrpc": "2.0",
        "id": 21,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"roots": "yes"},
            "clientInfo": {"name": "x", "version": "0"},
        },
    }
    (refused,) = server.exchange(_line(odd_init))
    assert refused["id"] == 21 and refused["error"]["code"] == INVALID_PARAMS
    deep_but_fine = _line(_call(22, "read_memory", {"memory_name": _nested(150)}))
    (answer,) = server.exchange(deep_but_fine)
    assert answer["id"] == 22 and answer["result"]["isError"] is True
    assert "memory_name" in answer["result"]["content"][0]["text"]


def test_prompt_and_resource_errors_carry_the_specifications_codes(stdio) -> None:
    server, _project = stdio
    cases = [
        ("prompts/get", {"name": "nope"}, INVALID_PARAMS),
        ("resources/read", {"uri": "file:///etc/passwd"}, INVALID_PARAMS),
        ("resources/read", {"uri": "memory://no-such-memory"}, -32002),
    ]
    for method, params, code in cases:
        message = {"jsonrpc": "2.0", "id": 30, "method": method, "params": params}
        (answer,) = server.exchange(_line(message))
        assert answer["error"]["code"] == code, (method, answer)


def test_the_handshake_advertises_what_is_served(project: Path, serena_home: Path) -> None:
    # stdin stays open until the answers are in (a client closing it at once may lose
    # answers still in flight, which is not what this test is about)
    server = StdioServer(project, serena_home)
    answers = {m.get("id"): m for m in server.handshake_answers}
    assert "Traceback" not in server.close()
    capabilities = answers[1]["result"]["capabilities"]
    assert set(capabilities) == {"tools", "prompts", "resources"}, capabilities
    assert capabilities["resources"]["subscribe"] is True
    assert answers[2]["result"]["tools"]


# -- argument errors ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [
        ("read_memory", {}, ["'memory_name'", "missing", "expected text"]),
        (
            "write_memory",
            {"memory_name": "a", "content": 5},
            ["'content'", "was 5", "expected text"],
        ),
        (
            "edit_memory",
            {"memory_name": "a", "needle": "x", "repl": "y", "mode": "fuzzy"},
            ["'mode'", "was 'fuzzy'", "one of 'literal', 'regex'"],
        ),
        ("list_dir", {"relative_path": ".", "recursive": "deep"}, ["'recursive'", "true or false"]),
        ("read_file", {"relative_path": "a", "start_line": [1]}, ["'start_line'", "whole number"]),
    ],
)
def test_argument_errors_are_one_sentence(project: Path, tool, arguments, words) -> None:
    from mcp_support import call

    async def go() -> str:
        async with in_memory(project) as client:
            answer = await call(client, tool, **arguments)
            assert answer.error
            return answer.text

    text = anyio.run(go)
    assert len(text.splitlines()) == 1 and text.endswith("."), text
    assert "pydantic" not in text and "validation error" not in text, text
    for word in words:
        assert word in text, (word, text)


# -- nothing blocks the event loop -----------------------------------------------------------
HOLD_LOCK = """
import sys, time
from pathlib import Path
from serena_memory.core.files import locked
with locked([Path(sys.argv[1])]):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_write_waiting_for_another_process_lock_does_not_stall_reads(project: Path) -> None:
    write_memory_file(project, "core", "Entry.\n")
    folder = project / ".serena" / "memories"
    server = StdioServer(project, Path(os.environ["SERENA_HOME"]))  # started: may be slow
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(folder), "120"],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    try:
        server.send(_line(_call(50, "write_memory", {"memory_name": "blocked", "content": "x"})))
        time.sleep(0.5)  # the write is now waiting for the lock
        start = time.monotonic()
        server.send(_line(_call(51, "read_memory", {"memory_name": "core"})))
        answers = server.until({51})
        elapsed = time.monotonic() - start
        assert [m["id"] for m in answers] == [51], answers  # the write still waits
        assert answers[0]["result"]["content"][0]["text"].startswith("Entry.\n")
        assert elapsed < 10, elapsed  # the write waits up to 30 s for the lock
        holder.kill()
        holder.wait(timeout=30)
        (written,) = server.until({50})
        assert written["result"]["isError"] is False
        assert (folder / "blocked.md").read_text() == "x"
    finally:
        holder.kill()
        server.close()


def test_a_slow_search_does_not_stall_other_requests(project: Path) -> None:
    """A backtracking pattern runs until its time limit stops it, in a worker thread and
    without the interpreter lock, while the server answers a read sent after it."""
    write_memory_file(project, "core", "Entry.\n")
    (project / "slow.txt").write_text("a" * 40 + "!\n", encoding="utf-8")
    server = StdioServer(project, Path(os.environ["SERENA_HOME"]))
    try:
        pattern = {"substring_pattern": "(a|aa)+$"}
        server.send(_line(_call(60, "search_for_pattern", pattern)))
        server.send(_line(_call(61, "read_memory", {"memory_name": "core"})))
        answers = server.until({60, 61})
        assert [m["id"] for m in answers] == [61, 60]
        assert answers[0]["result"]["content"][0]["text"].startswith("Entry.\n")
        assert answers[1]["result"]["isError"] is True
        assert "was stopped" in answers[1]["result"]["content"][0]["text"]
    finally:
        server.close()
