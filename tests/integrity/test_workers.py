"""Work in a forked worker process, started now and read later: the worker's answer comes
back whole, a worker that fails or is ended gives None (the caller then does the work
itself), and the code cache's background scan gives what a scan in this process gives,
git's refusal included."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from serena_memory.integrity.code_drift.git import GitUnavailable
from serena_memory.integrity.code_drift.identifier_cache import IdentifierScan, scan
from serena_memory.integrity.workers import ForkedJob


def _single_threaded() -> bool:
    return threading.active_count() == 1


def test_a_forked_job_gives_back_what_its_worker_computed() -> None:
    assert _single_threaded()
    parent = os.getpid()
    job = ForkedJob(lambda: (os.getpid(), b"x" * 1_000_000))
    out = job.result()
    assert isinstance(out, tuple)
    pid, data = out
    assert pid != parent and data == b"x" * 1_000_000
    assert job.result() is None  # read once


def test_a_worker_that_fails_or_is_ended_gives_none() -> None:
    assert ForkedJob(lambda: os._exit(3)).result() is None
    assert ForkedJob(lambda: 1 / 0).result() is None
    assert ForkedJob(lambda: threading.Lock()).result() is None  # can't be sent back
    slow = ForkedJob(lambda: time.sleep(60))
    started = time.monotonic()
    slow.discard()
    assert time.monotonic() - started < 10
    assert slow.result() is None


def _repo(root: Path) -> str:
    import subprocess

    root.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    (root / "app.py").write_text("class LoginService:\n    pass\n", encoding="utf-8")
    (root / "notes.md").write_text("OnlyInProse\n", encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return os.path.realpath(root)


def test_the_background_scan_gives_what_a_scan_here_gives(tmp_path: Path) -> None:
    assert _single_threaded()
    real = _repo(tmp_path / "p")
    home = tmp_path / "home"
    for _ in range(2):  # the first fills the kept entry, the second reads it
        found = IdentifierScan(real, home, _single_threaded).result()
        assert found == scan(real, None)
        assert b"LoginService" in found and b"OnlyInProse" not in found


def test_git_refusing_the_background_scan_is_its_message_not_a_traceback(
    tmp_path: Path,
) -> None:
    assert _single_threaded()
    folder = tmp_path / "not-a-repo"
    folder.mkdir()
    home = tmp_path / "home"
    with pytest.raises(GitUnavailable) as here:
        scan(str(folder), home)
    with pytest.raises(GitUnavailable) as there:
        IdentifierScan(str(folder), home, _single_threaded).result()
    assert str(there.value) == str(here.value) and "not a git repository" in str(here.value)
