"""The stamps of one folder's files: what each memory file held when it was last read.

Outside changes are found by comparing each file's stamp (inode, modification time, size)
with the stamp it had when last read: only files whose stamp moved are read and hashed
again. The stamps are kept next to the repository (``serena-memory-stamps.json``, with the
tree the folder matched) so that the next process starts warm, and continued a few at a
time by the stamp log (:mod:`serena_memory.history.stamp_log`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from serena_memory.core.files import read_own_file
from serena_memory.core.process import PROCESS
from serena_memory.history import stamp_log
from serena_memory.history.repository import RepositoryIdentity, repository_identity

MAX_STAMPS_BYTES = 512 * 1024 * 1024
"""A stamps file larger than this is not read (the folder is compared whole instead)."""

STAMPS_FILE = "serena-memory-stamps.json"
RACY_NS = 1_000_000_000
"""A file changed less than this long before its stamp was taken is read again next time:
a second change within the same tick of the file system's clock keeps the stamp."""
STAMPS_SAVE_SECONDS = 2.0
"""The stamps are saved for other processes at most this often (and when the process ends):
stale or missing stamps only make the next process read more files, never miss one."""


class _Unsaved:
    """The folders whose stamps this process has not saved yet, so that they are saved when
    it ends (keyed by the stamps object itself). Threads recording in different folders add
    and remove theirs at once: every change and the walk at exit hold ``lock``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stamps: set[FolderStamps] = set()


@atexit.register
def _flush_stamps() -> None:
    unsaved = PROCESS.owned(_Unsaved)
    with unsaved.lock:
        waiting = list(unsaved.stamps)
    for stamps in waiting:
        stamps.flush()


def _waiting(stamps: FolderStamps, unsaved: bool) -> None:
    """Note whether ``stamps`` has anything left to save at exit (nothing to do when that
    is already noted: the flag and the set change together)."""
    if stamps.unsaved == unsaved:
        return
    stamps.unsaved = unsaved
    waiting = PROCESS.owned(_Unsaved)
    with waiting.lock:
        if unsaved:
            waiting.stamps.add(stamps)
        else:
            waiting.stamps.discard(stamps)


class FolderStamps:
    """The stamps of one folder's memory files, as this process knows them.

    ``files`` maps a file's path in the folder to ``[inode, mtime_ns, size, blob id,
    racy]``; ``synced`` is the tree the folder matched when they were taken (None: not
    known). Changed only by the folder's history under the folder's lock."""

    def __init__(self, repo_path: Path) -> None:
        self.repo_path = repo_path
        self.files: dict[str, list[Any]] = {}
        self.synced: str | None = None  # the tree the folder matched when last recorded
        self.dirty = False  # changed since they were last saved or loaded
        self.unsaved = False  # stamps (and the tree they match) not saved yet
        self._seen: tuple[int, int, int] | None = None  # the stamp file's own stamp
        self._saved_at = 0.0  # when the stamps were last saved (monotonic)
        self._log_seen: tuple[int, int] | None = None  # stamp log (inode, offset read to)
        self.repository: RepositoryIdentity | None = None  # the repository they describe

    # -- one file ----------------------------------------------------------------------------
    def known(self, rel: str, st: os.stat_result) -> str | None:
        """The blob id ``rel`` had when last read, if its stamp has not moved since (and
        was not taken within a tick of a change)."""
        known = self.files.get(rel)
        if known is not None and known[:3] == _key(st) and not known[4]:
            return str(known[3])
        return None

    def remember(self, rel: str, st: os.stat_result, oid: str, now_ns: int) -> None:
        """``rel`` was read as ``oid`` with stamp ``st`` (taken before the read)."""
        # a change within the file system's clock tick keeps the stamp: look again later
        racy = now_ns - st.st_mtime_ns < RACY_NS
        self.files[rel] = [*_key(st), oid, racy]
        self.dirty = True

    def forget(self, rel: str) -> None:
        if self.files.pop(rel, None) is not None:
            self.dirty = True

    def reset(self) -> None:
        """Compare the files and the branch afresh next time (after a failure)."""
        self.synced = None
        self._seen = None
        self._log_seen = None

    def start_over(self, repository: RepositoryIdentity | None) -> None:
        """Stamps for ``repository``, which is not the one these were taken in (that one was
        removed or replaced while the process ran): their blobs and tree may not be in it,
        so nothing of them is kept, nor saved into it; its own stamps file is read next."""
        self.files = {}
        self.reset()
        self.dirty = False
        _waiting(self, False)
        self.repository = repository

    # -- kept next to the repository ---------------------------------------------------------
    def _path(self) -> Path:
        return self.repo_path / STAMPS_FILE

    def load(self) -> None:
        """Take the stamps another process saved, when the file changed since we looked,
        and the lines of the stamp log that continue them."""
        path = self._path()
        try:
            st = os.stat(path)
            seen: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            seen = None
        start = 0
        if seen is not None and seen != self._seen:
            self._read(path, seen)
        elif self._log_seen is not None:
            log = stamp_log.identity(self.repo_path)
            if log is None or log == self._log_seen:
                return
            if log[0] == self._log_seen[0] and log[1] > self._log_seen[1]:
                start = self._log_seen[1]  # only what was appended since
        self._replay_log(start)

    def _read(self, path: Path, seen: tuple[int, int, int]) -> None:
        raw = read_own_file(path, MAX_STAMPS_BYTES)  # a FIFO or link: not read, not waited on
        try:
            if raw is None:
                return
            data = json.loads(raw)
            files = data["files"]
            synced = data["tree"]
        except (OSError, ValueError, KeyError, TypeError):
            return
        if isinstance(files, dict) and (synced is None or isinstance(synced, str)):
            self.files = {
                rel: value
                for rel, value in files.items()
                if isinstance(value, list) and len(value) == 5
            }
            self.synced = synced
            self._seen = seen
            self.dirty = False
            _waiting(self, False)  # another process's newer view replaces ours

    def _replay_log(self, start: int) -> None:
        """Apply the stamp log's lines that continue the tree our stamps describe."""
        log = stamp_log.identity(self.repo_path)
        if log is None:
            self._log_seen = None
            return
        lines, end = stamp_log.read(self.repo_path, start)
        synced = stamp_log.replay(self.files, self.synced, lines)
        if synced != self.synced:
            self.synced = synced
            self.dirty = True  # the next save folds the log into the stamps file
        self._log_seen = (log[0], end)

    def save(self, tree: str | None, *, now: bool = False) -> None:
        """The folder matches ``tree`` with these stamps; saved for other processes at most
        every STAMPS_SAVE_SECONDS (and when this process ends)."""
        self.synced = tree
        if not now and time.monotonic() - self._saved_at < STAMPS_SAVE_SECONDS:
            _waiting(self, True)
            return
        self.write()

    def flush(self) -> None:
        """Save stamps not saved yet (at exit: no lock is needed, a stale file only makes
        the next process read more; a thread still recording may change them while they
        are written, which only leaves the file unsaved). Never into a repository put at
        that path since: the stamps are not of its blobs."""
        if self.unsaved and repository_identity(self.repo_path) == self.repository:
            with contextlib.suppress(OSError, RuntimeError):
                self.write(fold=False)

    def write(self, fold: bool = True) -> None:
        """Write the stamps file; with ``fold`` (under the lock), the stamp log it now
        holds is removed."""
        path = self._path()
        tmp = path.with_name(f".{STAMPS_FILE}.{os.getpid()}.tmp")
        data = json.dumps({"tree": self.synced, "files": self.files}, separators=(",", ":"))
        tmp.write_text(data, encoding="utf-8")
        os.replace(tmp, path)
        with contextlib.suppress(OSError):
            st = os.stat(path)
            self._seen = (st.st_ino, st.st_mtime_ns, st.st_size)
        self.dirty = False
        self._saved_at = time.monotonic()
        _waiting(self, False)
        if fold:
            stamp_log.remove(self.repo_path)
            self._log_seen = None

    def note(self, before: str | None, after: str, rels: Iterable[str]) -> None:
        """Append the stamps of ``rels`` to the stamp log: the tree went from ``before`` to
        ``after``. After the branch: a crash in between only makes the next whole look
        read more files."""
        prior = stamp_log.identity(self.repo_path)
        stamp_log.append(self.repo_path, before, after, {r: self.files.get(r) for r in rels})
        if self.synced is not None and self.synced == before:
            self.synced = after  # our stamps described the tree before: they still do
            if prior == self._log_seen or prior is None:
                self._log_seen = stamp_log.identity(self.repo_path)  # our own line, applied


def _key(st: os.stat_result) -> list[int]:
    return [st.st_ino, st.st_mtime_ns, st.st_size]
