"""The usage files: one line appended per read, folded now and then into one line per
memory and client.

Each project (and the global memories) has two files named after it: ``NAME.log``, which
every read appends one line to, and ``NAME.counts``, what earlier appends were folded
into (rewritten whole, atomically, when the first grew past :data:`FOLD_AT`).

Why a text file appended to rather than SQLite: a read appends one line with one write
to a file opened for appending (tens of microseconds, nothing to import, no commit), many
processes append at once without losing a line, and a file that is never trusted is
easier to check line by line than a database file.

The format (UTF-8, tab-separated, one record a line)::

    #serena-usage  1  SINCE  [NONCE]   when counting began (unix seconds); an appended
                                       file's has 16 random hex digits after it
    TIME  COUNT  CLIENT  NAME          COUNT reads of NAME by CLIENT, the last at TIME

and the counts say which appended lines they hold: ``#serena-folded  SIZE  DIGEST``, the
first SIZE bytes of the appended file, whose SHA-256 starts with DIGEST. A fold writes
the counts whole (every byte written, synced, then renamed into place) and only then
removes the appended file; a fold killed in between leaves the appended file whose first
bytes the counts already hold, and those are skipped, so no read is counted twice. A disk
too full for the counts fails the fold and keeps the appended file: nothing is lost.

Nothing in a file is trusted: each line is checked (its fields, whole numbers in range,
bounded lengths, no control characters, ended by a newline: a line cut short by a full
disk is not read) and a file with lines that fail is rebuilt without them; one larger
than :data:`TRUST_AT_MOST` is not read but started anew. The folder and its files are
opened without following links: a link, a hard link, a FIFO or a folder where a file
should be is removed and made anew, so nothing outside ``$SERENA_HOME/usage`` is read or
written.

Appenders share a lock on the folder, a fold takes it alone (POSIX flock); a read waits at
most :data:`APPEND_WAIT` for it and counts nothing rather than wait longer. Where there is
no flock nor directory descriptors (Windows) nothing is counted.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from serena_memory.core.changes import CONTROLS, clean
from serena_memory.core.names import MAX_NAME_CHARS

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: nothing is counted
    fcntl = None  # type: ignore[assignment]

FOLDER = "usage"
GLOBAL_FILE = "global"
APPENDED = ".log"
FOLDED = ".counts"
HEADER = "#serena-usage"
FOLDED_MARK = "#serena-folded"
VERSION = "1"
FOLD_AT = 512 * 1024
"""An appended file grown past this many bytes is folded into the counts."""
TRUST_AT_MOST = 16 * 1024 * 1024
"""A file larger than this is not read: it is started anew."""
FOLDED_AT_MOST = TRUST_AT_MOST // 2
"""The counts keep the most recently read memories that fit in this many bytes."""
CLIENT_CHARS = 120
APPEND_WAIT = 1.0
REPORT_WAIT = 5.0
_NUMBER = re.compile(r"[0-9]{1,12}")
_DIGEST = re.compile(r"[0-9a-f]{32}")
_NONCE = re.compile(r"[0-9a-f]{16}")
_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC if fcntl is not None else 0
COUNTING = fcntl is not None and os.open in os.supports_dir_fd


class UsageBusy(OSError):
    """Another process held the usage folder longer than a report waits."""


@dataclass
class MemoryCount:
    """One memory's reads as a file keeps them."""

    reads: int = 0
    last_read: int = 0
    clients: dict[str, int] = field(default_factory=dict)


@dataclass
class Counts:
    """What one usage file says: since when it counts, and each memory's reads."""

    since: int | None = None
    memories: dict[str, MemoryCount] = field(default_factory=dict)


# -- where ---------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)  # a documented cache: the same project's file at every read
def project_file(project_root: str) -> str:
    """The name of a project's files: after its real path, which they never hold."""
    real = os.path.realpath(project_root)
    return "project-" + hashlib.sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def usage_folder(home: Path) -> str:
    return os.path.join(os.path.realpath(home), FOLDER)


# -- writing one read ------------------------------------------------------------------------
def append(home: Path, base: str, when: float, client: str, name: str) -> None:
    """Count one read of ``name`` by ``client`` (cleaned as every client name is:
    :func:`serena_memory.core.changes.clean`); folds the file when it grew large."""
    line = f"{int(when)}\t1\t{clean(client, CLIENT_CHARS)}\t{name}\n".encode("utf-8", "replace")
    with _folder(home, exclusive=False, wait=APPEND_WAIT) as dfd:
        fd = _open_file(dfd, base + APPENDED, os.O_WRONLY | os.O_APPEND)
        try:
            size = os.fstat(fd).st_size
            # one write (appenders share the file): a short one on a full disk leaves a
            # line with no newline, which is never read as a record
            os.write(fd, _header(when, os.urandom(8).hex()) + line if size == 0 else line)
        finally:
            os.close(fd)
    if size > FOLD_AT:
        with _folder(home, exclusive=True, wait=APPEND_WAIT) as dfd:
            _fold(dfd, base, when)


def _header(since: float, nonce: str = "") -> bytes:
    """The first line; an appended file's names a random nonce too, so that no two
    appended files begin alike (the counts recognise the one they hold by its start)."""
    return f"{HEADER}\t{VERSION}\t{int(since)}{chr(9) + nonce if nonce else ''}\n".encode()


# -- following a rename -------------------------------------------------------------------
def move(home: Path, old: tuple[str, str], new: tuple[str, str], now: float) -> None:
    """Make the reads of memory ``old`` (a file's base, a name) those of ``new``: a rename
    keeps what was counted. The new name's counts are written before the old name's are
    removed, so a crash in between counts twice a name that no longer exists, which is
    never reported, rather than losing the reads."""
    (old_base, old_name), (new_base, new_name) = old, new
    with _folder(home, exclusive=True, wait=APPEND_WAIT) as dfd:
        data = _read_both(dfd, old_base)
        found = parse(data[:2], now)[0] if data is not None else Counts()
        moved = found.memories.get(old_name)
        if moved is None:
            return
        if old_base == new_base:
            _fold(dfd, old_base, now, edit=lambda c: _rename(c, old_name, new_name, moved))
            return
        _fold(dfd, new_base, now, edit=lambda c: _rename(c, old_name, new_name, moved))
        _fold(dfd, old_base, now, edit=lambda c: c.memories.pop(old_name, None))


def _rename(found: Counts, old: str, new: str, moved: MemoryCount) -> None:
    """The new name counts what the old one did (a memory of that name deleted before
    has its reads replaced: they were not this memory's)."""
    found.memories.pop(old, None)
    found.memories[new] = moved


# -- reading a file --------------------------------------------------------------------------
def counts(home: Path, base: str, now: float | None = None) -> Counts:
    """What a usage file says, checked line by line; a damaged file is rebuilt first,
    and a file that does not exist yet starts counting now (so that a memory nobody ever
    reads shows as unused in time)."""
    now = time.time() if now is None else now
    with _folder(home, exclusive=False, wait=REPORT_WAIT) as dfd:
        data = _read_both(dfd, base)
    found, sound = parse(data[:2], now) if data is not None else (Counts(), False)
    if not sound or found.since is None:  # damaged, or counting starts now
        with contextlib.suppress(OSError), _folder(home, exclusive=True, wait=REPORT_WAIT) as dfd:
            found = _fold(dfd, base, now)  # not rebuilt (a full disk): its sound lines count
    return found


def _read_both(dfd: int, base: str) -> tuple[bytes, bytes, bytes] | None:
    """(the counts, the appended lines they do not hold yet, the whole appended file);
    None when either file is too large to read."""
    folded = _read_file(dfd, base + FOLDED)
    appended = _read_file(dfd, base + APPENDED)
    if folded is None or appended is None:
        return None
    return folded, appended[_held(folded, appended) :], appended


def _held(folded: bytes, appended: bytes) -> int:
    """How many of the appended file's first bytes the counts already hold (a fold was
    ended after writing them, before removing the appended file)."""
    head = folded.split(b"\n", 2)
    mark = head[1].decode("ascii", "replace").split("\t") if len(head) > 2 else []
    if len(mark) != 3 or mark[0] != FOLDED_MARK or not _NUMBER.fullmatch(mark[1]):
        return 0
    size = int(mark[1])
    if size > len(appended) or _digest(appended[:size]) != mark[2]:
        return 0
    return size


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def parse(data: bytes | tuple[bytes, ...], now: float) -> tuple[Counts, bool]:
    """The counts of a file's text (or of several files'), and whether every line was
    sound (an empty file is; a last line with no newline, cut short by a full disk, is
    not)."""
    found = Counts()
    sound = True
    latest = now + 86400  # a clock a little ahead is no damage; a time years ahead is
    lines = []
    for part in (data,) if isinstance(data, bytes) else data:
        *whole, cut = part.split(b"\n")
        lines += whole
        sound = sound and not cut
    for raw in lines:
        if not raw:
            continue
        if raw.startswith(FOLDED_MARK.encode() + b"\t"):
            mark = raw.decode("ascii", "replace").split("\t")
            sound = sound and len(mark) == 3 and bool(_NUMBER.fullmatch(mark[1]))
            sound = sound and _DIGEST.fullmatch(mark[2]) is not None
            continue
        record = _record(raw, latest)
        if record is None:
            sound = False
        elif isinstance(record, int):
            found.since = record if found.since is None else min(found.since, record)
        else:
            when, count, client, name = record
            memory = found.memories.setdefault(name, MemoryCount())
            memory.reads += count
            memory.last_read = max(memory.last_read, when)
            memory.clients[client] = memory.clients.get(client, 0) + count
    return found, sound and (found.since is not None or not found.memories)


def _record(raw: bytes, latest: float) -> int | tuple[int, int, str, str] | None:
    """A header's start time, a read record, or None for a line that is not sound."""
    try:
        fields = raw.decode("utf-8").split("\t")
    except UnicodeDecodeError:
        return None
    if fields[0] == HEADER:
        return _since(fields, latest)
    if len(fields) != 4:
        return None
    when, count, client, name = fields
    if not (_NUMBER.fullmatch(when) and _NUMBER.fullmatch(count)):
        return None
    if int(when) > latest or int(count) < 1 or not (_sound_text(client, CLIENT_CHARS)):
        return None
    return (int(when), int(count), client, name) if _sound_text(name, MAX_NAME_CHARS) else None


def _since(fields: list[str], latest: float) -> int | None:
    if len(fields) not in (3, 4) or fields[1] != VERSION or not _NUMBER.fullmatch(fields[2]):
        return None
    if len(fields) == 4 and not _NONCE.fullmatch(fields[3]):
        return None
    return int(fields[2]) if int(fields[2]) <= latest else None


def _sound_text(text: str, limit: int) -> bool:
    return 0 < len(text) <= limit and CONTROLS.search(text) is None


# -- folding and rebuilding -----------------------------------------------------------------
def _fold(
    dfd: int, base: str, now: float, edit: Callable[[Counts], object] | None = None
) -> Counts:
    """Fold the appended lines into the counts, one line per memory and client (the most
    recently read first, up to :data:`FOLDED_AT_MOST`), without unsound lines, and start
    the appended file anew; call it holding the folder alone. The counts are in place,
    marked as holding the appended file, before that file is removed; a disk too full
    for them raises OSError and leaves both files as they were. ``edit`` changes the
    counts before they are written (a rename)."""
    data = _read_both(dfd, base)
    found = parse(data[:2], now)[0] if data is not None else Counts()
    if edit is not None:
        edit(found)
    found.since = int(now) if found.since is None else found.since
    rows = [
        (memory.last_read, count, client, name)
        for name, memory in found.memories.items()
        for client, count in memory.clients.items()
    ]
    rows.sort(key=lambda row: (-row[0], row[3], row[2]))
    appended = data[2] if data is not None else b""
    lines = [
        _header(found.since),
        f"{FOLDED_MARK}\t{len(appended)}\t{_digest(appended)}\n".encode(),
    ]
    size = len(lines[0]) + len(lines[1])
    for last_read, count, client, name in rows:
        line = f"{last_read}\t{count}\t{client}\t{name}\n".encode()
        size += len(line)
        if size > FOLDED_AT_MOST:
            break
        lines.append(line)
    _replace(dfd, base + FOLDED, b"".join(lines))
    with contextlib.suppress(FileNotFoundError):
        _remove(dfd, base + APPENDED)  # folded: the next read starts it again
    return parse(b"".join(lines), now)[0]


def _replace(dfd: int, file_name: str, data: bytes) -> None:
    """Write ``file_name`` whole through a temporary file (every byte written and synced
    before it takes the name; OSError, and the old file kept, when the disk is full).
    Only a fold writes one, holding the folder alone: any other temporary file of it is
    left by a fold that crashed."""
    for left in os.listdir(dfd):
        if left.startswith(f".{file_name}.") and left.endswith(".tmp"):
            with contextlib.suppress(FileNotFoundError):
                _remove(dfd, left)
    temp = f".{file_name}.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o600, dir_fd=dfd)
    try:
        try:
            done = 0
            while done < len(data):  # a write may take fewer bytes than given
                done += os.write(fd, data[done:])
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, file_name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dfd)
        raise
    os.fsync(dfd)  # the new name lasts before the appended file is removed


# -- opening without following links -----------------------------------------------------------
@contextlib.contextmanager
def _folder(home: Path, *, exclusive: bool, wait: float) -> Iterator[int]:
    """The usage folder, opened (made when missing, remade when it is not a real folder)
    and locked, shared or alone, for the block; closing it releases the lock."""
    if not COUNTING:
        raise UsageBusy(errno.ENOTSUP, "usage is counted only where files can be locked")
    fd = _open_folder(usage_folder(home))
    try:
        _lock(fd, exclusive, wait)
        yield fd
    finally:
        os.close(fd)


def _open_folder(path: str) -> int:
    for attempt in range(3):
        try:
            return os.open(path, os.O_RDONLY | os.O_DIRECTORY | _FLAGS)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as exc:  # a link (ELOOP) or a file (ENOTDIR) in its place
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR) or attempt == 2:
                raise
            os.unlink(path)  # the link itself, never what it leads to
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
    raise FileNotFoundError(errno.ENOENT, "the usage folder could not be made", path)


def _lock(fd: int, exclusive: bool, wait: float) -> None:
    deadline = time.monotonic() + wait
    kind = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    while True:
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise UsageBusy(errno.EAGAIN, "another process holds the usage folder") from None
            time.sleep(0.002)


def _open_file(dfd: int, file_name: str, flags: int) -> int:
    """A regular file of the folder with one link, made when missing; anything else in its
    place (a link, a hard link to elsewhere, a FIFO, a folder) is removed first."""
    for attempt in range(3):
        try:
            fd = os.open(file_name, flags | os.O_CREAT | _FLAGS, 0o600, dir_fd=dfd)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.EISDIR, errno.ENXIO) or attempt == 2:
                raise
            _remove(dfd, file_name)
            continue
        found = os.fstat(fd)
        if stat.S_ISREG(found.st_mode) and found.st_nlink == 1:
            return fd
        os.close(fd)
        _remove(dfd, file_name)
    raise OSError(errno.EIO, "the usage file could not be made", file_name)


def _read_file(dfd: int, file_name: str) -> bytes | None:
    """A file's bytes, None when it is larger than anyone should read."""
    fd = _open_file(dfd, file_name, os.O_RDONLY)
    try:
        if os.fstat(fd).st_size > TRUST_AT_MOST:
            return None
        chunks = []
        total = 0
        while chunk := os.read(fd, 1024 * 1024):
            chunks.append(chunk)
            total += len(chunk)
            if total > TRUST_AT_MOST:  # grew while read
                return None
        return b"".join(chunks)
    finally:
        os.close(fd)


def _remove(dfd: int, file_name: str) -> None:
    import shutil  # for a folder in place of a file only: not at every read's start

    try:
        os.unlink(file_name, dir_fd=dfd)
    except IsADirectoryError:
        shutil.rmtree(file_name, dir_fd=dfd)
    except PermissionError:  # Linux says EPERM for a folder
        if stat.S_ISDIR(os.lstat(file_name, dir_fd=dfd).st_mode):
            shutil.rmtree(file_name, dir_fd=dfd)
        else:
            raise
