"""The folder watch of a history in a long-running process.

A process that records again and again in a folder (a server) watches it (inotify on
Linux, :mod:`serena_memory.core.watch`) after a few whole looks, and then reads only the
files the kernel reports changed. Anything unusual makes the next look a whole one, so a
change is never missed, only looked for harder.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from serena_memory.core.process import PROCESS

if TYPE_CHECKING:  # the watch loads ctypes: only a long-running process needs it
    from serena_memory.core.watch import FolderWatch

WATCH_AFTER = 2
"""A process that records this many times in a folder (a server) watches the folder (inotify
on Linux), so that it reads only the files the kernel reports changed."""
MAX_WATCHES = 8  # folders watched per process: the system limits inotify instances per user


class _Watches:
    """How many folders this process watches (a count, not a cache): histories of different
    folders open and close their watches from different threads, so it is changed only
    under ``lock``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0


def _take_watch() -> FolderWatch | None:
    """A new folder watch, unless the process watches MAX_WATCHES folders already."""
    from serena_memory.core.watch import FolderWatch

    watches = PROCESS.owned(_Watches)
    with watches.lock:
        if watches.count >= MAX_WATCHES:
            return None
        watch = FolderWatch.create()
        if watch is not None:
            watches.count += 1
        return watch


def _give_back(watch: FolderWatch) -> None:
    watch.close()
    watches = PROCESS.owned(_Watches)
    with watches.lock:
        watches.count -= 1


class WatchedFolder:
    """What changed in one memories folder since the last look, as the watch reports it.

    Used by the folder's history under the folder's lock; :meth:`retire` may come from
    another thread (a handle replaced in the registry), so the watch is read and closed
    under a lock of its own, never used after it is closed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._watch: FolderWatch | None = None
        self._rels: dict[str, str] = {}  # watched folder -> its path in the folder
        self._whole_looks = 0
        self._lock = threading.RLock()
        self._retired = False

    @property
    def watching(self) -> bool:
        return self._watch is not None

    def changed_rels(self) -> set[str] | None:
        """The files changed since the last look as the folder watch reports them (our own
        writes included), or None when everything must be looked at."""
        with self._lock:
            if self._watch is None:
                return None
            found = self._watch.drain()
        if found is None:
            return None
        rels = set()
        for path in found:
            folder, name = os.path.split(path)
            prefix = self._rels.get(folder)
            if prefix is None:
                return None
            if not name.startswith("."):  # temporary files of atomic writes
                rels.add(prefix + name)
        return rels

    def looked_at_everything(self) -> None:
        """After a look at every file: in a process that records again and again, watch
        the folder and its topic folders from now on (new ones included)."""
        self._whole_looks += 1
        if self._whole_looks < WATCH_AFTER or not sys.platform.startswith("linux"):
            return
        with self._lock:
            if not self._retired:
                self._watch_folders()

    def _watch_folders(self) -> None:
        """Watch the folder and its topic folders (under :attr:`_lock`)."""
        from serena_memory.core.watch import folders_below

        if self._watch is None:
            self._watch = _take_watch()
            if self._watch is None:
                return
        root = str(self.root)
        folders = folders_below([root]) if os.path.isdir(root) else []
        self._rels = {
            f: "" if f == root else os.path.relpath(f, root).replace(os.sep, "/") + "/"
            for f in folders
        }
        self._watch.cover(folders)  # a folder new to the watch makes its next look whole

    def close(self) -> None:
        """Stop watching: events read before a failure are lost, so look at everything."""
        with self._lock:
            if self._watch is not None:
                _give_back(self._watch)
                self._watch = None

    def retire(self) -> None:
        """Stop watching for good (the handle was replaced): the watch is given back to
        the process's count, and no later look takes a new one."""
        with self._lock:
            self._retired = True
            self.close()
