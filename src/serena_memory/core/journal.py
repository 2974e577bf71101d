"""The rename journal: a rename's whole plan, written before its first file changes, so
the next operation can finish a rename that a crash interrupted.

A journal sits in the project's memories folder, which comes with the project and so is
untrusted input. Hence:

- it names memories, never paths, and every name passes the name gate
  (:func:`serena_memory.core.names.check_stored_name`); the store maps names to files and
  refuses any whose real location is not a memory file of its scope;
- it has one shape (one memory created, one removed, the others rewritten), checked
  whole before anything is replayed; a journal that fails is never replayed;
- every change carries the digest of the bytes it expects to find and is applied only to
  a file that still holds them (or already holds the result), so a stale journal never
  overwrites a change made since;
- changes to global memories are replayed only when ``$SERENA_HOME`` holds the record the
  rename left there (:func:`record_path`), so a journal that came with a repository can
  never create, change or delete a global memory.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core.errors import InvalidNameError, MemoryStoreError, RenameJournalError
from serena_memory.core.files import atomic_write
from serena_memory.core.paths import MAX_MEMORY_BYTES

JOURNAL_NAME = ".rename-journal.json"
VERSION = 2
# A journal holds the new text of every memory a rename rewrites; far beyond any real
# rename, and small enough that a hostile file can't exhaust memory.
MAX_JOURNAL_BYTES = 256 * 1024 * 1024
RECORDS_FOLDER = ".rename-journals"
# A record is swept once it vouches for nothing: when the journal it was written for is
# gone from its project (and the record is older than RECORD_GRACE, longer than any rename
# takes between writing its record and its journal), or when it is older than
# RECORD_MAX_AGE and names no project (an unreadable one, or an empty one from an older
# version). A record whose project still holds its journal is kept, however old: without
# it that interrupted rename could never be finished.
RECORD_GRACE = 60 * 60
RECORD_MAX_AGE = 7 * 24 * 60 * 60
MAX_RECORD_BYTES = 64 * 1024
_RECORD_NAME = re.compile(r"[0-9a-f]{64}")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Change:
    """One memory's part of a rename: ``expect`` is the digest of the bytes the file must
    hold before (None: it must not exist); ``content`` the text after (None: removed)."""

    memory: str
    expect: str | None
    content: str | None


@dataclass(frozen=True)
class RenameJournal:
    old: str
    new: str
    changes: tuple[Change, ...]

    @property
    def touches_global(self) -> bool:
        return any(N.is_global(change.memory) for change in self.changes)

    def to_bytes(self) -> bytes:
        return json.dumps(
            {
                "version": VERSION,
                "old": self.old,
                "new": self.new,
                "changes": [
                    {"memory": c.memory, "expect": c.expect, "content": c.content}
                    for c in self.changes
                ],
            },
            ensure_ascii=False,
        ).encode("utf-8")


def plan(
    old: str, new: str, old_bytes: bytes, moved_text: str, rewrites: list[Change]
) -> RenameJournal:
    """The journal of moving ``old`` (holding ``old_bytes``) to ``new`` with ``moved_text``,
    plus the reference rewrites of other memories; checked as a replay would check it."""
    changes = (
        Change(new, None, moved_text),
        *rewrites,
        Change(old, digest(old_bytes), None),
    )
    journal = RenameJournal(old, new, changes)
    validate(journal)
    return journal


def validate(journal: RenameJournal) -> None:
    """Raise ValueError saying what is wrong unless the journal has a rename's shape."""
    N.check_stored_name(journal.old)
    N.check_stored_name(journal.new)
    if journal.old == journal.new:
        raise ValueError("it renames a memory to itself")
    seen: set[str] = set()
    roles: list[str] = []
    for number, change in enumerate(journal.changes, 1):
        where = f"change {number}"
        try:
            N.check_stored_name(change.memory)
        except InvalidNameError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if change.memory in seen:
            raise ValueError(f"{where} names '{change.memory}' a second time")
        seen.add(change.memory)
        roles.append(_role(where, change, journal))
        _check_size(where, change)
    if roles.count("removal") != 1 or roles.count("creation") != 1:
        raise ValueError("it does not move exactly one memory")


def _role(where: str, change: Change, journal: RenameJournal) -> str:
    """What ``change`` does in the rename (``removal`` of the old memory, ``creation`` of
    the new one, ``rewrite`` of another's references); ValueError if it may not."""
    if change.content is None:
        if change.memory != journal.old or change.expect is None:
            raise ValueError(f"{where} removes '{change.memory}', not the renamed memory")
        return "removal"
    if change.expect is None:
        if change.memory != journal.new:
            raise ValueError(f"{where} creates '{change.memory}', not the new name")
        return "creation"
    if change.memory in (journal.old, journal.new):
        raise ValueError(f"{where} rewrites '{change.memory}' instead of moving it")
    return "rewrite"


def _check_size(where: str, change: Change) -> None:
    """ValueError unless the text ``change`` writes is Unicode a memory may hold."""
    if change.content is None:
        return
    try:
        size = len(change.content.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError(f"{where} holds text that is not valid Unicode") from None
    if size > MAX_MEMORY_BYTES:
        raise ValueError(
            f"{where} gives '{change.memory}' {size:,} bytes, more than a memory may have"
        )


def parse(data: bytes) -> RenameJournal:
    """A journal from its bytes; ValueError saying what is wrong with anything else."""
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        raise ValueError("it is not valid JSON") from None
    if not isinstance(raw, dict):
        raise ValueError("it is not a JSON object")
    if raw.get("version") != VERSION or type(raw.get("version")) is not int:
        raise ValueError(f"it is not a version {VERSION} journal")
    if set(raw) != {"version", "old", "new", "changes"}:
        raise ValueError("its keys are not version, old, new and changes")
    old, new, entries = raw["old"], raw["new"], raw["changes"]
    if not isinstance(entries, list):
        raise ValueError("its changes are not a list")
    changes = [_change(number, entry) for number, entry in enumerate(entries, 1)]
    if not isinstance(old, str) or not isinstance(new, str):
        raise ValueError("its old or new name is not text")
    journal = RenameJournal(old, new, tuple(changes))
    try:
        validate(journal)
    except InvalidNameError as exc:
        raise ValueError(str(exc)) from None
    return journal


def _change(number: int, entry: object) -> Change:
    """Change ``number`` of a journal from its JSON; ValueError saying what is wrong."""
    if not isinstance(entry, dict) or set(entry) != {"memory", "expect", "content"}:
        raise ValueError(f"change {number} is not {{memory, expect, content}}")
    memory, expect, content = entry["memory"], entry["expect"], entry["content"]
    if not (expect is None or (isinstance(expect, str) and _is_digest(expect))):
        raise ValueError(f"change {number} has an expected digest that is not SHA-256")
    if not (content is None or isinstance(content, str)):
        raise ValueError(f"change {number} has content that is not text")
    if not isinstance(memory, str):
        raise ValueError(f"change {number} names no memory")
    return Change(memory, expect, content)


def _is_digest(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def invalid(path: Path, why: str) -> RenameJournalError:
    """The one error for a journal that is not replayed: the file, why, what to do."""
    return RenameJournalError(
        f"the rename journal {path} was not replayed because {why}; nothing was changed. "
        "It is only left behind by an interrupted rename: if no rename was interrupted in "
        "this project, delete it. Memories can be read and listed meanwhile, but not changed"
    )


class _Unreadable(Exception):
    """Why a file was not read (a link, a folder, too large...)."""


def _read_regular(path: Path | str, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path`` (None when there is none), never
    following a link and never reading a device or a pipe; _Unreadable says why not."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise _Unreadable("it is a link, not a file") from None
        raise _Unreadable(f"it can't be opened ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Unreadable("it is not a regular file")
        if st.st_size > limit:
            raise _Unreadable(f"it is larger than {limit} bytes")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise _Unreadable(f"it can't be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _Unreadable(f"it is larger than {limit} bytes")
    return data


def read(path: Path) -> RenameJournal | None:
    """The journal at ``path`` (None when there is none), or RenameJournalError.

    Never follows a link and never reads a device or a pipe: the file is untrusted.
    """
    try:
        data = _read_regular(path, MAX_JOURNAL_BYTES)
    except _Unreadable as exc:
        raise invalid(path, str(exc)) from None
    if data is None:
        return None
    try:
        return parse(data)
    except ValueError as exc:
        raise invalid(path, str(exc)) from None


def record_path(global_root: Path, memories_dir: Path, journal_bytes: bytes) -> Path:
    """Where ``$SERENA_HOME`` vouches for a journal that changes global memories.

    Named by a digest of the journal and of the real project folder it was written in,
    so it vouches for that journal in that project only.
    """
    return (
        global_root / RECORDS_FOLDER / _record_name(os.path.realpath(memories_dir), journal_bytes)
    )


def _record_name(real_memories_dir: str, journal_bytes: bytes) -> str:
    key = real_memories_dir.encode("utf-8", "surrogateescape") + b"\0"
    return digest(key + journal_bytes)


CHANGED_SINCE = "changed since the rename was planned"
NOT_A_MEMORY = "no longer a memory file the rename may change"
UNREADABLE = "can't be read"
NOT_MOVED = "kept, because its text did not reach the new name"
TAKEN = "the new name was taken meanwhile"


def unfinished(path: Path, why: str) -> RenameJournalError:
    """The one error for a journal whose replay can't finish (its new memory can't be
    written): the file, why, what to do; reading goes on meanwhile."""
    return RenameJournalError(
        f"the rename journal {path} can't be finished because {why}; nothing more was "
        "changed. Fix that and run the command again, or delete the journal to leave that "
        "rename undone (the old memory is still there). Memories can be read and listed "
        "meanwhile, but not changed"
    )


@dataclass
class Replayed:
    removed: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # changed since, or not a memory file
    why: dict[str, str] = field(default_factory=dict)  # each skipped memory: why
    # why the new memory could not be written: then nothing else of the journal was done
    unwritten: str = ""

    def skip(self, memory: str, why: str) -> None:
        self.skipped.append(memory)
        self.why[memory] = why

    def summary(self, journal: RenameJournal) -> str:
        """One line for the person or the agent: the rename finished, and which memories
        it left as they are, and why."""
        text = f"Finished an interrupted rename of '{journal.old}' to '{journal.new}'"
        if not self.skipped:
            return text + "."
        groups: dict[str, list[str]] = {}
        for memory in self.skipped:
            groups.setdefault(self.why.get(memory, CHANGED_SINCE), []).append(memory)
        parts = [
            ", ".join(f"'{m}'" for m in sorted(names)) + f" ({why})"
            for why, names in groups.items()
        ]
        return (
            text + "; left as they are: " + "; ".join(parts) + f". Check what they say about "
            f"mem:{journal.old} and change them by hand if needed."
        )


def replay(
    journal: RenameJournal,
    locate: Callable[[str], tuple[Path, Path] | None],
    read: Callable[[str, Path], bytes | None],
    write: Callable[[Path, bytes], None],
) -> Replayed:
    """Roll the rename forward, idempotently: the new memory, the references, the old
    memory last.

    ``locate`` maps a memory name to (its directory entry, its real file), or None where
    that is no memory file the journal may touch; ``read`` returns a real file's bytes
    (None when absent) or raises for anything that is not a memory file. A change is
    applied only where the file still holds what the journal expects; where it already
    holds the result it is done; anything else (changed since, now a folder or a device)
    is skipped and left as it is. The old memory is removed only once its text lives
    under the new name.
    """
    done = Replayed()
    moved = False
    ordered = sorted(journal.changes, key=lambda c: (c.content is None, c.expect is not None))
    for change in ordered:
        found = _current(change, locate, read, done)
        if found is None:
            continue
        entry, real, current = found
        if change.content is None:
            _remove(change, entry, current, moved, done)
            continue
        in_place = _rewrite(change, change.content.encode("utf-8"), real, current, write, done)
        if done.unwritten:  # the new memory: nothing else may follow it
            return done
        moved = moved or (in_place and change.expect is None)
    return done


def _current(
    change: Change,
    locate: Callable[[str], tuple[Path, Path] | None],
    read: Callable[[str, Path], bytes | None],
    done: Replayed,
) -> tuple[Path, Path, str | None] | None:
    """The memory's directory entry, real file and the digest of what it holds now (None
    when absent); None, and skipped in ``done``, when it is no memory file or unreadable."""
    found = locate(change.memory)
    if found is None:
        done.skip(change.memory, NOT_A_MEMORY)
        return None
    entry, real = found
    try:
        data = read(change.memory, real)
    except (OSError, MemoryStoreError):
        done.skip(change.memory, UNREADABLE)
        return None
    return entry, real, None if data is None else digest(data)


def _remove(change: Change, entry: Path, current: str | None, moved: bool, done: Replayed) -> None:
    """Remove the old memory, only once its text lives under the new name (``moved``) and
    it still holds what the journal expects."""
    if current is None:
        return
    if not moved or current != change.expect:
        done.skip(change.memory, NOT_MOVED if current == change.expect else CHANGED_SINCE)
        return
    try:
        os.unlink(entry)
    except OSError as exc:
        done.skip(change.memory, _not_done("removed", exc))
        return
    done.removed.append(entry)


def _rewrite(
    change: Change,
    new_data: bytes,
    real: Path,
    current: str | None,
    write: Callable[[Path, bytes], None],
    done: Replayed,
) -> bool:
    """Write ``new_data``, the change's text, where the file still holds what the journal
    expects; whether the text is in place now. The new memory not written is
    ``done.unwritten``."""
    if current == digest(new_data):
        return True
    if current != change.expect:
        done.skip(change.memory, TAKEN if change.expect is None else CHANGED_SINCE)
        return False
    try:
        write(real, new_data)
    except (OSError, MemoryStoreError) as exc:
        if change.expect is None:
            done.unwritten = f"memory '{change.memory}' {_not_done('written', exc)}"
        else:
            done.skip(change.memory, _not_done("written", exc))
        return False
    return True


def _not_done(what: str, exc: Exception) -> str:
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"can't be {what} ({why})"


def write_record(path: Path, memories_dir: Path) -> None:
    """Leave the record that vouches for a journal (see :func:`record_path`). It names the
    project's real memories folder, so a sweep can tell when that journal is gone."""
    real = os.path.realpath(memories_dir)
    atomic_write(path, json.dumps({"memories": real}).encode("utf-8", "surrogateescape"))


def _vouches_for(record: str, name: str) -> bool | None:
    """Whether the record at ``record`` vouches for a journal its project still holds;
    None when it names no project (empty, unreadable or not ours)."""
    try:
        raw = json.loads(_read_regular(record, MAX_RECORD_BYTES) or b"")
    except (_Unreadable, ValueError, RecursionError):
        return None
    memories = raw.get("memories") if isinstance(raw, dict) else None
    if not isinstance(memories, str) or not os.path.isabs(memories):
        return None
    try:
        journal = _read_regular(os.path.join(memories, JOURNAL_NAME), MAX_JOURNAL_BYTES)
    except _Unreadable:
        return False  # nothing a replay would accept
    return journal is not None and _record_name(memories, journal) == name


def sweep_records(folder: str, now: float | None = None) -> list[str]:
    """Remove the records in ``folder`` (the real records folder, checked by the path gate)
    that vouch for nothing any more (see RECORD_MAX_AGE); returns their paths. Only our own
    files: regular files named by a digest, small; links, folders and anything else are
    left alone."""
    now = time.time() if now is None else now
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not _RECORD_NAME.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_RECORD_BYTES:
            continue
        age = now - st.st_mtime
        vouches = _vouches_for(entry.path, entry.name)
        stale = age > RECORD_GRACE if vouches is False else vouches is None and age > RECORD_MAX_AGE
        if stale:
            try:
                os.unlink(entry.path)  # the entry itself: never a link's target
            except OSError:
                continue
            removed.append(entry.path)
    return removed
