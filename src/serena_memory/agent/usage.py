"""What each memory costs the agent's listing beside how often it is read.

A memory's name is in every `list_memories` answer that lists it, read or not: the usage
report puts that cost (characters, and tokens as the listing's budget estimates them)
beside each memory's reads, so a person sees what a never-read memory costs. It only
reports: nothing the agent is given is injected or reordered because of usage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from serena_memory.agent.listing import CHARS_PER_TOKEN
from serena_memory.usage.report import iso, listing_chars, store_usage

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore


def tokens(chars: int) -> float:
    return round(chars / CHARS_PER_TOKEN, 1)


def usage_answer(store: MemoryStore, now: float | None = None) -> dict[str, Any]:
    """Each memory's reads, last read, clients and listing cost; the ones never read; and
    the listing's cost in all and of the never-read ones (what `usage --json` prints)."""
    usage = store_usage(store, now)
    rows = []
    for memory in usage.memories:
        chars = listing_chars(memory.name)
        rows.append(
            {**memory.to_dict(usage.now), "listing_chars": chars, "listing_tokens": tokens(chars)}
        )
    never = [row for row in rows if row["reads"] == 0]
    total = sum(row["listing_chars"] for row in rows)
    never_chars = sum(row["listing_chars"] for row in never)
    return {
        "counted_since": iso(usage.since),
        "memories": rows,
        "never_read": [row["name"] for row in never],
        "listing_chars": total,
        "listing_tokens": tokens(total),
        "never_read_listing_chars": never_chars,
        "never_read_listing_tokens": tokens(never_chars),
    }
