"""Every git the drift check starts is ended by the check, whatever path it takes: a git
blocked for ever on a FIFO at `.git/info/exclude` is killed, not left running behind a
command that returned (a long-running server in such a repository would gather one per
check). Real processes: the git processes left are counted by their working folder."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import anyio
import pytest
from conftest import run_cli_process
from test_code_drift import commit, git, memory, write

from serena_memory.integrity.code_drift.checker import CodeChecker
from serena_memory.integrity.code_drift.git import GitJob

MEMORY = "# Core\n\nThe session lives in `src/auth/login.py`.\n"


def gits_in(repo: Path) -> list[int]:
    """The git processes running in ``repo`` (zombies aside)."""
    found = []
    real = os.path.realpath(repo)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)
            command = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        state = fields[1].split()[0] if len(fields) == 2 else "?"
        if command == "git" and state != "Z" and (cwd == real or cwd.startswith(real + "/")):
            found.append(int(pid))
    return found


def settled(repo: Path, seconds: float = 3.0) -> list[int]:
    """The git processes still running in ``repo`` after a moment (one being ended by a
    signal gets the time to go)."""
    deadline = time.monotonic() + seconds
    while (left := gits_in(repo)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def blocked(project: Path) -> Path:
    """A repository whose `.git/info/exclude` is a FIFO: git's listing waits on it."""
    git(project, "init", "-q", "-b", "main")
    write(project, "src/auth/login.py", "class SessionStore:\n    pass\n")
    memory(project, "core", MEMORY)
    commit(project, "start")
    exclude = project / ".git" / "info" / "exclude"
    exclude.unlink(missing_ok=True)
    os.mkfifo(exclude)
    return project


def test_a_job_nobody_collects_is_ended_with_it(blocked: Path) -> None:
    job = GitJob(str(blocked), "ls-files", "-z", "--others", "--exclude-standard")
    time.sleep(0.3)
    assert gits_in(blocked), "git should be waiting on the FIFO"
    del job  # neither result() nor discard(): the caller went another way
    gc.collect()
    assert settled(blocked) == []


def test_a_checker_that_prefetched_and_was_dropped_ends_its_gits(blocked: Path) -> None:
    checker = CodeChecker(str(blocked))
    checker.prefetch()
    time.sleep(0.3)
    assert gits_in(blocked)
    del checker  # an error before wait(), a request that was cancelled
    gc.collect()
    assert settled(blocked) == []


@pytest.mark.slow  # waits out the time limit of git
def test_the_drift_check_leaves_no_git_running_behind_it(blocked: Path) -> None:
    done = run_cli_process("memories", "check", str(blocked), "--code")
    assert done.returncode == 0, done.stderr
    assert settled(blocked) == []

    from mcp_support import in_memory, ok

    async def go() -> None:
        async with in_memory(blocked) as client:
            await ok(client, "read_memory", memory_name="core")
            await ok(client, "initial_instructions")

    anyio.run(go)
    gc.collect()
    assert settled(blocked) == []
