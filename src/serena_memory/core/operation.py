"""One operation: what a front-end does for one command or request.

A CLI command, an MCP request and a dashboard request each open one operation
(:func:`operation`); everything the library does for it reads from it:

- who acts (the provenance the history names for its changes),
- one snapshot of the settings per project and Serena home, loaded on first use, so that
  the configuration is read once however many layers ask (a configuration write made
  through the library, :func:`serena_memory.core.config.set_global_key`, drops it),
- the paths the store resolved through the path gate, keyed by what was resolved, so a
  name is resolved once (the store forgets them when it removes or moves files),
- the notices it collects (a history that could not be recorded, a rename a crash
  interrupted and that was finished on the way), taken by the front-end that opened it
  and by no other.

The open operation is a context variable: each thread and each asynchronous task sees its
own, so a process serving several clients never mixes theirs. Calls made outside any
operation (the library used directly, tests) read the settings afresh as before, and their
notices go to one process-wide receiver, :data:`OUTSIDE`, guarded by its lock.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Hashable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from serena_memory.core.changes import Provenance


HISTORY = "history"
"""Kind of notice: a change whose history could not be recorded (the change was made)."""
DONE = "done"
"""Kind of notice: something done on the side, such as an interrupted rename finished."""
KEPT_NOTICES = 100
"""Notices of one kind kept until taken (the newest): a receiver nobody empties, such as
:data:`OUTSIDE` in a long-running server, never grows without bound."""


@dataclass(eq=False)
class Operation:
    """One command or request: who acts, what it loaded once, what it must tell."""

    provenance: Provenance | None = None
    _notices: dict[str, list[str]] = field(default_factory=dict)
    reported: set[str] = field(default_factory=set)
    """The keys of the problems told and not over yet (:meth:`tell`, :meth:`clear`): a
    layer that ends a problem at every step looks here before it clears one."""
    loaded_once: dict[Hashable, Any] = field(default_factory=dict)
    """What the library loaded once for this operation, by key (the settings snapshot):
    the layer that loads it looks here first and keeps what it loaded (a failure is not
    kept, so it is raised again at the next ask)."""
    resolved_paths: dict[Hashable, str] = field(default_factory=dict)
    """The paths resolved through the path gate for this operation, by what was resolved."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- notices ---------------------------------------------------------------------------
    def tell(self, kind: str, message: str, key: str | None = None) -> bool:
        """Collect a notice of ``kind``; with ``key``, only once until :meth:`clear` of that
        key (a problem met at every step is said once). Returns whether it was collected."""
        with self._lock:
            if key is not None:
                if key in self.reported:
                    return False
                self.reported.add(key)
            kept = self._notices.setdefault(kind, [])
            kept.append(message)
            del kept[:-KEPT_NOTICES]
            return True

    def clear(self, key: str) -> None:
        """The problem named ``key`` is over: say it again if it comes back."""
        with self._lock:
            self.reported.discard(key)

    def take(self, kind: str) -> list[str]:
        """The notices of ``kind`` collected and not taken yet, forgotten once taken."""
        with self._lock:
            return self._notices.pop(kind, [])

    # -- what is loaded once ---------------------------------------------------------------
    def forget_loaded(self) -> None:
        """Load again at the next ask (the configuration was just written)."""
        self.loaded_once.clear()

    def forget_paths(self) -> None:
        """Resolve again: files were removed or moved, so a name may lead elsewhere."""
        self.resolved_paths.clear()


OUTSIDE = Operation()
"""The receiver of notices of calls made outside any operation (its lock makes it safe
across threads). It keeps no settings nor paths: outside an operation they are read at
each use, as the library always did."""

CURRENT: ContextVar[Operation | None] = ContextVar("serena_memory_operation", default=None)
"""The operation open here (None: none). Read directly where a value is looked up on every
call (the settings snapshot, a resolved path), so a lookup that finds one costs no call."""


@contextlib.contextmanager
def operation(provenance: Provenance | None = None) -> Iterator[Operation]:
    """Open one operation for the code inside the block (see the module's docstring)."""
    opened = Operation(provenance)
    token = CURRENT.set(opened)
    try:
        yield opened
    finally:
        CURRENT.reset(token)


@contextlib.contextmanager
def outside() -> Iterator[None]:
    """No operation open inside the block: for a server started by a command, whose
    requests each open their own and whose own work must not read the command's
    snapshot for its whole life."""
    token = CURRENT.set(None)
    try:
        yield
    finally:
        CURRENT.reset(token)


def receiver() -> Operation:
    """Where a notice goes: the open operation, else :data:`OUTSIDE`."""
    return CURRENT.get() or OUTSIDE
