"""A secret pasted into a memory file with an editor never enters the history: the next
look at the history leaves that change out, says why, and records the file again once the
secret is gone (real files, a real history repository)."""

from __future__ import annotations

import contextlib
import zlib
from pathlib import Path

from conftest import run_cli

from serena_memory.core.store import MemoryStore
from serena_memory.history.location import history_root, repository_path
from serena_memory.history.notices import take_notices

SECRET = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ4tLr9Wq"


def _objects_hold(repo: Path, needle: bytes) -> bool:
    """Whether any loose object or pack of the history repository holds ``needle``."""
    for path in (repo / "objects").rglob("*"):
        if not path.is_file():
            continue
        raw = path.read_bytes()
        with contextlib.suppress(zlib.error):
            raw = zlib.decompress(raw)
        if needle in raw:
            return True
    return False


def test_an_outside_edit_holding_a_secret_is_held_back_and_told(store: MemoryStore) -> None:
    store.write("notes", "# Notes\n")
    take_notices()
    path = store.memories_dir / "notes.md"
    path.write_text(f"# Notes\n\n{SECRET}\n", encoding="utf-8")
    entries = store.history().entries()
    assert [e.summary for e in entries] == ["Create notes"]
    told = take_notices()
    assert len(told) == 1 and "memory 'notes' was changed outside serena" in told[0]
    assert "line 3" in told[0] and "not recorded in the history" in told[0]
    repo = repository_path(history_root(store), store.memories_dir)
    assert not _objects_hold(repo, b"wJalrXUtnFEMI")
    # the person takes it out again: the change is recorded from then on
    path.write_text("# Notes\n\nthe key is in the vault\n", encoding="utf-8")
    entries = store.history().entries()
    assert entries[0].entry_point == "external" and entries[0].names() == ["notes"]
    assert not _objects_hold(repo, b"wJalrXUtnFEMI")


def test_the_command_line_says_so_before_an_overwrite(project: Path, serena_home: Path) -> None:
    p = str(project)
    assert run_cli("memories", "write", "notes", p, "-c", "# Notes\n").returncode == 0
    (project / ".serena" / "memories" / "notes.md").write_text(f"{SECRET}\n", encoding="utf-8")
    listed = run_cli("memories", "history", p)
    assert "holds what looks like a secret" in listed.stderr
    assert "Changed outside serena" not in listed.stdout
    # a write over it through serena records its own text, never the pasted one
    assert run_cli("memories", "write", "notes", p, "-c", "# Notes v2\n").returncode == 0
    repo = repository_path(serena_home / "history", project / ".serena" / "memories")
    assert not _objects_hold(repo, b"wJalrXUtnFEMI")


def test_a_file_named_after_a_token_is_held_back_without_repeating_the_token(
    store: MemoryStore,
) -> None:
    store.write("notes", "# Notes\n")
    take_notices()
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (store.memories_dir / f"{token}.md").write_text("harmless\n", encoding="utf-8")
    assert [e.summary for e in store.history().entries()] == ["Create notes"]
    told = take_notices()
    assert len(told) == 1 and "its name" in told[0] and token not in told[0]
