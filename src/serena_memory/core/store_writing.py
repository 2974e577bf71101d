"""Writing memories: create, replace, edit, update and delete, one at a time or in bulk.

Each change normalizes the name and applies the access and secret gates before it takes
a lock, then reads, checks and writes with the folder locks held, so concurrent writers
(the agent, the dashboard, an editor that takes the same lock) never lose one another's
work; each is recorded as one history entry. Every change goes through a transaction
(core/transaction.py), which writes with ``put`` and ``remove``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.access import Context
from serena_memory.core.errors import (
    MemoryChangedError,
    MemoryNotFoundError,
    MemoryStoreError,
)
from serena_memory.core.planned_change import (
    encode_memory,
    gate_text,
    refuse_secrets,
    version_of,
)
from serena_memory.core.transaction import Transaction

if TYPE_CHECKING:
    from serena_memory.core.layout import Layout
    from serena_memory.core.store import MemoryStore, Snapshot
    from serena_memory.core.store_reading import Reader


class WriteResult(NamedTuple):
    name: str
    created: bool
    chars: int
    note: str = ""  # what the writer must know: an agent wrote to a deprecated memory


class EditResult(NamedTuple):
    name: str
    replacements: int
    note: str = ""  # as WriteResult's
    chars: int = 0  # the memory's length after the edit, as WriteResult's
    text: str = ""  # the memory's text after the edit, for the advisors


class Writer:
    """Changes to memories' texts, each in one transaction and recorded."""

    def __init__(self, store: MemoryStore, layout: Layout, reader: Reader) -> None:
        self.store = store
        self.layout = layout
        self.reader = reader

    def write(
        self,
        name: str,
        content: str,
        max_chars: int | None = None,
        *,
        allow_secret: bool = False,
        snap: Snapshot | None = None,
    ) -> WriteResult:
        """Create or replace a memory. ``max_chars`` None: no limit; -1: configured default.
        ``snap``: the settings the caller took for this write (else taken here)."""
        snap = snap or self.store.snapshot()
        name = snap.policy.check(name, write=True)
        data = gate_text(
            self.store, name, content, snap.settings, max_chars=max_chars, allow_secret=allow_secret
        )
        target = self.layout.target(name, snap.scopes, listed=True)  # normalized: checked
        path = target[0]
        new = not path.exists()
        if new:
            N.check_portable(name)  # before its folder is made
        with self.store.transaction(snap, name, create=[name]) as tx:
            # the entry says whether the memory was created or replaced (the lock is held)
            tx.record(_write_summary(name, path.exists()), name)
            created = not path.exists()
            if created and not new:  # removed meanwhile (a new one's name was checked)
                N.check_portable(name)
            refuse_folder(name, path)
            kept = content if created else self._kept(name, snap, content)
            tx.put(name, data if kept is content else encode_memory(name, kept), target)
        return WriteResult(name, created, len(content), self._note(content, kept))

    def delete(self, name: str, expected_version: str | None = None) -> str:
        """Delete a memory; with ``expected_version``, only if nobody changed it since.
        Returns the canonical name of the memory deleted."""
        snap = self.store.snapshot()
        name = snap.policy.check(name, write=True)
        self.layout.entry_path(name, snap.scopes)  # a link is removed itself, never its target
        with self.store.transaction(snap, name) as tx:
            tx.record(f"Delete {name}", name)
            if expected_version is not None:
                current = self.reader.read_text(name, snap.scopes)
                _refuse_changed(name, current, expected_version, "nothing was deleted")
            try:
                tx.remove(name)
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                message = self.reader.not_found_message(name, snap.scopes)
                raise MemoryNotFoundError(message, name=name) from None
        return name

    def edit(
        self, name: str, edit: Callable[[str], tuple[str, int]], allow_secret: bool
    ) -> EditResult:
        """Read-modify-write under the lock, so concurrent edits never lose one another;
        ``edit`` gives the new text and how many replacements it made."""
        count = 0
        given = stored = ""

        def edited(text: str) -> str:
            nonlocal count, given, stored
            given, count = edit(text)
            stored = self._kept_from(text, given)
            return stored

        name = self._transform(name, edited, "Edit", allow_secret)[0]
        return EditResult(name, count, self._note(given, stored), len(stored), stored)

    def _transform(
        self, name: str, transform: Callable[[str], str], verb: str, allow_secret: bool
    ) -> tuple[str, bool]:
        """(canonical name, whether it changed) of a read-modify-write under the lock."""
        snap = self.store.snapshot()
        name = snap.policy.check(name, write=True)
        self.layout.real_path_of(name, snap.scopes)
        with self.store.transaction(snap, name) as tx:
            text = self.reader.read_text(name, snap.scopes)
            new_text = transform(text)
            if new_text == text:
                return name, False
            data = gate_text(
                self.store, name, new_text, snap.settings, allow_secret=allow_secret, verb="changed"
            )
            tx.record(f"{verb} {name}", name)
            tx.put(name, data)
        return name, True

    # -- a deprecated memory stays so whatever an agent writes (core/lifecycle.py) ---------
    def _kept(self, name: str, snap: Snapshot, content: str) -> str:
        """``content`` as an agent's write of memory ``name`` stores it, under the lock."""
        if self.store.context is not Context.AGENT:
            return content
        try:
            current = self.reader.read_text(name, snap.scopes)
        except (OSError, MemoryStoreError):
            return content  # nothing readable to keep: the write replaces it as before
        return self._kept_from(current, content)

    def _kept_from(self, current: str, content: str) -> str:
        """``content`` with the deprecation of ``current`` kept when an agent writes it."""
        if self.store.context is not Context.AGENT:
            return content
        from serena_memory.core.lifecycle import keep_deprecation

        return keep_deprecation(current, content)

    def _note(self, given: str, stored: str) -> str:
        """What the writer is told of the text stored: kept under a deprecation, or opening
        with a block that is not read as front matter."""
        notes = [""]
        if stored.startswith("---"):  # (a block opens with it: most texts have none)
            from serena_memory.core.front_matter import block_problem

            notes = [block_problem(stored)]
        if given != stored:
            from serena_memory.core.lifecycle import kept_note

            notes.insert(0, kept_note(self.store, stored))
        return " ".join(n for n in notes if n)

    def update(self, transforms: dict[str, Callable[[str], str]], summary: str) -> list[str]:
        """Read-modify-write of memories with computed changes (a reference fix, prefixing
        bare names), recorded as one history entry (``summary``; '': "Update NAME").

        Each transform receives the current text under the folder lock, so an edit made
        meanwhile is never lost. Returns the names that changed."""
        snap = self.store.snapshot()
        names = [snap.policy.check(n, write=True) for n in transforms]
        summary = summary or "Update " + ", ".join(names)
        funcs = dict(zip(names, transforms.values(), strict=True))
        changed: list[str] = []
        with self.store.transaction(snap, *names) as tx:
            texts = {name: self.reader.read_text(name, snap.scopes) for name in names}
            new_texts = {name: funcs[name](texts[name]) for name in names}
            # every text is encoded (and its size checked) before the first is written
            data = {n: encode_memory(n, t) for n, t in new_texts.items() if t != texts[n]}
            refuse_secrets(self.store, {n: new_texts[n] for n in data})
            tx.record(summary, *names)
            for name, raw in data.items():
                tx.put(name, raw)
                changed.append(name)
        return changed

    def create_many(
        self, contents: dict[str, str], summary: str, allow_secret: bool, appended: dict[str, str]
    ) -> list[str]:
        """Create the memories of ``contents`` that do not exist yet, as one history entry
        (an import, undone in one restore); an existing one is left as it is, checked under
        the lock. Same gates as :meth:`write`. Returns the names created.

        ``appended``: a paragraph to add at the end of existing memories in the same entry
        (the reference an import leaves in a memory whose name its text could not take), once:
        a memory that already holds it, or can't be read as text, is left as it is."""
        snap = self.store.snapshot()
        check = snap.policy.check
        planned = {check(n, write=True): t for n, t in contents.items()}
        additions = {check(n, write=True): t for n, t in appended.items()}
        refuse_secrets(self.store, {**planned, **additions}, allow_secret)
        data = {name: encode_memory(name, text) for name, text in planned.items()}
        for name in planned:
            if not os.path.lexists(self.layout.real_path_of(name, snap.scopes)):
                N.check_portable(name)  # before its folder is made
        created: list[str] = []
        with self.store.transaction(snap, *planned, *additions, create=planned) as tx:
            tx.record(summary, *planned, *additions)
            for name, raw in data.items():
                if not os.path.lexists(tx.path(name)):
                    tx.put(name, raw)
                    created.append(name)
            for name, paragraph in additions.items():
                self._append_once(tx, name, paragraph)
        return created

    def _append_once(self, tx: Transaction, name: str, paragraph: str) -> None:
        """Add ``paragraph`` after the memory's text unless it holds it; under the lock."""
        try:
            text = self.layout.read_bytes(name, tx.scopes).decode("utf-8")
        except (OSError, UnicodeDecodeError, MemoryStoreError):
            return
        if paragraph.strip() in text:
            return
        joined = text.rstrip("\n") + "\n\n" + paragraph.strip("\n") + "\n"
        tx.put(name, encode_memory(name, joined))

    # -- optimistic concurrency (the dashboard's "no lost work") ------------------------
    def write_if_unchanged(
        self,
        name: str,
        content: str,
        expected_version: str | None,
        *,
        allow_secret: bool = False,
        verb: str = "Replace",
    ) -> WriteResult:
        """Write only if the memory still has ``expected_version`` (None: must not exist).

        The check and the write happen under the folder lock, so a change made in between
        by the agent, an editor or another tab is reported instead of overwritten. ``verb``
        names the change of an existing memory in its history entry ("Edit" for an edit
        accepted in review, as a direct edit records it); a new one is "Create".
        """
        snap = self.store.snapshot()
        name = snap.policy.check(name, write=True)
        data = gate_text(self.store, name, content, snap.settings, allow_secret=allow_secret)
        path = self.layout.real_path_of(name, snap.scopes)
        with self.store.transaction(snap, name, create=[name]) as tx:
            try:
                current: str | None = self.reader.read_text(name, snap.scopes)
            except MemoryNotFoundError:
                current = None
            _refuse_unexpected(name, current, expected_version)
            if current is None:
                N.check_portable(name)
            refuse_folder(name, path)
            tx.record(f"{verb} {name}" if current is not None else f"Create {name}", name)
            tx.put(name, data)
        return WriteResult(name, current is None, len(content))

    # -- exact versions: a restore from the history --------------------------------------
    def apply_versions(
        self, versions: dict[str, bytes | None], summary: str, *, allow_secret: bool = False
    ) -> dict[str, str]:
        """Set memories to exact bytes (None: delete them) as one history entry, under the
        lock; a restore is such a change, never a rewrite of the history."""
        snap = self.store.snapshot()
        planned = {snap.policy.check(n, write=True): v for n, v in versions.items()}
        refuse_oversized_versions(planned)
        refuse_secrets(self.store, dict(planned), allow_secret)
        done: dict[str, str] = {}
        created = [n for n, data in planned.items() if data is not None]
        for name in created:
            if not self.layout.real_path_of(name, snap.scopes).exists():
                N.check_portable(name)  # before its folder is made
        with self.store.transaction(snap, *planned, create=created) as tx:
            tx.record(summary, *planned)
            for name, data in planned.items():
                what = set_version(tx, name, data)
                if what:
                    done[name] = "restored" if what != "deleted" else what
                else:
                    tx.touched(name)
        return done


def set_version(tx: Transaction, name: str, data: bytes | None) -> str | None:
    """Write exact bytes to a memory (None: delete it), through the path gate, in ``tx``;
    returns "created", "changed", "deleted" or None (nothing to delete)."""
    if data is None:
        try:
            tx.remove(name)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return "deleted"
    path = tx.path(name)
    created = not path.exists()
    refuse_folder(name, path)
    tx.put(name, data)
    return "created" if created else "changed"


def _refuse_changed(name: str, current: str, expected_version: str, nothing: str) -> None:
    """MemoryChangedError when ``current`` is not the version the caller expects."""
    if version_of(current) != expected_version:
        raise MemoryChangedError(
            f"memory '{name}' was changed since it was read; {nothing}",
            name,
            current,
            version_of(current),
        )


def _refuse_unexpected(name: str, current: str | None, expected_version: str | None) -> None:
    """MemoryChangedError when the memory (None: none) is not at ``expected_version``."""
    current_version = None if current is None else version_of(current)
    if current_version == expected_version:
        return
    if expected_version is None:
        why = "already exists"
    elif current is None:
        why = "was deleted since it was read"
    else:
        why = "was changed since it was read"
    raise MemoryChangedError(
        f"memory '{name}' {why}; nothing was written", name, current, current_version
    )


def _write_summary(name: str, replacing: bool) -> str:
    return f"{'Replace' if replacing else 'Create'} {name}"


def refuse_folder(name: str, path: Path) -> None:
    """A folder named like the memory's file (``t/a.md/``) can't be replaced by it."""
    if path.is_dir():
        raise MemoryStoreError(
            f"can't write memory '{name}': {path} is a folder; rename or remove that folder"
        )


def refuse_oversized_versions(versions: dict[str, bytes | None]) -> None:
    """Refuse exact versions (a restore, a sync) of which one is larger than a memory may
    be, before any is written."""
    for name, data in versions.items():
        if data is not None:
            paths.refuse_oversized(f"memory '{name}'", len(data))
