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
    """The memories unread for ``days`` days or more, since when reads are counted."""

    found: list[MemoryUsage]
    days: int
    since: float
    now: float

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
        lines.append(UNUSED_ADVICE)
        return "\n".join(lines) + "\n"


def unused_memories(store: MemoryStore, days: int) -> UnusedReport:
    """What `check --unused DAYS` reports."""
    from serena_memory.usage.report import store_usage

    usage = store_usage(store, time.time())
    return UnusedReport(usage.unused(days), days, usage.since, usage.now)
