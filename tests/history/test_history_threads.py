"""Many threads of one process (an HTTP server's clients, the dashboard beside them) open
and write the histories of several folders at once: each folder has one handle, and every
write has its entry."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from serena_memory.core.changes import Folder
from serena_memory.core.store import MemoryStore
from serena_memory.history.folder import FolderHistory
from serena_memory.history.location import history_folders, history_root
from serena_memory.history.registry import folder_history

THREADS = 8


@pytest.fixture
def eager_switching() -> Iterator[None]:
    """Let threads take turns as often as possible, so that a gap between looking a
    handle up and keeping it is met, not merely possible."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _at_once(work: Callable[[int], None]) -> None:
    """Run ``work(i)`` in THREADS threads started together; raise what any of them raised."""
    start = threading.Barrier(THREADS)
    failures: list[BaseException] = []

    def run(i: int) -> None:
        start.wait()
        try:
            work(i)
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    assert not any(thread.is_alive() for thread in threads)


def test_threads_opening_a_folder_history_at_once_share_its_one_handle(
    tmp_path: Path, eager_switching: None
) -> None:
    root = tmp_path / "history"
    folders = []
    for i in range(60):
        memories = tmp_path / f"project-{i}" / ".serena" / "memories"
        memories.mkdir(parents=True)
        folders.append(Folder(memories.resolve(), ""))
    seen: list[dict[Path, set[int]]] = [{} for _ in range(THREADS)]

    def open_all(i: int) -> None:
        for folder in folders:
            handle = folder_history(root, folder)
            assert handle.folder == folder
            seen[i].setdefault(folder.root, set()).add(id(handle))

    _at_once(open_all)
    for folder in folders:
        handles = set().union(*(s[folder.root] for s in seen))
        assert len(handles) == 1, f"{len(handles)} handles of the history of {folder.root}"
        assert id(folder_history(root, folder)) in handles


@pytest.mark.slow  # threads racing
def test_threads_writing_two_folders_at_once_lose_no_entry(
    store: MemoryStore, eager_switching: None
) -> None:
    store.write("seed", "the project's first memory\n")
    store.write("global/seed", "the global folder's first memory\n")
    writes = 4
    handles: dict[str, set[int]] = {"project": set(), "global": set()}
    lock = threading.Lock()

    def write(i: int) -> None:
        for j in range(writes):
            store.write(f"note-{i}-{j}", f"project note {i} {j}\n")
            store.write(f"global/note-{i}-{j}", f"global note {i} {j}\n")
            for folder in history_folders(store):
                handle = folder_history(history_root(store), folder)
                assert isinstance(handle, FolderHistory) and handle.folder == folder
                with lock:
                    handles[folder.label].add(id(handle))

    _at_once(write)
    assert {label: len(ids) for label, ids in handles.items()} == {"project": 1, "global": 1}
    entries = store.history().entries()
    created = Counter(
        (entry.folder, name) for entry in entries for kind, name in entry.changes if kind == "A"
    )
    for i in range(THREADS):
        for j in range(writes):
            assert created[("project", f"note-{i}-{j}")] == 1
            assert created[("global", f"global/note-{i}-{j}")] == 1
    assert sum(created.values()) == 2 * THREADS * writes + 2  # and the two seeds
    for name in ("note-3-2", "global/note-5-1"):
        history = store.history().entries(name)
        assert len(history) == 1 and history[0].who  # its own entry, attributed
