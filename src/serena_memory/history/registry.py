"""The open histories of this process: one handle per memories folder.

A folder's history keeps what it learned (the stamps of its files, its folder watch) in
its handle, so every operation of a process on a folder uses the same one: its stat cache
stays warm and a server reads only what changed.
"""

from __future__ import annotations

import threading
from pathlib import Path

from serena_memory.core.changes import Folder
from serena_memory.core.process import PROCESS
from serena_memory.history.folder import FolderHistory
from serena_memory.history.location import repository_path


class _OpenHistories:
    """The open histories of this process.

    ``histories``: keyed by the path of their repository (one per resolved folder). Threads
    serving different clients open histories at once: looking one up and adding it happen
    together under ``lock``, so two threads never get two handles (and two stat caches) for
    one folder. The handle itself is written only under the folder's lock
    (:func:`serena_memory.core.files.locked`). ``repository_paths``: a cache of
    :func:`repository_path`, keyed by (history root, folder): the folders are real paths
    already, so the same key always names the same repository."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.histories: dict[Path, FolderHistory] = {}
        self.repository_paths: dict[tuple[Path, Path], Path] = {}


def _open() -> _OpenHistories:
    return PROCESS.owned(_OpenHistories)


def folder_history(history_root: Path, folder: Folder) -> FolderHistory:
    """The process-wide handle of a folder's history (its stat cache stays warm)."""
    key = (history_root, folder.root)
    state = _open()
    with state.lock:
        path = state.repository_paths.get(key)
        if path is None:
            path = state.repository_paths[key] = repository_path(history_root, folder.root)
        found = state.histories.get(path)
        if found is None or found.folder != folder:
            if found is not None:
                found.watch.retire()  # the replaced handle's folder watch is given back
            found = state.histories[path] = FolderHistory(folder, path)
        return found


def forget_open_histories() -> None:
    """Drop every open handle, so the next operation starts as a fresh process would
    (measurements of a first read use it)."""
    state = _open()
    with state.lock:
        for handle in state.histories.values():
            handle.watch.retire()
        state.histories.clear()
