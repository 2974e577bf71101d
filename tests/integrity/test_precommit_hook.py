"""The shipped pre-commit hook runs the strict check on the memories a commit changes."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]


def hook() -> dict:
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (only,) = [h for h in hooks if h["id"] == "serena-memories-check"]
    return only


def run_entry(project: Path) -> subprocess.CompletedProcess[str]:
    program, *args = shlex.split(hook()["entry"])
    assert program == "serena"
    return subprocess.run(
        [sys.executable, "-m", "serena_memory.cli", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=60,
    )


def test_hook_fires_only_for_memory_files_and_takes_no_file_names() -> None:
    spec = hook()
    files = re.compile(spec["files"])
    assert files.search(".serena/memories/core.md")
    assert files.search(".serena/memories/auth/login.md")
    assert not files.search("src/memories/core.md")
    assert not files.search(".serena/project.yml")
    assert spec["pass_filenames"] is False


def test_hook_entry_refuses_stale_references_and_passes_clean_memories(tmp_path: Path) -> None:
    memories = tmp_path / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "core.md").write_text("See `mem:auth`.\n", encoding="utf-8")
    stale = run_entry(tmp_path)
    assert stale.returncode == 1, stale.stdout
    assert "auth" in stale.stdout
    (memories / "auth.md").write_text("# auth\n", encoding="utf-8")
    clean = run_entry(tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
