"""How the store announces its changes, and which folders the history keeps.

The store knows no history: it opens one record per operation through the interface in
core/changes.py (which the history package implements) and names the memories it
touched. The folders it hands over are the real ones it locks, with their path-gate
scopes, so the history reads exactly what the store may read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

from serena_memory.core import names as N
from serena_memory.core.changes import (
    ChangeHistory,
    ChangeRecord,
    ChangeRecorder,
    Folder,
    acting_provenance,
    default_recorder,
)
from serena_memory.core.config import Settings
from serena_memory.core.store_journal import StoreJournal

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

HistoryFolders = list[Folder]


class StoreRecording(StoreJournal):
    """The history's view of a store: its folders, its recorder, one record per change."""

    def _as_store(self) -> MemoryStore:
        """This store as the recorder takes it: the parts of the store are only ever
        built together, as a :class:`~serena_memory.core.store.MemoryStore`."""
        return cast("MemoryStore", self)

    def history_folders(self, settings: Settings | None = None) -> HistoryFolders:
        """The project's memories folder and the global one, as the history sees them:
        the real folders (those the locks are taken on) with their path-gate scopes, so
        the history reads exactly what the store may read."""
        project, global_ = self.gate_scopes(settings)
        # The team's memories have their own history: their repository (sync/merge.py).
        team = self.sync_config.team_topic_pulled()
        return [
            Folder(self._real_folder(project), "", frozenset({N.GLOBAL_TOPIC}), "project", project),
            Folder(
                self._real_folder(global_),
                N.GLOBAL_TOPIC + "/",
                frozenset({team} if team else ()),
                "global",
                global_,
            ),
        ]

    def history_root(self, settings: Settings | None = None) -> Path:
        configured = (settings or self.settings).global_config.memory_history_dir
        return configured if configured is not None else self.home / "history"

    @property
    def recorder(self) -> ChangeRecorder:
        """What keeps this store's changes: the one given, else the default recorder."""
        if self._recorder is None:
            self._recorder = default_recorder()
        return self._recorder

    @contextlib.contextmanager
    def recording(
        self, summary: str, *names: str, all_scopes: bool = False, settings: Settings | None = None
    ) -> Iterator[ChangeRecord]:
        """Record one operation as one history entry; call it with the folder locks held.

        Outside changes are committed first; the caller names the files it changed with
        ``touched``. Nothing is recorded when ``memory_history: false``.
        """
        record = self.recorder.begin(
            self._as_store(),
            summary,
            names,
            all_scopes=all_scopes,
            settings=settings or self.settings,
            provenance=acting_provenance() or self.provenance,
        )
        try:
            yield record
        finally:
            record.finish()  # what was changed before a failure is recorded too

    def history(self) -> ChangeHistory:
        """Entries, old texts and restores, as the recorder keeps them."""
        return self.recorder.history(self._as_store())

    def catch_up_history(self) -> None:
        """Record changes made outside (an editor, a checkout) now, as ``external``."""
        if not self.settings.global_config.memory_history:
            return
        looking = self._changing(all_scopes=True, existing_only=True)
        with looking, self.recording("", all_scopes=True):
            pass

    def history_folder(self, scope: str) -> Folder:
        """The project's ("project") or the global ("global") memories folder."""
        return next(f for f in self.history_folders() if f.label == scope)

    def prune_history(self, keep_days: dict[str, int]) -> int:
        """Drop history entries older than ``keep_days[label]`` days in each folder
        ("project", "global"; 0 or absent: keep all)."""
        return self.recorder.prune(self._as_store(), keep_days)
