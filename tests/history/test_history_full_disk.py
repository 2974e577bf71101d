"""A full disk under the history: a text the history couldn't record is never lost by a
later change. The disk is a real, small tmpfs mounted for the test (it needs root)."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli, write_config
from helpers.small_disk import small_disk

pytestmark = pytest.mark.slow  # a real full disk, filled and emptied

DISK_BYTES = 2 * 1024 * 1024


def fill(disk: Path) -> Path:
    """Write a file on ``disk`` until it is full; returns it (remove it to free the space)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"\0" * 65536)
    return filler


def memories(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("memories", *args, "--project", str(project))


def test_a_text_written_while_the_disk_is_full_is_never_lost(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    with small_disk(tmp_path / "disk", DISK_BYTES) as disk:
        write_config(serena_home / "serena_config.yml", f"memory_history_dir: {disk / 'h'}\n")
        assert memories(project, "write", "notes", "-c", "version one\n").returncode == 0
        filler = fill(disk)
        # the history can't record; the change goes on, since the text it replaces is kept
        done = memories(project, "write", "notes", "-c", "version two\n")
        assert done.returncode == 0 and "could not be recorded" in done.stderr, done.stderr
        # a change that would replace or delete that unrecorded text is refused, in one line
        for change in (["delete", "notes"], ["write", "notes", "-c", "version three\n"]):
            refused = memories(project, *change)
            assert refused.returncode == 1
            [line] = [line for line in refused.stderr.splitlines() if line.startswith("Error:")]
            assert "memory 'notes' holds a text the history hasn't recorded" in line
            assert "nothing was changed: free space there" in line and "No space left" in line
            assert "Warning" not in refused.stderr
            assert memories(project, "read", "notes").stdout == "version two\n"
        # a new memory replaces nothing: it is written (and recorded later)
        assert memories(project, "write", "other", "-c", "new\n").returncode == 0
        filler.unlink()
        # with space again, the change records the missed text first
        assert memories(project, "delete", "notes").returncode == 0
        assert memories(project, "restore", "notes").returncode == 0
        assert memories(project, "read", "notes").stdout == "version two\n"
