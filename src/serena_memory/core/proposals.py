"""Review mode: the agent's changes as proposals a person accepts or rejects.

With ``memory_agent_writes: propose`` (core/config.py), each write, edit, delete or rename
of the agent is kept here instead of being made: one JSON file per proposal, in
``$SERENA_HOME/proposals/<project>/``, outside the project (its files are committed and
synced; a proposal is not a memory yet). A proposal holds the whole text it would write
and the version of the memory it was made on, so a memory changed since is seen as a
conflict and never overwritten: accepting it is refused until the person rejects it or
the agent proposes again.

Every rule of a real change applies when proposing (names, ignored and read-only
patterns, the secret gate, the size limit) and again when accepting, which goes through
the store's normal write path: the folder locks, one history entry, attributed to the
agent that proposed and the person who accepted.

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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import access, paths
from serena_memory.core import names as N
from serena_memory.core.changes import Provenance, acting_as, acting_provenance, clean
from serena_memory.core.editing import apply_edit
from serena_memory.core.errors import (
    ContentTooLongError,
    MemoryChangedError,
    MemoryNotFoundError,
    MemoryStoreError,
    ProposalError,
)
from serena_memory.core.files import atomic_write, remove_file
from serena_memory.core.lifecycle import keep_deprecation
from serena_memory.core.store_writing import version_of

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

PROPOSE = access.PROPOSE
ACTIONS = ("write", "edit", "delete", "rename")
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

    def describe(self) -> str:
        """One line: what it would do."""
        if self.action == "rename":
            return f"rename '{self.memory}' to '{self.new_name}'"
        if self.action == "delete":
            return f"delete '{self.memory}'"
        if self.base is None:  # no such memory yet: an edit of a proposed text creates it too
            return f"create '{self.memory}'"
        return f"{'replace' if self.action == 'write' else 'edit'} '{self.memory}'"

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


# -- the agent proposes ----------------------------------------------------------------------
def _current(store: MemoryStore, name: str) -> str | None:
    try:
        return store.read(name, announce=False)
    except MemoryNotFoundError:
        return None


def _save(store: MemoryStore, proposal: Proposal) -> Proposal:
    data = json.dumps(proposal.to_dict(), ensure_ascii=False, indent=1).encode("utf-8")
    atomic_write(folder(store) / f"{proposal.id}.json", data, _inside(store), mode=0o600)
    return proposal


def _new(store: MemoryStore, action: str, memory: str, **fields: Any) -> Proposal:
    """A proposal of the agent acting here; it replaces the agent's earlier one for the
    same memory (the newest is what it means now)."""
    who = acting_provenance() or store.provenance
    touching = for_memory(store, memory)
    earlier = [p for p in touching if p.memory == memory]
    if any(p.action == "rename" for p in earlier) or touching != earlier:
        raise ProposalError(
            f"memory '{memory}' has a pending rename proposal; wait until the user reviews it"
        )
    proposal = Proposal(
        id=random.token_hex(6),
        action=action,
        memory=memory,
        agent=clean(who.who),
        tool=clean(who.action, 60),
        created=datetime.now(UTC).isoformat(timespec="microseconds"),
        **fields,
    )
    _save(store, proposal)
    for old in earlier:
        _remove(store, old.id)
    return proposal


def _pending_text(store: MemoryStore, name: str) -> tuple[str | None, str | None, bool]:
    """The text the agent's pending proposal gives ``name`` (else the memory's own), the
    version that text was made on, and whether a proposal gave it."""
    for p in reversed(for_memory(store, name)):
        if p.memory == name and p.action in ("write", "edit"):
            return p.text, p.base, True
        if p.memory == name and p.action == "delete":
            return None, p.base, True
    current = _current(store, name)
    return current, None if current is None else version_of(current), False


def _gate_text(store: MemoryStore, name: str, text: str, max_chars: int | None) -> None:
    from serena_memory.core.store import encode_memory

    if max_chars is not None:
        limit = (
            store.settings.global_config.default_max_tool_answer_chars
            if max_chars < 0
            else max_chars
        )
        if len(text) > limit:
            raise ContentTooLongError(
                f"content of '{name}' has {len(text)} characters, more than the limit of "
                f"{limit}; split it into several memories (or raise max_chars)"
            )
    encode_memory(name, text)
    store.refuse_secrets({name: text})


def propose_write(
    store: MemoryStore, name: str, content: str, max_chars: int | None = None
) -> Proposal:
    """The agent's :meth:`MemoryStore.write`, as a proposal."""
    if not isinstance(content, str):
        raise MemoryStoreError("memory content must be text")
    name = store.access().check(name, write=True, proposing=True)
    _gate_text(store, name, content, max_chars)
    current = _current(store, name)
    if current is None:
        N.check_portable(name)
    base = None if current is None else version_of(current)
    kept = content if current is None else keep_deprecation(current, content)
    return _new(store, "write", name, text=kept, base=base)


def propose_edit(
    store: MemoryStore,
    name: str,
    needle: str,
    repl: str,
    mode: str,
    allow_multiple_occurrences: bool = False,
) -> tuple[Proposal | None, int]:
    """The agent's :meth:`MemoryStore.edit`, as a proposal, applied to the text its
    pending proposal gives the memory if any; None when the edit changes nothing."""
    return propose_change(
        store, name, lambda text: apply_edit(text, needle, repl, mode, allow_multiple_occurrences)
    )


def propose_change(
    store: MemoryStore, name: str, edit: Callable[[str], tuple[str, int]]
) -> tuple[Proposal | None, int]:
    """:func:`propose_edit` with a computed change: ``edit`` gives the new text and how
    many places it changed."""
    name = store.access().check(name, write=True, proposing=True)
    text, base, _ = _pending_text(store, name)
    if text is None:
        return _not_found(store, name)
    new_text, count = edit(text)
    new_text = keep_deprecation(text, new_text)  # a person retired it (core/lifecycle.py)
    if new_text == text:
        return None, count
    _gate_text(store, name, new_text, None)
    return _new(store, "edit", name, text=new_text, base=base), count


def _not_found(store: MemoryStore, name: str) -> Any:
    store.read(name, announce=False)  # the store's own not-found error, with its advice
    raise MemoryNotFoundError(f"memory '{name}' not found", name=name)


def propose_delete(store: MemoryStore, name: str) -> Proposal | None:
    """The agent's :meth:`MemoryStore.delete`, as a proposal; a memory that only the
    agent's pending proposal creates is withdrawn instead (None)."""
    name = store.access().check(name, write=True, proposing=True)
    current = _current(store, name)
    if current is None:
        mine = [p for p in for_memory(store, name) if p.memory == name]
        if not mine:
            return _not_found(store, name)
        for p in mine:
            _remove(store, p.id)
        return None
    return _new(store, "delete", name, text=None, base=version_of(current))


def propose_rename(store: MemoryStore, old: str, new: str) -> Proposal:
    """The agent's :meth:`MemoryStore.rename`, as a proposal."""
    old = store.access().check(old, write=True, proposing=True)
    new = N.check_portable(store.access().check(new, write=True, proposing=True))
    store.refuse_secrets({new: ""})
    if old == new:
        raise MemoryStoreError(f"'{old}' and '{new}' are the same memory name")
    current = _current(store, old)
    if current is None:
        return _not_found(store, old)
    if store.exists(new):
        raise MemoryStoreError(f"memory '{new}' already exists; delete or rename it first")
    if for_memory(store, old) or for_memory(store, new):
        raise ProposalError(
            f"memory '{old}' or '{new}' has a pending proposal; wait until the user reviews it"
        )
    return _new(store, "rename", old, text=None, base=version_of(current), new_name=new)


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
    current = _current(store, proposal.memory)
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
    try:
        with acting_as(who):
            if proposal.action in ("write", "edit"):
                chosen = proposal.text if text is None else text
                assert chosen is not None
                store.write_if_unchanged(proposal.memory, chosen, proposal.base)
            elif proposal.action == "delete":
                store.delete(proposal.memory, expected_version=proposal.base)
            else:
                assert proposal.new_name is not None
                # checked with the locks held, like a write's or a delete's version
                store.rename(proposal.memory, proposal.new_name, expected_version=proposal.base)
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
