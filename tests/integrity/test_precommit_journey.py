"""The pre-commit journey end to end: a real git repository whose pre-commit hook runs the
shipped hook's entry, a commit refused with a stale reference and a hint how to fix it,
then accepted once the reference is fixed."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from cli_support import git
from conftest import REPO_ROOT, run_cli


def install_hook(repo: Path) -> None:
    """What pre-commit does for the shipped hook: run its entry from the top of the work
    tree when a staged file matches its `files` pattern (no file names passed)."""
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (spec,) = [h for h in hooks if h["id"] == "serena-memories-check"]
    program, *args = shlex.split(spec["entry"])
    assert program == "serena" and spec["pass_filenames"] is False
    runner = shlex.join([sys.executable, "-m", "serena_memory.cli", *args])
    pattern = spec["files"]
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        "#!/bin/sh\n"
        f"git diff --cached --name-only | {shlex.join([sys.executable, '-c', _MATCH, pattern])}"
        f' || exit 0\ncd "$(git rev-parse --show-toplevel)" && exec {runner}\n',
        encoding="utf-8",
    )
    hook.chmod(0o755)


_MATCH = (
    "import re, sys; p = re.compile(sys.argv[1]); "
    "sys.exit(0 if any(p.search(line.strip()) for line in sys.stdin) else 1)"
)


@pytest.mark.slow  # real commits running the hook in processes
def test_a_commit_with_a_stale_reference_is_refused_with_what_to_do(tmp_path: Path) -> None:
    repo = tmp_path / "app"
    repo.mkdir()
    assert git("init", "--quiet", cwd=repo, check=False).returncode == 0
    install_hook(repo)
    (repo / "README.md").write_text("app\n")
    git("add", "README.md", cwd=repo, check=False)
    assert (
        git("commit", "-qm", "start", cwd=repo, check=False).returncode == 0
    )  # no memory staged: no check

    sub = repo / "src"
    sub.mkdir()
    assert (
        run_cli("memories", "write", "core", "-c", "Start: `mem:auth/logn`.\n", cwd=sub).returncode
        == 0
    )
    assert run_cli("memories", "write", "auth/login", "-c", "Tokens.\n", cwd=sub).returncode == 0
    git("add", ".serena", cwd=repo, check=False)
    refused = git("commit", "-qm", "memories", cwd=repo, check=False)
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr  # git shows the hook's output on its stderr
    assert "`mem:auth/logn` in `core`" in said
    assert "candidates: `mem:auth/login`" in said
    assert re.search(r"The strict check failed: point each reference", said)
    assert "Then run the check (or the commit) again." in said

    edited = run_cli("memories", "edit", "core", "-n", "auth/logn", "-r", "auth/login", cwd=sub)
    assert edited.returncode == 0, edited.stderr
    git("add", ".serena", cwd=repo, check=False)
    done = git("commit", "-qm", "memories", cwd=repo, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git("status", "--porcelain", cwd=repo, check=False).stdout == ""
