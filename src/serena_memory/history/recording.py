"""The history as the store's change recorder (:class:`serena_memory.core.changes.ChangeRecorder`):
which folders' histories one operation writes to, and its entry in each.

Recording costs a write only when the write would lose a text the history never recorded:
otherwise the memory file is written whatever happens to the history, any failure of the
history is reported once and the next operation records what was missed."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import names as N
from serena_memory.core import operation, paths
from serena_memory.core.changes import ChangeRecorder, Provenance
from serena_memory.core.config import Settings
from serena_memory.core.errors import HistoryError, describe
from serena_memory.core.store import MemoryStore, Snapshot
from serena_memory.history.entries import new_operation
from serena_memory.history.folder import FolderHistory
from serena_memory.history.location import (
    global_scope_folder,
    history_root,
    project_scope_folder,
)
from serena_memory.history.notices import report
from serena_memory.history.registry import folder_history

if TYPE_CHECKING:
    from serena_memory.history.restore import MemoryHistory


class GitRecorder:
    """Records each operation as one entry in the git history of every folder it touched."""

    def begin(
        self,
        store: MemoryStore,
        summary: str,
        names: Sequence[str],
        *,
        all_scopes: bool,
        snapshot: Snapshot,
        provenance: Provenance,
        project_folder: Path | None = None,
    ) -> Recording:
        histories: list[FolderHistory] = []
        if snapshot.settings.global_config.memory_history:  # the project's: histories_of
            try:
                histories = histories_of(store, names, all_scopes, snapshot, project_folder)
            except Exception as exc:  # never fail the write because of its record
                where = os.path.realpath(store.layout.project_root)
                report(
                    f"folders:{where}",
                    f"the history of the memories of {where} can't be recorded "
                    f"({describe(exc)}); the memories themselves are saved",
                )
        record = Recording(histories, provenance, summary)
        record.start(names)
        return record

    def history(self, store: MemoryStore) -> MemoryHistory:
        """The history's queries and restores: loaded when asked, never to record."""
        from serena_memory.history.restore import MemoryHistory

        return MemoryHistory(store)


def keeps_history_of(settings: Settings, name: str) -> bool:
    """Whether a change of ``name`` is recorded, so a delete of it can be undone: a global
    memory's history follows the user's file alone, a project memory's either file."""
    if N.is_global(name):
        return settings.global_config.memory_history
    return settings.history_enabled


def histories_of(
    store: MemoryStore,
    names: Iterable[str],
    all_scopes: bool,
    snapshot: Snapshot,
    project_folder: Path | None = None,
) -> list[FolderHistory]:
    """The histories an operation on ``names`` writes to: the project's folder's, the
    global folder's, or both, under the change's ``snapshot`` (``project_folder``: the
    real one, when the change resolved it). A project's ``memory_history: false`` turns
    off its own history only; the global memories' history follows the user's file
    alone."""
    names = list(names)
    settings = snapshot.settings
    root = history_root(store, settings)
    if paths.is_inside(os.path.realpath(root), (store.layout.project_real,)):
        # the user's own repository is never touched: no history inside the project
        raise HistoryError(
            f"the history folder {root} is inside the project, so no history is kept; "
            "set memory_history_dir in serena_config.yml to a folder outside it"
        )
    layout, scopes = store.layout, snapshot.scopes
    project = project_scope_folder(layout, scopes, project_folder)
    histories: list[FolderHistory] = []
    # a catch-up (no names) of a project without a memories folder has nothing to record
    everything = all_scopes and (bool(names) or project.root.is_dir())
    named_global = {N.is_global(n) for n in names}  # {False}: project memories only
    if settings.history_enabled and (everything or False in named_global):
        histories.append(folder_history(root, project))
    if True in named_global or all_scopes:  # (the global folder is looked at only then)
        global_ = global_scope_folder(layout, scopes, snapshot.sync)
        if True in named_global or global_.root.is_dir():
            histories.append(folder_history(root, global_))
    return histories


class Recording:
    """One operation in progress, under the lock of every folder it may touch.

    :meth:`start` commits outside changes first; the store then writes its files and names
    them with :meth:`touched`; :meth:`finish` commits them as one entry per folder. Any
    failure is reported once and never raised: the write matters more than its record.
    """

    def __init__(
        self, histories: list[FolderHistory], provenance: Provenance, summary: str
    ) -> None:
        self.histories = histories
        self.provenance = provenance
        self.summary = summary
        self.names: list[str] = []
        self.renamed: tuple[str, str] | None = None
        self.operation = new_operation()
        # where this change's notices go (the open operation's receiver), looked up once
        self._notices = operation.receiver()
        self._healthy: list[FolderHistory] = []
        self._narrow: set[FolderHistory] = set()  # those that note only what is touched

    def start(self, about_to_change: Iterable[str] = ()) -> None:
        """Catch each history up before the change. One that can't (a full disk, a folder
        it can't write) lets the change go on, unless the change would replace or delete
        a text that history never recorded: then nothing changes and one sentence says
        why, since that text would be lost for good."""
        names = list(about_to_change)
        for history in self.histories:
            rels = history.folder.rels_of(names)
            narrow = history.next_recording(bool(names))
            failure = self._attempt(
                history, lambda h=history, r=rels, n=narrow: h.catch_up(about_to_change=r, narrow=n)
            )
            if failure is not None:
                _refuse_losing(history, rels, failure)
                _report_failure(history, failure)
                continue
            self._healthy.append(history)
            if narrow:
                self._narrow.add(history)

    def touched(self, *names: str) -> None:
        """Name the memories the operation changed (created, rewritten or removed)."""
        self.names.extend(names)

    def finish(self) -> None:
        for history in self._healthy:
            rels = history.folder.rels_of(self.names)
            if rels:
                self._guard(
                    history,
                    lambda h=history, r=rels: h.record(
                        r,
                        self.provenance,
                        self.summary,
                        self.renamed,
                        self.operation,
                        narrow=h in self._narrow,
                        loaded=True,  # by its catch-up in :meth:`start`, under the same lock
                    ),
                )

    def _guard(self, history: FolderHistory, action: Any) -> bool:
        failure = self._attempt(history, action)
        if failure is not None:
            _report_failure(history, failure)
        return failure is None

    def _attempt(self, history: FolderHistory, action: Any) -> Exception | None:
        """Run ``action``; its failure is returned (for the caller to report), never raised."""
        try:
            action()
        except Exception as exc:  # never fail the write because of its record
            history.reset()
            return exc
        key = str(history.repo_path)
        if key in self._notices.reported:
            self._notices.clear(key)  # recorded: say it again if it recurs
        return None


def _report_failure(history: FolderHistory, failure: Exception) -> None:
    report(
        str(history.repo_path),
        f"the history of the memories in {history.folder.root} could not be recorded "
        f"({_describe(failure)}); the memories themselves are saved, and the history "
        f"will catch up at the next change",
    )


def _refuse_losing(history: FolderHistory, rels: list[str], failure: Exception) -> None:
    """Raise when a file among ``rels`` holds a text ``history`` never recorded (one
    written while it couldn't record, as on a full disk): the change would replace or
    delete it, and the history can't record it now."""
    try:
        lost = history.unrecorded(rels)
    except Exception:  # noqa: BLE001 - a history that can't be read can't tell what it
        return  # holds: the change goes on, and the failure is reported as it always was
    if not lost:
        return
    name = history.folder.name_of(lost[0])
    raise HistoryError(
        f"memory {name!r} holds a text the history hasn't recorded, and the history in "
        f"{history.repo_path} can't record it now ({_describe(failure)}); nothing was "
        "changed: free space there or make it writable, then try again"
    )


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f" at {exc.filename}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    return str(exc) or type(exc).__name__


RECORDER: ChangeRecorder = GitRecorder()  # mypy checks it keeps the interface
