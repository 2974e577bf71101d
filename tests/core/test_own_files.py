"""The files this package keeps for itself (caches, the usage files, history's stamps):
a FIFO, a device, a link or a folder in the place of one is a miss, at once, never a
wait. Real FIFOs and real commands, each run as its own process under a time limit, so a
command that would wait for ever fails the test instead of hanging it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from serena_memory.core.files import open_regular, read_own_file

LIMIT = 60  # seconds a command may take here, a hundred times what it needs

SERENA = [sys.executable, "-m", "serena_memory.cli"]


def serena(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SERENA_HOME": str(home)}
    try:
        return subprocess.run(
            [*SERENA, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=LIMIT
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`serena {' '.join(args)}` waited for more than {LIMIT} s")


@pytest.fixture
def configured(project: Path, serena_home: Path) -> Path:
    """A project with a configuration file and one memory, its caches made."""
    (project / ".serena").mkdir()
    (project / ".serena" / "project.yml").write_text("ignored_memory_patterns: []\n")
    done = serena("memories", "write", "notes/a", "--content", "x", home=serena_home, cwd=project)
    assert done.returncode == 0, done.stderr
    assert (serena_home / "cache" / "settings.json").is_file()
    return project


def a_fifo(path: Path) -> None:
    if path.exists():
        path.unlink()
    os.mkfifo(path)


def stamp_log(home: Path) -> Path:
    (found,) = (home / "history").glob("*/serena-memory-stamps.log")
    return found


@pytest.mark.parametrize(
    ("where", "command"),
    [
        (lambda home: home / "cache" / "settings.json", ("memories", "list")),
        (lambda home: home / "cache" / "settings.json", ("memories", "read", "notes/a")),
        (stamp_log, ("memories", "write", "notes/b", "--content", "y")),
    ],
    ids=["settings cache, list", "settings cache, read", "history's stamp log, write"],
)
def test_a_fifo_in_place_of_a_file_of_ours_is_a_miss_not_a_wait(
    configured: Path, serena_home: Path, where: Callable[[Path], Path], command: tuple[str, ...]
) -> None:
    a_fifo(where(serena_home))
    done = serena(*command, home=serena_home, cwd=configured)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_anything_but_a_regular_file_is_no_file_of_ours(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    (tmp_path / "target").write_bytes(b"elsewhere")
    link.symlink_to(tmp_path / "target")
    folder = tmp_path / "folder"
    folder.mkdir()
    for path in (fifo, link, folder, Path("/dev/null"), Path("/dev/zero")):
        assert read_own_file(path, 1024) is None, path
        assert open_regular(path, os.O_RDONLY) is None, path
    assert open_regular(fifo, os.O_WRONLY | os.O_APPEND) is None  # no reader: would block
    assert read_own_file(tmp_path / "missing", 1024) is None
    (tmp_path / "big").write_bytes(b"x" * 2048)
    assert read_own_file(tmp_path / "big", 1024) is None
    assert read_own_file(tmp_path / "target", 1024) == b"elsewhere"
