"""What the store says about its reads: which memory was read, and who read it.

Beside the changes it announces to a recorder (core/changes.py), the store announces each
read of a memory, whatever the front-end (the CLI's `read`, the MCP server's `read_memory`
and memory resources, the dashboard's memory page), to its :class:`ReadListener` objects.
A listing is no read of each memory it names, and the store's own reads for its rules
(comparing a proposal, a version tag, rewriting references) are not announced.

Which listeners a store tells: the ones given to its constructor, else the defaults named
by :data:`DEFAULT_LISTENERS` (modules with a ``LISTENER`` object, imported on the first
read), plus any added with :meth:`ReadListeners.subscribe`. The names are strings so that
the core imports nothing above it. A listener never fails a read: what it raises is
dropped, the text is still returned.

A rename is announced too (:meth:`ReadListeners.renamed`, to listeners that have a
``memory_renamed`` method), so that what a listener keeps about a memory's reads follows
the memory to its new name instead of starting again at nothing.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from serena_memory.core.changes import Provenance

DEFAULT_LISTENERS: tuple[str, ...] = ("serena_memory.usage.counting",)


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


@functools.cache  # a documented cache: the default listeners are imported once per process
def default_listeners() -> tuple[ReadListener, ...]:
    """The listeners of stores built without their own (see the module's docstring)."""
    return tuple(importlib.import_module(name).LISTENER for name in DEFAULT_LISTENERS)


class ReadListeners:
    """The listeners one store tells of its reads."""

    def __init__(self, given: Iterable[ReadListener] | None = None) -> None:
        self._given = None if given is None else tuple(given)
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
        """The listeners told now: the given (or default) ones, then those subscribed."""
        base = self._given if self._given is not None else _defaults_or_none()
        with self._lock:
            return (*base, *self._added)

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


def _defaults_or_none() -> tuple[ReadListener, ...]:
    try:
        return default_listeners()
    except Exception:  # a default listener that can't be imported counts nothing
        return ()
