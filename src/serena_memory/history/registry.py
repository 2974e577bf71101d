"""The open histories of this process: one handle per memories folder.

A folder's history keeps what it learned (the stamps of its files, its folder watch) in
its handle, so every operation of a process on a folder uses the same one: its stat cache
stays warm and a server reads only what changed.
"""

from __future__ import annotations

import threading
from pathlib import Path

from serena_memory.core.changes import Folder
from serena_memory.history.folder import FolderHistory
from serena_memory.history.location import repository_path

_histories: dict[Path, FolderHistory] = {}
"""A cache of the open histories, keyed by the path of their repository (one per resolved
folder). Threads serving different clients open histories at once: looking one up and
adding it happen together under :data:`_lock`, so two threads never get two handles (and
two stat caches) for one folder. The handle itself is written only under the folder's
lock (:func:`serena_memory.core.files.locked`)."""
_repository_paths: dict[tuple[Path, Path], Path] = {}
"""A cache of :func:`repository_path`, keyed by (history root, folder): the folders are
real paths already, so the same key always names the same repository. Filled under
:data:`_lock`."""
_lock = threading.Lock()


def folder_history(history_root: Path, folder: Folder) -> FolderHistory:
    """The process-wide handle of a folder's history (its stat cache stays warm)."""
    key = (history_root, folder.root)
    with _lock:
        path = _repository_paths.get(key)
        if path is None:
            path = _repository_paths[key] = repository_path(history_root, folder.root)
        found = _histories.get(path)
        if found is None or found.folder != folder:
            if found is not None:
                found.watch.retire()  # the replaced handle's folder watch is given back
            found = _histories[path] = FolderHistory(folder, path)
        return found


def forget_open_histories() -> None:
    """Drop every open handle, so the next operation starts as a fresh process would
    (measurements of a first read use it)."""
    with _lock:
        for handle in _histories.values():
            handle.watch.retire()
        _histories.clear()
