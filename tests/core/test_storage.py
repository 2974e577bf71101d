"""Low-level storage: orphaned temporary files from killed writers are cleaned up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from serena_memory.core.store import MemoryStore


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_write_removes_temp_files_of_dead_writers_only(store: MemoryStore) -> None:
    store.write("notes/a", "first")
    folder = store.memories_dir / "notes"
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
    folder: Path = store.memories_dir / "topic"
    (folder / f".only.md.{_dead_pid()}.00000000000a.tmp").write_bytes(b"")
    store.write("topic/only", "y")  # the next write in that folder sweeps the orphan
    store.delete("topic/only")
    assert not folder.exists()
