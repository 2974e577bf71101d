"""History of memory changes: every change recorded, attributed and reversible.

Each memories folder (a project's, the global one) has its own git repository, kept
outside the project under ``$SERENA_HOME/history`` and keyed by the folder's resolved
path, so the user's own repository is never touched and ``git log`` works on it. One
operation through any entry point is one commit whose author says who made it and whose
trailers say which memories it touched. Changes made outside (an editor, a checkout) are
committed as ``external`` before the next recorded operation, so an overwrite never loses a
hand edit.

The engine is libgit2 through pygit2: a real git implementation in-process (no ``git``
executable needed), fast enough to commit under the folder lock on every write. The
repositories are bare: memory files are read only through the path gate, never by git.

Recording never costs a write: the memory file is written first, any failure of the history
is reported once and the next operation records what was missed.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import operation, paths
from serena_memory.core.changes import (
    MEMORY_SUFFIX,
    Folder,
    Provenance,
    machine_name,
)
from serena_memory.core.changes import clean as _clean
from serena_memory.core.changes import recordable as _recordable
from serena_memory.core.display import counted
from serena_memory.core.errors import (
    HistoryError,
    MemoryStoreError,
    OutsidePathError,
)
from serena_memory.history import stamp_log
from serena_memory.history.times import EARLIEST, shown_typed

if TYPE_CHECKING:  # the watch loads ctypes: only a long-running process needs it
    from serena_memory.core.watch import FolderWatch


BRANCH = "refs/heads/main"
STAMPS_FILE = "serena-memory-stamps.json"
RACY_NS = 1_000_000_000
"""A file changed less than this long before its stamp was taken is read again next time:
a second change within the same tick of the file system's clock keeps the stamp."""
STAMPS_SAVE_SECONDS = 2.0
"""The stamps are saved for other processes at most this often (and when the process ends):
stale or missing stamps only make the next process read more files, never miss one."""
WATCH_AFTER = 2
"""A process that records this many times in a folder (a server) watches the folder (inotify
on Linux), so that it reads only the files the kernel reports changed."""
MAX_WATCHES = 8  # folders watched per process: the system limits inotify instances per user
_watches = 0
EXTERNAL = "external"


# -- problems are reported once, to the operation that met them -----------------------------
def _report(key: str, message: str) -> None:
    if not operation.receiver().tell(operation.HISTORY, message, key):
        return
    import logging  # only when there is something to report: keeps the CLI's start quick

    logging.getLogger("serena_memory.history").warning(message)


def report(key: str, message: str) -> None:
    """Say a problem of the history once (until it is cleared by a success) to the open
    operation (core/operation.py), whose front-end shows it; outside any operation, to the
    process-wide receiver that :func:`take_notices` empties."""
    _report(key, message)


def _clear_report(key: str) -> None:
    operation.receiver().clear(key)


def take_notices() -> list[str]:
    """Problems met while recording since the last call, each said once (front-ends show
    them after the operation they concern): the open operation's, else those met outside
    any operation."""
    return operation.receiver().take(operation.HISTORY)


def _engine() -> Any:
    try:
        import pygit2
    except ImportError as exc:  # pragma: no cover - pygit2 is a dependency
        raise HistoryError(
            f"the history engine can't be loaded ({exc}); reinstall serena-memory "
            "(pip install pygit2) to record history again"
        ) from None
    return pygit2


# -- where a folder's history lives ----------------------------------------------------------
def repository_path(history_root: Path, folder: Path) -> Path:
    """One repository per memories folder, keyed by the folder's resolved path; the
    readable part of the name is only for a person browsing the history folder."""
    real = os.path.realpath(folder)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    parts = [p for p in Path(real).parts if p not in ("/", ".serena", "memories")]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(parts[-2:])).strip("-.")[:40] or "root"
    return history_root / f"{slug}-{digest}.git"


# -- entries ---------------------------------------------------------------------------------
@dataclass
class Entry:
    """One recorded operation in one folder's history."""

    rev: str
    time: datetime
    entry_point: str
    who: str
    action: str
    summary: str
    folder: str
    changes: list[tuple[str, str]] = field(default_factory=list)  # (A|M|D, name)
    renamed: tuple[str, str] | None = None
    operation: str = ""
    machine: str = ""  # where the entry was recorded ("" in entries older than the field)

    @property
    def short(self) -> str:
        return self.rev[:10]

    def names(self) -> list[str]:
        return [name for _, name in self.changes]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rev": self.rev,
            "time": self.time.isoformat(),
            "folder": self.folder,
            "entry_point": self.entry_point,
            "who": self.who,
            "machine": self.machine,
            "action": self.action,
            "summary": self.summary,
            "changes": [{"change": c, "memory": n} for c, n in self.changes],
            "renamed": list(self.renamed) if self.renamed else None,
        }


_CHANGE_WORDS = {"A": "created", "M": "changed", "D": "deleted"}


def _message(
    summary: str,
    provenance: Provenance,
    changes: list[tuple[str, str]],
    renamed: tuple[str, str] | None,
    operation: str,
    at: float | None = None,
) -> str:
    lines = [summary, "", f"Entry-point: {_clean(provenance.entry_point)}"]
    lines.append(f"Who: {_clean(provenance.who)}")
    lines.append(f"Machine: {machine_name()}")
    if provenance.action:
        lines.append(f"Action: {_clean(provenance.action)}")
    lines.append(f"Operation: {operation}")
    # git keeps whole seconds; entries of two folders are merged in this finer order
    lines.append(f"At: {time.time() if at is None else at:.6f}")
    if renamed:
        lines.append(f"Renamed: {json.dumps(list(renamed), ensure_ascii=False)}")
    for change, name in changes:
        lines.append(f"Changed: {change} {json.dumps(name, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


def parse_entry(commit: Any, folder: str) -> Entry:
    message: str = commit.message
    summary, _, body = message.partition("\n")
    fields: dict[str, str] = {}
    changes: list[tuple[str, str]] = []
    renamed = None
    for line in body.splitlines():
        key, sep, value = line.partition(": ")
        if not sep:
            continue
        if key == "Changed":
            kind, _, raw = value.partition(" ")
            with contextlib.suppress(ValueError):
                changes.append((kind, json.loads(raw)))
        elif key == "Renamed":
            with contextlib.suppress(ValueError, TypeError):
                old, new = json.loads(value)
                renamed = (str(old), str(new))
        else:
            fields[key] = value
    try:
        when = datetime.fromtimestamp(_stated_time(commit), UTC)
    except (ValueError, OverflowError, OSError):  # a remote's commit may say any time
        when = EARLIEST
    return Entry(
        rev=str(commit.id),
        time=when,
        entry_point=fields.get("Entry-point", EXTERNAL),
        who=fields.get("Who", commit.author.name),
        action=fields.get("Action", ""),
        summary=summary,
        folder=folder,
        changes=changes,
        renamed=renamed,
        operation=fields.get("Operation", ""),
        machine=_clean(fields.get("Machine", ""), 100) if fields.get("Machine") else "",
    )


_AT = re.compile(r"^At: ([0-9]{1,12}(?:\.[0-9]{1,9})?)$", re.MULTILINE | re.ASCII)


def _stated_time(commit: Any) -> float:
    """The time an entry's message states (``At:``, finer than git's seconds), else its
    commit time. Both are written by whoever made the entry: a sync remote may state any
    time, so this orders a listing, never chooses what a restore brings back."""
    found = _AT.search(commit.message)
    return float(found.group(1)) if found else float(commit.commit_time)


class Record:
    """One entry as stored, parsed only when asked: following one memory through a
    thousand entries looks for its name in each message and parses only the few that
    name it."""

    __slots__ = ("_entry", "commit", "folder", "message", "time")

    def __init__(self, commit: Any, folder: str) -> None:
        self.commit = commit
        self.folder = folder
        self.message: str = commit.message
        self.time: float = _stated_time(commit)
        self._entry: Entry | None = None

    @property
    def rev(self) -> str:
        return str(self.commit.id)

    def may_name(self, name: str) -> bool:
        """False when the entry certainly does not touch ``name`` (names are stored as JSON
        strings in the message)."""
        return json.dumps(name, ensure_ascii=False) in self.message

    def entry(self) -> Entry:
        if self._entry is None:
            self._entry = parse_entry(self.commit, self.folder)
        return self._entry


# -- one folder's repository -----------------------------------------------------------------
class FolderHistory:
    """The repository of one memories folder: a bare git repository (nothing is ever
    written into the memories folder), whose branch ``main`` is the folder's history.

    Memory files are read only through the path gate (:mod:`serena_memory.core.paths`):
    the folder is listed with :func:`paths.scan` and each file read with
    :func:`paths.read_regular_file`, so the history never follows a link the store itself
    would refuse. New trees are built from the branch's tree, changing only the paths an
    operation touched. Outside changes are found by comparing each file's stamp (inode,
    modification time, size) with the stamp it had when last read, kept next to the
    repository: only files whose stamp moved are read and hashed again.

    Writing methods are called only under the folder's lock (see :class:`Recording`), so a
    process is the only writer while it records; readers never need the lock.
    """

    def __init__(self, folder: Folder, repo_path: Path) -> None:
        self.folder = folder
        self.repo_path = repo_path
        self._repo: Any = None
        # rel -> [inode, mtime_ns, size, blob id, racy]: what each file held when read
        self._stamps: dict[str, list[Any]] = {}
        self._synced: str | None = None  # the tree the folder matched when last recorded
        self._stamps_seen: tuple[int, int, int] | None = None  # the stamp file's own stamp
        self._stamps_dirty = False
        self._saved_at = 0.0  # when the stamps were last saved (monotonic)
        self._unsaved = False  # stamps (and the tree they match) not saved yet
        self._catch_ups = 0
        self._recordings = 0  # operations this process recorded in the folder
        self._log_seen: tuple[int, int] | None = None  # stamp log (inode, offset read to)
        self._watch: FolderWatch | None = None
        self._watched_rels: dict[str, str] = {}  # watched folder -> its path in the folder

    # -- repository --------------------------------------------------------------------
    def repo(self, create: bool) -> Any:
        if self._repo is not None:
            return self._repo
        pygit2 = _engine()
        if (self.repo_path / "HEAD").is_file():
            try:
                self._repo = pygit2.Repository(str(self.repo_path))
            except pygit2.GitError as exc:
                raise HistoryError(
                    f"the history at {self.repo_path} can't be opened: {exc}"
                ) from None
        elif create:
            self._repo = self._create(pygit2)
        else:
            return None
        return self._repo

    def _create(self, pygit2: Any) -> Any:
        self.repo_path.parent.mkdir(parents=True, exist_ok=True)
        repo = pygit2.init_repository(str(self.repo_path), bare=True, initial_head="main")
        config = repo.config
        config["core.logAllRefUpdates"] = False
        (self.repo_path / "description").write_text(
            f"History of the memories in {self.folder.root}\n", encoding="utf-8"
        )
        return repo

    def head(self, repo: Any) -> Any:
        ref = repo.references.get(BRANCH)
        return None if ref is None else repo[ref.target]

    # -- the folder, through the path gate ------------------------------------------------
    def _listing(self) -> dict[str, str]:
        """Every memory file of the folder (relative path -> real path), as the store
        lists them: links only into the allowed folders, regular ``*.md`` files only."""
        found = paths.scan(self.folder.gate, skip_top=self.folder.skip_top)
        return {f"{rel}{MEMORY_SUFFIX}": real for rel, real in found.files.items()}

    def _real_path(self, rel: str) -> str | None:
        """The real file of ``rel`` through the gate; None when the gate refuses it."""
        try:
            return paths.resolve(self.folder.gate, rel.split("/"), f"memory file {rel}")
        except OutsidePathError:
            return None

    def _blob(self, repo: Any, rel: str, real: str | None, now_ns: int) -> str | None:
        """The blob id of the file's current bytes (None: it is not there, or not a memory
        file the gate lets through); read and hashed only when its stamp moved."""
        if real is None:
            return None
        try:
            st = os.stat(real)
        except OSError:
            self._forget(rel)
            return None
        if not stat.S_ISREG(st.st_mode):
            self._forget(rel)
            return None
        key = [st.st_ino, st.st_mtime_ns, st.st_size]
        known = self._stamps.get(rel)
        if known is not None and known[:3] == key and not known[4]:
            return str(known[3])
        try:  # the stamp is taken before the read: a change after it moves it again
            data = paths.read_regular_file(real, self.folder.gate.allowed, f"memory file {rel}")
        except FileNotFoundError:
            self._forget(rel)
            return None
        except (OSError, MemoryStoreError):
            return _UNREADABLE
        found = _engine().hash(data)
        if found not in repo:  # an unchanged file's blob is there already: nothing to write
            repo.create_blob(data)
        oid = str(found)
        # a change within the file system's clock tick keeps the stamp: look again later
        racy = now_ns - st.st_mtime_ns < RACY_NS
        self._stamps[rel] = [*key, oid, racy]
        self._stamps_dirty = True
        return oid

    def reset(self) -> None:
        """Forget what this process knows (after a failure: the files and the branch are
        compared afresh next time)."""
        self._repo = None
        self._synced = None
        self._stamps_seen = None
        self._log_seen = None
        self._close_watch()  # events read before the failure are lost: look at everything
        with contextlib.suppress(OSError):  # and the next process too, before its write
            (self.repo_path / stamp_log.CATCH_UP_FILE).touch()

    # -- the folder watch (long-running processes) -----------------------------------------
    def _changed_rels(self) -> set[str] | None:
        """The files changed since the last look as the folder watch reports them (our own
        writes included), or None when everything must be looked at."""
        if self._watch is None:
            return None
        found = self._watch.drain()
        if found is None:
            return None
        rels = set()
        for path in found:
            folder, name = os.path.split(path)
            prefix = self._watched_rels.get(folder)
            if prefix is None:
                return None
            if not name.startswith("."):  # temporary files of atomic writes
                rels.add(prefix + name)
        return rels

    def _keep_watching(self) -> None:
        """After a look at every file: in a process that records again and again, watch
        the folder and its topic folders from now on (new ones included)."""
        global _watches
        from serena_memory.core.watch import FolderWatch, folders_below

        self._catch_ups += 1
        if self._catch_ups < WATCH_AFTER or not sys.platform.startswith("linux"):
            return
        if self._watch is None:
            if _watches >= MAX_WATCHES:
                return
            self._watch = FolderWatch.create()
            if self._watch is None:
                return
            _watches += 1
        root = str(self.folder.root)
        folders = folders_below([root]) if os.path.isdir(root) else []
        self._watched_rels = {
            f: "" if f == root else os.path.relpath(f, root).replace(os.sep, "/") + "/"
            for f in folders
        }
        self._watch.cover(folders)  # a folder new to the watch makes its next look whole

    def _close_watch(self) -> None:
        global _watches
        if self._watch is not None:
            self._watch.close()
            self._watch = None
            _watches -= 1

    def _forget(self, rel: str) -> None:
        if self._stamps.pop(rel, None) is not None:
            self._stamps_dirty = True

    # -- stamps kept next to the repository ------------------------------------------------
    def _stamps_path(self) -> Path:
        return self.repo_path / STAMPS_FILE

    def _load_stamps(self) -> None:
        """Take the stamps another process saved, when the file changed since we looked,
        and the lines of the stamp log that continue them."""
        path = self._stamps_path()
        try:
            st = os.stat(path)
            seen: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            seen = None
        start = 0
        if seen is not None and seen != self._stamps_seen:
            self._read_stamps(path, seen)
        elif self._log_seen is not None:
            log = stamp_log.identity(self.repo_path)
            if log is None or log == self._log_seen:
                return
            if log[0] == self._log_seen[0] and log[1] > self._log_seen[1]:
                start = self._log_seen[1]  # only what was appended since
        self._replay_log(start)

    def _read_stamps(self, path: Path, seen: tuple[int, int, int]) -> None:
        try:
            data = json.loads(path.read_bytes())
            files = data["files"]
            synced = data["tree"]
        except (OSError, ValueError, KeyError, TypeError):
            return
        if isinstance(files, dict) and (synced is None or isinstance(synced, str)):
            self._stamps = {
                rel: value
                for rel, value in files.items()
                if isinstance(value, list) and len(value) == 5
            }
            self._synced = synced
            self._stamps_seen = seen
            self._stamps_dirty = False
            self._unsaved = False  # another process's newer view replaces ours
            _unsaved_histories.discard(self)

    def _replay_log(self, start: int) -> None:
        """Apply the stamp log's lines that continue the tree our stamps describe."""
        log = stamp_log.identity(self.repo_path)
        if log is None:
            self._log_seen = None
            return
        lines, end = stamp_log.read(self.repo_path, start)
        synced = stamp_log.replay(self._stamps, self._synced, lines)
        if synced != self._synced:
            self._synced = synced
            self._stamps_dirty = True  # the next save folds the log into the stamps file
        self._log_seen = (log[0], end)

    def _save_stamps(self, tree: str | None, *, now: bool = False) -> None:
        """The folder matches ``tree`` with these stamps; saved for other processes at most
        every STAMPS_SAVE_SECONDS (and when this process ends)."""
        self._synced = tree
        if not now and time.monotonic() - self._saved_at < STAMPS_SAVE_SECONDS:
            self._unsaved = True
            _unsaved_histories.add(self)
            return
        self._write_stamps()

    def flush(self) -> None:
        """Save stamps not saved yet (at exit: no lock is needed, a stale file only makes
        the next process read more)."""
        if self._unsaved:
            with contextlib.suppress(OSError):
                self._write_stamps(fold=False)

    def _write_stamps(self, fold: bool = True) -> None:
        """Write the stamps file; with ``fold`` (under the lock), the stamp log it now
        holds is removed."""
        path = self._stamps_path()
        tmp = path.with_name(f".{STAMPS_FILE}.{os.getpid()}.tmp")
        data = json.dumps({"tree": self._synced, "files": self._stamps}, separators=(",", ":"))
        tmp.write_text(data, encoding="utf-8")
        os.replace(tmp, path)
        with contextlib.suppress(OSError):
            st = os.stat(path)
            self._stamps_seen = (st.st_ino, st.st_mtime_ns, st.st_size)
        self._stamps_dirty = False
        self._saved_at = time.monotonic()
        self._unsaved = False
        _unsaved_histories.discard(self)
        if fold:
            stamp_log.remove(self.repo_path)
            self._log_seen = None

    # -- recording ---------------------------------------------------------------------
    def catch_up(
        self,
        provenance: Provenance | None = None,
        summary: str = "",
        about_to_change: Iterable[str] = (),
        narrow: bool = False,
    ) -> str | None:
        """Commit whatever changed in the folder since the last entry (an editor, a
        checkout, a change whose recording failed); returns the new revision, if any.

        Every memory file's stamp is compared with the one it had when last read; only
        files whose stamp moved are read again. ``about_to_change`` names the files the
        coming operation will write (they are always looked at). ``narrow``: look at those
        files only (see :meth:`may_narrow`).
        """
        repo = self.repo(create=True)
        head = self.head(repo)
        if narrow and head is not None:
            return self._catch_up_narrow(repo, head, about_to_change)
        self._load_stamps()
        tree = None if head is None else head.tree
        in_sync = tree is not None and self._synced == str(tree.id)
        # read before looking: whatever changes from now on is reported next time
        reported = self._changed_rels()
        now_ns = time.time_ns()
        changes: dict[str, str | None] = {}
        if in_sync and reported is not None:
            # only what the watch reported, and what the operation is about to change
            wanted = {rel for rel in (*reported, *about_to_change) if self.folder.holds(rel)}
            for rel in wanted:
                known = self._stamps.get(rel)
                oid = self._blob(repo, rel, self._real_path(rel), now_ns)
                if oid is _UNREADABLE or (known is not None and known is self._stamps.get(rel)):
                    continue  # same stamp as when the folder matched the branch
                if oid != _tree_blob(tree, rel):
                    changes[rel] = oid
        else:
            changes = self._compare_all(repo, tree, in_sync, about_to_change, now_ns)
            self._keep_watching()
            with contextlib.suppress(OSError):  # every file looked at: nothing left behind
                os.unlink(self.repo_path / stamp_log.CATCH_UP_FILE)
        if not changes:
            if self._stamps_dirty or not in_sync:
                self._save_stamps(None if tree is None else str(tree.id))
            return None
        if head is None:
            summary = (
                summary
                or f"History started with {counted(len(changes), 'memory', 'memories')} as found"
            )
            provenance = provenance or Provenance(EXTERNAL, "as found", "")
        else:
            summary = summary or _external_summary(changes, self.folder)
            provenance = provenance or Provenance(EXTERNAL, "outside serena", "")
        return self._commit(repo, head, changes, provenance, summary, None, _new_operation())

    def may_narrow(self) -> bool:
        """Whether the next operation may look only at the files it changes: the first
        one of this process in the folder (a command), when no recording failed and the
        stamp log is short. A process that records again (a server) compares the folder,
        then watches it, and so records outside edits elsewhere as they come."""
        return (
            self._recordings == 0
            and self._watch is None
            and not os.path.exists(self.repo_path / stamp_log.CATCH_UP_FILE)
            and stamp_log.size(self.repo_path) < stamp_log.LOG_MAX_BYTES
        )

    def _catch_up_narrow(self, repo: Any, head: Any, about_to_change: Iterable[str]) -> str | None:
        """Commit outside edits of the files about to change only (their own bytes, read
        now), so that an overwrite never loses a hand edit; the rest of the folder is left
        for the next look at the whole history."""
        tree = head.tree
        now_ns = time.time_ns()
        changes: dict[str, str | None] = {}
        for rel in sorted(set(about_to_change)):
            if not self.folder.holds(rel):
                continue
            oid = self._blob(repo, rel, self._real_path(rel), now_ns)
            if oid is not _UNREADABLE and oid != _tree_blob(tree, rel):
                changes[rel] = oid
        if not changes:
            return None
        summary = _external_summary(changes, self.folder)
        provenance = Provenance(EXTERNAL, "outside serena", "")
        return self._commit(
            repo, head, changes, provenance, summary, None, _new_operation(), narrow=True
        )

    def _compare_all(
        self,
        repo: Any,
        tree: Any,
        in_sync: bool,
        about_to_change: Iterable[str],
        now_ns: int,
    ) -> dict[str, str | None]:
        """Every memory file against the branch's tree: path -> new blob id (None: gone)."""
        listing = self._listing()
        for rel in about_to_change:
            if rel not in listing and self.folder.holds(rel):
                real = self._real_path(rel)
                if real is not None and os.path.isfile(real):
                    listing[rel] = real
        changes: dict[str, str | None] = {}
        for rel, real in listing.items():
            known = self._stamps.get(rel)
            oid = self._blob(repo, rel, real, now_ns)
            if oid is _UNREADABLE:
                continue
            if in_sync and known is not None and known is self._stamps.get(rel):
                continue  # same stamp as when the folder matched the branch
            if oid != _tree_blob(tree, rel):
                changes[rel] = oid
        gone = list(self._stamps) if in_sync else _tree_paths(repo, tree)
        for rel in gone:
            if rel in listing:
                continue
            self._forget(rel)
            if _tree_blob(tree, rel) is not None:
                changes[rel] = None
        return changes

    def record(
        self,
        rels: Iterable[str],
        provenance: Provenance,
        summary: str,
        renamed: tuple[str, str] | None,
        operation: str,
        merged: tuple[str, ...] = (),
        narrow: bool = False,
    ) -> str | None:
        """Commit the given files as they are now on disk (deleted if gone). ``merged``:
        further parents of the entry (a sync merges another machine's entries in), which
        make it a commit even when the files did not change. ``narrow``: the stamps of
        these files only are noted, in the stamp log."""
        repo = self.repo(create=True)
        if not narrow:
            self._load_stamps()
        head = self.head(repo)
        if head is None and merged:
            # an entry of our own first: a merge's first parent is this machine's history
            start = Provenance(EXTERNAL, "as found", "")
            summary_start = "History started with 0 memories as found"
            self._commit(repo, None, {}, start, summary_start, None, _new_operation())
            head = self.head(repo)
        now_ns = time.time_ns()
        changes: dict[str, str | None] = {}
        for rel in sorted(set(rels)):
            oid = self._blob(repo, rel, self._real_path(rel), now_ns)
            if oid is not _UNREADABLE:
                changes[rel] = oid
        return self._commit(
            repo, head, changes, provenance, summary, renamed, operation, merged, narrow
        )

    def _commit(
        self,
        repo: Any,
        head: Any,
        changes: dict[str, str | None],
        provenance: Provenance,
        summary: str,
        renamed: tuple[str, str] | None,
        operation: str,
        merged: tuple[str, ...] = (),
        narrow: bool = False,
    ) -> str | None:
        pygit2 = _engine()
        tree = None if head is None else head.tree
        listed: list[tuple[str, str]] = []
        effective: dict[str, str | None] = {}
        left_out = sorted(rel for rel in changes if not _recordable(rel))
        if left_out:
            self._left_out(left_out)
        for rel in sorted(changes):
            if rel in left_out:
                continue
            before, now = _tree_blob(tree, rel), changes[rel]
            if before == now:
                continue
            effective[rel] = now
            kind = "A" if before is None else ("D" if now is None else "M")
            listed.append((kind, self.folder.name_of(rel)))
        if not effective and tree is not None and not merged:
            if not narrow:
                self._save_stamps(str(tree.id))  # fresher stamps, nothing to record
            return None
        new_tree = _updated_tree(repo, pygit2, tree, effective) or _empty_tree(repo)
        now_s = int(time.time())
        offset = _utc_offset_minutes(now_s)
        author = pygit2.Signature(
            _clean(provenance.who), f"{_clean(provenance.entry_point)}@serena-memory", now_s, offset
        )
        committer = pygit2.Signature("serena-memory", "history@serena-memory", now_s, offset)
        message = _message(summary, provenance, listed, renamed, operation)
        parents = [] if head is None else [head.id]
        parents += [pygit2.Oid(hex=rev) for rev in merged]
        commit = repo.create_commit(None, author, committer, message, new_tree, parents)
        _remove_stale_lock(self.repo_path / BRANCH)
        repo.references.create(BRANCH, commit, force=True)
        if narrow:
            self._note(None if tree is None else str(tree.id), str(new_tree), changes)
        else:  # after the branch: a crash in between re-compares
            self._save_stamps(str(new_tree))
        return str(commit)

    def _note(self, before: str | None, after: str, rels: Iterable[str]) -> None:
        """Append the stamps of ``rels`` to the stamp log: the tree went from ``before`` to
        ``after``. After the branch: a crash in between only makes the next whole look
        read more files."""
        prior = stamp_log.identity(self.repo_path)
        stamp_log.append(self.repo_path, before, after, {r: self._stamps.get(r) for r in rels})
        if self._synced is not None and self._synced == before:
            self._synced = after  # our stamps described the tree before: they still do
            if prior == self._log_seen or prior is None:
                self._log_seen = stamp_log.identity(self.repo_path)  # our own line, applied

    def _left_out(self, rels: list[str]) -> None:
        """Say once which memory files the history can't hold; the rest is recorded."""
        shown = ", ".join(shown_typed(rel) for rel in rels[:3])
        more = f" and {len(rels) - 3} more" if len(rels) > 3 else ""
        digest = hashlib.sha256("\0".join(rels).encode("utf-8", "surrogateescape")).hexdigest()
        _report(
            f"{self.repo_path}:left-out:{digest}",
            f"the history of the memories in {self.folder.root} leaves out {shown}{more}: a "
            "path longer or deeper than a memory name may be, or not UTF-8, can't be recorded "
            "(rename or move it); every other change is recorded",
        )

    # -- reading -----------------------------------------------------------------------
    def records(self, since: datetime | None = None) -> Iterator[Record]:
        """Newest first, unparsed: reading a message is cheap, parsing it is not."""
        repo = self.repo(create=False)
        if repo is None:
            return
        head = self.head(repo)
        if head is None:
            return
        pygit2 = _engine()
        cutoff = None if since is None else since.timestamp()
        # newest first by commit time (a sync's merges interleave both sides by time)
        for commit in repo.walk(head.id, pygit2.enums.SortMode.NONE):
            if cutoff is not None and commit.commit_time < cutoff - 1:
                return
            record = Record(commit, self.folder.label)
            if cutoff is None or record.time >= cutoff:
                yield record

    def entries(self, since: datetime | None = None) -> Iterator[Entry]:
        """Newest first."""
        for record in self.records(since):
            yield record.entry()

    def content_at(self, rev: str, name: str) -> bytes | None:
        """The bytes of memory ``name`` in revision ``rev`` (None: it did not exist, or the
        entry holds something there that can't be a memory: a link, a huge file)."""
        repo = self.repo(create=False)
        if repo is None:
            return None
        rel = self.folder.rel_of(name)
        if rel is None or not _recordable(rel):
            return None
        commit = repo[rev]
        try:
            entry = commit.tree[rel]
        except KeyError:
            return None
        if not _memory_blob(repo, entry):
            return None
        return bytes(repo[entry.id].data)

    def files_at(self, rev: str) -> dict[str, bytes]:
        """Every memory of revision ``rev`` that this folder may hold: name -> bytes.

        An entry may come from a sync remote, whose trees are anyone's: a path is taken
        only when it is a memory of this folder (no hidden part, no other folder's names,
        such as ``global/`` in a project's history), spelled as the name gate spells it,
        and a regular file no larger than a memory."""
        repo = self.repo(create=False)
        if repo is None:
            return {}
        out = {}
        for rel, item in _walk_entries(repo, repo[rev].tree):
            if self.folder.admits(rel) and _memory_blob(repo, item):
                out[self.folder.name_of(rel)] = bytes(repo[item.id].data)
        return out

    def head_rev(self) -> str | None:
        repo = self.repo(create=False)
        head = None if repo is None else self.head(repo)
        return None if head is None else str(head.id)

    def matching(self, entry_id: str) -> list[str]:
        """The entries of this history whose id starts with ``entry_id`` (lower-case hex).

        Found by walking the branch, never by git's revision parser: only entries of the
        history count (not a blob, nor a fetched remote commit that was never merged)."""
        repo = self.repo(create=False)
        head = None if repo is None else self.head(repo)
        if head is None:
            return []
        if len(entry_id) == 40:  # a whole id (the entry points pass these on): no walk
            found = repo.get(entry_id)
            if found is None or found.type_str != "commit":
                return []
            if found.id == head.id or repo.descendant_of(head.id, found.id):
                return [entry_id]
            return []
        pygit2 = _engine()
        return [
            str(commit.id)
            for commit in repo.walk(head.id, pygit2.enums.SortMode.NONE)
            if str(commit.id).startswith(entry_id)
        ]

    def local_entries(self) -> Iterator[tuple[Any, float]]:
        """The entries this machine recorded, newest first, each with the time it was
        recorded: the branch's first parents (a sync's merge has the local history as its
        first parent and the remote's as the others). Times only go back along that line:
        a time stated later than the entry after it, or than now, counts as that one."""
        repo = self.repo(create=False)
        head = None if repo is None else self.head(repo)
        if head is None:
            return
        pygit2 = _engine()
        walker = repo.walk(head.id, pygit2.enums.SortMode.NONE)
        walker.simplify_first_parent()
        ceiling = time.time()
        for commit in walker:
            recorded = min(_stated_time(commit), ceiling)
            ceiling = recorded
            yield commit, recorded

    def rev_at(self, when: datetime) -> str | None:
        """The entry that was the folder's state at ``when`` on this machine: the newest
        of :meth:`local_entries` recorded at or before it (None: none that old)."""
        moment = when.timestamp()
        for commit, recorded in self.local_entries():
            if recorded <= moment:
                return str(commit.id)
        return None

    def prune(self, keep_days: int) -> int:
        """Drop entries older than ``keep_days`` days: the state at the cut becomes the first
        entry and newer entries are committed again on top of it (same trees, authors,
        times, messages; a sync's merge keeps the remote entries it merged). The cut is
        made on this machine's own line of entries and times (:meth:`local_entries`).
        Returns how many entries were dropped."""
        repo = self.repo(create=False)
        if repo is None or keep_days <= 0:
            return 0
        head = self.head(repo)
        if head is None:
            return 0
        pygit2 = _engine()
        cutoff = time.time() - keep_days * 86400
        line = list(self.local_entries())
        keep = [c for c, recorded in line if recorded >= cutoff]
        older = [(c, recorded) for c, recorded in line if recorded < cutoff]
        if len(older) <= 1:
            return 0
        base, base_time = older[0]  # the newest dropped entry: its tree is the state at the cut
        when = datetime.fromtimestamp(base_time, UTC).strftime("%Y-%m-%d %H:%M UTC")
        start = Provenance(EXTERNAL, "pruned history", "")
        parent = repo.create_commit(
            None,
            base.author,
            base.committer,
            _message(
                f"The memories as they were at {when}", start, [], None, _new_operation(), base_time
            ),
            base.tree.id,
            [],
        )
        for commit in reversed(keep):
            parent = repo.create_commit(
                None,
                commit.author,
                commit.committer,
                commit.message,
                commit.tree.id,
                [parent, *commit.parent_ids[1:]],
            )
        _remove_stale_lock(self.repo_path / BRANCH)
        repo.references.create(BRANCH, parent, force=True)
        _repack(repo, pygit2, self.repo_path, parent)
        self._repo = None
        return len(older) - 1


def _new_operation() -> str:
    return os.urandom(6).hex()


def _utc_offset_minutes(now: int) -> int:
    local = time.localtime(now)
    return (local.tm_gmtoff or 0) // 60


def _external_summary(changes: Iterable[str], folder: Folder) -> str:
    names = sorted(folder.name_of(rel) for rel in changes)
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"Changed outside serena: {shown}"


def _remove_stale_lock(ref_path: Path) -> None:
    """A process killed while updating the branch leaves its ``.lock`` file; the caller
    holds the folder lock, so no live writer can own it."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(str(ref_path) + ".lock")


_UNREADABLE = "(unreadable)"  # a file the gate refuses to read (too large, not regular)


def _tree_blob(tree: Any, rel: str) -> str | None:
    """The blob id at ``rel`` in ``tree`` (None: no such file)."""
    if tree is None or not _recordable(rel):
        return None
    try:
        entry = tree[rel]
    except KeyError:
        return None
    return str(entry.id) if entry.type_str == "blob" else None


def _tree_paths(repo: Any, tree: Any) -> list[str]:
    return [] if tree is None else [rel for rel, _ in _walk_tree(repo, tree, "")]


def _updated_tree(repo: Any, pygit2: Any, tree: Any, changes: dict[str, str | None]) -> Any:
    """The id of ``tree`` with ``changes`` applied (path -> blob id, None: removed),
    rebuilding only the folders on the changed paths; None when nothing is left. Without
    recursion: a folder's tree is written before its parent's, deepest first."""
    builders: dict[str, _Builder] = {}

    def builder(folder: str) -> _Builder:
        found = builders.get(folder)
        if found is None:
            existing = tree if not folder else _subtree(tree, folder)
            found = builders[folder] = _Builder(repo, existing)
        return found

    for rel, oid in changes.items():
        folder, _, leaf = rel.rpartition("/")
        target = builder(folder)
        while folder:  # every folder on the path is rebuilt
            folder = folder.rpartition("/")[0]
            builder(folder)
        if oid is None:
            target.remove(leaf)
        else:
            target.insert(leaf, pygit2.Oid(hex=oid), pygit2.GIT_FILEMODE_BLOB)
    for folder in sorted(builders, key=lambda f: f.count("/"), reverse=True):
        if not folder:
            continue
        parent, _, name = folder.rpartition("/")
        new = builders[folder].write()
        if new is None:
            builders[parent].remove(name)
        else:
            builders[parent].insert(name, new, pygit2.GIT_FILEMODE_TREE)
    return builder("").write()


def _subtree(tree: Any, folder: str) -> Any:
    """The tree at ``folder`` in ``tree`` (None: there is none, or a file is there)."""
    if tree is None:
        return None
    try:
        entry = tree[folder]
    except KeyError:
        return None
    return entry if entry.type_str == "tree" else None


class _Builder:
    """A tree builder that counts its entries (pygit2's does not), so an emptied folder
    is dropped without reading the written tree back."""

    def __init__(self, repo: Any, tree: Any) -> None:
        self.tree = tree
        self.builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
        self.count = len(tree) if tree is not None else 0
        self.added: set[str] = set()
        self.removed: set[str] = set()

    def has(self, name: str) -> bool:
        if name in self.added:
            return True
        return self.tree is not None and name not in self.removed and name in self.tree

    def get(self, name: str) -> Any:
        return self.builder.get(name) if self.has(name) else None

    def insert(self, name: str, oid: Any, mode: int) -> None:
        if not self.has(name):
            self.count += 1
        self.builder.insert(name, oid, mode)
        self.added.add(name)
        self.removed.discard(name)

    def remove(self, name: str) -> None:
        if self.has(name):
            self.count -= 1
            self.builder.remove(name)
        self.added.discard(name)
        self.removed.add(name)

    def write(self) -> Any:
        return self.builder.write() if self.count else None


def _empty_tree(repo: Any) -> Any:
    return repo.TreeBuilder().write()


def _walk_entries(repo: Any, tree: Any) -> Iterator[tuple[str, Any]]:
    """Every blob entry of ``tree`` with its path, without recursion; folders whose path is
    already longer than a memory name can be are not entered (a remote's tree may be
    nested to any depth)."""
    from serena_memory.core.names import MAX_NAME_CHARS

    pending: list[tuple[str, Any]] = [("", tree)]
    while pending:
        prefix, folder = pending.pop()
        for item in folder:
            rel = f"{prefix}{item.name}"
            if item.type_str == "tree":
                if len(rel) < MAX_NAME_CHARS:
                    pending.append((f"{rel}/", repo[item.id]))
            elif item.type_str == "blob":
                yield rel, item


def _walk_tree(repo: Any, tree: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    for rel, item in _walk_entries(repo, tree):
        yield f"{prefix}{rel}", str(item.id)


def _memory_blob(repo: Any, item: Any) -> bool:
    """Whether a tree entry can be a memory's text: a regular file (not a link nor a
    submodule) no larger than a memory, measured from the object's header."""
    pygit2 = _engine()
    if item.filemode not in (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE):
        return False
    return int(repo.odb.read_header(item.id)[1]) <= paths.MAX_MEMORY_BYTES


def _repack(repo: Any, pygit2: Any, repo_path: Path, head: Any) -> None:
    """Keep only what the branch reaches, in one pack: pruned entries really go."""
    builder = pygit2.PackBuilder(repo)
    for commit in repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL):
        builder.add_recur(commit.id)  # a commit with its tree; parents are added one by one
    pack_dir = repo_path / "objects" / "pack"
    before = set(pack_dir.glob("pack-*")) if pack_dir.is_dir() else set()
    builder.write(str(pack_dir))
    after = set(pack_dir.glob("pack-*"))
    written = after - before
    if not written:
        return
    for old in before:
        with contextlib.suppress(OSError):
            old.unlink()
    objects = repo_path / "objects"
    for sub in objects.iterdir():
        if len(sub.name) == 2 and sub.is_dir():
            for loose in sub.iterdir():
                with contextlib.suppress(OSError):
                    loose.unlink()
            with contextlib.suppress(OSError):
                sub.rmdir()


# -- recording one operation -----------------------------------------------------------------
_histories: dict[Path, FolderHistory] = {}
_repository_paths: dict[tuple[Path, Path], Path] = {}  # the folders are real paths already
_unsaved_histories: set[FolderHistory] = set()


@atexit.register
def _flush_stamps() -> None:
    for history in list(_unsaved_histories):
        history.flush()


def folder_history(history_root: Path, folder: Folder) -> FolderHistory:
    """The process-wide handle of a folder's history (its stat cache stays warm)."""
    key = (history_root, folder.root)
    path = _repository_paths.get(key)
    if path is None:
        path = _repository_paths[key] = repository_path(history_root, folder.root)
    found = _histories.get(path)
    if found is None or found.folder != folder:
        found = _histories[path] = FolderHistory(folder, path)
    return found


class Recording:
    """One operation in progress, under the lock of every folder it may touch.

    :meth:`start` commits outside changes first; the store then writes its files and names
    them with :meth:`touched`; :meth:`finish` commits them as one entry per folder. Any
    failure is reported once and never raised: the write matters more than its record.
    """

    def __init__(
        self, histories: list[FolderHistory], provenance: Provenance, summary: str
    ) -> None:
        self.histories = histories
        self.provenance = provenance
        self.summary = summary
        self.names: list[str] = []
        self.renamed: tuple[str, str] | None = None
        self.operation = _new_operation()
        self._healthy: list[FolderHistory] = []
        self._narrow: set[FolderHistory] = set()  # those that note only what is touched

    def start(self, about_to_change: Iterable[str] = ()) -> None:
        names = list(about_to_change)
        for history in self.histories:
            rels = _relative(history.folder, names)
            narrow = bool(names) and history.may_narrow()
            history._recordings += 1
            if self._guard(
                history, lambda h=history, r=rels, n=narrow: h.catch_up(about_to_change=r, narrow=n)
            ):
                self._healthy.append(history)
                if narrow:
                    self._narrow.add(history)

    def touched(self, *names: str) -> None:
        """Name the memories the operation changed (created, rewritten or removed)."""
        self.names.extend(names)

    def finish(self) -> None:
        for history in self._healthy:
            rels = _relative(history.folder, self.names)
            if rels:
                self._guard(
                    history,
                    lambda h=history, r=rels: h.record(
                        r,
                        self.provenance,
                        self.summary,
                        self.renamed,
                        self.operation,
                        narrow=h in self._narrow,
                    ),
                )

    def _guard(self, history: FolderHistory, action: Any) -> bool:
        key = str(history.repo_path)
        try:
            action()
        except Exception as exc:  # never fail the write because of its record
            history.reset()
            _report(
                key,
                f"the history of the memories in {history.folder.root} could not be recorded "
                f"({_describe(exc)}); the memories themselves are saved, and the history "
                f"will catch up at the next change",
            )
            return False
        _clear_report(key)
        return True


def _relative(folder: Folder, names: Iterable[str]) -> list[str]:
    """The files of the memories of ``folder`` among ``names``, relative to it."""
    rels = (folder.rel_of(name) for name in names)
    return [rel for rel in rels if rel is not None and folder.holds(rel)]


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f" at {exc.filename}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    return str(exc) or type(exc).__name__
