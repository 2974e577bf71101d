"""The dashboard started next to `serena start-mcp-server`, as a person would use it."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
from mcp_support import SERVER_CMD, free_port, handshake, write_memory_file


def _start(args: list[str]) -> tuple[subprocess.Popen, queue.Queue]:
    proc = subprocess.Popen(
        [*SERVER_CMD, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    lines: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in proc.stderr:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return proc, lines


def _handshake(proc: subprocess.Popen) -> dict:
    for message in handshake():
        proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    answers = {}
    while len(answers) < 2:
        message = json.loads(proc.stdout.readline())
        answers[message["id"]] = message
    return answers


def _wait_for(lines: queue.Queue, pattern: str, seconds: float) -> str | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        found = re.search(pattern, line)
        if found:
            return found.group(1)
    return None


def _stop(proc: subprocess.Popen) -> None:
    proc.stdin.close()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.mark.slow  # a real server process
def test_stdio_server_serves_the_dashboard_on_loopback_and_keeps_stdout_clean(
    project: Path,
) -> None:
    write_memory_file(project, "core", "see `mem:auth/login`")
    write_memory_file(project, "auth/login", "tokens")
    port = free_port()
    proc, lines = _start(["--project", str(project), "--dashboard-port", str(port)])
    try:
        answers = _handshake(proc)  # stdout carried only JSON-RPC up to here
        assert "tools" in answers[2]["result"]
        url = _wait_for(lines, r"Memories dashboard: (\S+)", 30)
        assert url is not None and url.startswith(f"http://127.0.0.1:{port}/?token=")
        token = url.split("?token=")[1]
        headers = {"X-Serena-Token": token}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers) as client:
            assert client.get(url).status_code == 200
            state = client.get("/api/state").json()
            names = {m["name"] for m in state["memories"]}
            assert {"core", "auth/login"} <= names
            assert httpx.get(f"http://127.0.0.1:{port}/api/state").status_code == 401
    finally:
        _stop(proc)


@pytest.mark.slow  # a real server process
def test_no_dashboard_starts_none(project: Path) -> None:
    port = free_port()
    proc, lines = _start(
        ["--project", str(project), "--no-dashboard", "--dashboard-port", str(port)]
    )
    try:
        _handshake(proc)
        # (the dashboard's own lines, not the project's path, which may hold the word)
        assert _wait_for(lines, r"(Memories dashboard|Dashboard not started)", 3) is None
        with httpx.Client() as client:
            try:
                client.get(f"http://127.0.0.1:{port}/", timeout=2)
                reachable = True
            except httpx.ConnectError:
                reachable = False
        assert not reachable
    finally:
        _stop(proc)


def test_help_lists_the_dashboard_options() -> None:
    out = subprocess.run([*SERVER_CMD, "--help"], capture_output=True, text=True, check=True).stdout
    assert "--no-dashboard" in out and "--open-browser" in out and "--dashboard-port" in out
