"""What the store says about its changes, and who makes them.

The store knows nothing of how changes are kept: it announces each operation to a
:class:`ChangeRecorder` (``begin`` before it writes, ``touched`` for each memory it changed,
``finish`` after), and hands out the recorder's queries as its ``history()``. The history
package implements the recorder with one git repository per memories folder.

Which recorder a store uses: the one given to its constructor, else a :class:`NoHistory`,
which keeps nothing. The CLI, the MCP server and the dashboard build their stores with
serena_memory.wiring, which gives the history package's recorder.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from serena_memory.core import operation, paths
from serena_memory.core.errors import MemoryStoreError

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore, Snapshot

MEMORY_SUFFIX = ".md"


# -- who made a change ---------------------------------------------------------------------
@dataclass(frozen=True)
class Provenance:
    """Who made a change and through what: ``entry_point`` (mcp, cli, dashboard, external),
    ``who`` (an MCP client's name and version, or the OS user) and ``action`` (the tool or
    command)."""

    entry_point: str
    who: str
    action: str = ""

    @classmethod
    def os_user(cls, entry_point: str, action: str = "") -> Provenance:
        return cls(entry_point, current_os_user(), action)

    def cleaned(self) -> Provenance:
        """Each part as a history entry keeps it (:func:`clean`; an empty action stays
        empty): the parts come from outside, and an entry asks for all of them at once."""
        action = clean(self.action) if self.action else ""
        return Provenance(clean(self.entry_point), clean(self.who), action)

    def describe(self) -> str:
        text = f"{self.entry_point}: {self.who}"
        return f"{text} ({self.action})" if self.action else text


def current_os_user() -> str:
    try:
        import getpass

        return getpass.getuser()
    except Exception:  # no user name in the environment nor the password database
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown user"


def machine_name() -> str:
    """This machine as history entries and sync conflict records name it: on two synced
    machines the same person is the same OS user, so the machine says which side acted."""
    import socket

    try:
        found = socket.gethostname()
    except OSError:
        found = ""
    return clean(found or "unknown machine", 100)


_acting: ContextVar[Provenance | None] = ContextVar("serena_memory_provenance", default=None)


@contextlib.contextmanager
def acting_as(provenance: Provenance) -> Iterator[None]:
    """Attribute every change made inside the block (e.g. one MCP tool call) to
    ``provenance``, whatever the store's own default is."""
    token = _acting.set(provenance)
    try:
        yield
    finally:
        _acting.reset(token)


def acting_provenance() -> Provenance | None:
    """Who acts here: the innermost :func:`acting_as`, else the open operation's."""
    acting = _acting.get()
    if acting is not None:
        return acting
    opened = operation.CURRENT.get()
    return opened.provenance if opened is not None else None


CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
"""Control characters (C0, DEL and C1): what no name from outside may hold."""


def clean(value: str, limit: int = 120) -> str:
    """Provenance comes from outside (a client's name): one printable line, bounded.
    Every client or machine name is cleaned by this one function, so what the history,
    the usage files and the reports keep of it is the same."""
    text = CONTROLS.sub(" ", str(value)).strip()
    return text[:limit] or "unknown"


@dataclass(frozen=True)
class Folder:
    """A memories folder as history sees it: where it is, how its names are spelled."""

    root: Path
    name_prefix: str  # "" for a project's folder, "global/" for the global one
    skip_top: frozenset[str] = frozenset()
    label: str = "project"
    scope: paths.Scope | None = None  # the path gate's scope; None: links stay inside root

    @property
    def gate(self) -> paths.Scope:
        """Where the folder's links may lead (the store's scope for it)."""
        if self.scope is not None:
            return self.scope
        root = os.path.realpath(self.root)
        return paths.Scope(root, (), (root,), f"the memories folder {root}", "")

    def name_of(self, rel: str) -> str:
        return self.name_prefix + rel[: -len(MEMORY_SUFFIX)]

    def holds(self, rel: str) -> bool:
        """Whether a path relative to the folder is one of its memories."""
        parts = rel.split("/")
        if not rel.endswith(MEMORY_SUFFIX) or any(p.startswith(".") for p in parts):
            return False
        return not (len(parts) > 1 and parts[0] in self.skip_top)

    def admits(self, rel: str) -> bool:
        """Whether a path from a history entry (perhaps a sync remote's) is a memory of this
        folder: one it holds, whose name the name gate spells the same way."""
        from serena_memory.core import names

        if not self.holds(rel) or not recordable(rel):
            return False
        try:
            name = names.normalize_name(self.name_of(rel))
        except MemoryStoreError:
            return False
        return self.rel_of(name) == rel

    def rels_of(self, names: Iterable[str]) -> list[str]:
        """The files of this folder's memories among ``names``, relative to it."""
        rels = (self.rel_of(name) for name in names)
        return self.held(rel for rel in rels if rel is not None)

    def held(self, rels: Iterable[str]) -> list[str]:
        """The paths among ``rels`` (relative to the folder) that are its memories, in
        their order: a history asks of all the paths it looks at in one call."""
        return [rel for rel in rels if self.holds(rel)]

    def rel_of(self, name: str) -> str | None:
        if self.name_prefix:
            if not name.startswith(self.name_prefix):
                return None
            name = name[len(self.name_prefix) :]
        elif name.split("/", 1)[0] in self.skip_top and "/" in name:
            return None
        return name + MEMORY_SUFFIX


def recordable(rel: str) -> bool:
    """Whether a memory file can be a path of the history: no longer than a memory name
    may be (which bounds its depth) and spelled in UTF-8, as git stores paths."""
    from serena_memory.core.names import MAX_NAME_CHARS

    if len(rel) > MAX_NAME_CHARS + len(MEMORY_SUFFIX):
        return False
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- the interface the store announces its changes through ---------------------------------
class ChangeRecord(Protocol):
    """One operation in progress: the store names what it changed, then finishes it."""

    renamed: tuple[str, str] | None

    def touched(self, *names: str) -> None: ...

    def finish(self) -> None: ...


class ChangeHistory(Protocol):
    """The recorder's queries over a store's memories (entries, old texts, restores)."""

    def entries(
        self, name: str | None = None, since: datetime | None = None
    ) -> Sequence[object]: ...


class ChangeRecorder(Protocol):
    """Keeps the changes a store announces; never fails a write because of its record."""

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
    ) -> ChangeRecord:
        """Start recording one operation on ``names``, with the folder locks held, under
        the change's ``snapshot`` of the settings (the recorder reads none of its own);
        ``project_folder``: the project's real memories folder, when the change has it."""
        ...

    def history(self, store: MemoryStore) -> ChangeHistory: ...


class _NoRecord:
    """An operation no history keeps."""

    renamed: tuple[str, str] | None = None

    def touched(self, *names: str) -> None:
        """Nothing is kept of what changed."""

    def finish(self) -> None:
        """Nothing to finish."""


class NoHistory:
    """The recorder of a store built without one: changes are made, none is kept."""

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
    ) -> ChangeRecord:
        return _NoRecord()

    def history(self, store: MemoryStore) -> ChangeHistory:
        raise MemoryStoreError(
            "This store keeps no history: build it with serena_memory.wiring.build_store."
        )
