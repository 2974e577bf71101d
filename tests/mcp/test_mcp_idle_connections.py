"""Connections that never finish a request, from any local process and without a token,
don't lock out the HTTP MCP server nor the dashboard next to it."""

from __future__ import annotations

import contextlib
import re
import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp_support import http_server, post

pytestmark = pytest.mark.slow  # idle connections held open until the server drops them

OPEN_FILES = 1024  # the soft limit most Linux sessions start with (`ulimit -n`)
HELD = 1_100  # more connections than that
ANSWER_SECONDS = 5
# What an idle connection sends: half a request line, or headers without the blank line
# that ends them.
UNFINISHED = [b"POST /mcp HT", b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: b"]


@pytest.fixture(autouse=True)
def room_for_the_held_connections() -> None:
    """This process holds them all: give it the open files it needs (up to its hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = HELD + 200
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"holding {HELD} connections needs `ulimit -Hn` of at least {needed}")
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@contextlib.contextmanager
def held_connections(port: int) -> Iterator[list[socket.socket]]:
    """``HELD`` connections to ``port``, each sending an unfinished request, closed after."""
    held: list[socket.socket] = []
    try:
        for n in range(HELD):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            with contextlib.suppress(OSError):  # the server may already have closed it
                sock.sendall(UNFINISHED[n % len(UNFINISHED)])
            held.append(sock)
        time.sleep(0.5)  # let the server take them all in
        yield held
    finally:
        for sock in held:
            sock.close()


def mcp_answers(url: str, header: str) -> int:
    name, _, value = header.partition(": ")
    return post(url, {name: value}, timeout=ANSWER_SECONDS).status_code


def dashboard_answers(url: str) -> int:
    base, _, token = url.partition("/?token=")
    answer = httpx.get(
        f"{base}/api/state", headers={"x-serena-token": token}, timeout=ANSWER_SECONDS
    )
    return answer.status_code


def dashboard_url(lines: list[str]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for line in lines:
            if found := re.match(r"Memories dashboard: (\S+)", line):
                return found.group(1)
        time.sleep(0.05)
    raise AssertionError(f"no dashboard: {lines}")


def test_held_connections_leave_both_servers_answering(project: Path) -> None:
    with http_server(["--project", str(project)], open_files=OPEN_FILES) as server:
        assert server.header is not None
        dashboard = dashboard_url(server.stderr)
        mcp_port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        dashboard_port = int(dashboard.split(":")[2].split("/")[0])
        for port in (mcp_port, dashboard_port):
            with held_connections(port) as held:
                started = time.monotonic()
                assert mcp_answers(server.url, server.header) == 200
                assert dashboard_answers(dashboard) == 200
                assert time.monotonic() - started < 2 * ANSWER_SECONDS
                # the server let go of most of them: they were waiting longest
                closed = sum(1 for sock in held if _closed_by_server(sock))
                assert closed >= HELD - 200
        # and once they are gone, both still answer
        assert mcp_answers(server.url, server.header) == 200
        assert dashboard_answers(dashboard) == 200
    assert not any("Too many open files" in line for line in server.stderr), server.stderr


def _closed_by_server(sock: socket.socket, wait: float = 0.01) -> bool:
    """Whether the server closed ``sock`` within ``wait`` seconds (after answering what it
    could, if anything)."""
    sock.settimeout(wait)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except OSError:  # reset: the server aborted it
        pass
    return True


def test_a_connection_ends_with_its_answer(project: Path) -> None:
    """A client without the token can't keep a connection past its 401 and then idle
    halfway through a second request: the server closes it with the answer."""
    with http_server(["--project", str(project), "--no-dashboard"]) as server:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = b""
            sock.settimeout(3)  # less than uvicorn's keep-alive timeout (5 s)
            while chunk := sock.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 401 ")
        assert b"\r\nconnection: close\r\n" in answer.lower()


@contextlib.contextmanager
def bounded_server(monkeypatch: pytest.MonkeyPatch, header_seconds: float) -> Iterator[int]:
    """A real uvicorn server on loopback, in a thread, behind the bounds of serving.py
    with a shorter header deadline; yields its port."""
    import asyncio
    import threading

    import uvicorn

    from serena_memory import serving

    monkeypatch.setattr(serving, "HEADER_SECONDS", header_seconds)

    async def app(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    sock = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(serving.uvicorn_config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def test_headers_that_take_too_long_end_the_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle or dripping a byte at a time, a connection whose headers aren't complete by
    the deadline is closed; one that completes them in time is answered."""
    with bounded_server(monkeypatch, header_seconds=1.0) as port:
        idle = socket.create_connection(("127.0.0.1", port), timeout=5)
        idle.sendall(b"GET / HT")
        dripping = socket.create_connection(("127.0.0.1", port), timeout=5)
        slow = socket.create_connection(("127.0.0.1", port), timeout=5)
        request = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        started = time.monotonic()
        with contextlib.suppress(OSError):
            for n, byte in enumerate(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100):
                dripping.sendall(bytes([byte]))
                if n < len(request):
                    slow.sendall(request[n : n + 1])
                time.sleep(0.02)
        assert b"200" in slow.recv(4096)  # done within the deadline: answered
        for sock in (idle, dripping):
            assert _closed_by_server(sock, wait=3)
        assert time.monotonic() - started < 4
        for sock in (idle, dripping, slow):
            sock.close()
