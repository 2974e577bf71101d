"""The memories nobody read for a number of days: what `check --unused DAYS` reports.

Cheap to import (the counts are read inside :func:`unused_memories`), so that the command
line may name it at start-up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from serena_memory.core.display import counted, escape_line

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.usage.report import MemoryUsage

UNUSED_ADVICE = (
    "A memory nobody reads still costs its name in every listing: delete it, merge it into "
    "a memory that is read, or refer to it (`mem:NAME`) from one where it applies."
)


def local_time(moment: str | None) -> str:
    """A time of the JSON answer (UTC) as a person reads it, in local time."""
    if moment is None:
        return "never"
    return (
        datetime.fromisoformat(moment.replace("Z", "+00:00"))
        .astimezone()
        .strftime("%Y-%m-%d %H:%M")
    )


@dataclass(frozen=True)
class UnusedReport:
    """The memories unread for ``days`` days or more, since when reads are counted, and how
    many reads of the store's memories were counted in all."""

    found: list[MemoryUsage]
    days: int
    since: float
    now: float
    reads: int = 0

    @property
    def counted_days(self) -> int:
        """The whole days reads have been counted on this machine."""
        from serena_memory.usage.report import DAY

        return max(0, int((self.now - self.since) // DAY))

    def counting_note(self) -> str | None:
        """What to know before taking the list as advice to delete: that counting began too
        recently for any memory to be unused yet, or that no read was counted at all (the
        reads may happen where they are not counted). None: the list can be taken as is."""
        from serena_memory.usage.report import DAY, iso

        start = local_time(iso(self.since))
        days = counted(self.days, "day")
        if self.counted_days < self.days:
            first = local_time(iso(self.since + self.days * DAY))
            wait = (
                f"a memory is listed once nobody read it for {days}, so none can be before {first}"
            )
            if self.reads == 0:
                told = f"No read has been counted on this machine yet (counting began {start})"
            else:
                told = (
                    f"Reads have been counted on this machine for "
                    f"{counted(self.counted_days, 'day')} only (since {start})"
                )
            return f"{told}: {wait}."
        if self.reads == 0:
            return (
                f"No read of any memory has been counted on this machine since {start}: reads "
                "on other machines, or of the files themselves, are not counted, so make sure "
                "the agent reads its memories through serena-memory here before deleting any."
            )
        return None

    def listed(self) -> list[dict[str, Any]]:
        """Each unused memory as `usage --json` gives it, with its reads and what its name
        costs the agent's listing (what the dashboard's Check page lists)."""
        from serena_memory.usage.report import listing_chars

        return [{**m.to_dict(self.now), "listing_chars": listing_chars(m.name)} for m in self.found]

    def to_dict(self) -> dict[str, Any]:
        from serena_memory.usage.report import iso

        return {
            "unused": [m.to_dict(self.now) for m in self.found],
            "unused_days": self.days,
            "usage_counted_since": iso(self.since),
        }

    def to_text(self) -> str:
        from serena_memory.usage.report import iso

        start = local_time(iso(self.since))
        days = counted(self.days, "day")
        if not self.found:
            return f"Unused: no memory unread for {days} (reads counted since {start}).\n"
        lines = [
            f"Unused: {counted(len(self.found), 'memory', 'memories')} unread for {days} or "
            f"more (reads counted on this machine since {start}):"
        ]
        for memory in self.found:
            last = (
                "never read"
                if memory.last_read is None
                else "last read " + local_time(iso(memory.last_read))
            )
            unread = counted(memory.days_unread(self.now), "day")
            lines.append(f"  {escape_line(memory.name)}: {last}, unread for {unread}")
        note = self.counting_note()
        lines.append(f"{note} {UNUSED_ADVICE}" if note else UNUSED_ADVICE)
        return "\n".join(lines) + "\n"


def unused_memories(store: MemoryStore, days: int) -> UnusedReport:
    """What `check --unused DAYS` reports."""
    from serena_memory.usage.report import store_usage

    usage = store_usage(store, time.time())
    reads = sum(m.reads for m in usage.memories)
    return UnusedReport(usage.unused(days), days, usage.since, usage.now, reads)
