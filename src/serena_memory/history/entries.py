"""Entries: what one recorded operation says about itself, and how it is read back.

An entry is a commit whose message carries trailers (entry point, who, machine, action,
operation, a time finer than git's seconds, the memories it changed and a rename). They
are written by this module and parsed by it, so the format lives in one place; a
:class:`Record` parses only when asked, so following one memory through many entries
stays cheap.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from serena_memory.core.changes import Provenance, clean, machine_name
from serena_memory.history.times import EARLIEST

EXTERNAL = "external"
"""The entry point of changes made outside serena (an editor, a checkout), and of the
first entry of a history."""


STARTED = "History started"
"""How the first entry of a history begins (its summary); ``History started again`` when
an earlier history of the folder was removed."""
STARTED_AGAIN = STARTED + " again"


def new_operation() -> str:
    """A fresh operation id: the entries one operation made in several folders share it."""
    return os.urandom(6).hex()


@dataclass
class Entry:
    """One recorded operation in one folder's history."""

    rev: str
    time: datetime
    entry_point: str
    who: str
    action: str
    summary: str
    folder: str
    changes: list[tuple[str, str]] = field(default_factory=list)  # (A|M|D, name)
    renamed: tuple[str, str] | None = None
    operation: str = ""
    machine: str = ""  # where the entry was recorded ("" in entries older than the field)

    @property
    def short(self) -> str:
        return self.rev[:10]

    def names(self) -> list[str]:
        return [name for _, name in self.changes]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rev": self.rev,
            "time": self.time.isoformat(),
            "folder": self.folder,
            "entry_point": self.entry_point,
            "who": self.who,
            "machine": self.machine,
            "action": self.action,
            "summary": self.summary,
            "changes": [{"change": c, "memory": n} for c, n in self.changes],
            "renamed": list(self.renamed) if self.renamed else None,
        }


def entry_message(
    summary: str,
    provenance: Provenance,
    changes: list[tuple[str, str]],
    renamed: tuple[str, str] | None,
    operation: str,
    at: float | None = None,
) -> str:
    """The message of an entry: its summary, then one trailer per fact about it
    (``provenance`` as an entry keeps it: :meth:`Provenance.cleaned`). A name
    that holds a secret (a token pasted into a file's name, renamed away) is written
    masked, as ``check --secrets`` shows it: the message is kept and synced like a file."""
    # what is written or added passed the gate; a name renamed or deleted may be one it
    # never saw (a file made by hand, held out of the history while its name holds one)
    masked = _masked_names([n for c, n in changes if c == "D"] + list(renamed or ()))
    for name, masked_as in masked.items():
        summary = summary.replace(name, masked_as)
    changes = [(change, masked.get(name, name)) for change, name in changes]
    if renamed:
        renamed = (masked.get(renamed[0], renamed[0]), masked.get(renamed[1], renamed[1]))
    shown = provenance  # cleaned by the caller, who signs the entry with it too
    lines = [summary, "", f"Entry-point: {shown.entry_point}", f"Who: {shown.who}"]
    lines.append(f"Machine: {machine_name()}")
    if shown.action:
        lines.append(f"Action: {shown.action}")
    lines.append(f"Operation: {operation}")
    # git keeps whole seconds; entries of two folders are merged in this finer order
    lines.append(f"At: {time.time() if at is None else at:.6f}")
    if renamed:
        lines.append(f"Renamed: {json.dumps(list(renamed), ensure_ascii=False)}")
    for change, name in changes:
        lines.append(f"Changed: {change} {json.dumps(name, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


def _masked_names(names: list[str]) -> dict[str, str]:
    """Name -> its masked form, for the names that hold a secret."""
    from serena_memory.core import secrets  # the gate's rules, loaded only for a name

    found = {name: secrets.masked_name(name) for name in set(names) if name}
    return {name: shown for name, shown in found.items() if shown != name}


def message_of(commit: Any) -> str:
    """A commit's message as text. A sync remote's commit may name any encoding, one
    Python lacks or one its bytes don't fit: then it is read as UTF-8, bad bytes replaced."""
    try:
        return str(commit.message)
    except (LookupError, ValueError):
        return bytes(commit.raw_message).decode("utf-8", "replace")


def author_of(commit: Any) -> str:
    """A commit's author name as text, read as :func:`message_of` reads its message."""
    try:
        return str(commit.author.name)
    except (LookupError, ValueError):
        return bytes(commit.author.raw_name).decode("utf-8", "replace")


def parse_entry(commit: Any, folder: str) -> Entry:
    """The entry a commit is (a commit from elsewhere lacks trailers: it reads as external)."""
    message = message_of(commit)
    summary, _, body = message.partition("\n")
    fields: dict[str, str] = {}
    changes: list[tuple[str, str]] = []
    renamed = None
    for line in body.splitlines():
        key, sep, value = line.partition(": ")
        if not sep:
            continue
        if key == "Changed":
            kind, _, raw = value.partition(" ")
            with contextlib.suppress(ValueError):
                changes.append((kind, json.loads(raw)))
        elif key == "Renamed":
            with contextlib.suppress(ValueError, TypeError):
                old, new = json.loads(value)
                renamed = (str(old), str(new))
        else:
            fields[key] = value
    try:
        when = datetime.fromtimestamp(stated_time(commit), UTC)
    except (ValueError, OverflowError, OSError):  # a remote's commit may say any time
        when = EARLIEST
    return Entry(
        rev=str(commit.id),
        time=when,
        entry_point=fields.get("Entry-point", EXTERNAL),
        who=fields.get("Who") or author_of(commit),
        action=fields.get("Action", ""),
        summary=summary,
        folder=folder,
        changes=changes,
        renamed=renamed,
        operation=fields.get("Operation", ""),
        machine=clean(fields.get("Machine", ""), 100) if fields.get("Machine") else "",
    )


_AT = re.compile(r"^At: ([0-9]{1,12}(?:\.[0-9]{1,9})?)$", re.MULTILINE | re.ASCII)


def stated_time(commit: Any) -> float:
    """The time an entry's message states (``At:``, finer than git's seconds), else its
    commit time. Both are written by whoever made the entry: a sync remote may state any
    time, so this orders a listing, never chooses what a restore brings back."""
    found = _AT.search(message_of(commit))
    return float(found.group(1)) if found else float(commit.commit_time)


class Record:
    """One entry as stored, parsed only when asked: following one memory through a
    thousand entries looks for its name in each message and parses only the few that
    name it."""

    __slots__ = ("_entry", "commit", "folder", "message", "time")

    def __init__(self, commit: Any, folder: str) -> None:
        self.commit = commit
        self.folder = folder
        self.message = message_of(commit)
        self.time: float = stated_time(commit)
        self._entry: Entry | None = None

    @property
    def rev(self) -> str:
        return str(self.commit.id)

    def may_name(self, name: str) -> bool:
        """False when the entry certainly does not touch ``name`` (names are stored as JSON
        strings in the message)."""
        return json.dumps(name, ensure_ascii=False) in self.message

    def entry(self) -> Entry:
        if self._entry is None:
            self._entry = parse_entry(self.commit, self.folder)
        return self._entry
