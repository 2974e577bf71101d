"""Renaming a memory, and pointing every reference to it at its new name.

A rename changes many files: the memory moves and each memory naming it (`mem:OLD`) is
rewritten. So it plans everything first (which memories to rewrite, which to leave and
why), checks the plan whole (a new name that can be referenced, no secret in any new
text), and only then journals it and rolls the journal forward (core/recovery.py),
so a crash part-way is finished by the next operation. A rename is one transaction
(core/transaction.py) whose change is that journal.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from serena_memory.core import journal as J
from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.display import counted
from serena_memory.core.errors import (
    InvalidNameError,
    MemoryChangedError,
    MemoryNotFoundError,
    MemoryStoreError,
)
from serena_memory.core.files import ensure_folder
from serena_memory.core.layout import Scopes
from serena_memory.core.planned_change import gate_rename, refuse_secrets, refuse_taken
from serena_memory.core.references import can_be_referenced, rewrite_references
from serena_memory.core.store_reading import decode_memory

if TYPE_CHECKING:
    from serena_memory.core.layout import Layout
    from serena_memory.core.store import MemoryStore, Snapshot
    from serena_memory.core.store_reading import Reader


class RenameResult(NamedTuple):
    old: str
    new: str
    references_rewritten: int = 0
    memories_rewritten: list[str] = []
    read_only_skipped: list[str] = []
    undecodable_skipped: list[str] = []
    left_unchanged: list[str] = []
    global_not_rewritten: list[str] = []

    def summary(self) -> str:
        from serena_memory.core.secrets import masked_name  # a token renamed away

        text = (
            f"Renamed '{masked_name(self.old)}' to '{self.new}'; rewrote "
            f"{counted(self.references_rewritten, 'reference')} in "
            f"{counted(len(self.memories_rewritten), 'memory', 'memories')}."
        )
        if self.read_only_skipped:
            text += (
                " Left untouched because read-only (they still point to the old name): "
                + ", ".join(self.read_only_skipped)
                + "."
            )
        if self.undecodable_skipped:
            text += (
                " Not valid UTF-8, so not rewritten (fix the encoding, then rewrite the "
                "reference by hand): " + ", ".join(self.undecodable_skipped) + "."
            )
        if self.global_not_rewritten:
            text += (
                f" Global memories are read in every project, where `mem:{self.old}` names "
                "that project's memory, so these still say it (edit them by hand if they "
                "meant this one): " + ", ".join(self.global_not_rewritten) + "."
            )
        if self.left_unchanged:
            text += (
                " Not rewritten because changed meanwhile, linked outside the allowed folders "
                "or named in a way no tool accepts (rewrite the reference by hand): "
                + ", ".join(self.left_unchanged)
                + "."
            )
        return text


@dataclass
class RewritePlan:
    """What a rename does to the memories that reference the old name: the rewritten
    texts it will journal, and those it leaves as they are, by reason."""

    moved_text: str  # the renamed memory's new text
    changes: list[J.Change] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # references rewritten, by memory
    found: int = 0  # references found, rewritten or not
    read_only: list[str] = field(default_factory=list)
    undecodable: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    global_left: list[str] = field(default_factory=list)

    def texts(self, new: str) -> dict[str, str | bytes | None]:
        """Every text the rename will write, by memory, for the secret gate."""
        return {new: self.moved_text, **{c.memory: c.content for c in self.changes}}

    def result(self, old: str, new: str, changed_meanwhile: list[str]) -> RenameResult:
        """The rename's result, once the journal ran and skipped ``changed_meanwhile``."""
        rewritten = sorted(n for n in self.counts if n not in changed_meanwhile)
        return RenameResult(
            old,
            new,
            sum(self.counts[n] for n in rewritten),
            rewritten,
            sorted(self.read_only),
            sorted(self.undecodable),
            sorted(self.left + changed_meanwhile),
            sorted(self.global_left),
        )


class Renamer:
    """Renames, with the references to the renamed memory rewritten in one journal."""

    def __init__(self, store: MemoryStore, layout: Layout, reader: Reader) -> None:
        self.store = store
        self.layout = layout
        self.reader = reader

    def rename(
        self, old: str, new: str, allow_secret: bool, expected_version: str | None
    ) -> RenameResult:
        """Move a memory (across topics or scopes) and point every reference naming it whole
        (`mem:OLD`) at `mem:NEW`: in the project's memories and, when OLD is a global
        memory, in the global ones (a global memory's `mem:core` names each project's own
        `core`, so a project rename reports those instead of rewriting them).

        The whole plan is journaled before the first file changes, so a crash part-way is
        finished by the next operation instead of leaving references half-rewritten.
        With ``expected_version``, only if nobody changed the memory since (checked with
        the locks held).
        """
        snap = self.store.snapshot()
        old, new = gate_rename(self.store, snap, old, new, allow_secret=allow_secret)
        scopes = snap.scopes
        old_path, new_path = (
            self.layout.entry_path(old, scopes),
            self.layout.real_path_of(new, scopes),
        )
        # the real folders of every memory it may rewrite are locked too (shared ones
        # included); the listing already resolved them through the path gate
        homes = {Path(real).parent for real in self.reader.scan_with(snap).files.values()}
        with self.store.transaction(snap, old, new, all_scopes=True, real_folders=homes) as tx:
            old_bytes = self._renamed_bytes(old, old_path, new, new_path, scopes)
            _refuse_changed(old, old_bytes, expected_version)
            plan = self._plan_rewrites(old, new, decode_memory(old, old_bytes), snap)
            ensure_folder(new_path.parent)  # fail before the journal, not half-way through it
            self._refuse_unreferenceable(plan, old, new, new_path, scopes)
            refuse_secrets(self.store, plan.texts(new), allow_secret, "renamed")
            journal = J.plan(old, new, old_bytes, plan.moved_text, plan.changes)
            record = tx.record(f"Rename {old} to {new}", old, new, *plan.counts, all_scopes=True)
            replayed = tx.rename(journal)
            self.layout.prune_empty_topics(old_path.parent, scopes)
            record.renamed = (old, new)
            tx.touched(old, new, *(n for n in plan.counts if n not in replayed.skipped))
        # the journal skips what changed meanwhile (by an editor that takes no lock)
        return plan.result(old, new, replayed.skipped)

    def _renamed_bytes(
        self, old: str, old_path: Path, new: str, new_path: Path, scopes: Scopes
    ) -> bytes:
        """The bytes of the memory to rename, once it is sure the rename can happen (the
        old one exists, the new one does not); called with the locks held."""
        if not os.path.lexists(old_path):
            message = self.reader.not_found_message(old, scopes)
            raise MemoryNotFoundError(message, name=old)
        if os.path.lexists(new_path):
            refuse_taken(new)
        try:
            return self.layout.read_bytes(old, scopes)
        except OSError as exc:
            raise MemoryStoreError(f"memory '{old}' can't be read: {exc.strerror}") from None

    def _plan_rewrites(self, old: str, new: str, moved_text: str, snap: Snapshot) -> RewritePlan:
        """Every memory naming `mem:OLD`, with its rewritten text or why it is left."""
        plan = RewritePlan(moved_text)
        needle = f"mem:{old}".encode()
        project, global_ = snap.scopes
        for name, real in sorted(self.reader.scan_with(snap).files.items()):
            if name == old:
                new_text, count = rewrite_references(moved_text, old, new, f"memory '{new}'")
                if count:
                    plan.found += count
                    plan.moved_text = new_text
                    plan.counts[new] = count
                continue
            scope = global_ if N.is_global(name) else project
            data = _referencing(name, real, needle, scope)
            if data is None:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                plan.undecodable.append(name)
                continue
            new_text, count = rewrite_references(text, old, new, f"memory '{name}'")
            if count:
                plan.found += count
                change = J.Change(name, J.digest(data), new_text)
                _plan_rewrite(plan, change, count, old, snap)
        return plan

    def _refuse_unreferenceable(
        self, plan: RewritePlan, old: str, new: str, new_path: Path, scopes: Scopes
    ) -> None:
        """A new name that no `mem:` reference can spell is refused while references to
        the old one exist (they could not be rewritten)."""
        if plan.found and not can_be_referenced(new):
            self.layout.prune_empty_topics(new_path.parent, scopes)
            raise MemoryStoreError(
                f"'{new}' can't be written as a mem: reference (a reference is letters, "
                f"digits, '_', '-' and '/'), and {plan.found} reference(s) point to '{old}'; "
                "choose such a name, or remove those references first"
            )


def _referencing(name: str, real: str, needle: bytes, scope: paths.Scope) -> bytes | None:
    """The bytes of a memory that holds ``needle``; None when it doesn't or can't be
    read (a rename leaves such a memory alone)."""
    try:
        data = paths.read_regular_file(real, scope.allowed, f"memory '{name}'")
    except (OSError, MemoryStoreError):
        return None
    return data if needle in data else None


def _plan_rewrite(
    plan: RewritePlan, change: J.Change, count: int, old: str, snap: Snapshot
) -> None:
    """Add the rewrite of one memory referencing OLD (``count`` times) to the plan, or
    the memory to those left as they are, by reason."""
    name = change.memory
    if N.is_global(name) and not N.is_global(old):
        # read in every project, where `mem:OLD` names that project's memory
        plan.global_left.append(name)
    elif snap.policy.protect_read_only and snap.policy.is_read_only(name):
        plan.read_only.append(name)
    elif not _storable(name):
        plan.left.append(name)  # a hand-saved name no journal may record
    else:
        plan.counts[name] = count
        plan.changes.append(change)


def _refuse_changed(name: str, data: bytes, expected_version: str | None) -> None:
    """MemoryChangedError when ``data`` is not the version the caller expects."""
    version = hashlib.sha256(data).hexdigest()  # as :func:`planned_change.version_of`
    if expected_version is not None and version != expected_version:
        raise MemoryChangedError(
            f"memory '{name}' was changed since it was read; nothing was renamed",
            name,
            decode_memory(name, data),
            version,
        )


def _storable(name: str) -> bool:
    """Whether a journal may record ``name`` (see :func:`names.check_stored_name`)."""
    try:
        N.check_stored_name(name)
    except InvalidNameError:
        return False
    return True
