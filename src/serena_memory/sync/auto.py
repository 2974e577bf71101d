"""Automatic sync (``memory_sync: auto``): a long-running server syncs in the background."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from serena_memory.core import background
from serena_memory.core.config import load_sync_config
from serena_memory.core.errors import MemoryStoreError
from serena_memory.sync.merge import SCOPES, sync
from serena_memory.sync.result import SyncResult
from serena_memory.sync.team import pull_team
from serena_memory.sync.transport import GIT_TIMEOUT, configured_remote

log = logging.getLogger("serena_memory.sync")

DEBOUNCE_SECONDS = 2.0  # writes in a burst are pushed together, this long after the last
MAX_DELAY_SECONDS = 30.0  # ...but never later than this after the first
RETRY_SECONDS = 120.0  # an unreachable remote is tried again after this long


class AutoSync:
    """Sync in the background for a long-running server: a pull when it starts, a push
    after writes (debounced), never on the thread that answers a tool call. An unreachable
    remote is a normal state: said once in the server's log, tried again later, and said
    again only once it works again.

    ``store_source`` gives the store to sync (a server may switch projects); the global
    memories are synced whenever ``memory_sync_remote`` is set, a project's when it has a
    remote in ``memory_sync_project_remotes``.
    """

    def __init__(
        self,
        store_source: Any,
        *,
        debounce: float = DEBOUNCE_SECONDS,
        retry: float = RETRY_SECONDS,
    ) -> None:
        import threading

        self.store_source = store_source
        self.debounce = debounce
        self.retry = retry
        self._wake = threading.Condition()
        self._due: float | None = None
        self._first: float | None = None
        self._stopped = False
        self._offline: set[str] = set()
        self.last: dict[str, SyncResult] = {}
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Pull now (in the background) and serve later requests; stopped when the process
        ends (`core.background`)."""
        self._schedule(0.0)
        self._thread = background.start(self._run, name="serena-auto-sync")
        background.on_stop(self.stop)

    def changed(self) -> None:
        """A memory was written: push soon. Cheap; never blocks on the sync itself."""
        self._schedule(self.debounce)

    def stop(self) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()

    def finish(self) -> None:
        """Stop, and push what is still waiting (a server that ends after a write)."""
        with self._wake:
            pending = self._due is not None
        self.stop()
        if self._thread is not None:
            self._thread.join(timeout=GIT_TIMEOUT)
        if pending:
            self.sync_once()

    def _schedule(self, delay: float) -> None:
        now = time.monotonic()
        with self._wake:
            if self._first is None:
                self._first = now
            self._due = min(now + delay, self._first + MAX_DELAY_SECONDS)
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._stopped and (self._due is None or self._due > time.monotonic()):
                    timeout = None if self._due is None else self._due - time.monotonic()
                    self._wake.wait(timeout)
                if self._stopped:
                    return
                self._due = self._first = None
            if not self.sync_once():
                with self._wake:
                    if self._due is None:
                        self._due = time.monotonic() + self.retry

    def sync_once(self) -> bool:
        """Sync every folder that has a remote; False when one could not be synced."""
        store = self.store_source()
        if store is None:
            return True
        fine = True
        for scope in (*SCOPES, "team"):
            try:
                if scope == "team":
                    if store.sync_config.team_remote is None:
                        continue
                    self.last[scope] = pull_team(store)
                    continue
                if configured_remote(store, scope) is None:
                    continue
                self.last[scope] = sync(store, scope)
            except MemoryStoreError as exc:
                fine = False
                if scope not in self._offline:
                    self._offline.add(scope)
                    log.warning(
                        "automatic sync of the %s memories failed, tried again later: %s",
                        scope,
                        exc,
                    )
                continue
            except Exception as exc:  # a background thread must never die of a surprise
                fine = False
                log.warning("automatic sync of the %s memories failed: %s", scope, exc)
                continue
            if scope in self._offline:
                self._offline.discard(scope)
                log.warning("automatic sync of the %s memories works again", scope)
        return fine


def start_auto_sync(store_source: Any, home: Path | None = None) -> AutoSync | None:
    """An :class:`AutoSync` started when the configuration says ``memory_sync: auto``."""
    store = store_source()
    # the store's settings: its operation's snapshot; without a store, the file of ``home``
    config = store.sync_config if store is not None else load_sync_config(home)
    if config.mode != "auto":
        return None
    auto = AutoSync(store_source)
    auto.start()
    return auto
