"""File-system primitives: atomic writes, the cross-process folder lock, listing.

Kept apart from the rules in :mod:`serena_memory.core.store` so each can be tested alone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.process import PROCESS

LOCK_TIMEOUT_SECONDS = 30.0


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def fsync_dir(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (a no-op where directories can't be opened)."""
    if sys.platform == "win32":  # pragma: no cover
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_NO_WAIT = (
    getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_NOT_A_FILE = {errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR}


def open_regular(path: str | os.PathLike[str], flags: int, mode: int = 0o600) -> int | None:
    """A descriptor of the regular file at ``path`` opened with ``flags``, or None when
    anything else is there: a link, a FIFO, a device, a socket, a folder. For the files
    this package keeps for itself (caches, logs, stamps), where anything unexpected is a
    miss: opened without following a link and without blocking (opening a FIFO no one
    writes to would wait for ever), then checked for what it is.
    ``FileNotFoundError`` and other errors (a full disk) pass through."""
    try:
        fd = os.open(path, flags | _NO_WAIT, mode)
    except OSError as exc:
        if exc.errno in _NOT_A_FILE:
            return None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        os.set_blocking(fd, True)  # a regular file: reads and writes as usual
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    return fd


def read_own_file(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The bytes of a file this package keeps for itself (a cache), or None when it is
    missing, is no regular file (:func:`open_regular`), is larger than ``limit`` bytes or
    can't be read: a miss, never a wait."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except OSError:
        return None
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def ensure_folder(folder: Path) -> None:
    """Create a topic folder, or say why not (a memory file where a folder must go)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise MemoryStoreError(
            f"can't create the folder {folder}: a file is in the way (there or above it)"
        ) from None


def atomic_write(
    path: Path, data: bytes, inside: Sequence[str] | None = None, mode: int | None = None
) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new bytes, never a mix.

    Temporary file in the same folder, fsync, rename, fsync of the folder. ``inside``: the
    real folders the file must lie in (the path gate's allowed roots). The folder is then
    opened once, checked where it really is, and the file is created and renamed relative
    to that open folder, so a link swapped into the path meanwhile can't redirect the write.
    ``mode``: the new file's permissions (default: the old file's, else the umask's), set
    before the file is renamed into place, so a secret is never readable by others.
    """
    folder = path.parent
    ensure_folder(folder)
    if inside is not None and _RELATIVE_OPS:
        with open_folder(folder, inside) as dir_fd:
            _write_in(dir_fd, folder, path.name, data, mode)
    else:
        _write_in(None, folder, path.name, data, mode)
    sweep_orphaned_temp_files(folder)


# os.open and os.replace relative to an open folder (POSIX); elsewhere, by path. The set
# lists os.rename, which os.replace shares its dir_fd support with (renameat).
_RELATIVE_OPS = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd


@contextlib.contextmanager
def open_folder(folder: Path, inside: Sequence[str]) -> Iterator[int]:
    """An open descriptor of ``folder``, refused unless it really lies inside ``inside``."""
    from serena_memory.core.paths import check_opened

    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        check_opened(fd, inside, f"the folder {folder}")
        yield fd
    finally:
        os.close(fd)


# The temporary file keeps at most this many characters of the file's name (at most 4
# bytes each in UTF-8), so its own name stays far below the 255 bytes a file system allows
# however long the memory's name is (which the name gate lets reach 255 bytes itself).
TEMP_NAME_CHARS = 32


def replace_cache_file(path: Path, text: bytes, prefix: str) -> None:
    """Replace a cache file at once (a reader sees the old file or the new one); a folder
    that can't be written, or is a link, leaves the cache as it was: a cache is a help."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent.is_symlink():
            return
        import tempfile  # only when writing: it costs a command's start-up

        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(text)
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def temp_name(name: str) -> str:
    """The name of a temporary file for writing ``name`` in the same folder: hidden, named
    by this process (so a sweep can tell an orphan) and never longer than about 170 bytes."""
    return f".{name[:TEMP_NAME_CHARS]}.{os.getpid()}.{os.urandom(6).hex()}.tmp"


def _write_in(
    dir_fd: int | None, folder: Path, name: str, data: bytes, mode: int | None = None
) -> None:
    tmp = temp_name(name)
    target = name if dir_fd is not None else str(folder / name)
    tmp_path = tmp if dir_fd is not None else str(folder / tmp)
    if mode is None:
        try:
            mode = os.stat(target, dir_fd=dir_fd).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_UMASK
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp_path, flags | getattr(os, "O_BINARY", 0), 0o600, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), mode)
            if not hasattr(os, "fchmod"):  # pragma: no cover - Windows
                os.chmod(tmp_path, mode)
            os.replace(tmp_path, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_path, dir_fd=dir_fd)
            raise
    except OSError as exc:  # name the real files, not the names relative to the folder
        exc.filename, exc.filename2 = str(folder / tmp), str(folder / name)
        raise
    if dir_fd is None:
        fsync_dir(folder)
    else:
        os.fsync(dir_fd)


def remove_file(path: Path, inside: Sequence[str]) -> None:
    """Remove the directory entry ``path`` (a link itself, never its target), relative to
    its folder opened and checked to lie inside ``inside``; then make it durable."""
    if not _RELATIVE_OPS:  # pragma: no cover - Windows
        os.unlink(path)
        return
    with open_folder(path.parent, inside) as dir_fd:
        try:
            os.unlink(path.name, dir_fd=dir_fd)
        except OSError as exc:
            exc.filename = str(path)
            raise
        os.fsync(dir_fd)


_TEMP_NAME = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists but belongs to someone else
    return True


def sweep_orphaned_temp_files(folder: Path) -> int:
    """Remove temporary files left by writers that were killed mid-write.

    Only files whose writing process is gone are removed, so a write in progress in
    another process is never disturbed. Called by writers, which hold the folder lock.
    """
    if sys.platform == "win32":  # pragma: no cover - no safe liveness probe there
        return 0
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(".") or not entry.name.endswith(".tmp"):
            continue
        match = _TEMP_NAME.match(entry.name)
        if match is None:
            continue
        pid = int(match.group(1))
        if pid == os.getpid() or _process_alive(pid):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed += 1
    return removed


class _FolderLock:
    """A process-wide reentrant lock on one folder, held across processes with flock.

    flock on the folder itself leaves no lock file behind in a folder people commit.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.thread_lock = threading.RLock()
        self.depth = 0
        self.handle: object | None = None

    def acquire(self, timeout: float) -> None:
        if not self.thread_lock.acquire(timeout=timeout):
            raise MemoryStoreError(f"timed out waiting for the lock on {self.folder}")
        try:
            if self.depth == 0:
                self.handle = _os_lock(self.folder, timeout)
            self.depth += 1
        except BaseException:
            self.thread_lock.release()
            raise

    def release(self) -> None:
        self.depth -= 1
        if self.depth == 0:
            _os_unlock(self.handle)
            self.handle = None
        self.thread_lock.release()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import filelock

    def _os_lock(folder: Path, timeout: float) -> object:
        lock = filelock.FileLock(str(folder / ".serena-memories.lock"))
        try:
            lock.acquire(timeout=timeout)
        except filelock.Timeout:
            raise MemoryStoreError(
                f"timed out after {timeout:.0f}s waiting for another process to release "
                f"the memories folder {folder}"
            ) from None
        return lock

    def _os_unlock(handle: object) -> None:
        handle.release()  # type: ignore[attr-defined]  # the FileLock from _os_lock

else:
    import fcntl

    def _os_lock(folder: Path, timeout: float) -> object:
        fd = os.open(folder, os.O_RDONLY)
        deadline = time.monotonic() + timeout
        delay = 0.0005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise MemoryStoreError(
                        f"timed out after {timeout:.0f}s waiting for another process to "
                        f"release the memories folder {folder}"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.01)
            except BaseException:
                os.close(fd)
                raise

    def _os_unlock(handle: object) -> None:
        assert isinstance(handle, int)
        try:
            fcntl.flock(handle, fcntl.LOCK_UN)
        finally:
            os.close(handle)


class _FolderLocks:
    """The lock of each memory folder this process has written to."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.by_folder: dict[str, _FolderLock] = {}


@contextlib.contextmanager
def locked(folders: list[Path], timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold the cross-process lock on every folder (created if needed), in a fixed order."""
    keys = []
    for folder in folders:
        ensure_folder(folder)
        keys.append(os.path.realpath(folder))
    ordered = sorted(set(keys))
    held: list[_FolderLock] = []
    locks = PROCESS.owned(_FolderLocks)
    try:
        for key in ordered:
            with locks.guard:
                lock = locks.by_folder.setdefault(key, _FolderLock(Path(key)))
            lock.acquire(timeout)
            held.append(lock)
        yield
    finally:
        for lock in reversed(held):
            lock.release()
