"""The rename journal that makes a rename crash-safe, run and recovered under the locks.

A rename writes its journal in the project's memories folder and replays it at once; the
next operation replays one that a crash left behind, before it takes its own locks and
again once it holds them, since a rename killed in between leaves a journal too
(core/journal.py holds the journal's format and its checks; core/transaction.py the
order of those steps).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from serena_memory.core import journal as J
from serena_memory.core import names as N
from serena_memory.core import operation, paths
from serena_memory.core.errors import (
    MemoryStoreError,
    OutsidePathError,
    RenameJournalError,
    describe,
)
from serena_memory.core.files import atomic_write, fsync_dir, locked
from serena_memory.core.layout import Layout, Scopes

JOURNAL_NAME = J.JOURNAL_NAME
T = TypeVar("T")


class Recovery:
    """Runs rename journals, finishes those a crash left, and keeps what it must tell."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        # what was done on the side and must be told (an interrupted rename finished) when
        # no operation is open: one line each, taken by the front-end that shows them;
        # inside an operation they go to it (core/operation.py)
        self.notices: list[str] = []
        # why the journal at a path could not be finished when it was last replayed here
        self.stuck: dict[Path, str] = {}

    def journal_path(self, scopes: Scopes) -> Path | None:
        """Where a rename's journal goes: always the project's real memories folder, whose
        lock every rename holds (a journal in the shared global folder could be replayed
        by another project without this project's lock); None when the gate refuses it."""
        try:
            return self.layout.real_folder(scopes[0]) / JOURNAL_NAME
        except OutsidePathError:
            return None

    def _target(self, name: str, scopes: Scopes) -> tuple[Path, Path] | None:
        """(directory entry, real file) of a memory a journal names, or None.

        Resolved by the path gate from the listed name, and only a ``.md`` file: a journal
        can never reach a file outside the memories, whatever links the project holds.
        """
        try:
            scope, parts = self.layout.locate(name, scopes, listed=True)
            what = f"memory '{name}'"
            real = paths.resolve(scope, parts, what)
            folder = paths.resolve(scope, parts[:-1], what)
        except MemoryStoreError:  # outside the allowed folders, or can't be reached
            return None
        if not real.endswith(N.MEMORY_SUFFIX):
            return None
        return Path(folder, parts[-1]), Path(real)

    @staticmethod
    def _read(name: str, real: Path, scopes: Scopes) -> bytes | None:
        scope = scopes[1 if N.is_global(name) else 0]
        try:
            return paths.read_regular_file(str(real), scope.allowed, f"memory '{name}'")
        except FileNotFoundError:
            return None

    def run(self, journal: J.RenameJournal, scopes: Scopes) -> J.Replayed:
        """Write the journal (and, for global memories, its record in $SERENA_HOME), roll it
        forward, then remove both. The caller holds the locks."""
        journal_path = self.journal_path(scopes)
        if journal_path is None:  # pragma: no cover - the locks were taken in that folder
            raise MemoryStoreError("the project's memories folder is refused by the path gate")
        data = journal.to_bytes()
        record = None
        layout = self.layout
        if journal.touches_global:
            record = J.record_path(layout.global_root, layout.memories_dir, data)
            J.write_record(record, layout.memories_dir)
        atomic_write(journal_path, data)
        return self._replay(journal_path, journal, record, scopes, fresh=True)

    def _replay(
        self,
        journal_path: Path,
        journal: J.RenameJournal,
        record: Path | None,
        scopes: Scopes,
        fresh: bool = False,
    ) -> J.Replayed:
        """Roll the journal forward and remove it. When its new memory can't be written,
        nothing else of it is done: a rename being made (``fresh``) is then undone whole
        and refused; a journal left from before stays, with RenameJournalError saying what
        to do (reading goes on, changes wait)."""
        replayed = J.replay(
            journal,
            lambda name: self._target(name, scopes),
            lambda name, real: self._read(name, real, scopes),
            lambda p, d: atomic_write(p, d),
        )
        self.layout.moved()
        if replayed.unwritten and not fresh:
            self.stuck[journal_path] = replayed.unwritten
            raise J.unfinished(journal_path, replayed.unwritten)
        self.stuck.pop(journal_path, None)
        journal_path.unlink()
        fsync_dir(journal_path.parent)
        if record is not None:
            with contextlib.suppress(FileNotFoundError):
                record.unlink()
            self._sweep_records(scopes)
        for path in replayed.removed:
            self.layout.prune_empty_topics(path.parent, scopes)
        if replayed.unwritten:
            raise MemoryStoreError(
                f"'{journal.old}' can't be renamed to '{journal.new}' because "
                f"{replayed.unwritten}, so nothing was renamed"
            )
        return replayed

    def _sweep_records(self, scopes: Scopes) -> None:
        """Remove the records in $SERENA_HOME that vouch for no journal any more (see
        journal.RECORD_MAX_AGE): done whenever a rename of global memories ends, so they
        never pile up. Only in the records folder the path gate lets through."""
        scope = scopes[1]._replace(parts=("memories", J.RECORDS_FOLDER))
        try:
            folder = paths.resolve(scope, (), "the rename records folder")
        except OutsidePathError:
            return
        J.sweep_records(folder)

    def before_change(self, scopes: Scopes) -> tuple[Path | None, bool]:
        """What a change does first, before its locks: where the project's journal goes
        (None: the gate refuses the project's folder) and whether a rename a crash
        interrupted was finished (one that can't be finished raises, as :meth:`recover`
        does when ``strict``)."""
        journal = self.journal_path(scopes)
        return journal, self.recover(scopes, strict=True, at=journal)

    def recover(self, scopes: Scopes, strict: bool = False, *, at: Path | None = None) -> bool:
        """Finish a rename that a crash interrupted; cheap (one stat) when there is none.

        Holds the locks of every folder the journal names. A journal that can't be
        replayed is left alone, so reading and listing go on; with ``strict`` (before a
        change) it raises its error instead. ``at``: the :meth:`journal_path`, when the
        caller found it already.
        """
        journal_path = at or self.journal_path(scopes)
        if journal_path is None or not os.path.lexists(journal_path):
            return False
        journal = _unless_invalid(lambda: J.read(journal_path), strict)
        if journal is None:
            return False
        names = [change.memory for change in journal.changes]
        folders = self.layout.lock_folders((), scopes, all_scopes=True, listed=names)
        if journal.touches_global:
            folders.append(self.layout.real_folder(scopes[1]))
        with locked(folders):
            return self.recover_locked(scopes, strict=strict)

    def _checked(self, journal_path: Path) -> tuple[J.RenameJournal | None, Path | None]:
        """The journal at ``journal_path`` (None: there is none) and the record vouching
        for it; RenameJournalError when it must not be replayed."""
        journal = J.read(journal_path)
        record = None
        layout = self.layout
        if journal is not None and journal.touches_global:
            record = J.record_path(layout.global_root, layout.memories_dir, journal.to_bytes())
            if not record.is_file():
                raise J.invalid(
                    journal_path,
                    f"it changes global memories and {layout.home} holds no record of that "
                    "rename (so it did not come from a rename made on this computer)",
                )
        return journal, record

    def problem(self, scopes: Scopes) -> str | None:
        """Why the project's rename journal is not replayed, and what to do; None when
        there is none (cheap: one stat). For listings, which go on regardless."""
        journal_path = self.journal_path(scopes)
        if journal_path is None or not os.path.lexists(journal_path):
            return None
        try:
            self._checked(journal_path)
        except RenameJournalError as exc:
            return describe(exc)
        if journal_path in self.stuck:
            return describe(J.unfinished(journal_path, self.stuck[journal_path]))
        return None  # a valid one, replayed by the next operation

    def recover_locked(
        self, scopes: Scopes, strict: bool = True, *, at: Path | None = None
    ) -> bool:
        """Replay a journal left by a crash; a journal that fails validation is never
        replayed and, when ``strict``, raises RenameJournalError naming it. ``at``: as
        :meth:`recover`'s."""
        journal_path = at or self.journal_path(scopes)
        if journal_path is None or not os.path.lexists(journal_path):
            return False  # (one stat: no rename was interrupted)
        journal, record = _unless_invalid(lambda: self._checked(journal_path), strict) or (
            None,
            None,
        )
        if journal is None:
            return False
        replayed = _unless_invalid(
            lambda: self._replay(journal_path, journal, record, scopes), strict
        )
        if replayed is None:  # it can't be finished: reading goes on
            return False
        opened = operation.CURRENT.get()
        if opened is None:
            self.notices.append(replayed.summary(journal))
        else:  # told to whoever opened the operation that finished it, and no other
            opened.tell(operation.DONE, replayed.summary(journal))
        return True

    def take_notices(self) -> tuple[str, ...]:
        """The notices not shown yet (see ``notices``; inside an operation, also those of
        the open operation), forgotten once taken."""
        taken, self.notices = self.notices, []
        opened = operation.CURRENT.get()
        if opened is not None:
            taken += opened.take(operation.DONE)
        return tuple(taken)


def _unless_invalid(read: Callable[[], T], strict: bool) -> T | None:
    """``read()``; None when it finds the journal invalid or can't finish it, unless
    ``strict`` (before a change), which raises RenameJournalError instead."""
    try:
        return read()
    except RenameJournalError:
        if strict:
            raise
        return None
