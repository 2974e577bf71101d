"""Everything this process keeps between calls, owned by one object.

A server lives for hours and serves many calls; a CLI command lives for one. What either
keeps between calls (caches keyed by a file's stamp, the history repositories opened, the
threads started, the search indexes loaded) used to sit in module-level dictionaries, one
per module, each reset its own way. Here each module declares its state as a small class
and asks :data:`PROCESS` for the one instance: a reader finds every piece of process-wide
state by searching for ``PROCESS.owned``, and :meth:`Process.forget` drops it all at once
(a test that wants a fresh process, a child after ``fork``).
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar, cast

T = TypeVar("T")


class Process:
    """The owner of every piece of state kept between calls: one instance per kind."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._owned: dict[type[Any], Any] = {}

    def owned(self, kind: type[T]) -> T:
        """This process's one ``kind()``, made on first use (``kind`` takes no argument)."""
        found = self._owned.get(kind)
        if found is not None:
            return cast(T, found)
        with self._guard:
            found = self._owned.get(kind)
            if found is None:
                found = self._owned[kind] = kind()
            return cast(T, found)

    def kinds(self) -> list[str]:
        """The names of the kinds of state made so far (what a reader or a test sees)."""
        with self._guard:
            return sorted(f"{kind.__module__}.{kind.__qualname__}" for kind in self._owned)

    def forget(self, kind: type[Any] | None = None) -> None:
        """Drop one kind of state, or all of it: the next :meth:`owned` makes it anew."""
        with self._guard:
            if kind is None:
                self._owned.clear()
            else:
                self._owned.pop(kind, None)


PROCESS = Process()
"""The process's state: module-level because a process has exactly one."""
