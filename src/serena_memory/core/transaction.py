"""One change under its locks: what every write of the store goes through.

A transaction finishes a rename a crash interrupted (under that journal's own locks),
takes the locks of the folders it changes, checks for such a journal again once it holds
them, opens the history entry of the change when asked (:meth:`Transaction.record`), and
writes with :meth:`~Transaction.put` and :meth:`~Transaction.remove`, which name each
memory they change to that entry. On the way out it finishes the entry, then lets the
locks go, then forgets the paths resolved before (what it removed or moved resolves
afresh after it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from serena_memory.core import journal as J
from serena_memory.core import paths
from serena_memory.core.changes import ChangeRecord
from serena_memory.core.files import atomic_write, locked, remove_file
from serena_memory.core.layout import Layout, Scopes
from serena_memory.core.recovery import Recovery


class Begin(Protocol):
    """Opens a history entry: the summary, the names, whether every scope is recorded, the
    project's real memories folder when the change resolved it -> the record
    (core/changes.py)."""

    def __call__(
        self, summary: str, names: Sequence[str], *, all_scopes: bool, project_folder: Path | None
    ) -> ChangeRecord: ...


Target = tuple[Path, tuple[str, ...]]
"""A memory's real file and the real folders it may lie in (:meth:`Layout.target`)."""


class Transaction:
    """The change in progress: its scopes, its history entry, its writes."""

    def __init__(
        self,
        layout: Layout,
        recovery: Recovery,
        scopes: Scopes,
        begin: Begin,
        project_folder: Path | None = None,
    ) -> None:
        self.layout = layout
        self.recovery = recovery
        self.scopes = scopes
        self._begin = begin
        self.entry: ChangeRecord | None = None
        self.project_folder = project_folder  # resolved as the change began (None: refused)
        # whether a rename a crash interrupted was finished on the way in (it moved files:
        # a path resolved before the change began may lead elsewhere now)
        self.replayed = False
        # whether this change moved files itself (a rename): paths resolved in it may
        # lead elsewhere once it ends (a change that only writes files moves none)
        self.moved_files = False

    def record(self, summary: str, *names: str, all_scopes: bool = False) -> ChangeRecord:
        """Open the change's history entry (outside changes are committed first); nothing
        is recorded when ``memory_history: false``."""
        self.entry = self._begin(
            summary, names, all_scopes=all_scopes, project_folder=self.project_folder
        )
        return self.entry

    def touched(self, *names: str) -> None:
        """Name memories the change changed to its history entry, if one is open."""
        if self.entry is not None:
            self.entry.touched(*names)

    def path(self, name: str) -> Path:
        """The real file behind ``name``, through the path gate."""
        return self.layout.real_path_of(name, self.scopes)

    def put(self, name: str, data: bytes, target: Target | None = None) -> None:
        """Replace (or create) the memory ``name`` with ``data``, whole, in place; never
        larger than a memory may be (callers check before they build the text).
        ``target``: its :meth:`Layout.target` under this change's scopes, taken before the
        change began: not asked of the gate again, unless a finished rename moved files."""
        paths.refuse_oversized(f"memory '{name}'", len(data))
        if target is None or self.replayed:
            target = self.layout.target(name, self.scopes)
        path, allowed = target
        atomic_write(path, data, allowed)
        self.touched(name)

    def remove(self, name: str) -> None:
        """Remove the memory ``name`` (a link itself, never its target), then the topic
        folders it leaves empty; FileNotFoundError and the like when there is none."""
        layout = self.layout
        path = layout.entry_path(name, self.scopes)
        remove_file(path, layout.allowed(name, self.scopes))
        layout.moved()
        self.touched(name)
        layout.prune_empty_topics(path.parent, self.scopes)

    def rename(self, journal: J.RenameJournal) -> J.Replayed:
        """Journal a rename, then roll it forward (core/recovery.py)."""
        self.moved_files = True
        return self.recovery.run(journal, self.scopes)

    def finish(self) -> None:
        if self.entry is not None:
            entry, self.entry = self.entry, None
            entry.finish()  # what was changed before a failure is recorded too


@contextlib.contextmanager
def transaction(
    layout: Layout,
    recovery: Recovery,
    scopes: Scopes,
    begin: Begin,
    names: Iterable[str],
    *,
    all_scopes: bool = False,
    create: Iterable[str] = (),
    real_folders: Iterable[Path] = (),
    existing_only: bool = False,
) -> Iterator[Transaction]:
    """Hold the locks for changing ``names`` (see :meth:`Layout.lock_folders`), after
    finishing a rename a crash interrupted; ``existing_only``: a look that changes
    nothing makes no memories folder."""
    # the project's real memories folder, resolved once for the change: where a rename's
    # journal is, and the lock every change in the project holds
    journal, replayed = recovery.before_change(scopes)
    project_folder = None if journal is None else journal.parent
    folders = layout.lock_folders(
        names,
        scopes,
        all_scopes=all_scopes,
        create=create,
        real_folders=real_folders,
        project_folder=project_folder,
    )
    if existing_only:
        folders = [f for f in folders if f.is_dir()]
    change = Transaction(layout, recovery, scopes, begin, project_folder)
    try:
        with locked(folders):
            # a rename killed between that recovery and these locks left a journal:
            # finish it here (its digests keep it from overwriting anything changed since)
            change.replayed = recovery.recover_locked(scopes, at=journal) or replayed
            try:
                yield change
            finally:
                change.finish()
    finally:
        if change.moved_files or change.replayed:
            layout.moved()  # (a removal forgets the paths as it removes)
