"""Locks cover the real folder a memory lives in: two projects that share a topic folder
through a link, each editing the same memory from its own process, lose no edit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from serena_memory.wiring import build_store

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses symlinks")

WORKER = Path(__file__).parents[1] / "helpers" / "memory_worker.py"
EDITS = 100


def _spawn(project: Path, home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), "append-edits", str(project), str(home), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


def _monorepo(tmp_path: Path, layout: str) -> tuple[Path, str, Path, str, Path]:
    """Project A is a repository, project B one of its sub-projects; A links (inside the
    repository) to a folder of B's memories. Returns both projects, the name each uses
    for the shared memory, and its real file."""
    a = tmp_path / "mono"
    b = a / "services" / "api"
    shared = b / ".serena" / "memories" / "shared"
    (shared / "inner").mkdir(parents=True)
    (a / ".serena" / "memories").mkdir(parents=True)
    if layout == "topic":  # both name it shared/log
        link, real, a_name, b_name = "shared", shared, "shared/log", "shared/log"
    else:  # A links to a folder inside B's shared topic
        link, real, a_name, b_name = "inner", shared / "inner", "inner/log", "shared/inner/log"
    target = os.path.relpath(real, a / ".serena" / "memories")
    (a / ".serena" / "memories" / link).symlink_to(target, target_is_directory=True)
    log = real / "log.md"
    log.write_text("# log\n<!-- end -->\n", encoding="utf-8")
    return a, a_name, b, b_name, log


@pytest.mark.slow  # writers racing in real processes
@pytest.mark.parametrize("layout", ["topic", "nested"])
def test_two_projects_editing_a_shared_memory_lose_no_edit(
    tmp_path: Path, serena_home: Path, layout: str
) -> None:
    a, a_name, b, b_name, log = _monorepo(tmp_path, layout)
    assert build_store(a, home=serena_home).read(a_name) == build_store(b, home=serena_home).read(
        b_name
    )
    procs = [
        _spawn(a, serena_home, a_name, "a", str(EDITS)),
        _spawn(b, serena_home, b_name, "b", str(EDITS)),
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# log" and lines[-1] == "<!-- end -->"
    body = lines[1:-1]
    expected = {f"line {tag}-{i}" for tag in "ab" for i in range(EDITS)}
    assert len(body) == 2 * EDITS, f"{2 * EDITS - len(body)} edits lost"
    assert set(body) == expected
