"""Has anything changed in these folders? A cheap answer for long-running processes.

Comparing the stamp of every memory file is the only sure way to see an edit an editor
made in place, and at 10,000 files that costs tens of milliseconds. On Linux the kernel
can tell instead: inotify reports every change in a watched folder. A :class:`FolderWatch`
answers "maybe changed" (then the caller compares stamps as usual) or "certainly not
changed" (the caller keeps what it has). Anything unexpected (no inotify on this system,
the watch limit reached, the kernel's queue overflowing) makes it answer "maybe", so it
can only make the caller do more work, never miss a change.

The standard library has no inotify binding, so this wraps the three libc calls with
ctypes; it is only used where ``sys.platform`` is Linux.
"""

from __future__ import annotations

import contextlib
import functools
import os
import struct
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # ctypes.util brings subprocess, shutil and tempfile: loaded when first used
    import ctypes

_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000  # the watch is gone (its folder was deleted or moved)
_IN_ISDIR = 0x40000000  # the entry the event names is a folder
_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
)
_EVENT = struct.Struct("iIII")


@functools.cache
def _load_libc() -> ctypes.CDLL | None:
    """The C library with inotify, loaded once (None where there is none)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import ctypes.util

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            libc.inotify_init1.argtypes = [ctypes.c_int]
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            return libc
    return None


class FolderWatch:
    """Watches folders (not their sub-folders: give each one) for changes to their entries."""

    def __init__(self, fd: int, libc: ctypes.CDLL) -> None:
        self._fd = fd
        self._libc = libc
        self._watched: dict[str, int] = {}  # folder -> watch descriptor
        self._dirty = True  # nothing is known before the first look
        self._incomplete = False  # a folder could not be watched: always "maybe changed"

    @classmethod
    def create(cls) -> FolderWatch | None:
        """A new watch, or None where the system can't provide one."""
        libc = _load_libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return None  # e.g. the per-user limit of inotify instances is reached
        return cls(fd, libc)

    def cover(self, folders: Iterable[str]) -> bool:
        """Watch every folder given (already watched ones are kept). False when one can't
        be watched: then :meth:`changed` keeps answering True."""
        complete = True
        for folder in folders:
            if folder in self._watched:
                continue
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _MASK)
            if wd < 0:
                complete = False
                continue
            self._watched[folder] = wd
            self._dirty = True  # a change made just before the watch began is unseen
        if not complete:
            self._incomplete = True
        return complete

    def changed(self) -> bool:
        """Whether anything may have changed since the last call; reading clears it."""
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                self._dirty = True
                break
            self._dirty = True
            self._forget_gone(data)
        dirty = self._dirty or self._incomplete
        self._dirty = False
        return dirty

    def drain(self) -> set[str] | None:
        """The paths (watched folder joined with the entry's name) changed since the last
        call, or None when that can't be told (the first call, a folder that could not be
        watched, a folder created, removed or moved, the kernel's queue overflowing): then
        the caller looks at everything. Use either this or :meth:`changed` on one watch,
        never both: each takes the events it reads."""
        paths: set[str] | None = set()
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                paths = None
                break
            folders = {wd: folder for folder, wd in self._watched.items()}
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                raw = data[offset + _EVENT.size : offset + _EVENT.size + length]
                offset += _EVENT.size + length
                folder = folders.get(wd)
                whole_folder = _IN_IGNORED | _IN_Q_OVERFLOW | _IN_DELETE_SELF | _IN_MOVE_SELF
                if folder is None or mask & (whole_folder | _IN_ISDIR):
                    paths = None
                elif paths is not None:
                    paths.add(os.path.join(folder, os.fsdecode(raw.rstrip(b"\0"))))
            self._forget_gone(data)
        if self._dirty or self._incomplete:
            paths = None
        self._dirty = False
        return paths

    def _forget_gone(self, data: bytes) -> None:
        """Drop watches the kernel removed, so :meth:`cover` puts them back if the folder
        is made again."""
        offset = 0
        gone = set()
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            offset += _EVENT.size + length
            if mask & (_IN_IGNORED | _IN_Q_OVERFLOW):
                gone.add(wd)
        if gone:
            self._watched = {f: wd for f, wd in self._watched.items() if wd not in gone}

    def close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1


def folders_below(roots: Iterable[str]) -> list[str]:
    """Each root and every folder below it (symlinks followed, each real folder once,
    hidden ones skipped as the listing skips them). A root that doesn't exist yet is
    stood for by its nearest existing parent, whose change reports its creation."""
    found: list[str] = []
    seen: set[tuple[int, int]] = set()
    for root in roots:
        if not os.path.isdir(root):
            while not os.path.isdir(root) and os.path.dirname(root) != root:
                root = os.path.dirname(root)
            found.append(root)  # only itself: its other sub-folders are none of ours
            continue
        stack = [root]
        while stack:
            folder = stack.pop()
            try:
                st = os.stat(folder)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            found.append(folder)
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    with contextlib.suppress(OSError):
                        if entry.is_dir(follow_symlinks=True):
                            stack.append(entry.path)
    return found
