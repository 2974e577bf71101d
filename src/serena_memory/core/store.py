"""The memory store: every rule about memories, used by the CLI, MCP server and dashboard.

Agent context versus human context is a constructor parameter, not a second code path:
read-only patterns bind the agent; ignored patterns bind everyone.

:class:`MemoryStore` is a facade over parts with one job each:

- a layout (core/layout.py): names to paths, the path gate;
- an access policy (core/access.py): who may read, write and propose which memory;
- a recovery (core/recovery.py): the rename journal, run and finished after a crash;
- a transaction (core/transaction.py): the locks, the recovery and the history entry of
  one change, which every write goes through with ``put`` and ``remove``;
- a reader, a writer and a renamer (core/store_reading.py, store_writing.py,
  store_rename.py): the operations, each on those parts.

Each operation takes one :class:`Snapshot` of the settings and hands it to the parts, so
the configuration is read once per operation. Callers import the store and its results
from here.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from serena_memory.core import names as N
from serena_memory.core import operation, paths
from serena_memory.core.access import AccessPolicy, Context
from serena_memory.core.advice import Advisors
from serena_memory.core.changes import (
    ChangeHistory,
    ChangeRecorder,
    NoHistory,
    Provenance,
    acting_provenance,
)
from serena_memory.core.config import (
    Settings,
    SyncConfig,
    load_settings,
    load_sync_config,
    serena_home,
)
from serena_memory.core.editing import EditMode, apply_edit
from serena_memory.core.layout import Layout, Scopes
from serena_memory.core.planned_change import encode_memory, version_of
from serena_memory.core.reads import ReadListener, ReadListeners, RenameEvent
from serena_memory.core.recovery import JOURNAL_NAME, Recovery
from serena_memory.core.store_reading import Memory, MemoryListing, Reader, decode_memory
from serena_memory.core.store_rename import Renamer, RenameResult
from serena_memory.core.store_writing import EditResult, Writer, WriteResult
from serena_memory.core.transaction import Transaction, transaction

T = TypeVar("T")

__all__ = [
    "JOURNAL_NAME",
    "Context",
    "EditResult",
    "Memory",
    "MemoryListing",
    "MemoryStore",
    "RenameResult",
    "Snapshot",
    "WriteResult",
    "decode_memory",
    "encode_memory",
    "version_of",
]

Names = list[str]
"""An alias, because inside :class:`MemoryStore` the name ``list`` is the method that
lists memories."""


@dataclass(frozen=True)
class Snapshot:
    """One operation's view of the configuration, loaded once and handed to every part:
    the settings, the access rules under them, the path gate's scopes under them, and
    where memories are synced to (the team's topic: read-only, with its own history)."""

    settings: Settings
    policy: AccessPolicy
    scopes: Scopes
    sync: SyncConfig


class MemoryStore:
    """Project memories in ``<project>/.serena/memories`` plus global ones in
    ``$SERENA_HOME/memories/global``, named as :mod:`serena_memory.core.names` defines."""

    def __init__(
        self,
        project_root: str | Path,
        *,
        home: str | Path | None = None,
        context: Context = Context.HUMAN,
        protect_read_only: bool | None = None,
        provenance: Provenance | None = None,
        recorder: ChangeRecorder | None = None,
        read_listeners: Iterable[ReadListener] = (),
        advisors: Advisors | None = None,
        global_writes_floor: str = "direct",
    ) -> None:
        root = Path(project_root).expanduser().absolute()
        self.layout = Layout(
            root, Path(home).expanduser().absolute() if home else serena_home().absolute()
        )
        self.context = Context(context)
        # Read-only patterns bind the agent; a person's tools may opt in (the dashboard does).
        self._protect_read_only = (
            self.context is Context.AGENT if protect_read_only is None else protect_read_only
        )
        # The strictest review mode of the projects a server session served before this
        # store's (see AccessPolicy.agent_writes_for): global memories are changed under it.
        self._global_writes_floor = global_writes_floor
        # Where changes are announced (core/changes.py); none given: no history is kept.
        self._recorder: ChangeRecorder = recorder if recorder is not None else NoHistory()
        self._read_listeners = tuple(read_listeners)
        # What is told after a change and asked by a search (core/advice.py); none: nothing.
        self.advisors = advisors or Advisors()
        # Who the history names for changes made through this store, unless a caller says
        # otherwise for one call (changes.acting_as, e.g. per MCP tool call).
        self.provenance = provenance or (
            Provenance("mcp", "unknown client")
            if self.context is Context.AGENT
            else Provenance.os_user("cli")
        )
        self._recovery = Recovery(self.layout)
        self._reader = Reader(self, self.layout, self._recovery)
        self._writer = Writer(self, self.layout, self._reader)

    @functools.cached_property
    def reads(self) -> ReadListeners:
        """Who is told of each read (core/reads.py); built at the first read."""
        return ReadListeners(self._read_listeners)

    @functools.cached_property
    def _renamer(self) -> Renamer:
        """Built at the first rename (most commands never rename)."""
        return Renamer(self, self.layout, self._reader)

    # -- the configuration, once per operation -----------------------------------------------
    @property
    def settings(self) -> Settings:
        """The open operation's settings (loaded once per operation); outside an operation,
        re-read on every use (cached by file stamp), so edits to the YAML apply at once."""
        return self.snapshot().settings

    @property
    def sync_config(self) -> SyncConfig:
        """Where memories are synced to, read once per operation like :attr:`settings`."""
        return _once(("sync", self.layout.home), lambda: load_sync_config(self.layout.home))

    def snapshot(self) -> Snapshot:
        """The settings of one operation, with the access rules and scopes under them: taken
        once per open operation however many layers ask (outside one, at each ask)."""
        layout = self.layout
        key = (layout.project_root, layout.home, self.context, self._protect_read_only)
        return _once(("snapshot", *key, self._global_writes_floor), self._snapshot)

    def _snapshot(self) -> Snapshot:
        settings = load_settings(self.layout.project_root, self.layout.home)
        sync = settings.global_config.sync  # read with the settings, from the same file
        return Snapshot(settings, self.access(settings, sync), self.layout.scopes(settings), sync)

    def access(
        self, settings: Settings | None = None, sync: SyncConfig | None = None
    ) -> AccessPolicy:
        """The access rules under the open operation's settings (outside an operation, one
        load of them): who may read, write and propose which memory."""
        return AccessPolicy(
            settings or self.settings,
            sync or self.sync_config,
            self.context,
            self._protect_read_only,
            self._global_writes_floor,
            self.layout.path_of,
        )

    # -- names and the path gate -------------------------------------------------------------
    def real_path_of(self, name: str, *, listed: bool = False) -> Path:
        """The real file behind a name, every symlink on the way checked by the path gate
        (:class:`OutsidePathError` when one leads outside the allowed folders)."""
        return self.layout.real_path_of(name, self.layout.scopes(self.settings), listed=listed)

    # -- listing and reading (core/store_reading.py) -----------------------------------------
    def scan(
        self, include_ignored: bool = False, *, scopes: str = "both", snap: Snapshot | None = None
    ) -> paths.MemoryScan:
        """Every memory with its real file (:meth:`Reader.scan_with`); ``snap``: under the
        caller's snapshot of the settings, so they are not looked up again."""
        return self._reader.scan_with(snap or self.snapshot(), include_ignored, scopes)

    def list(self, topic: str = "") -> MemoryListing:
        return self._reader.list(topic)

    def exists(self, name: str) -> bool:
        return self._reader.exists(name)

    def read(self, name: str, *, announce: bool = True) -> str:
        return self._reader.read(name, announce=announce)

    def load(self, name: str, *, announce: bool = True) -> Memory:
        return self._reader.load(name, announce=announce)

    def read_many(
        self, names: Iterable[str], real_paths: dict[str, str] | None = None
    ) -> Iterator[tuple[str, str | None]]:
        return self._reader.read_many(names, real_paths)

    def read_bytes(self, name: str) -> bytes:
        """A memory's exact bytes, through the path gate (FileNotFoundError: none)."""
        return self.layout.read_bytes(N.normalize_name(name), self.layout.scopes(self.settings))

    # -- changing (core/store_writing.py, core/store_rename.py) ------------------------------
    def write(
        self,
        name: str,
        content: str,
        max_chars: int | None = None,
        *,
        allow_secret: bool = False,
        snap: Snapshot | None = None,
    ) -> WriteResult:
        """``snap``: the caller's snapshot of the settings, so they are not looked up again."""
        return self._writer.write(name, content, max_chars, allow_secret=allow_secret, snap=snap)

    def write_if_unchanged(
        self,
        name: str,
        content: str,
        expected_version: str | None,
        *,
        allow_secret: bool = False,
        verb: str = "Replace",
    ) -> WriteResult:
        return self._writer.write_if_unchanged(
            name, content, expected_version, allow_secret=allow_secret, verb=verb
        )

    def create_many(
        self,
        contents: dict[str, str],
        summary: str,
        *,
        allow_secret: bool = False,
        appended: dict[str, str] | None = None,
    ) -> Names:
        """Create the memories that do not exist yet as one history entry (an import);
        ``appended``: a paragraph added once to existing ones (core/store_writing.py)."""
        return self._writer.create_many(contents, summary, allow_secret, appended or {})

    def edit(
        self,
        name: str,
        needle: str,
        repl: str,
        mode: str | EditMode = EditMode.LITERAL,
        allow_multiple_occurrences: bool = False,
        *,
        allow_secret: bool = False,
    ) -> EditResult:
        """Replace ``needle`` (literal text or a regex) by ``repl`` in a memory, under the
        lock, so concurrent edits never lose one another."""
        return self._writer.edit(
            name,
            lambda text: apply_edit(text, needle, repl, mode, allow_multiple_occurrences),
            allow_secret,
        )

    def edit_with(self, name: str, edit: Callable[[str], tuple[str, int]]) -> EditResult:
        """:meth:`edit` with a computed change (``edit`` gives the new text and how many
        places it changed), under the same lock, size bounds and secret gate."""
        return self._writer.edit(name, edit, False)

    def update(self, transforms: dict[str, Callable[[str], str]], summary: str = "") -> Names:
        """Change memories by computed transforms under their locks, as one history entry;
        the names that changed (core/store_writing.py)."""
        return self._writer.update(transforms, summary)

    def delete(self, name: str, expected_version: str | None = None) -> str:
        return self._writer.delete(name, expected_version)

    def apply_versions(
        self, versions: dict[str, bytes | None], summary: str, *, allow_secret: bool = False
    ) -> dict[str, str]:
        return self._writer.apply_versions(versions, summary, allow_secret=allow_secret)

    def rename(
        self,
        old: str,
        new: str,
        *,
        allow_secret: bool = False,
        expected_version: str | None = None,
    ) -> RenameResult:
        """Move a memory and point every reference naming it at its new name, crash-safe
        (core/store_rename.py); with ``expected_version``, only if nobody changed it since.
        The read listeners are told, so that the old name's reads become the new one's."""
        result = self._renamer.rename(old, new, allow_secret, expected_version)
        self.reads.renamed(
            RenameEvent(result.old, result.new, self.layout.project_root, self.layout.home)
        )
        return result

    def transaction(
        self,
        snap: Snapshot,
        *names: str,
        all_scopes: bool = False,
        create: Iterable[str] = (),
        real_folders: Iterable[Path] = (),
        existing_only: bool = False,
    ) -> contextlib.AbstractContextManager[Transaction]:
        """One change of ``names`` under their locks (core/transaction.py), its history
        entry recorded for whoever acts here: the transaction itself, handed the recorder's
        way of opening an entry with this store, this snapshot and who acts."""
        begin = functools.partial(
            self._recorder.begin,
            self,
            snapshot=snap,
            provenance=acting_provenance() or self.provenance,
        )
        return transaction(
            self.layout,
            self._recovery,
            snap.scopes,
            begin,
            names,
            all_scopes=all_scopes,
            create=create,
            real_folders=real_folders,
            existing_only=existing_only,
        )

    # -- crash recovery and what it tells ----------------------------------------------------
    def take_notices(self) -> tuple[str, ...]:
        """The notices not shown yet, forgotten once taken (core/recovery.py)."""
        return self._recovery.take_notices()

    # -- the history (core/changes.py; kept by the history package) --------------------------
    def history(self) -> ChangeHistory:
        """Entries, old texts and restores, as the recorder keeps them."""
        return self._recorder.history(self)


def catch_up_history(store: MemoryStore) -> None:
    """Record the changes made outside (an editor, a checkout) now, as ``external``: before
    a restore or a sync reads the history, so that none of them is lost."""
    snap = store.snapshot()
    if not snap.settings.global_config.memory_history:
        return
    with store.transaction(snap, all_scopes=True, existing_only=True) as change:
        change.record("", all_scopes=True)


def _once(key: Hashable, load: Callable[[], T]) -> T:
    """``load()`` once per open operation for ``key`` (kept in the operation's
    ``loaded_once``; a failure is not kept); outside any operation, at each ask (the
    settings then apply at once)."""
    opened = operation.CURRENT.get()
    if opened is None:
        return load()
    found = opened.loaded_once.get(key)
    if found is None:
        found = opened.loaded_once.setdefault(key, load())
    return found
