"""A secret pasted into a memory file with an editor never enters the history: the next
look at the history leaves that change out, says why, and records the file again once the
secret is gone (real files, a real history repository)."""

from __future__ import annotations

import contextlib
import zlib
from pathlib import Path

import anyio
from conftest import run_cli
from helpers.mcp_support import ok, over_stdio

from serena_memory.core.store import MemoryStore
from serena_memory.history.location import history_root, repository_path
from serena_memory.history.notices import take_notices
from serena_memory.wiring import build_store

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
    path = store.layout.memories_dir / "notes.md"
    path.write_text(f"# Notes\n\n{SECRET}\n", encoding="utf-8")
    entries = store.history().entries()
    assert [e.summary for e in entries] == ["Create notes"]
    told = take_notices()
    assert len(told) == 1 and "memory 'notes' was changed outside serena" in told[0]
    assert "line 3" in told[0] and "not recorded in the history" in told[0]
    repo = repository_path(history_root(store), store.layout.memories_dir)
    assert not _objects_hold(repo, b"wJalrXUtnFEMI")
    # the person takes it out again: the change is recorded from then on
    path.write_text("# Notes\n\nthe key is in the vault\n", encoding="utf-8")
    entries = store.history().entries()
    assert entries[0].entry_point == "external" and entries[0].names() == ["notes"]
    assert not _objects_hold(repo, b"wJalrXUtnFEMI")


def test_a_secret_taken_out_by_restoring_the_recorded_text_ends_the_notice(
    store: MemoryStore,
) -> None:
    """The bytes the history already holds for a file are not held back (they are the
    recorded text, checked when recorded): putting them back ends the notice at once and
    adds no entry."""
    store.write("notes", "# Notes\n")
    take_notices()
    path = store.layout.memories_dir / "notes.md"
    path.write_text(f"# Notes\n\n{SECRET}\n", encoding="utf-8")
    assert [e.summary for e in store.history().entries()] == ["Create notes"]
    assert any("holds what looks like a secret" in n for n in take_notices())
    path.write_text("# Notes\n", encoding="utf-8")  # the recorded text, byte for byte
    assert [e.summary for e in store.history().entries()] == ["Create notes"]
    assert store.history().entries() and not take_notices()
    store.write("other", "# Other\n")
    assert [e.summary for e in store.history().entries()] == ["Create other", "Create notes"]
    assert not take_notices()
    path.write_text(f"# Notes\n\n{SECRET}\n", encoding="utf-8")  # pasted again: told again
    store.history().entries()
    assert any("holds what looks like a secret" in n for n in take_notices())


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
    (store.layout.memories_dir / f"{token}.md").write_text("harmless\n", encoding="utf-8")
    assert [e.summary for e in store.history().entries()] == ["Create notes"]
    told = take_notices()
    assert len(told) == 1 and "its name" in told[0] and token not in told[0]


def test_a_server_says_it_at_every_listing_until_the_secret_is_gone(
    project: Path, serena_home: Path
) -> None:
    store = build_store(project, home=serena_home)
    store.write("notes", "# Notes\n")
    store.write("other", "# Other\n")
    path = project / ".serena" / "memories" / "notes.md"

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            for _ in range(3):  # a server that looked a few times watches the folder
                await ok(client, "memory_history", memory_name="other")
            path.write_text(f"# Notes\n\n{SECRET}\n", encoding="utf-8")
            await ok(client, "write_memory", memory_name="other", content="# Other 2\n")
            for _ in range(2):  # the write above looked at it first: each listing says it
                told = await ok(client, "memory_history", memory_name="notes")
                assert "memory 'notes' was changed outside serena" in told
                assert "Create notes" in told
            path.write_text("# Notes\n\nthe key is in the vault\n", encoding="utf-8")
            told = await ok(client, "memory_history", memory_name="notes")
            assert "changed outside serena" not in told and "external" in told

    anyio.run(go)
