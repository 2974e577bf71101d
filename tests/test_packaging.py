"""The built wheel (what `pipx install` and `uv tool install` install) is whole."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_templates_static_files_and_the_serena_command(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), "."],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("serena_memory-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "serena_memory/agent/templates/memory_maintenance.md",
        "serena_memory/dashboard/static/app.js",
        "serena_memory/dashboard/static/index.html",
        "serena_memory/cli/__main__.py",
    ):
        assert needed in names, needed
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "serena = serena_memory.cli:main" in text
