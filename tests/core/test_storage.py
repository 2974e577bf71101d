"""Low-level storage: orphaned temporary files from killed writers are cleaned up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from serena_memory.core.store import MemoryStore


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_write_removes_temp_files_of_dead_writers_only(store: MemoryStore) -> None:
    store.write("notes/a", "first")
    folder = store.layout.memories_dir / "notes"
    orphan = folder / f".a.md.{_dead_pid()}.0123456789ab.tmp"
    orphan.write_bytes(b"half a wri")
    live = folder / f".a.md.{os.getppid()}.ba9876543210.tmp"
    live.write_bytes(b"in progress elsewhere")
    unrelated = folder / ".keep.tmp"
    unrelated.write_bytes(b"not ours")

    store.write("notes/a", "second")

    assert not orphan.exists()
    assert live.exists()
    assert unrelated.exists()
    assert store.read("notes/a") == "second"


def test_deleting_last_memory_after_a_crash_leaves_no_empty_topic(store: MemoryStore) -> None:
    store.write("topic/only", "x")
    folder: Path = store.layout.memories_dir / "topic"
    (folder / f".only.md.{_dead_pid()}.00000000000a.tmp").write_bytes(b"")
    store.write("topic/only", "y")  # the next write in that folder sweeps the orphan
    store.delete("topic/only")
    assert not folder.exists()


# the longest names the gate accepts: a last segment of 255 bytes with its `.md`, a topic
# of 255 bytes, and the same in characters of 2 bytes each
_LONGEST = ["n" * 252, "t" * 255 + "/" + "n" * 252, "\u00e9" * 126]


@pytest.mark.parametrize("name", _LONGEST)
def test_every_name_the_gate_accepts_can_be_written_edited_and_renamed_to(
    store: MemoryStore, name: str
) -> None:
    """The temporary file of a write is named in a bounded length, so a memory whose name
    fills the 255 bytes a file system allows is written like any other (it failed with
    'File name too long' and a rename left its journal behind, which stopped every read)."""
    store.write(name, "first")
    store.edit(name, "first", "second")
    assert store.read(name) == "second"
    store.write("a", "text")
    referenced = name.isascii()  # a `mem:` reference spells ASCII names only
    store.write("b", "see mem:a" if referenced else "see a")
    store.delete(name)
    store.rename("a", name)
    assert store.read(name) == "text"
    assert store.read("b") == (f"see mem:{name}" if referenced else "see a")
    assert not (store.layout.memories_dir / ".rename-journal.json").exists()
    assert store.list().all == sorted(["b", name])
