"""Listing and reading memories: what every front-end shows.

Reads take no lock (a write replaces a file whole, so a reader sees the old text or the
new), but they first finish a rename a crash interrupted, so a listing never shows one
half done. A listing reports what it left out and why, instead of failing on one bad
entry.

The :class:`Reader` is the store's reading part; the store's ``list``, ``read``, ``load``
and ``read_many`` are its methods.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.changes import acting_provenance
from serena_memory.core.errors import (
    MemoryEncodingError,
    MemoryNotFoundError,
    MemoryStoreError,
    OutsidePathError,
)
from serena_memory.core.layout import Layout, Scopes
from serena_memory.core.reads import ReadEvent

if TYPE_CHECKING:
    from serena_memory.core.recovery import Recovery
    from serena_memory.core.store import MemoryStore, Snapshot


class MemoryListing(NamedTuple):
    memories: list[str]
    read_only_memories: list[str]
    skipped: list[paths.SkippedFile] = []  # look like memories but are not read, and why
    # why the project's rename journal was not replayed, and what to do (changes are
    # refused until it is dealt with); None when there is no such journal
    rename_journal: str | None = None

    @property
    def all(self) -> list[str]:
        return sorted(self.memories + self.read_only_memories)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "memories": self.memories,
            "read_only_memories": self.read_only_memories,
        }
        if self.skipped:
            data["skipped"] = [s.to_dict() for s in self.skipped]
        if self.rename_journal:
            data["rename_journal"] = self.rename_journal
        return data


class Memory(NamedTuple):
    """A memory as read: its canonical name (what front-ends show and link to), its text,
    and whether it is read-only under the configuration."""

    name: str
    content: str
    read_only: bool


class Reader:
    """Listing, reading and finding memories under the access rules."""

    def __init__(self, store: MemoryStore, layout: Layout, recovery: Recovery) -> None:
        self.store = store
        self.layout = layout
        self.recovery = recovery

    # -- listing ---------------------------------------------------------------------------
    def scan_with(
        self, snap: Snapshot, include_ignored: bool = False, scopes: str = "both"
    ) -> paths.MemoryScan:
        """Every memory name with its real file (project, then global), under the settings
        of ``snap``, and the entries that look like memories but are not read (broken
        links, links leading outside the allowed folders, files that are not regular),
        each with its reason, and which names are global ones (as the scan found them:
        no name is looked at again to tell). Ignored memories are left out of both unless
        asked. ``scopes``: "both", "project" or "global"."""
        self.recovery.recover(snap.scopes)
        ignored = None if include_ignored else snap.settings.patterns.ignored
        project, global_ = snap.scopes
        files: dict[str, str] = {}
        skipped: list[paths.SkippedFile] = []
        parts = []
        if scopes in ("both", "project"):
            parts.append(("", paths.scan(project, skip_top=frozenset({N.GLOBAL_TOPIC}))))
        if scopes in ("both", "global"):
            parts.append((N.GLOBAL_TOPIC + "/", paths.scan(global_)))
        of_scope: dict[str, set[str]] = {"": set(), N.GLOBAL_TOPIC + "/": set()}
        for prefix, found in parts:
            for rel, real in found.files.items():
                name = prefix + rel
                if ignored and any(p.fullmatch(name) for _, p in ignored):
                    continue
                files[name] = real
                of_scope[prefix].add(name)
            for item in found.skipped:
                name = prefix + item.name if item.name else ""
                if name and ignored and any(p.fullmatch(name) for _, p in ignored):
                    continue
                skipped.append(paths.SkippedFile(name, item.path, item.reason))
        return paths.MemoryScan(files, skipped, frozenset(of_scope[N.GLOBAL_TOPIC + "/"]))

    def list(self, topic: str = "") -> MemoryListing:
        topic = N.normalize_topic(topic)
        snap = self.store.snapshot()
        found = self.scan_with(snap)
        writable, read_only = [], []
        for name in found.files:
            if not N.in_topic(name, topic):
                continue
            if snap.policy.is_read_only(name):
                read_only.append(name)
            else:
                writable.append(name)
        skipped = [s for s in found.skipped if not topic or not s.name or N.in_topic(s.name, topic)]
        problem = self.recovery.problem(snap.scopes)
        return MemoryListing(sorted(writable), sorted(read_only), skipped, problem)

    def exists(self, name: str) -> bool:
        """Whether ``name`` is a memory: a regular file the path gate lets through."""
        try:
            return os.path.isfile(self.store.real_path_of(name))
        except OutsidePathError:
            return False

    # -- reading ---------------------------------------------------------------------------
    def read(self, name: str, *, announce: bool = True) -> str:
        """The text of a memory (see :meth:`load` for its canonical name too)."""
        return self.load(name, announce=announce).content

    def load(self, name: str, *, announce: bool = True) -> Memory:
        """The memory behind a raw name (``auth/login.md``, ``mem:core``), under its
        canonical name, so front-ends never normalize names themselves.

        The read is announced to the store's read listeners (core/reads.py) with who
        reads; ``announce=False`` for the library's own reads (comparing, tagging)."""
        snap = self.store.snapshot()
        self.recovery.recover(snap.scopes)
        name = snap.policy.check(name, write=False)
        content = self.read_text(name, snap.scopes)
        if announce:
            self.announce_read(name)
        return Memory(name, content, snap.policy.is_read_only(name))

    def announce_read(self, name: str) -> None:
        """Tell the read listeners that memory ``name`` (canonical) was read here, by
        the acting provenance: for a front-end that read it quietly and knows only later
        that a person looked at it (the dashboard's page, not its polls)."""
        store = self.store
        who = acting_provenance() or store.provenance
        store.reads.announce(ReadEvent(name, store.layout.project_root, store.layout.home, who))

    def read_many(
        self, names: Iterable[str], real_paths: dict[str, str] | None = None
    ) -> Iterator[tuple[str, str | None]]:
        """(name, text) for each name, text None when it can't be read (gone, ignored,
        not UTF-8). Same rules as :meth:`read`, with the configuration loaded once: for
        indexes that read every memory. ``real_paths``: the files a :meth:`scan` found,
        read as they are (the read itself still refuses what the gate refuses)."""
        snap = self.store.snapshot()
        self.recovery.recover(snap.scopes)
        for raw in names:
            try:
                name = snap.policy.check(raw, write=False)
                scope, parts = self.layout.locate(name, snap.scopes, listed=True)
                what = f"memory '{name}'"
                real = (real_paths or {}).get(name) or paths.resolve(scope, parts, what)
                data = paths.read_regular_file(real, scope.allowed, what)
                yield raw, decode_memory(name, data)
            except (MemoryStoreError, OSError):
                yield raw, None

    def read_text(self, name: str, scopes: Scopes) -> str:
        """The text of memory ``name`` (normalized), or the error that says why not."""
        try:
            data = self.layout.read_bytes(name, scopes)
        except FileNotFoundError:
            raise MemoryNotFoundError(self.not_found_message(name, scopes), name=name) from None
        except IsADirectoryError:
            raise MemoryNotFoundError(
                f"'{name}' is a topic, not a memory; list it with topic '{name}'"
            ) from None
        except OSError as exc:
            raise MemoryStoreError(f"memory '{name}' can't be read: {exc.strerror}") from None
        return decode_memory(name, data)

    def not_found_message(self, name: str, scopes: Scopes) -> str:
        message = f"memory '{name}' not found"
        try:
            topic = self.layout.real_path_of(name, scopes).with_suffix("")
        except OutsidePathError:
            return message
        if topic.is_dir():
            message += f"; '{name}' is a topic, list it to see its memories"
        return message


def decode_memory(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemoryEncodingError(
            f"memory '{name}' is not valid UTF-8 (byte {exc.start}: {exc.reason}); "
            "re-save the file as UTF-8"
        ) from None
