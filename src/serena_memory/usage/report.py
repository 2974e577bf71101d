"""Each memory's reads as counted on this machine, the memories nobody reads, and what a
memory's name costs the agent's listing whether it is read or not.

Only the memories that exist are reported: a name in a usage file that is no memory of
the store (deleted, renamed, or never one) is not shown, so nothing a usage file says
reaches a report unchecked. A memory's *unread since* is its last read, else the start of
counting; a memory changed after that is given the time of its change (it is new text
nobody had the chance to read yet).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from serena_memory.core import names as N
from serena_memory.usage import log

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

DAY = 86400


def listing_chars(name: str) -> int:
    """The characters memory ``name`` adds to a `list_memories` answer that lists it:
    the name as the answer's JSON spells it, and the separator before the next."""
    return len(json.dumps(name, ensure_ascii=False)) + len(", ")


def iso(moment: float | None) -> str | None:
    """A time as the JSON answers give it (UTC, to the second), None for none."""
    if moment is None:
        return None
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class MemoryUsage:
    """One memory's reads: how many, the last, by which clients (reads each)."""

    name: str
    reads: int
    last_read: float | None
    clients: dict[str, int]
    unread_since: float

    def days_unread(self, now: float) -> int:
        return max(0, int((now - self.unread_since) // DAY))

    def to_dict(self, now: float) -> dict[str, Any]:
        return {
            "name": self.name,
            "reads": self.reads,
            "last_read": iso(self.last_read),
            "clients": dict(sorted(self.clients.items(), key=lambda kv: (-kv[1], kv[0]))),
            "days_unread": self.days_unread(now),
        }


@dataclass(frozen=True)
class StoreUsage:
    """Every memory of a store with its reads, and since when reads are counted."""

    memories: list[MemoryUsage]
    since: float  # the earliest start of counting of the files read
    now: float

    @property
    def never_read(self) -> list[str]:
        return [m.name for m in self.memories if m.reads == 0]

    def unused(self, days: float) -> list[MemoryUsage]:
        """The memories unread for ``days`` days or more, the longest unread first."""
        cut = self.now - days * DAY
        found = [m for m in self.memories if m.unread_since <= cut]
        return sorted(found, key=lambda m: (m.unread_since, m.name))


def store_usage(store: MemoryStore, now: float | None = None) -> StoreUsage:
    """The reads of every memory of ``store`` (project and global, ignored ones left out)."""
    now = time.time() if now is None else now
    found = store.scan().files
    project = log.counts(store.layout.home, log.project_file(str(store.layout.project_root)), now)
    has_global = any(N.is_global(name) for name in found)
    global_ = log.counts(store.layout.home, log.GLOBAL_FILE, now) if has_global else log.Counts()
    memories = []
    for name in sorted(found):
        kept = global_ if N.is_global(name) else project
        since = kept.since if kept.since is not None else now
        counted = kept.memories.get(name)
        try:
            changed = os.stat(found[name]).st_mtime
        except OSError:
            changed = now
        if counted is None:
            memories.append(MemoryUsage(name, 0, None, {}, max(since, changed)))
        else:
            last = float(counted.last_read)
            memories.append(
                MemoryUsage(name, counted.reads, last, dict(counted.clients), max(last, changed))
            )
    starts = [c.since for c in (project, global_) if c.since is not None]
    return StoreUsage(memories, min(starts, default=now), now)


def memory_usage(store: MemoryStore, name: str, now: float | None = None) -> dict[str, Any]:
    """One memory's reads (a canonical name of the store): what its dashboard page shows."""
    now = time.time() if now is None else now
    file = (
        log.GLOBAL_FILE if N.is_global(name) else log.project_file(str(store.layout.project_root))
    )
    kept = log.counts(store.layout.home, file, now)
    counted = kept.memories.get(name)
    since = iso(kept.since if kept.since is not None else now)
    if counted is None:
        return {"reads": 0, "last_read": None, "clients": {}, "counted_since": since}
    clients = dict(sorted(counted.clients.items(), key=lambda kv: (-kv[1], kv[0])))
    return {
        "reads": counted.reads,
        "last_read": iso(counted.last_read),
        "clients": clients,
        "counted_since": since,
    }
