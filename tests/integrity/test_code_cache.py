"""The identifiers of the source files kept between code checks under $SERENA_HOME: a kept
scan gives the same answer as a scan from nothing through commits, renames, deletions,
edits not committed, staged and untracked files, and a broken or foreign entry is not
used; and a memory edited but not committed counts as changed now."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_code_drift import commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.identifier_cache import entry_path, scan

__all__ = ["repo"]  # the fixture, shared

WORDS = ["alpha", "Beta", "gamma_one", "DeltaTwo", "eps3", "zeta"]

OPS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "new", "rename", "delete", "commit", "stage", "doc"]),
        st.integers(0, 4),
        st.lists(st.sampled_from(WORDS), max_size=3),
    ),
    min_size=1,
    max_size=8,
)


def _init(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, "src/f0.py", "alpha = 1\n")
    write(root, "README.md", "OnlyInDocs\n")
    commit(root, "start")


def _apply(root: Path, op: str, n: int, words: list[str]) -> None:
    files = sorted(p for p in git(root, "ls-files", "src").split("\n") if p)
    target = f"src/f{n}.py"
    text = " ".join(words) + "\n"
    if op == "edit" and files:
        (root / files[n % len(files)]).write_text(text + "extra\n", encoding="utf-8")
    elif op == "new":
        write(root, target, text)
    elif op == "rename" and files and not (root / target).exists():
        if (root / files[n % len(files)]).exists():
            git(root, "mv", files[n % len(files)], target)
    elif op == "delete" and files:
        (root / files[n % len(files)]).unlink(missing_ok=True)
    elif op == "commit" and git(root, "status", "--porcelain"):
        commit(root)
    elif op == "stage":
        git(root, "add", "-A")
    elif op == "doc":
        write(root, f"docs/n{n}.md", text)


@pytest.mark.slow  # many generated changes in a real repository
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ops=OPS)
def test_a_kept_scan_always_equals_a_scan_from_nothing(tmp_path: Path, ops: list) -> None:
    # a folder of its own per example: hypothesis may run one example twice (a saved one,
    # then the same one generated), and a second `git init` + commit of it fails
    root = Path(tempfile.mkdtemp(prefix="p", dir=os.path.realpath(tmp_path)))
    home = root.parent / (root.name + "-home")
    _init(root)
    real = str(root)
    assert scan(real, home) == scan(real, None)
    for op, n, words in ops:
        _apply(root, op, n, words)
        cold = scan(real, None)
        assert scan(real, home) == cold, (op, n, words)
        assert scan(real, home) == cold  # the entry just kept, used at once
    assert entry_path(home, real).is_file()
    assert not (root / ".serena").exists() or not any((root / ".serena").rglob("*.ids"))


def test_a_broken_or_foreign_entry_is_not_used_and_is_replaced(tmp_path: Path) -> None:
    root = tmp_path / "p"
    home = tmp_path / "home"
    _init(root)
    real = os.path.realpath(root)
    scan(real, home)
    path = entry_path(home, real)
    good = path.read_bytes()
    # the same header with a body that does not match its checksum: a scan must not trust it
    path.write_bytes(good + b"\nPlanted")
    assert b"Planted" not in scan(real, home)
    for bad in (
        b"",
        b"garbage",
        good[: len(good) // 2],
        good.replace(b'"schema": 1', b'"schema": 9'),
    ):
        path.write_bytes(bad)
        assert scan(real, home) == scan(real, None)
    assert path.read_bytes() != bad  # replaced by a good entry


def test_check_code_gives_the_same_report_with_a_kept_scan(repo: Path) -> None:
    memory(repo, "core", "See `SessionStore.refresh` and `refresh_token()` and `Gone`.\n")
    commit(repo, "all")
    cold = findings(repo)
    warm = findings(repo)
    assert warm == cold
    write(repo, "src/auth/tokens.py", "def renamed_token():\n    return 1\n")  # not committed
    after = findings(repo)
    assert [f["mention"] for f in after if f["status"] == "missing"] == ["refresh_token()"]


def test_a_memory_edited_but_not_committed_counts_as_changed_now(repo: Path) -> None:
    memory(repo, "core", "Tokens live in `src/auth/tokens.py`.\n")
    commit(repo, "memory")
    for i in range(3):
        write(repo, "src/auth/tokens.py", f"def refresh_token():\n    return {i + 2}\n")
        commit(repo, f"edit {i}")
    assert [f["status"] for f in findings(repo, "--changed-commits", "3")] == ["changed"]
    memory(repo, "core", "Tokens live in `src/auth/tokens.py` (checked today).\n")
    assert findings(repo, "--changed-commits", "3") == []
