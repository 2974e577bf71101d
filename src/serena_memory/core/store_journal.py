"""Every change under its locks, and the rename journal that makes a rename crash-safe.

Kept together because they are one protocol: before a change takes its folders' locks it
finishes a rename that a crash interrupted (under that journal's own locks), and once it
holds them it checks again, since a rename killed in between leaves a journal too. A
rename writes its journal here and replays it at once; the next operation replays one
that a crash left behind (core/journal.py holds the journal's format and its checks).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from serena_memory.core import journal as J
from serena_memory.core import names as N
from serena_memory.core import operation, paths
from serena_memory.core.errors import (
    MemoryStoreError,
    OutsidePathError,
    RenameJournalError,
    describe,
)
from serena_memory.core.files import atomic_write, ensure_folder, fsync_dir, locked
from serena_memory.core.store_access import StoreAccess

JOURNAL_NAME = J.JOURNAL_NAME

Folders = list[Path]
"""Paths of memories folders or files in them. An alias, because inside
:class:`MemoryStore` the name ``list`` is the method that lists memories."""


class StoreJournal(StoreAccess):
    """The locks a change holds, and the rename journal run and recovered under them."""

    # -- the locks of a change -----------------------------------------------------------
    def _lock_folders(
        self,
        *names: str,
        all_scopes: bool = False,
        create: Iterable[str] = (),
        listed: Iterable[str] = (),
        real_folders: Iterable[Path] = (),
        existing_only: bool = False,
    ) -> Folders:
        """The real folders a change to ``names`` locks (every one checked by the path gate:
        a `.serena` linked outside the project is refused here, before a folder is created
        or locked).

        Each scope's memories folder (every change in a project holds it, so a rename and
        its journal never interleave with another change), plus the real folder each
        memory lives in, so that two projects reaching a shared topic folder through
        different links hold the same lock. The folders of the memories in ``create`` are
        made first, so a new memory's folder is locked too; ``listed`` are names from a
        listing or a journal (whose folders are locked where the gate allows them).
        """
        project, global_ = self.gate_scopes()
        roots = []
        if all_scopes or any(not N.is_global(n) for n in names):
            roots.append(self._real_folder(project))
        if any(N.is_global(n) for n in names):
            roots.append(self._real_folder(global_))
        elif all_scopes:
            real_global = self._real_folder(global_)
            if real_global.is_dir():
                roots.append(real_global)
        for name in create:
            ensure_folder(self.real_path_of(name).parent)
        homes = [self._memory_folder(name) for name in names] + list(real_folders)
        for name in listed:
            try:
                homes.append(self._memory_folder(name, listed=True))
            except OutsidePathError:
                continue  # never read nor written: nothing to lock
        # a folder that does not exist holds no memory to protect (and is not made here)
        return roots + [f for f in dict.fromkeys(homes) if f.is_dir()]

    def _memory_folder(self, name: str, *, listed: bool = False) -> Path:
        """The real folder a memory lives in (or will), through the path gate."""
        scope, parts = self._locate(name, listed=listed)
        return Path(self._resolve(scope, parts[:-1], f"the topic folder of memory '{name}'"))

    @contextlib.contextmanager
    def _changing(
        self,
        *names: str,
        all_scopes: bool = False,
        create: Iterable[str] = (),
        listed: Iterable[str] = (),
        real_folders: Iterable[Path] = (),
        existing_only: bool = False,
    ) -> Iterator[None]:
        """Hold the locks for changing ``names`` (see :meth:`_lock_folders`), after
        finishing a rename a crash interrupted (under that journal's own locks)."""
        self.recover(strict=True)
        folders = self._lock_folders(
            *names, all_scopes=all_scopes, create=create, listed=listed, real_folders=real_folders
        )
        if existing_only:  # a look that changes nothing makes no memories folder
            folders = [f for f in folders if f.is_dir()]
        try:
            with locked(folders):
                # a rename killed between that recovery and these locks left a journal:
                # finish it here (its digests keep it from overwriting anything changed since)
                self._recover_locked()
                yield
        finally:
            self._moved()  # what the change removed or moved resolves afresh after it

    # -- the rename journal and crash recovery ---------------------------------------------
    @property
    def journal_path(self) -> Path | None:
        """Where a rename's journal goes: always the project's real memories folder, whose
        lock every rename holds (a journal in the shared global folder could be replayed
        by another project without this project's lock); None when the gate refuses it."""
        try:
            return self._real_folder(self.gate_scopes()[0]) / JOURNAL_NAME
        except OutsidePathError:
            return None

    def _journal_target(self, name: str) -> tuple[Path, Path] | None:
        """(directory entry, real file) of a memory a journal names, or None.

        Resolved by the path gate from the listed name, and only a ``.md`` file: a journal
        can never reach a file outside the memories, whatever links the project holds.
        """
        try:
            scope, parts = self._locate(name, listed=True)
            what = f"memory '{name}'"
            real = paths.resolve(scope, parts, what)
            folder = paths.resolve(scope, parts[:-1], what)
        except OutsidePathError:
            return None
        if not real.endswith(N.MEMORY_SUFFIX):
            return None
        return Path(folder, parts[-1]), Path(real)

    def _journal_read(
        self, name: str, real: Path, scopes: tuple[paths.Scope, paths.Scope] | None = None
    ) -> bytes | None:
        scope = (scopes or self.gate_scopes())[1 if N.is_global(name) else 0]
        try:
            return paths.read_regular_file(str(real), scope.allowed, f"memory '{name}'")
        except FileNotFoundError:
            return None

    def _run_journal(self, journal: J.RenameJournal) -> J.Replayed:
        """Write the journal (and, for global memories, its record in $SERENA_HOME), roll it
        forward, then remove both. The caller holds the locks."""
        journal_path = self.journal_path
        if journal_path is None:  # pragma: no cover - the locks were taken in that folder
            raise MemoryStoreError("the project's memories folder is refused by the path gate")
        data = journal.to_bytes()
        record = None
        if journal.touches_global:
            record = J.record_path(self.global_root, self.memories_dir, data)
            J.write_record(record, self.memories_dir)
        atomic_write(journal_path, data)
        return self._replay_locked(journal_path, journal, record)

    def _replay_locked(
        self, journal_path: Path, journal: J.RenameJournal, record: Path | None
    ) -> J.Replayed:
        scopes = self.gate_scopes()  # once: each use re-reads the configuration's stamp
        replayed = J.replay(
            journal,
            self._journal_target,
            lambda name, real: self._journal_read(name, real, scopes),
            lambda p, d: atomic_write(p, d),
        )
        self._moved()
        journal_path.unlink()
        fsync_dir(journal_path.parent)
        if record is not None:
            with contextlib.suppress(FileNotFoundError):
                record.unlink()
            self._sweep_records()
        for path in replayed.removed:
            self._prune_empty_topics(path.parent)
        return replayed

    def _sweep_records(self) -> None:
        """Remove the records in $SERENA_HOME that vouch for no journal any more (see
        journal.RECORD_MAX_AGE): done whenever a rename of global memories ends, so they
        never pile up. Only in the records folder the path gate lets through."""
        global_ = self.gate_scopes()[1]
        scope = global_._replace(parts=("memories", J.RECORDS_FOLDER))
        try:
            folder = paths.resolve(scope, (), "the rename records folder")
        except OutsidePathError:
            return
        J.sweep_records(folder)

    def recover(self, strict: bool = False) -> bool:
        """Finish a rename that a crash interrupted; cheap (one stat) when there is none.

        Holds the locks of every folder the journal names. A journal that can't be
        replayed is left alone, so reading and listing go on; with ``strict`` (before a
        change) it raises its error instead.
        """
        journal_path = self.journal_path
        if journal_path is None or not os.path.lexists(journal_path):
            return False
        try:
            journal = J.read(journal_path)
        except RenameJournalError:
            if strict:
                raise
            return False
        if journal is None:
            return False
        names = [change.memory for change in journal.changes]
        folders = self._lock_folders(all_scopes=True, listed=names)
        if journal.touches_global:
            folders.append(self._real_folder(self.gate_scopes()[1]))
        with locked(folders):
            return self._recover_locked(strict=strict)

    def _checked_journal(self, journal_path: Path) -> tuple[J.RenameJournal | None, Path | None]:
        """The journal at ``journal_path`` (None: there is none) and the record vouching
        for it; RenameJournalError when it must not be replayed."""
        journal = J.read(journal_path)
        record = None
        if journal is not None and journal.touches_global:
            record = J.record_path(self.global_root, self.memories_dir, journal.to_bytes())
            if not record.is_file():
                raise J.invalid(
                    journal_path,
                    f"it changes global memories and {self.home} holds no record of that "
                    "rename (so it did not come from a rename made on this computer)",
                )
        return journal, record

    def journal_problem(self) -> str | None:
        """Why the project's rename journal is not replayed, and what to do; None when
        there is none (cheap: one stat). For listings, which go on regardless."""
        journal_path = self.journal_path
        if journal_path is None or not os.path.lexists(journal_path):
            return None
        try:
            self._checked_journal(journal_path)
        except RenameJournalError as exc:
            return describe(exc)
        return None  # a valid one, replayed by the next operation

    def _recover_locked(self, strict: bool = True) -> bool:
        """Replay a journal left by a crash; a journal that fails validation is never
        replayed and, when ``strict``, raises RenameJournalError naming it."""
        journal_path = self.journal_path
        if journal_path is None:
            return False
        try:
            journal, record = self._checked_journal(journal_path)
        except RenameJournalError:
            if strict:
                raise
            return False
        if journal is None:
            return False
        replayed = self._replay_locked(journal_path, journal, record)
        opened = operation.current()
        if opened is None:
            self.notices.append(replayed.summary(journal))
        else:  # told to whoever opened the operation that finished it, and no other
            opened.tell(operation.DONE, replayed.summary(journal))
        return True

    def take_notices(self) -> tuple[str, ...]:
        """The notices not shown yet (see ``notices``; inside an operation, also those of
        the open operation), forgotten once taken."""
        taken, self.notices = self.notices, []
        opened = operation.current()
        if opened is not None:
            taken += opened.take(operation.DONE)
        return tuple(taken)

    def _prune_empty_topics(self, folder: Path) -> None:
        """Remove topic folders left empty, up to (not including) the memories roots; only
        real folders below the real memories folders, never through a link."""
        try:
            roots = [self._real_folder(scope) for scope in self.gate_scopes()]
        except OutsidePathError:
            return
        while folder not in roots and any(folder.is_relative_to(root) for root in roots):
            if folder.is_symlink() or os.path.realpath(folder) != str(folder):
                return
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent
