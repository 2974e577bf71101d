"""What the memory files are on disk now, for the search index to compare with what it
holds: each listed memory's stamp (mtime and size) and the real file the store's path gate
let through."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore


def current_stamps(store: MemoryStore) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every memory the store lists (ignored ones are not listed), each
    taken from the real file the store's path gate let through."""
    return sweep(store)[0]


def sweep(store: MemoryStore) -> tuple[dict[str, tuple[int, int]], dict[str, str]]:
    """The stamps, and the real file of each memory."""
    stamps: dict[str, tuple[int, int]] = {}
    files = store.scan().files
    stat = os.stat
    for name, real in files.items():
        try:
            st = stat(real)
        except OSError:
            continue
        stamps[name] = (st.st_mtime_ns, st.st_size)
    return stamps, files
