"""The memory files a check reads: the names of a store with their files, split by the
configured patterns, read through the path gate; what another check finds in them in the
same pass (:class:`ReadAlong`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.paths import SkippedFile, read_memory_texts
from serena_memory.core.store import MemoryStore

MAINTENANCE_NAMES = frozenset({"memory_maintenance", "global/memory_maintenance"})


@dataclass
class ReadAlong:
    """What another check finds in the memories a check reads, in the same pass (in each
    worker when the pass is forked): ``find`` is given the texts read, ``found`` gathers
    its results (the code check's mentions, found in the references check's pass)."""

    find: Callable[[dict[str, str]], dict[str, Any]]
    found: dict[str, Any] = field(default_factory=dict)


class MemoryListingReader:
    """The memory names of a store with their files, split by the configured patterns.

    Files come from the store's gated scan and are read through the path gate
    (:mod:`serena_memory.core.paths`), so a check never reads outside the allowed folders;
    what the gate skips or refuses is reported, never dropped silently."""

    def stamps(self) -> dict[str, tuple[int, int, int]]:
        """{name: (inode, modification time in ns, size)}: what says a file changed (an
        atomic write makes a new inode, so even a same-size write in the same instant)."""
        found = {}
        stat = os.stat
        for name, path in self.paths.items():
            try:
                st = stat(path)
            except OSError:
                continue
            found[name] = (st.st_ino, st.st_mtime_ns, st.st_size)
        return found

    def __init__(self, store: MemoryStore) -> None:
        snap = store.snapshot()  # the settings, the access rules and the scopes, once
        policy = snap.policy
        found = store.scan(include_ignored=True, snap=snap)
        self.skipped: list[SkippedFile] = [
            s for s in found.skipped if not s.name or policy.ignored_pattern(s.name) is None
        ]
        project, global_ = snap.scopes
        self.allowed = {False: project.allowed, True: global_.allowed}
        self.global_names = found.global_names  # which scope's folders each may lie in
        self.ignored, self.read_only = policy.sorted_out(found.files)
        self.paths = {n: real for n, real in found.files.items() if n not in self.ignored}
        self.names = sorted(self.paths)

    def read(self, names: Iterable[str]) -> tuple[dict[str, str], list[str], list[SkippedFile]]:
        """(texts, names that are not valid UTF-8, files the gate refused to read); a file
        gone since listing is left out."""
        texts: dict[str, str] = {}
        unreadable: list[str] = []
        refused: list[SkippedFile] = []
        allowed, global_names = self.allowed, self.global_names
        wanted = [(n, self.paths[n], allowed[n in global_names]) for n in names]
        for name, found in read_memory_texts(wanted).items():  # the path gate, asked once
            if isinstance(found, str):
                texts[name] = found
            elif isinstance(found, UnicodeDecodeError):
                unreadable.append(name)
            elif not isinstance(found, FileNotFoundError):
                refused.append(SkippedFile(name, self.paths[name], describe_refusal(found)))
        return texts, unreadable, refused


def describe_refusal(exc: BaseException) -> str:
    if isinstance(exc, MemoryStoreError):
        return str(exc)
    assert isinstance(exc, OSError)
    return f"can't be read: {exc.strerror or exc}"
