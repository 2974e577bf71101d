"""Whether the note told at write time (:mod:`serena_memory.integrity.duplicates.write_comparison`)
has anything to compare the text written with, decided before any of the comparison is
loaded (:mod:`serena_memory.integrity.duplicates.write_note` asks it).

The comparison needs either the index a duplicate check left (its cache file), or a
folder small enough to be compared whole (at most :data:`ALWAYS_READ` memories). In a
larger folder no check ran on, the note says nothing: that is known from one look at
whether the cache file is there and a count of at most :data:`ALWAYS_READ` + 1 entries,
so such a write loads none of the duplicate check (its modules take longer to load than
the rest of a write takes to run).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import NamedTuple

from serena_memory.core.store import MemoryStore

ALWAYS_READ = 64
"""Memories a write reads whatever the time (a small project is always compared whole)."""


def cache_path(store: MemoryStore, key: str | None = None) -> Path:
    """The duplicate check's cache of ``store``'s folders (its index among the rest);
    ``key``: their :meth:`~serena_memory.core.layout.Layout.folders_key`, when known."""
    key = key or store.layout.folders_key()
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return store.layout.home / "cache" / "duplicates" / f"{digest[:24]}.sqlite3"


def more_than(store: MemoryStore, limit: int, key: str | None = None) -> bool:
    """Whether the folders hold more than ``limit`` memories, looking at no more entries
    than it takes to tell (a folder of a hundred thousand is not listed); ``key``: as
    :func:`cache_path`'s (it names both folders, resolved)."""
    seen = 0
    stack = (key or store.layout.folders_key()).split("\0")
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.name.endswith(".md"):
                        seen += 1
                        if seen > limit:
                            return True
        except OSError:
            continue
    return False


class Comparable(NamedTuple):
    """What the note may compare the text written with, as far as it was looked at: the
    duplicate check's cache file (None: there is none), and whether the folders are small
    enough to be compared whole (None: not counted yet, since a cache was there)."""

    cache: Path | None
    small: bool | None


def anything_to_compare(store: MemoryStore) -> Comparable | None:
    """What the note told at write time may compare the text written with: a duplicate
    check left its cache (and so perhaps its index), or the folders hold at most
    :data:`ALWAYS_READ` memories. None: the note says nothing, whatever the text. The
    comparison is handed what was found, so it looks at neither again."""
    key = store.layout.folders_key()
    cache = cache_path(store, key)
    if cache.is_file():
        return Comparable(cache, None)
    return None if more_than(store, ALWAYS_READ, key) else Comparable(None, True)
