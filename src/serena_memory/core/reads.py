"""What the store says about its reads: which memory was read, and who read it.

Beside the changes it announces to a recorder (core/changes.py), the store announces each
read of a memory, whatever the front-end (the CLI's `read`, the MCP server's `read_memory`
and memory resources, the dashboard's memory page), to its :class:`ReadListener` objects.
A listing is no read of each memory it names, and the store's own reads for its rules
(comparing a proposal, a version tag, rewriting references) are not announced.

Which listeners a store tells: the ones given to its constructor (serena_memory.wiring
gives the usage counter; none otherwise), plus any added with
:meth:`ReadListeners.subscribe`. A listener never fails a read: what it raises is dropped,
the text is still returned.

A rename is announced too (:meth:`ReadListeners.renamed`, to listeners that have a
``memory_renamed`` method), so that what a listener keeps about a memory's reads follows
the memory to its new name instead of starting again at nothing.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from serena_memory.core.changes import Provenance


@dataclass(frozen=True)
class ReadEvent:
    """One memory read: its canonical name, the store's project and Serena home, who read
    it (the operation's provenance: an MCP client, the CLI, the dashboard) and when."""

    name: str
    project_root: Path
    home: Path
    provenance: Provenance
    when: float = field(default_factory=time.time)


@dataclass(frozen=True)
class RenameEvent:
    """One memory renamed, both names canonical, in the store's project and Serena home."""

    old: str
    new: str
    project_root: Path
    home: Path
    when: float = field(default_factory=time.time)


class ReadListener(Protocol):
    """Told of every read of a memory; must be quick (it runs inside the read) and may
    raise nothing the reader should see."""

    def memory_read(self, event: ReadEvent) -> None: ...


class ReadListeners:
    """The listeners one store tells of its reads."""

    def __init__(self, given: Iterable[ReadListener] = ()) -> None:
        self._given = tuple(given)
        self._added: list[ReadListener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: ReadListener) -> Callable[[], None]:
        """Tell ``listener`` of this store's reads from now on; returns what unsubscribes."""
        with self._lock:
            self._added.append(listener)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._added.remove(listener)

        return unsubscribe

    def current(self) -> tuple[ReadListener, ...]:
        """The listeners told now: the given ones, then those subscribed."""
        with self._lock:
            return (*self._given, *self._added)

    def announce(self, event: ReadEvent) -> None:
        """Tell every listener of ``event``; a listener's failure is no reader's failure."""
        for listener in self.current():
            with contextlib.suppress(Exception):
                listener.memory_read(event)

    def renamed(self, event: RenameEvent) -> None:
        """Tell every listener that keeps track of renames (a ``memory_renamed`` method)
        of ``event``; as with reads, a listener's failure is no rename's failure."""
        for listener in self.current():
            told = getattr(listener, "memory_renamed", None)
            if told is not None:
                with contextlib.suppress(Exception):
                    told(event)
