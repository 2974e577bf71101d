"""What a reader is told of how far to trust a memory, in one short line: who last wrote it
and when (from the history: an agent with its client, a person, a sync, an edit outside
serena), whether a person reviewed that change (accepted it in review mode), and whether
its mentions of code still hold now. `read_memory` ends with it and the dashboard's memory
page shows it; it is '' when history is off or can't be read (a read never fails on it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from serena_memory.core import names as N
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.lifecycle import read_note
from serena_memory.core.proposals import accepted

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.history.entries import Entry

_PLACES = {"cli": "command line", "dashboard": "dashboard"}


@dataclass(frozen=True)
class Trust:
    """The facts the line words: the writer, the day, a review, and the code mentions."""

    writer: str = ""  # '' when the history names no change of the memory
    day: str = ""
    reviewed: bool | None = None  # None: no agent wrote it (a person, a sync, an editor)
    mentions: int = 0  # mentions of code in the memory (0: nothing to confirm)
    code_holds: bool = True  # the read's code check found nothing changed since

    def line(self) -> str:
        parts = []
        if self.writer:
            parts.append(f"Last written by {self.writer} on {self.day}")
            if self.reviewed is not None:
                parts.append("accepted by a person" if self.reviewed else "no person reviewed it")
        if self.mentions and self.code_holds:  # a change is told by the drift note above
            many = self.mentions > 1
            parts.append(
                f"its {self.mentions} mention{'s' if many else ''} of files and symbols "
                f"still hold{'' if many else 's'}"
            )
        if not parts:
            return ""
        line = "; ".join(parts) + "."
        return line[0].upper() + line[1:]


def writer_of(entry: Entry) -> tuple[str, bool | None]:
    """Who made ``entry``, as a reader understands it, and whether a person reviewed it
    (None when no agent made it)."""
    who = entry.who
    review = accepted(who, entry.action)
    if review is not None:
        return f"agent {review[0]}", True
    if entry.entry_point == "mcp":
        return f"agent {who}", False
    if entry.entry_point in ("cli", "dashboard"):
        return f"{who} (a person, in the {_PLACES[entry.entry_point]})", None
    if entry.entry_point == "sync":
        return f"a sync ({entry.action.removeprefix('sync ')})", None
    if who == "as found":  # the memory as history found it when it began
        return "someone before this machine's history of it began", None
    return "an edit outside serena", None


def trust_of(store: MemoryStore, name: str, text: str, code_changed: bool) -> Trust:
    """The trust facts of memory ``name`` whose text is ``text``; ``code_changed``: the
    read's code note found mentions that changed (missing, moved, changed a lot since)."""
    writer, day = "", ""
    reviewed: bool | None = None
    try:
        from serena_memory.history.restore import MemoryHistory

        canonical = N.normalize_name(name)
        last = MemoryHistory(store).last_change(canonical)
    except (MemoryStoreError, OSError, LookupError, ValueError):
        last = None
    if last is not None:
        entry, recorded = last
        writer, reviewed = writer_of(entry)
        day = entry.time.date().isoformat()
        if recorded != text.encode("utf-8"):  # changed since, outside serena, not recorded yet
            writer, reviewed = f"an edit outside serena, after {writer}", None
    return Trust(writer, day, reviewed, _mentions(name, text), not code_changed)


def _mentions(name: str, text: str) -> int:
    """The paths and symbols a project memory mentions (a global one's are not checked)."""
    try:
        if N.is_global(N.normalize_name(name)):
            return 0
        from serena_memory.integrity.code_drift.mentions import extract

        return len(extract(text))
    except Exception:  # a read never fails on what it tells beside the text
        return 0


def trust_line(store: MemoryStore, name: str, text: str, code_changed: bool) -> str:
    """The line itself ('' when there is nothing to say)."""
    return trust_of(store, name, text, code_changed).line()


def reading_note(store: MemoryStore, name: str, text: str, drift: str) -> str:
    """What a read adds after the text and its code note ``drift``: the lifecycle sentence
    and the trust line, below the same rule as the code note."""
    lines = [read_note(store, text), trust_line(store, name, text, bool(drift))]
    shown = [line for line in lines if line]
    if not shown:
        return ""
    return ("\n" if drift else "\n\n---\n") + "\n".join(shown)


def unreviewed(store: MemoryStore, names: list[str]) -> list[str]:
    """The project memories among ``names`` an agent wrote last and no person reviewed: the
    listing's share of the trust line (none when history is off or can't be read)."""
    out = []
    try:
        from serena_memory.history.restore import MemoryHistory

        history = MemoryHistory(store)
        for name in names:
            canonical = N.normalize_name(name)
            if N.is_global(canonical):
                continue
            last = history.last_entry(canonical)  # no bytes read: one dict lookup each
            if last is not None and writer_of(last[0])[1] is False:
                out.append(name)
    except (MemoryStoreError, OSError, LookupError, ValueError):
        return []
    return out
