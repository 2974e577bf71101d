"""`serena memories usage`, and the unused memories `check --unused DAYS` reports.

Reads are counted on this machine (serena_memory/usage); these commands only report them.
Cheap to import: the report is loaded inside the command.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from serena_memory.cli.common import (
    JSON_OPTION,
    PROJECT_ARG,
    PROJECT_OPTION,
    emit_json,
    open_store,
    say,
)
from serena_memory.core.display import counted, escape_line

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.usage.report import MemoryUsage

UNUSED_ADVICE = (
    "A memory nobody reads still costs its name in every listing: delete it, merge it into "
    "a memory that is read, or refer to it (`mem:NAME`) from one where it applies."
)


def _when(moment: str | None) -> str:
    """A time of the JSON answer (UTC) as a person reads it, in local time."""
    if moment is None:
        return "never"
    return (
        datetime.fromisoformat(moment.replace("Z", "+00:00"))
        .astimezone()
        .strftime("%Y-%m-%d %H:%M")
    )


@click.command(name="usage")
@PROJECT_ARG
@PROJECT_OPTION
@JSON_OPTION
def usage_command(project: Path | None, as_json: bool) -> None:
    """How often each memory was read on this machine, by which clients, the ones never
    read, and what each costs the agent's listing."""
    from serena_memory.agent.usage import usage_answer

    answer = usage_answer(open_store(project))
    if as_json:
        emit_json(answer)
        return
    rows = answer["memories"]
    if not rows:
        say("No memories yet.")
        return
    say(f"Reads on this machine since {_when(answer['counted_since'])}:")
    for row in rows:
        say("  " + _row_text(row))
    never = answer["never_read"]
    if never:
        say(
            f"Never read: {counted(len(never), 'memory', 'memories')}, "
            f"{answer['never_read_listing_chars']} characters (about "
            f"{answer['never_read_listing_tokens']:g} tokens) of every listing that names them."
        )
    else:
        say("Every memory was read at least once.")


def _row_text(row: dict[str, Any]) -> str:
    cost = f"{row['listing_chars']} characters in the listing"
    if not row["reads"]:
        return f"{escape_line(row['name'])}: never read; {cost}"
    clients = ", ".join(f"{escape_line(c)}: {n}" for c, n in row["clients"].items())
    reads = counted(row["reads"], "read")
    return (
        f"{escape_line(row['name'])}: {reads}, last {_when(row['last_read'])} ({clients}); {cost}"
    )


# -- check --unused DAYS ---------------------------------------------------------------------
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

        start = _when(iso(self.since))
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
                else "last read " + _when(iso(memory.last_read))
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
