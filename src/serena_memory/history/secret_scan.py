"""Secrets already in memories and in their history: what `serena memories check
--secrets` reports, with where each one is, so it can be replaced, rotated and purged."""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from serena_memory.core import secrets
from serena_memory.core.changes import Folder, clean
from serena_memory.core.files import open_regular, read_own_file
from serena_memory.core.paths import MAX_MEMORY_BYTES
from serena_memory.core.store import MemoryStore
from serena_memory.history.entries import Record, message_of
from serena_memory.history.location import history_folders, history_root, repository_path
from serena_memory.history.objects import engine
from serena_memory.history.registry import folder_history

MESSAGE = "the message of an entry"  # where a secret is when it is in no file
NAMED = "a file's name"  # a secret in a name: the name itself is never repeated


@dataclass(frozen=True)
class SecretSeen:
    """One secret: in a memory now (``entry`` empty) or in a history entry."""

    memory: str
    line: int
    kind: str
    entry: str = ""  # the history entry id (short) that holds it
    repository: str = ""  # the history repository that holds that entry

    def where(self) -> str:
        """The line, or ``name`` for a secret in the memory's name (shown masked)."""
        return "name" if self.line == secrets.NAME_LINE else str(self.line)

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory,
            "line": self.line,
            "kind": self.kind,
            "entry": self.entry,
            "repository": self.repository,
        }


def in_memories(store: MemoryStore) -> list[SecretSeen]:
    """Secrets in the memories as they are now."""
    names = sorted(store.scan().files)
    found = []
    for name, text in store.read_many(names):
        if text is None:
            continue
        shown = secrets.masked_name(name)
        for finding in secrets.scan_name(name) + secrets.scan(text):
            found.append(SecretSeen(shown, finding.line, finding.kind))
    return found


def in_history(store: MemoryStore) -> list[SecretSeen]:
    """Secrets in any version the history holds (each distinct text scanned once); one
    finding per memory, line and kind, at the oldest entry that holds it."""
    root = history_root(store)
    seen: dict[tuple[str, int, str], SecretSeen] = {}
    scanned: dict[str, list[secrets.Finding]] = {}
    for spec in history_folders(store):
        history = folder_history(root, spec)
        repository = str(repository_path(root, spec.root))
        for record in history.records():
            for finding in secrets.scan(record.message):  # a name it wrote, a pasted text
                seen[(MESSAGE, finding.line, finding.kind)] = SecretSeen(
                    MESSAGE, finding.line, finding.kind, record.entry().short, repository
                )
            for name, data in history.files_at(record.rev).items():
                key = hashlib.sha256(data).hexdigest()
                if key not in scanned:
                    scanned[key] = secrets.scan(data.decode("utf-8", "replace"))
                if name not in scanned:
                    scanned[name] = secrets.scan_name(name)
                shown = secrets.masked_name(name) if scanned[name] else name
                for finding in scanned[name] + scanned[key]:
                    # newest first: a later (older) entry replaces the one kept
                    seen[(shown, finding.line, finding.kind)] = SecretSeen(
                        shown, finding.line, finding.kind, record.entry().short, repository
                    )
    return sorted(seen.values(), key=lambda s: (s.memory, s.line))


SCANNED_FILE = "serena-scanned-versions"  # in a history repository: versions found clean
MAX_SCANNED_BYTES = 64 * 1024 * 1024
"""A list of versions found clean larger than this is not read (they are scanned again)."""
INCOMING_SCAN_BYTES = 64 * 2**20  # what one sync scans of a remote's new versions, at most
INCOMING_SCAN_SECONDS = 60.0


@dataclass
class IncomingScan:
    """What the scan of a remote's new entries found, and why it stopped short, if it did
    (``unfinished``: one sentence; nothing may then be merged)."""

    found: list[SecretSeen]
    unfinished: str = ""
    # the versions (git object ids) known to hold no secret, names included: this
    # branch's, and those the scan checked (now or in an earlier sync)
    clean: frozenset[str] = frozenset()


class _Budget:
    """The bound of one scan: bytes read, and seconds of CPU time (a loaded machine does
    not stop it sooner)."""

    def __init__(self, max_bytes: int, max_seconds: float) -> None:
        self.max_bytes, self.max_seconds = max_bytes, max_seconds
        self.used = 0
        self.deadline = time.process_time() + max_seconds  # CPU: whatever else runs

    def spend(self, size: int) -> str:
        """'' while the scan may go on (the first version always), else the words that say
        why it stopped."""
        if self.used and self.used + size > self.max_bytes:
            return f"more than {_size(self.max_bytes)} of new versions"
        self.used += size
        if time.process_time() > self.deadline:
            return f"more new versions than {self.max_seconds:.0f} s can check"
        return ""


def in_incoming(
    repo: Any,
    folder: Folder,
    head: Any,
    theirs: Any,
    *,
    max_bytes: int | None = None,
    max_seconds: float | None = None,
) -> IncomingScan:
    """Secrets in the file versions (and names, and messages) of the entries a sync would
    merge in: those of ``theirs`` (another machine's branch) that the branch at ``head``
    lacks. A file the folder skips (no memory's name, hidden) is scanned too: the merge
    entry would make it part of this history all the same. One finding per file, line
    and kind, at the oldest entry.

    Only what is new is scanned: a version this branch's memories hold now, one a merge
    entry takes from either parent, and an entry or version an earlier sync found clean
    (listed in the repository's :data:`SCANNED_FILE`) are not scanned again; and the scan
    stops past ``max_bytes`` or ``max_seconds`` (default: :data:`INCOMING_SCAN_BYTES`,
    :data:`INCOMING_SCAN_SECONDS`); what was checked so far is remembered, so the next
    sync goes on from there."""
    pygit2 = engine()
    walker = repo.walk(theirs.id, pygit2.enums.SortMode.TOPOLOGICAL)
    if head is not None:
        walker.hide(head.id)
    scan = _Scan(repo, folder, _known(repo, head))
    budget = _Budget(
        INCOMING_SCAN_BYTES if max_bytes is None else max_bytes,
        INCOMING_SCAN_SECONDS if max_seconds is None else max_seconds,
    )
    try:
        for commit in walker:  # newest first: an older entry replaces the one kept
            stopped = budget.spend(0) or scan.entry(commit, budget)
            if stopped:
                return IncomingScan(_sorted(scan.seen), _unfinished(stopped))
    finally:
        _remember(repo, scan.clean)
    return IncomingScan(_sorted(scan.seen), clean=frozenset(scan.known.difference(scan.dirty)))


class _Scan:
    """The state of one scan of incoming entries."""

    def __init__(self, repo: Any, folder: Folder, known: set[str]) -> None:
        self.repo, self.folder, self.known = repo, folder, known
        self.clean: list[str] = []  # entries and versions found clean, to remember
        self.dirty: set[str] = set()  # versions found holding a secret
        self.seen: dict[tuple[str, int, str], SecretSeen] = {}
        self.names: dict[bytes, list[secrets.Finding]] = {}  # a path repeats: scanned once

    def entry(self, commit: Any, budget: _Budget) -> str:
        """Scan one entry: its message, the names and versions it brings; '' unless the
        budget stopped it (then the words that say why)."""
        if str(commit.id) in self.known:
            return ""  # an earlier sync found all of it clean
        found = _in_message(commit, self.folder.label, self.seen)
        pygit2 = engine()
        regular = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
        for item in _new_files(self.repo, commit):
            found = self._name(commit, item) or found
            key = str(item.id)
            if key in self.known:
                found = found or key in self.dirty
                continue
            self.known.add(key)
            if item.mode not in regular or self.repo.odb.read_header(item.id)[1] > MAX_MEMORY_BYTES:
                continue  # never a memory's text (history/objects.py memory_blob)
            data = self.repo[item.id].data
            stopped = budget.spend(len(data))
            if stopped:
                return stopped
            if _in_file(commit, self.folder, item, data, self.seen):
                self.dirty.add(key)
                found = True
            else:
                self.clean.append(key)
        if not found:
            self.clean.append(str(commit.id))
        return ""

    def _name(self, commit: Any, item: Any) -> bool:
        """Scan the name of an incoming file (a name is committed and synced too)."""
        raw = bytes(item.raw_path)
        if raw not in self.names:
            self.names[raw] = secrets.scan_name(raw.decode("utf-8", "replace"))
        for finding in self.names[raw]:
            short = Record(commit, self.folder.label).entry().short
            self.seen[(NAMED, finding.line, finding.kind)] = SecretSeen(
                NAMED, finding.line, finding.kind, short
            )
        return bool(self.names[raw])


def _known(repo: Any, head: Any) -> set[str]:
    """The versions this branch holds now, and those an earlier sync found clean."""
    known: set[str] = set()
    if head is not None:
        stack = [head.tree]
        while stack:
            for entry in stack.pop():
                if entry.type_str == "tree":
                    stack.append(entry)
                else:
                    known.add(str(entry.id))
    raw = read_own_file(Path(repo.path) / SCANNED_FILE, MAX_SCANNED_BYTES) or b""
    listed = raw.decode("ascii", "replace").split()
    if listed[:1] == [_gate_version()]:  # found clean by this gate, not an earlier one
        known.update(v for v in listed[1:] if len(v) == 40)
    return known


@cache
def _gate_version() -> str:
    """The secret gate's version: a list made by another gate is not trusted."""
    # the gate's rules are in core's secret modules: a change to any makes another gate
    modules = sorted(Path(secrets.__file__ or "").parent.glob("secret*.py"))
    rules = b"".join(path.read_bytes() for path in modules)
    return "gate-" + hashlib.sha256(rules).hexdigest()[:16]


def _new_files(repo: Any, commit: Any) -> list[Any]:
    """The files (path and version) ``commit`` adds or changes that none of its parents
    has: a merge entry brings nothing of its own but what its author changed in it."""
    pygit2 = engine()
    parents = commit.parents or [repo[repo.TreeBuilder().write()]]
    new: dict[tuple[str, str], Any] = {}
    for i, parent in enumerate(parents):
        tree = parent.tree if isinstance(parent, pygit2.Commit) else parent
        found = {
            (d.new_file.path, str(d.new_file.id)): d.new_file
            for d in repo.diff(tree, commit.tree).deltas
            if d.status_char() != "D"
        }
        new = found if i == 0 else {k: v for k, v in new.items() if k in found}
        if not new:
            break
    return list(new.values())


def _in_file(
    commit: Any,
    folder: Folder,
    item: Any,
    data: bytes,
    seen: dict[tuple[str, int, str], SecretSeen],
) -> bool:
    """Scan one incoming file version; whether anything was found."""
    found = secrets.scan(data.decode("utf-8", "replace"))
    if not found:
        return False
    short = Record(commit, folder.label).entry().short
    named = secrets.scan_name(bytes(item.raw_path).decode("utf-8", "replace"))
    name = NAMED if named else _named(folder, item)
    for finding in found:
        seen[(name, finding.line, finding.kind)] = SecretSeen(
            name, finding.line, finding.kind, short
        )
    return True


def _size(count: int) -> str:
    return f"{count // 2**20} MB" if count >= 2**20 else f"{count:,} bytes"


def _unfinished(why: str) -> str:
    return (
        f"its new entries hold {why} to check for secrets in one sync; the versions checked "
        "so far are remembered, so sync again to go on"
    )


def _remember(repo: Any, clean: list[str]) -> None:
    """Add the versions found clean to :data:`SCANNED_FILE` (best effort: a version not
    listed is only scanned again)."""
    if not clean:
        return
    path = Path(repo.path) / SCANNED_FILE
    with contextlib.suppress(OSError):
        listed = read_own_file(path, MAX_SCANNED_BYTES) or b""
        same = listed.split(b"\n", 1)[0].decode("ascii", "replace") == _gate_version()
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if same else os.O_TRUNC)
        fd = open_regular(path, flags)  # a FIFO or link there: nothing kept, no wait
        if fd is None:
            return
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write("" if same else _gate_version() + "\n")
            out.write("".join(f"{v}\n" for v in clean))


def _sorted(seen: dict[tuple[str, int, str], SecretSeen]) -> list[SecretSeen]:
    return sorted(seen.values(), key=lambda s: (s.memory, s.line))


def _in_message(commit: Any, label: str, seen: dict[tuple[str, int, str], SecretSeen]) -> bool:
    """Secrets in an incoming entry's message, which the history keeps and lists too;
    whether there are any."""
    found = secrets.scan(message_of(commit))
    if found:
        short = Record(commit, label).entry().short
        for finding in found:
            key = (MESSAGE, finding.line, finding.kind)
            seen[key] = SecretSeen(MESSAGE, finding.line, finding.kind, short)
    return bool(found)


def _named(folder: Folder, item: Any) -> str:
    """A file of a remote's entry as a sync names it: the memory's name, else its path,
    one printable line (a remote may spell a path in any bytes)."""
    if folder.admits(item.path):
        return folder.name_of(item.path)
    return clean(bytes(item.raw_path).decode("utf-8", "replace"), 200)


def repositories(found: list[SecretSeen]) -> list[Path]:
    return sorted({Path(s.repository) for s in found if s.repository})
