"""Listing and reading memories: what every front-end shows.

Reads take no lock (a write replaces a file whole, so a reader sees the old text or the
new), but they first finish a rename a crash interrupted, so a listing never shows one
half done. A listing reports what it left out and why, instead of failing on one bad
entry.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.errors import (
    MemoryEncodingError,
    MemoryNotFoundError,
    MemoryStoreError,
    OutsidePathError,
)
from serena_memory.core.store_recording import StoreRecording


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


class StoreReading(StoreRecording):
    """Listing, reading and finding memories under the access rules."""

    # -- listing ---------------------------------------------------------------------------
    def iter_all_names(self, include_ignored: bool = False) -> Iterator[str]:
        """Every memory name, project then global, unsorted; ignored ones unless asked."""
        yield from self.scan(include_ignored=include_ignored).files

    def scan(self, include_ignored: bool = False, *, scopes: str = "both") -> paths.MemoryScan:
        """Every memory name with its real file (project, then global), and the entries that
        look like memories but are not read (broken links, links leading outside the allowed
        folders, files that are not regular), each with its reason. Ignored memories are
        left out of both unless asked. ``scopes``: "both", "project" or "global"."""
        self.recover()
        settings = self.settings
        ignored = None if include_ignored else settings.patterns.ignored
        project, global_ = self.gate_scopes(settings)
        files: dict[str, str] = {}
        skipped: list[paths.SkippedFile] = []
        parts = []
        if scopes in ("both", "project"):
            parts.append(("", paths.scan(project, skip_top=frozenset({N.GLOBAL_TOPIC}))))
        if scopes in ("both", "global"):
            parts.append((N.GLOBAL_TOPIC + "/", paths.scan(global_)))
        for prefix, found in parts:
            for rel, real in found.files.items():
                name = prefix + rel
                if ignored and any(p.fullmatch(name) for _, p in ignored):
                    continue
                files[name] = real
            for item in found.skipped:
                name = prefix + item.name if item.name else ""
                if name and ignored and any(p.fullmatch(name) for _, p in ignored):
                    continue
                skipped.append(paths.SkippedFile(name, item.path, item.reason))
        return paths.MemoryScan(files, skipped)

    def list(self, topic: str = "") -> MemoryListing:
        topic = N.normalize_topic(topic)
        settings = self.settings
        found = self.scan()
        writable, read_only = [], []
        for name in found.files:
            if not N.in_topic(name, topic):
                continue
            if self.read_only_pattern(name, settings) is not None:
                read_only.append(name)
            else:
                writable.append(name)
        skipped = [s for s in found.skipped if not topic or not s.name or N.in_topic(s.name, topic)]
        return MemoryListing(sorted(writable), sorted(read_only), skipped, self.journal_problem())

    def exists(self, name: str) -> bool:
        """Whether ``name`` is a memory: a regular file the path gate lets through."""
        try:
            return os.path.isfile(self.real_path_of(name))
        except OutsidePathError:
            return False

    def has_project_memories(self, excluding: Iterable[str] = ()) -> bool:
        skip = set(excluding)
        return any(name not in skip for name in self.scan(scopes="project").files)

    # -- reading ---------------------------------------------------------------------------
    def read(self, name: str) -> str:
        """The text of a memory (see :meth:`load` for its canonical name too)."""
        return self.load(name).content

    def load(self, name: str) -> Memory:
        """The memory behind a raw name (``auth/login.md``, ``mem:core``), under its
        canonical name, so front-ends never normalize names themselves."""
        self.recover()
        settings = self.settings
        name = self._accessible(name, write=False, settings=settings)
        content = self._read_text(name)
        return Memory(name, content, self.read_only_pattern(name, settings) is not None)

    def read_many(
        self, names: Iterable[str], real_paths: dict[str, str] | None = None
    ) -> Iterator[tuple[str, str | None]]:
        """(name, text) for each name, text None when it can't be read (gone, ignored,
        not UTF-8). Same rules as :meth:`read`, with the configuration loaded once: for
        indexes that read every memory. ``real_paths``: the files a :meth:`scan` found,
        read as they are (the read itself still refuses what the gate refuses)."""
        self.recover()
        settings = self.settings
        project, global_ = self.gate_scopes(settings)
        cut = len(N.GLOBAL_TOPIC) + 1
        for raw in names:
            try:
                name = self._accessible(raw, write=False, settings=settings)
                scope, rel = (global_, name[cut:]) if N.is_global(name) else (project, name)
                parts = rel.split("/")
                parts[-1] += N.MEMORY_SUFFIX
                what = f"memory '{name}'"
                real = (real_paths or {}).get(name) or paths.resolve(scope, parts, what)
                data = paths.read_regular_file(real, scope.allowed, what)
                yield raw, decode_memory(name, data)
            except (MemoryStoreError, OSError):
                yield raw, None

    def _read_text(self, name: str) -> str:
        try:
            data = self._read_bytes(name)
        except FileNotFoundError:
            raise MemoryNotFoundError(self._not_found_message(name), name=name) from None
        except IsADirectoryError:
            raise MemoryNotFoundError(
                f"'{name}' is a topic, not a memory; list it with topic '{name}'"
            ) from None
        except OSError as exc:
            raise MemoryStoreError(f"memory '{name}' can't be read: {exc.strerror}") from None
        return decode_memory(name, data)

    def _not_found_message(self, name: str) -> str:
        message = f"memory '{name}' not found"
        try:
            topic = self.real_path_of(name).with_suffix("")
        except OutsidePathError:
            return message
        if topic.is_dir():
            message += f"; '{name}' is a topic, list it to see its memories"
        return message

    def read_bytes(self, name: str) -> bytes:
        """A memory's exact bytes, through the path gate (FileNotFoundError: none)."""
        return self._read_bytes(N.normalize_name(name))


def decode_memory(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemoryEncodingError(
            f"memory '{name}' is not valid UTF-8 (byte {exc.start}: {exc.reason}); "
            "re-save the file as UTF-8"
        ) from None
