"""What each memory's front matter said, remembered from one command to the next.

`check` (its pre-commit hook included) and listings need every memory's summary and
lifecycle; reading thousands of files through the path gate for a few lines each would
double a check that its own cache keeps quick. What a file's front matter says follows from
its bytes, so it is kept in ``$SERENA_HOME/cache/front-matter.json`` per file, under the
file's stamp (inode, modification time, size): an unchanged memory costs a ``stat``.

The cache is the person's own and trusted no further than its shape: anything unexpected in
it (not JSON, too big, a link, wrong types) is a miss, and a cache that can't be written is
no error. A process keeps what it loaded, so a server reads the file once.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from serena_memory.core.files import read_own_file, replace_cache_file
from serena_memory.core.process import PROCESS

CACHE_NAME = "front-matter.json"
MAX_CACHE_BYTES = 64 * 2**20
MAX_FILES = 200_000  # more is not one person's memories: start afresh
_FORMAT = 1
Stamp = tuple[int, int, int]
Front = tuple[str, str, str, str]  # summary, status, superseded_by, stale_after ('': none)
"""What a block says that listings and checks use; None for a memory without front matter."""


class _Loaded(dict[str, dict[str, tuple[Stamp, Front | None]]]):
    """Each cache file read in this process, by its key."""


_lock = threading.Lock()


def cache_path(home: Path) -> Path:
    return home / "cache" / CACHE_NAME


def stamp_of(real: str) -> Stamp | None:
    try:
        st = os.stat(real)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def held(home: Path | None) -> dict[str, tuple[Stamp, Front | None]]:
    """What is kept for ``home`` (loaded once per process; {} without a home)."""
    key = str(home)
    with _lock:
        loaded = PROCESS.owned(_Loaded)
        if key not in loaded:
            loaded[key] = _read(home) if home is not None else {}
        return loaded[key]


def keep(
    home: Path | None, found: dict[str, tuple[Stamp, Front | None]], write: bool = True
) -> None:
    """Add ``found`` (real path -> stamp and front) to what is kept, and with ``write``
    write it down for the next command (a server, which keeps it in memory, does not)."""
    if not found:
        return
    entries = held(home)
    with _lock:
        if len(entries) + len(found) > MAX_FILES:
            entries.clear()
        entries.update(found)
        if not write:
            return
        text = json.dumps(
            {"format": _FORMAT, "files": {p: [*s, *(f or ())] for p, (s, f) in entries.items()}},
            ensure_ascii=False,
        ).encode()
    if home is not None and len(text) <= MAX_CACHE_BYTES:
        replace_cache_file(cache_path(home), text, ".front-")


def _read(home: Path) -> dict[str, tuple[Stamp, Front | None]]:
    raw = read_own_file(cache_path(home), MAX_CACHE_BYTES)
    try:
        data = json.loads(raw) if raw else {}
    except (ValueError, RecursionError):
        return {}
    files = data.get("files") if isinstance(data, dict) and data.get("format") == _FORMAT else {}
    found: dict[str, tuple[Stamp, Front | None]] = {}
    for path, row in (files if isinstance(files, dict) else {}).items():
        parsed = _row(row)
        if isinstance(path, str) and parsed is not None:
            found[path] = parsed
    return found


def _row(row: Any) -> tuple[Stamp, Front | None] | None:
    """One file's stamp and front from its JSON row; None when it has another shape."""
    if not isinstance(row, list) or len(row) not in (3, 7):
        return None
    if not all(isinstance(n, int) for n in row[:3]) or not all(isinstance(t, str) for t in row[3:]):
        return None
    stamp = (row[0], row[1], row[2])
    return stamp, (row[3], row[4], row[5], row[6]) if len(row) == 7 else None
