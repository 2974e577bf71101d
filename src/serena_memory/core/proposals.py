"""Review mode: the agent's changes as proposals a person accepts or rejects.

With ``memory_agent_writes: propose`` (core/config.py), each write, edit, delete or rename
of the agent is kept here instead of being made: one JSON file per proposal, in
``$SERENA_HOME/proposals/<project>/``, outside the project (its files are committed and
synced; a proposal is not a memory yet). A proposal holds the whole text it would write
and the version of the memory it was made on, so a memory changed since is seen as a
conflict and never overwritten: accepting it is refused until the person rejects it or
the agent proposes again.

This module only keeps, lists and accepts them. The change a proposal holds is planned by
core/verbs.py through the same gates as a change the store applies (core/planned_change.py:
names, ignored and read-only patterns, the secret gate, the size limit), and accepting it
applies it through the store's normal write path, which checks them again: the folder
locks, one history entry, attributed to the agent that proposed and the person who
accepted.

The folder is the user's, but its files are read as untrusted: only regular files named
like a proposal id, of bounded size, whose fields pass the same checks as a new proposal,
are proposals; anything else is listed as skipped and never applied.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets as random
import stat
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import access, paths
from serena_memory.core import names as N
from serena_memory.core.changes import Provenance, acting_as, acting_provenance, clean
from serena_memory.core.errors import (
    MemoryChangedError,
    MemoryNotFoundError,
    MemoryStoreError,
    ProposalError,
)
from serena_memory.core.files import atomic_write, remove_file
from serena_memory.core.planned_change import ACTIONS, PlannedChange, apply, version_of

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

PROPOSE = access.PROPOSE
MAX_PROPOSAL_BYTES = 2 * paths.MAX_MEMORY_BYTES  # the text, JSON-escaped, and a few fields
MAX_LISTED = 1000  # files of one project's folder read for a listing
_ID = re.compile(r"[0-9a-f]{12}")
_VERSION = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Proposal:
    """One pending change: ``text`` is the memory's whole new text (write, edit), None for
    a delete or a rename; ``base`` the version it was made on (None: no such memory)."""

    id: str
    action: str
    memory: str
    text: str | None
    base: str | None
    new_name: str | None = None
    agent: str = "unknown client"
    tool: str = ""
    created: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "action": self.action,
            "memory": self.memory,
            "new_name": self.new_name,
            "text": self.text,
            "base": self.base,
            "agent": self.agent,
            "tool": self.tool,
            "created": self.created,
        }

    @property
    def change(self) -> PlannedChange:
        """The change it keeps, as accepting applies it."""
        return PlannedChange(self.action, self.memory, self.text, self.base, self.new_name)

    def describe(self) -> str:
        """One line: what it would do."""
        return self.change.describe()

    def told(self) -> str:
        """What the agent is told when it proposed this."""
        return (
            f"Proposed to {self.describe()} (proposal {self.id}); nothing is changed until "
            "the user accepts it: memories are reviewed by the user in this project "
            "(memory_agent_writes: propose). Reading the memory shows the proposal."
        )


@dataclass(frozen=True)
class Skipped:
    file: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "reason": self.reason}


def folder(store: MemoryStore) -> Path:
    """This project's proposals: under Serena's home, named after the project's real
    path (its folder name, for a person looking, and a digest, so two never mix)."""
    real = os.path.realpath(store.layout.project_root)
    label = re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.basename(real))[:40].strip(".") or "project"
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(os.path.realpath(store.layout.home)) / "proposals" / f"{label}-{digest}"


def _inside(store: MemoryStore) -> tuple[str, ...]:
    return (os.path.realpath(store.layout.home),)


# -- reading the folder ----------------------------------------------------------------------
def pending(store: MemoryStore) -> tuple[list[Proposal], list[Skipped]]:
    """The proposals of this project, oldest first, and the files that are not ones."""
    where = folder(store)
    try:
        entries = sorted(os.scandir(where), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    found: list[Proposal] = []
    skipped: list[Skipped] = []
    for entry in entries[:MAX_LISTED]:
        if entry.name.startswith(".") and entry.name.endswith(".tmp"):
            continue  # a write in progress (core/files.py)
        try:
            found.append(_load(store, where, entry.name))
        except ProposalError as exc:
            skipped.append(Skipped(entry.name, str(exc)))
    found.sort(key=lambda p: (p.created, p.id))
    return found, skipped


_PREFIX = re.compile(r"[0-9a-f]{4,12}")


def get(store: MemoryStore, proposal_id: str) -> Proposal:
    """The proposal ``proposal_id`` (as listed, or a unique prefix of 4 digits or more, as
    the history takes its entries), or the one sentence why not."""
    typed = proposal_id.strip().lower() if isinstance(proposal_id, str) else ""
    if not _PREFIX.fullmatch(typed):
        raise ProposalError(
            f"{proposal_id!r} is not a proposal id (12 hex digits, or the first 4 or more of "
            "them, as `serena memories review` lists them)"
        )
    proposal_id = typed if len(typed) == 12 else _unique_id(store, typed)
    try:
        return _load(store, folder(store), proposal_id + ".json")
    except FileNotFoundError:
        raise ProposalError(
            f"there is no pending proposal {proposal_id}; `serena memories review` lists them"
        ) from None


def _unique_id(store: MemoryStore, prefix: str) -> str:
    """The one pending proposal whose id starts with ``prefix``."""
    try:
        names = os.listdir(folder(store))
    except (FileNotFoundError, NotADirectoryError):
        names = []
    ids = sorted(
        n[:-5]
        for n in names
        if n.endswith(".json") and n.startswith(prefix) and _ID.fullmatch(n[:-5])
    )
    if not ids:
        raise ProposalError(
            f"there is no pending proposal {prefix}; `serena memories review` lists them"
        )
    if len(ids) > 1:
        shown = ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")
        raise ProposalError(
            f"{prefix} starts {len(ids)} pending proposals ({shown}); give more of its digits"
        )
    return ids[0]


def _load(store: MemoryStore, where: Path, file_name: str) -> Proposal:
    """A proposal file, checked field by field; ProposalError saying what is wrong."""
    stem = file_name[: -len(".json")] if file_name.endswith(".json") else ""
    if not _ID.fullmatch(stem):
        raise ProposalError("not named like a proposal (12 hex digits and .json)")
    path = where / file_name
    st = os.lstat(path)  # FileNotFoundError: for get() to word
    if not stat.S_ISREG(st.st_mode):
        raise ProposalError("not a regular file (a link, a folder or a device)")
    try:
        raw = paths.read_regular_file(str(path), _inside(store), "a proposal", MAX_PROPOSAL_BYTES)
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, MemoryStoreError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProposalError(f"can't be read as a proposal ({type(exc).__name__})") from None
    return _checked(data, stem)


def _checked(data: Any, proposal_id: str) -> Proposal:
    if not isinstance(data, dict) or data.get("id") != proposal_id:
        raise ProposalError("its content does not hold this proposal's id")
    action = data.get("action")
    if action not in ACTIONS:
        raise ProposalError("its action is not write, edit, delete or rename")

    def text_field(key: str, required: bool) -> str | None:
        value = data.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            raise ProposalError(f"its field '{key}' is not text")
        return value

    try:
        memory = N.normalize_name(text_field("memory", True) or "")
        new_name = text_field("new_name", action == "rename")
        if new_name is not None:
            new_name = N.normalize_name(new_name)
    except MemoryStoreError as exc:
        raise ProposalError(f"it names no valid memory ({exc})") from None
    text = text_field("text", action in ("write", "edit"))
    base = text_field("base", action in ("delete", "rename"))
    if base is not None and not _VERSION.fullmatch(base):
        raise ProposalError("its field 'base' is not a memory version")
    return Proposal(
        id=proposal_id,
        action=action,
        memory=memory,
        text=text if action in ("write", "edit") else None,
        base=base,
        new_name=new_name if action == "rename" else None,
        agent=clean(str(data.get("agent") or "unknown client")),
        tool=clean(str(data.get("tool") or ""), 60),
        created=clean(str(data.get("created") or ""), 40),
    )


def for_memory(store: MemoryStore, name: str) -> list[Proposal]:
    """The pending proposals that change memory ``name`` (a rename: either of its names)."""
    found, _ = pending(store)
    return [p for p in found if name in (p.memory, p.new_name)]


# -- the agent proposes (core/verbs.py plans the change) -------------------------------------
def _save(store: MemoryStore, proposal: Proposal) -> Proposal:
    data = json.dumps(proposal.to_dict(), ensure_ascii=False, indent=1).encode("utf-8")
    atomic_write(folder(store) / f"{proposal.id}.json", data, _inside(store), mode=0o600)
    return proposal


def save(store: MemoryStore, change: PlannedChange) -> Proposal:
    """Keep ``change`` as a proposal of the agent acting here; it replaces the agent's
    earlier one for the same memory (the newest is what it means now). A memory with a
    pending rename takes no other proposal, and a rename none of either name."""
    who = acting_provenance() or store.provenance
    touching = for_memory(store, change.memory)
    earlier = [p for p in touching if p.memory == change.memory]
    if change.action == "rename":
        if touching or for_memory(store, change.new_name or ""):
            raise ProposalError(
                f"memory '{change.memory}' or '{change.new_name}' has a pending proposal; "
                "wait until the user reviews it"
            )
    elif any(p.action == "rename" for p in earlier) or touching != earlier:
        raise ProposalError(
            f"memory '{change.memory}' has a pending rename proposal; wait until the user "
            "reviews it"
        )
    proposal = Proposal(
        id=random.token_hex(6),
        action=change.action,
        memory=change.memory,
        text=change.text,
        base=change.base,
        new_name=change.new_name,
        agent=clean(who.who),
        tool=clean(who.action, 60),
        created=datetime.now(UTC).isoformat(timespec="microseconds"),
    )
    _save(store, proposal)
    for old in earlier:
        _remove(store, old.id)
    return proposal


def pending_text(store: MemoryStore, name: str) -> tuple[str | None, str | None]:
    """The text the agent's pending proposal gives ``name`` (else the memory's own; None:
    none, or a delete is proposed) and the version that text was made on."""
    for p in reversed(for_memory(store, name)):
        if p.memory == name and p.action in ("write", "edit"):
            return p.text, p.base
        if p.memory == name and p.action == "delete":
            return None, p.base
    current = current_text(store, name)
    return current, None if current is None else version_of(current)


def withdraw_creation(store: MemoryStore, name: str) -> bool:
    """Drop the pending proposals that would create ``name`` (a write or an edit made on no
    memory); whether there was one. Any other proposal for it stays, for the person."""
    creating = [
        p
        for p in for_memory(store, name)
        if p.memory == name and p.base is None and p.action in ("write", "edit")
    ]
    for p in creating:
        _remove(store, p.id)
    return bool(creating)


def current_text(store: MemoryStore, name: str) -> str | None:
    """The memory's text now, None when there is no such memory."""
    try:
        return store.read(name, announce=False)
    except MemoryNotFoundError:
        return None


def agent_note(store: MemoryStore, name: str) -> str:
    """What the agent reading ``name`` is told of its pending proposals for it ('' for
    none): the text a proposal would give the memory, so it works from what it meant."""
    try:
        name = N.normalize_name(name)
    except MemoryStoreError:
        return ""
    notes = []
    for p in for_memory(store, name):
        head = f"Pending proposal {p.id}, awaiting the user's review: {p.describe()}."
        if p.text is not None:
            head += " Proposed text:\n" + p.text
        notes.append(head)
    return "".join(f"\n\n---\n{note}" for note in notes)


# -- a person reviews --------------------------------------------------------------------------
def state_of(store: MemoryStore, proposal: Proposal) -> tuple[str | None, bool]:
    """The memory's text now (None: absent) and whether it changed since the proposal
    was made (a conflict: accepting is refused)."""
    current = current_text(store, proposal.memory)
    version = None if current is None else version_of(current)
    return current, version != proposal.base


def accept(store: MemoryStore, proposal_id: str, text: str | None = None) -> Proposal:
    """Make the change ``proposal_id`` proposes, through the store's normal write path
    (its gates and locks), as one history entry naming the agent that proposed it and the
    person who accepts; refused, and kept, when the memory changed since. ``text``: the
    person's edit of a proposed write or edit, accepted instead of the proposed text."""
    proposal = get(store, proposal_id)
    if text is not None and proposal.action not in ("write", "edit"):
        raise ProposalError(
            f"proposal {proposal.id} would {proposal.describe()}, which has no text to edit; "
            "accept or reject it as it is"
        )
    person = acting_provenance() or store.provenance
    who = Provenance(
        person.entry_point,
        clean(f"{proposal.agent}{ACCEPTED_BY}{person.who}"),
        f"{REVIEW_ACTION} {proposal.id}",
    )
    conflict = (
        f"memory '{proposal.memory}' changed since proposal {proposal.id} was made, so it "
        "was not applied; look at it with `serena memories review show "
        f"{proposal.id}`, then reject it (the agent may propose again)"
    )
    chosen = replace(proposal.change, text=proposal.text if text is None else text)
    try:
        with acting_as(who):
            apply(store, chosen)
    except (MemoryChangedError, MemoryNotFoundError):
        raise ProposalError(conflict) from None
    _remove(store, proposal.id)
    return proposal


REVIEW_ACTION = "review accept"
"""How the action of a history entry a person accepted in review begins."""
ACCEPTED_BY = ", accepted by "


def accepted(who: str, action: str) -> tuple[str, str] | None:
    """(the agent that proposed, the person who accepted) of a history entry made by
    accepting a proposal (its ``who`` and ``action``); None for any other entry."""
    if not action.startswith(REVIEW_ACTION):
        return None
    agent, _, person = who.partition(ACCEPTED_BY)
    return agent, person


def reject(store: MemoryStore, proposal_id: str) -> Proposal:
    """Drop ``proposal_id``: nothing changes."""
    proposal = get(store, proposal_id)
    _remove(store, proposal.id)
    return proposal


def _remove(store: MemoryStore, proposal_id: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        remove_file(folder(store) / f"{proposal_id}.json", _inside(store))
