"""The evaluation's client keeps one real MCP session across separate commands, shows what
a client shows its model, logs every step with its size, and the scorer reads the log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.slow  # a whole agent session of real processes, scored

CLIENT = REPO_ROOT / "benchmarks" / "agent" / "client.py"
SCORER = REPO_ROOT / "benchmarks" / "agent" / "score.py"


def _client(transcript: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(CLIENT), "--transcript", str(transcript), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_one_session_across_commands_logged_and_scored(tmp_path: Path, project: Path) -> None:
    (project / "README.md").write_text("# demo\n", encoding="utf-8")
    transcript = tmp_path / "t.jsonl"
    shown = _client(transcript, "start", "--project", str(project), "--context", "coding")
    assert "Onboarding has not been performed" in shown and "## write_memory" in shown
    assert "## list_dir" not in shown
    _client(transcript, "user", "What is this project?")
    assert "# demo" in _client(transcript, "fs", "read", "README.md")
    _client(transcript, "say", "A demo.")
    _client(transcript, "call", "onboarding", "{}")
    written = _client(
        transcript, "call", "write_memory", json.dumps({"memory_name": "core", "content": "x"})
    )
    assert "written (created" in written
    # the same session: a read in a later command sees the write of an earlier one
    assert _client(transcript, "call", "read_memory", '{"memory_name": "core"}').startswith("x")
    # arguments that are not an object are refused here, and the session lives on
    refused = subprocess.run(
        [sys.executable, str(CLIENT), "--transcript", str(transcript), "call", "read_memory", "5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "must be a JSON object" in refused.stderr
    assert _client(transcript, "call", "read_memory", '{"memory_name": "core"}').startswith("x")
    _client(transcript, "stop")
    kinds = [json.loads(line)["kind"] for line in transcript.read_text().splitlines()]
    assert kinds == ["start", "user", "fs", "say", "call", "call", "call", "call", "stop"]
    table = subprocess.run(
        [sys.executable, str(SCORER), str(transcript)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "| question answered before onboarding | 1 |" in table
    assert "| onboarding memories | 1 |" in table
    assert "| tools listed | 9 |" in table  # the coding surface (docs/mcp.md)


def test_a_baseline_without_a_server_stops_cleanly(tmp_path: Path, project: Path) -> None:
    (project / "README.md").write_text("# demo\n", encoding="utf-8")
    transcript = tmp_path / "base.jsonl"
    _client(transcript, "start", "--project", str(project), "--no-server")
    _client(transcript, "user", "What is this project?")
    assert "# demo" in _client(transcript, "fs", "read", "README.md")
    subprocess.run(["git", "init", "-q", str(project)], check=True)  # a clone, as evaluated
    (project / "a.txt").write_text("needle in a\n", encoding="utf-8")
    (project / "b.txt").write_text("needle in b\n", encoding="utf-8")
    found = _client(transcript, "fs", "grep", "needle", "a.txt", "b.txt")  # every path given
    assert "needle in a" in found and "needle in b" in found
    _client(transcript, "stop")  # no session to end: the stop is logged, nothing fails
    kinds = [json.loads(line)["kind"] for line in transcript.read_text().splitlines()]
    assert kinds == ["start", "user", "fs", "fs", "stop"]
