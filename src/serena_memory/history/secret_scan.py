"""Secrets already in memories and in their history: what `serena memories check
--secrets` reports, with where each one is, so it can be replaced, rotated and purged."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serena_memory.core import secrets
from serena_memory.core.changes import Folder, clean
from serena_memory.core.paths import MAX_MEMORY_BYTES
from serena_memory.core.store import MemoryStore
from serena_memory.history.entries import Record, message_of
from serena_memory.history.location import repository_path
from serena_memory.history.objects import engine
from serena_memory.history.registry import folder_history

MESSAGE = "the message of an entry"  # where a secret is when it is in no file


@dataclass(frozen=True)
class SecretSeen:
    """One secret: in a memory now (``entry`` empty) or in a history entry."""

    memory: str
    line: int
    kind: str
    entry: str = ""  # the history entry id (short) that holds it
    repository: str = ""  # the history repository that holds that entry

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
    names = sorted(store.iter_all_names())
    found = []
    for name, text in store.read_many(names):
        if text is None:
            continue
        for finding in secrets.scan(text):
            found.append(SecretSeen(name, finding.line, finding.kind))
    return found


def in_history(store: MemoryStore) -> list[SecretSeen]:
    """Secrets in any version the history holds (each distinct text scanned once); one
    finding per memory, line and kind, at the oldest entry that holds it."""
    root = store.history_root()
    seen: dict[tuple[str, int, str], SecretSeen] = {}
    scanned: dict[str, list[secrets.Finding]] = {}
    for spec in store.history_folders():
        history = folder_history(root, spec)
        repository = str(repository_path(root, spec.root))
        for record in history.records():
            for name, data in history.files_at(record.rev).items():
                key = hashlib.sha256(data).hexdigest()
                if key not in scanned:
                    scanned[key] = secrets.scan(data.decode("utf-8", "replace"))
                for finding in scanned[key]:
                    # newest first: a later (older) entry replaces the one kept
                    seen[(name, finding.line, finding.kind)] = SecretSeen(
                        name, finding.line, finding.kind, record.entry().short, repository
                    )
    return sorted(seen.values(), key=lambda s: (s.memory, s.line))


def in_incoming(repo: Any, folder: Folder, head: Any, theirs: Any) -> list[SecretSeen]:
    """Secrets in the file versions of the entries a sync would merge in: those of
    ``theirs`` (another machine's branch) that the branch at ``head`` lacks. A file the
    folder skips (no memory's name, hidden) is scanned too: the merge entry would make it
    part of this history all the same. Each version is scanned once; one finding per
    file, line and kind, at the oldest entry."""
    pygit2 = engine()
    walker = repo.walk(theirs.id, pygit2.enums.SortMode.TOPOLOGICAL)
    if head is not None:
        walker.hide(head.id)
    empty = repo[repo.TreeBuilder().write()]
    regular = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
    scanned: set[str] = set()
    seen: dict[tuple[str, int, str], SecretSeen] = {}
    for commit in walker:  # newest first: an older entry replaces the one kept
        _in_message(commit, folder.label, seen)
        before = commit.parents[0].tree if commit.parents else empty
        for delta in repo.diff(before, commit.tree).deltas:
            item = delta.new_file
            key = str(item.id)
            if delta.status_char() == "D" or key in scanned:
                continue
            scanned.add(key)
            if item.mode not in regular or repo.odb.read_header(item.id)[1] > MAX_MEMORY_BYTES:
                continue  # never a memory's text (history/objects.py memory_blob)
            name = _named(folder, item)
            for finding in secrets.scan(repo[item.id].data.decode("utf-8", "replace")):
                short = Record(commit, folder.label).entry().short
                seen[(name, finding.line, finding.kind)] = SecretSeen(
                    name, finding.line, finding.kind, short
                )
    return sorted(seen.values(), key=lambda s: (s.memory, s.line))


def _in_message(commit: Any, label: str, seen: dict[tuple[str, int, str], SecretSeen]) -> None:
    """Secrets in an incoming entry's message, which the history keeps and lists too."""
    found = secrets.scan(message_of(commit))
    if found:
        short = Record(commit, label).entry().short
        for finding in found:
            key = (MESSAGE, finding.line, finding.kind)
            seen[key] = SecretSeen(MESSAGE, finding.line, finding.kind, short)


def _named(folder: Folder, item: Any) -> str:
    """A file of a remote's entry as a sync names it: the memory's name, else its path,
    one printable line (a remote may spell a path in any bytes)."""
    if folder.admits(item.path):
        return folder.name_of(item.path)
    return clean(bytes(item.raw_path).decode("utf-8", "replace"), 200)


def repositories(found: list[SecretSeen]) -> list[Path]:
    return sorted({Path(s.repository) for s in found if s.repository})
