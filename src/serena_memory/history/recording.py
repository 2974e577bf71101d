"""The history as the store's change recorder (:class:`serena_memory.core.changes.ChangeRecorder`):
which folders' histories one operation writes to, and its entry in each."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.changes import ChangeRecorder, Provenance
from serena_memory.core.config import Settings
from serena_memory.core.errors import HistoryError, describe
from serena_memory.core.files import locked
from serena_memory.core.store import MemoryStore
from serena_memory.history.engine import FolderHistory, Recording, folder_history, report
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
        settings: Settings,
        provenance: Provenance,
    ) -> Recording:
        histories: list[FolderHistory] = []
        if settings.global_config.memory_history:  # the project's own switch: histories_of
            try:
                histories = histories_of(store, names, all_scopes, settings)
            except Exception as exc:  # never fail the write because of its record
                where = os.path.realpath(store.project_root)
                report(
                    f"folders:{where}",
                    f"the history of the memories of {where} can't be recorded "
                    f"({describe(exc)}); the memories themselves are saved",
                )
        record = Recording(histories, provenance, summary)
        record.start(names)
        return record

    def history(self, store: MemoryStore) -> MemoryHistory:
        return MemoryHistory(store)

    def prune(self, store: MemoryStore, keep_days: dict[str, int]) -> int:
        """Drop entries older than ``keep_days[label]`` days in each folder ("project",
        "global"; 0 or absent: keep all), each under its lock."""
        dropped = 0
        root = store.history_root()
        for spec in store.history_folders():
            days = keep_days.get(spec.label, 0)
            if days <= 0 or not spec.root.is_dir():
                continue
            with locked([spec.root]):
                dropped += folder_history(root, spec).prune(days)
        return dropped


def histories_of(
    store: MemoryStore, names: Iterable[str], all_scopes: bool, settings: Settings
) -> list[FolderHistory]:
    """The histories an operation on ``names`` writes to: the project's folder's, the
    global folder's, or both. A project's ``memory_history: false`` turns off its own
    history only; the global memories' history follows the user's file alone."""
    names = list(names)
    root = store.history_root(settings)
    if paths.is_inside(os.path.realpath(root), (os.path.realpath(store.project_root),)):
        # the user's own repository is never touched: no history inside the project
        raise HistoryError(
            f"the history folder {root} is inside the project, so no history is kept; "
            "set memory_history_dir in serena_config.yml to a folder outside it"
        )
    project, global_ = store.history_folders(settings)
    histories: list[FolderHistory] = []
    if settings.history_enabled and (all_scopes or any(not N.is_global(n) for n in names)):
        histories.append(folder_history(root, project))
    if any(N.is_global(n) for n in names) or (all_scopes and global_.root.is_dir()):
        histories.append(folder_history(root, global_))
    return histories


RECORDER: ChangeRecorder = GitRecorder()  # mypy checks it keeps the interface
