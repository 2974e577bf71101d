"""A real `serena start-mcp-server` ends cleanly whenever its client hangs up.

A client closes the server's stdin when it is done (the MCP SDK's own client does it as
soon as it closes), often while the server is still busy in the background: making the
search's meaning vectors, loading the model, starting the dashboard. A thread left running
when the interpreter ended used to abort the process (`FATAL: exception not rethrown`,
SIGABRT, exit -6), 5 times in 6 when a search was under way. Each case here hangs up at
one such moment, several times over, and fails on any status but 0.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mcp_support import SERVER_CMD, free_port, handshake

pytestmark = pytest.mark.slow  # every case starts real server processes, 24 in all

SEARCH = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "search_memories", "arguments": {"query": "database migrations"}},
}
MOMENTS = ("start", "initialize", "tools/list", "search")
EXIT_WAIT = 60  # seconds; a server that has not ended by then hangs


def _project(root: Path) -> Path:
    memories = root / "project" / ".serena" / "memories"
    memories.mkdir(parents=True)
    for n in range(30):  # enough for the background build to be busy when the client leaves
        text = f"# Note {n}\n\nHow the database migrations of part {n} are run and checked.\n"
        (memories / f"note_{n}.md").write_text(text, encoding="utf-8")
    return root / "project"


def _answer(proc: subprocess.Popen[bytes], request_id: int) -> None:
    """Read the server's output up to the answer to ``request_id``."""
    assert proc.stdout is not None
    for line in iter(proc.stdout.readline, b""):
        if json.loads(line).get("id") == request_id:
            return
    raise AssertionError(f"the server ended before answering request {request_id}")


def hang_up(root: Path, moment: str, attempt: int, dashboard: bool) -> tuple[int, str]:
    """Start a server, hang up on it at ``moment``; its exit status and stderr."""
    home = root / "home"
    home.mkdir()
    options = ["--dashboard", "--dashboard-port", "0"] if dashboard else ["--no-dashboard"]
    proc = subprocess.Popen(
        [*SERVER_CMD, "--project", str(_project(root)), *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, SERENA_HOME=str(home)),
    )
    assert proc.stdin is not None
    initialize, initialized, tools_list = (json.dumps(m).encode() + b"\n" for m in handshake())
    if moment == "start":
        time.sleep(0.1 * attempt)  # while it imports, builds the server, starts its threads
    else:
        proc.stdin.write(initialize)
        proc.stdin.flush()
        _answer(proc, 1)
        proc.stdin.write(initialized)
        if moment in ("tools/list", "search"):
            proc.stdin.write(tools_list)
            proc.stdin.flush()
            _answer(proc, 2)
        if moment == "search":  # the first search, while the model loads
            proc.stdin.write(json.dumps(SEARCH).encode() + b"\n")
            proc.stdin.flush()
            time.sleep(0.02 * attempt)
    proc.stdin.close()
    proc.stdin = None  # closed: communicate must not flush it
    try:
        _out, err = proc.communicate(timeout=EXIT_WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        _out, err = proc.communicate()
        return -999, err.decode(errors="replace")
    return proc.returncode, err.decode(errors="replace")


def _failures(results: list[tuple[str, int, str]]) -> list[str]:
    return [
        f"{case}: exit {code}\n{err[-800:]}"
        for case, code, err in results
        if code != 0 or "FATAL" in err or "Traceback" in err
    ]


@pytest.mark.parametrize("dashboard", [False, True], ids=["alone", "with-dashboard"])
def test_a_client_hanging_up_at_any_moment_leaves_a_clean_exit(
    tmp_path: Path, dashboard: bool
) -> None:
    attempts = 4 if not dashboard else 2  # 16 + 8 hang-ups; two servers at a time
    cases = [(moment, attempt) for moment in MOMENTS for attempt in range(attempts)]

    def one(case: tuple[str, int]) -> tuple[str, int, str]:
        moment, attempt = case
        root = tmp_path / f"{moment.replace('/', '-')}-{attempt}"
        root.mkdir()
        code, err = hang_up(root, moment, attempt, dashboard)
        return f"{moment} #{attempt}", code, err

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, cases))
    failures = _failures(results)
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_http_server_ends_on_a_signal_while_it_prepares_search(
    tmp_path: Path, sent: signal.Signals
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    proc = subprocess.Popen(
        [
            *SERVER_CMD,
            "--project",
            str(_project(tmp_path)),
            "--transport",
            "streamable-http",
            "--port",
            str(port),
            "--no-auth",
            "--dashboard-port",
            "0",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, SERENA_HOME=str(home)),
    )
    assert proc.stderr is not None
    for line in iter(proc.stderr.readline, b""):  # it serves: the signal is uvicorn's to take
        if b"Serving MCP" in line:
            break
    proc.send_signal(sent)
    _out, err = proc.communicate(timeout=EXIT_WAIT)
    text = err.decode(errors="replace")
    # SIGTERM: uvicorn stops, then ends the process by the signal itself; SIGINT: "Aborted."
    assert proc.returncode in (-sent, 1), (proc.returncode, text)
    assert "FATAL" not in text and "Traceback" not in text, text


def test_ctrl_c_ends_a_stdio_server_whose_client_is_still_connected(tmp_path: Path) -> None:
    """The read of the next line, which nothing interrupts, used to hold the process up
    until the client closed stdin."""
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.Popen(
        [*SERVER_CMD, "--project", str(_project(tmp_path)), "--no-dashboard"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, SERENA_HOME=str(home)),
    )
    assert proc.stdin is not None
    initialize = json.dumps(handshake()[0]).encode() + b"\n"
    proc.stdin.write(initialize)
    proc.stdin.flush()
    _answer(proc, 1)  # it serves, and waits for the next line
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("the server did not end on Ctrl+C") from None
    finally:
        proc.stdin.close()
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    assert code in (1, -signal.SIGINT), (code, err)
    assert "FATAL" not in err and "Traceback" not in err, err
