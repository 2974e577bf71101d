"""A planned change: one memory's change, checked once, then applied or proposed.

Every verb (write, edit, delete, rename) passes the same gates here before any lock is
taken, whether the store applies it (core/store_writing.py, core/store_rename.py) or
review mode saves it as a proposal (core/proposals.py): the text is text, within the size
asked and the size a memory may be, stored as UTF-8, holding no secret; the names pass
the access policy, a new one is portable; a rename's two names differ and the new one is
free. Under the lock the writer and the renamer check again only what can change
meanwhile (the memory's version, a name taken since). Accepting a proposal applies its
saved change with :func:`apply`, as the person who accepts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.access import Context
from serena_memory.core.errors import (
    ContentTooLongError,
    MemoryEncodingError,
    MemoryExistsError,
    MemoryStoreError,
)

if TYPE_CHECKING:
    from serena_memory.core.config import Settings
    from serena_memory.core.store import MemoryStore, Snapshot

ACTIONS = ("write", "edit", "delete", "rename")


@dataclass(frozen=True)
class PlannedChange:
    """One checked change: ``text`` is the memory's whole new text (write, edit), None for
    a delete or a rename; ``base`` the version it was made on (None: no such memory)."""

    action: str
    memory: str
    text: str | None = None
    base: str | None = None
    new_name: str | None = None
    replacements: int = 0  # an edit's, as the agent is told

    def describe(self) -> str:
        """One line: what it does."""
        if self.action == "rename":
            return f"rename '{self.memory}' to '{self.new_name}'"
        if self.action == "delete":
            return f"delete '{self.memory}'"
        if self.base is None:  # no such memory yet: an edit of a proposed text creates it too
            return f"create '{self.memory}'"
        return f"{'replace' if self.action == 'write' else 'edit'} '{self.memory}'"


# -- the gates --------------------------------------------------------------------------------
def gate_text(
    store: MemoryStore,
    name: str,
    text: object,
    settings: Settings,
    *,
    max_chars: int | None = None,
    allow_secret: bool = False,
    verb: str = "written",
) -> bytes:
    """The bytes of a memory's new ``text``, once it is text, within ``max_chars`` (None: no
    limit; -1: the configured default) and the bound of a memory, and holds no secret."""
    if not isinstance(text, str):
        raise MemoryStoreError("memory content must be text")
    if max_chars is not None:
        limit = settings.global_config.default_max_tool_answer_chars if max_chars < 0 else max_chars
        if len(text) > limit:
            raise ContentTooLongError(
                f"content of '{name}' has {len(text)} characters, more than the limit of "
                f"{limit}; split it into several memories (or raise max_chars)"
            )
    data = encode_memory(name, text)
    refuse_secrets(store, {name: text}, allow_secret, verb)
    return data


def gate_rename(
    store: MemoryStore,
    snap: Snapshot,
    old: str,
    new: str,
    *,
    allow_secret: bool = False,
    proposing: bool = False,
) -> tuple[str, str]:
    """The canonical (old, new) names of a rename both may make: writable, the new one
    portable and holding no secret, and not the same memory."""
    old = snap.policy.check(old, write=True, proposing=proposing)
    new = N.check_portable(snap.policy.check(new, write=True, proposing=proposing))
    refuse_secrets(store, {new: ""}, allow_secret, "renamed")
    if old == new:
        raise MemoryStoreError(f"'{old}' and '{new}' are the same memory name")
    return old, new


def refuse_secrets(
    store: MemoryStore,
    texts: Mapping[str, str | bytes | None],
    allow_secret: bool = False,
    verb: str = "written",
) -> None:
    """The secret gate (core/secrets.py) on text about to be written through ``store``; a
    person may override it (``allow_secret``), the agent never. ``verb`` is what the
    refusal says did not happen (``changed`` for an edit, ``renamed``)."""
    person = store.context is Context.HUMAN
    if allow_secret and person:
        return
    from serena_memory.core import secrets  # only writes need the gate; reads start quicker

    secrets.check_all(texts, person=person, verb=verb)


def refuse_taken(new: str) -> NoReturn:
    """A rename onto a memory that exists is refused, however it is asked."""
    raise MemoryExistsError(f"memory '{new}' already exists; delete or rename it first")


def encode_memory(name: str, text: str) -> bytes:
    """UTF-8 bytes of a memory; text holding lone surrogates (undecodable input) is refused,
    and so is text larger than a memory may be (the read's own bound)."""
    if len(text) > paths.MAX_MEMORY_BYTES:  # too large in any encoding: not encoded at all
        paths.refuse_oversized(f"memory '{name}'", len(text))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MemoryEncodingError(
            f"content for memory '{name}' can't be stored as UTF-8 (character "
            f"{exc.start + 1} is {exc.object[exc.start]!r}); it probably came from "
            "undecodable input"
        ) from None
    paths.refuse_oversized(f"memory '{name}'", len(data))
    return data


def version_of(content: str) -> str:
    """A memory's version token: the SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


# -- accepting a saved change -----------------------------------------------------------------
def apply(store: MemoryStore, change: PlannedChange) -> None:
    """Make ``change`` through the store's own verbs, only if the memory is still at the
    version it was planned on (MemoryChangedError, MemoryNotFoundError: it is not)."""
    if change.action in ("write", "edit"):
        assert change.text is not None
        verb = "Edit" if change.action == "edit" else "Replace"  # as the direct verb records
        store.write_if_unchanged(change.memory, change.text, change.base, verb=verb)
    elif change.action == "delete":
        store.delete(change.memory, expected_version=change.base)
    else:
        assert change.new_name is not None
        # checked with the locks held, like a write's or a delete's version
        store.rename(change.memory, change.new_name, expected_version=change.base)
