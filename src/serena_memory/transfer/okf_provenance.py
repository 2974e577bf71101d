"""What an OKF bundle says of who wrote and who confirmed each memory, from its history.

``generated`` is the memory's latest history entry: an agent as ``<client>/<version>``
(the MCP client's name and version), a person at the command line or the dashboard as
``human:<user>``, a sync as ``process:sync``, an edit outside serena as ``human:unknown``
(history can't tell who made it). ``verified`` holds the review that accepted an agent's
change (``human:<the person>``) and, given the code facts, the code check that found every
path and symbol the memory names (``process:serena-memory-code-check``, at the latest
change of the memory or of a file it names, so the same code gives the same bundle).
``log.md`` is the history itself, newest first, one heading per day.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.proposals import accepted

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.history.entries import Entry

CODE_CHECK = "process:serena-memory-code-check"
MAX_LOG_ENTRIES = 2000
"""The newest history entries ``log.md`` tells (a bundle is not the history's archive)."""
MAX_SOURCES = 20
"""The most files one concept's ``sources`` names (a memory naming more is a listing)."""
MAX_LOG_LINKS = 5  # memories one log line links to; the rest are counted

CodeFacts = Callable[[str, str], tuple[list[tuple[str, str]], bool]]
"""Given a memory's name and text: the project files it names that exist, each with the
ISO time of its last commit, and whether it names code and the code check confirmed all of
it (paths and symbols)."""


def stamp(when: datetime) -> str:
    """An ISO 8601 time in UTC, to the second."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _token(text: str) -> str:
    return re.sub(r"\s+", "-", text.strip()) or "unknown"


def actor(entry: Entry) -> str:
    """Who made ``entry``, in OKF's actor convention."""
    who = entry.who
    review = accepted(who, entry.action)
    if review is not None:
        return agent_actor(review[0])
    if entry.entry_point == "mcp":
        return agent_actor(who)
    if entry.entry_point in ("cli", "dashboard"):
        return f"human:{_token(who)}"
    if entry.entry_point == "sync":
        return "process:sync"
    return "human:unknown"


def agent_actor(who: str) -> str:
    """An MCP client's ``name version`` as ``name/version``."""
    name, _, version = who.strip().rpartition(" ")
    if not name:
        return f"{_token(version)}/unknown"
    return f"{_token(name)}/{_token(version)}"


@dataclass
class Facts:
    """What the history says of one memory."""

    generated: dict[str, str] | None = None
    reviewed: dict[str, str] | None = None
    at: datetime | None = None


@dataclass
class HistoryFacts:
    facts: dict[str, Facts] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)


def history_facts(store: MemoryStore, names: Iterable[str]) -> HistoryFacts:
    """Each memory's latest entry and latest accepting review, following renames; nothing
    when the history is off or can't be read (the bundle then says less, never fails)."""
    wanted = set(names)
    out = HistoryFacts()
    if not store.settings.history_enabled:
        return out
    try:
        from serena_memory.history.restore import MemoryHistory

        entries = MemoryHistory(store).entries()
    except (MemoryStoreError, OSError):
        return out
    now_named = {n: n for n in wanted}  # a name in an entry -> the memory's name now
    for entry in entries:
        out.entries.append(entry)
        for name in entry.names():
            current = now_named.get(name)
            if current is not None:
                _note(out.facts.setdefault(current, Facts()), entry)
        if entry.renamed and entry.renamed[1] in now_named:
            now_named[entry.renamed[0]] = now_named[entry.renamed[1]]
    return out


def _note(facts: Facts, entry: Entry) -> None:
    """Entries come newest first: the first one is the latest change."""
    if facts.generated is None:
        facts.generated = {"by": actor(entry), "at": stamp(entry.time)}
        facts.at = entry.time
    review = accepted(entry.who, entry.action)
    if facts.reviewed is None and review is not None:
        facts.reviewed = {"by": f"human:{_token(review[1])}", "at": stamp(entry.time)}


def derived_keys(
    name: str, text: str, facts: Facts | None, code: CodeFacts | None
) -> dict[str, Any]:
    """``generated``, ``verified`` and ``sources`` of one memory (absent when unknown)."""
    keys: dict[str, Any] = {}
    facts = facts or Facts()
    if facts.generated:
        keys["generated"] = facts.generated
    verified = [facts.reviewed] if facts.reviewed else []
    if code is not None:
        try:
            files, confirmed = code(name, text)
        except Exception:  # the code check never stops an export: it says less
            files, confirmed = [], False
        if files:
            keys["sources"] = [
                {"resource": path, "title": f"project file {path}", "last_modified": when[:10]}
                for path, when in files[:MAX_SOURCES]
            ]
        if confirmed:
            times = [datetime.fromisoformat(when) for _, when in files]
            if facts.at is not None:
                times.append(facts.at)
            if times:
                verified.append({"by": CODE_CHECK, "at": stamp(max(times))})
    if verified:
        keys["verified"] = verified
    return keys


def log_text(entries: list[Entry], paths: dict[str, str]) -> str:
    """``log.md``: the history's entries, newest first, under one ``## YYYY-MM-DD`` per
    day, each linking to the memories it changed that the bundle holds."""
    lines = ["# Memory history", ""]
    day = ""
    for entry in entries[:MAX_LOG_ENTRIES]:
        when = entry.time.astimezone(UTC)
        if when.date().isoformat() != day:
            day = when.date().isoformat()
            lines += ([""] if lines[-1] else []) + [f"## {day}", ""]
        lines.append(f"* {_log_line(entry, paths)}")
    if len(entries) > MAX_LOG_ENTRIES:
        lines += ["", f"Older entries: {len(entries) - MAX_LOG_ENTRIES} more in the history."]
    return "\n".join(lines).rstrip("\n") + "\n"


_KINDS = {"A": "Creation", "D": "Deletion"}


def _log_line(entry: Entry, paths: dict[str, str]) -> str:
    kinds = {c for c, _ in entry.changes}
    kind = _KINDS.get(next(iter(kinds)), "Update") if len(kinds) == 1 else "Update"
    if entry.renamed:
        kind = "Rename"
    names = entry.names()
    shown = [f"[{n}](/{paths[n]})" if n in paths else f"`{n}`" for n in names[:MAX_LOG_LINKS]]
    more = f" and {len(names) - MAX_LOG_LINKS} more" if len(names) > MAX_LOG_LINKS else ""
    summary = " ".join(entry.summary.split()).replace("[", "(").replace("]", ")")
    what = f" ({', '.join(shown)}{more})" if shown else ""
    return f"**{kind}** by {actor(entry)}: {summary}{what}"
