"""Where a memory's file is and who may reach it: the base every part of the store builds on.

A name becomes a file only here: through the path gate (core/paths.py), whose scopes are
anchored on the project and home folders resolved once, and under the access rules
(ignored, read-only, the team's memories, the agent's write mode). Reading, writing,
renaming and applying versions all go through these methods, so a rule about access is
written once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core import operation, paths
from serena_memory.core.access import AccessPolicy, Context
from serena_memory.core.changes import ChangeRecorder, Provenance
from serena_memory.core.config import (
    GLOBAL_CONFIG_NAME,
    Settings,
    SyncConfig,
    load_settings,
    load_sync_config,
    serena_home,
)
from serena_memory.core.errors import InvalidNameError

Names = list[str]


class StoreAccess:
    """The folders of a store, its configuration, the path gate and the access rules."""

    def __init__(
        self,
        project_root: str | Path,
        *,
        home: str | Path | None = None,
        context: Context = Context.HUMAN,
        protect_read_only: bool | None = None,
        provenance: Provenance | None = None,
        recorder: ChangeRecorder | None = None,
    ) -> None:
        self.project_root = Path(project_root).expanduser().absolute()
        self.home = Path(home).expanduser().absolute() if home else serena_home().absolute()
        self.context = Context(context)
        # Read-only patterns bind the agent; a person's tools may opt in (the dashboard does).
        self.protect_read_only = (
            self.context is Context.AGENT if protect_read_only is None else protect_read_only
        )
        self.memories_dir = self.project_root / ".serena" / "memories"
        self.global_root = self.home / "memories"
        self.global_dir = self.global_root / N.GLOBAL_TOPIC
        # The anchors of the path gate: the folders as the person chose them, resolved once.
        self._project_real = os.path.realpath(self.project_root)
        paths.refuse_non_project(self._project_real)
        self._home_real = os.path.realpath(self.home)
        # what was done on the side and must be told (an interrupted rename finished) when
        # no operation is open: one line each, taken by the front-end that shows them;
        # inside an operation they go to it (core/operation.py)
        self.notices: list[str] = []
        # The review mode of every project a server session served before this store's (see
        # AccessPolicy.agent_writes_for): global memories are changed under the strictest.
        self.global_writes_floor = "direct"
        # Where changes are announced (core/changes.py); None: the default, on first use.
        self._recorder = recorder
        # Who the history names for changes made through this store, unless a caller says
        # otherwise for one call (changes.acting_as, e.g. per MCP tool call).
        self.provenance = provenance or (
            Provenance("mcp", "unknown client")
            if self.context is Context.AGENT
            else Provenance.os_user("cli")
        )

    # -- configuration -----------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """The open operation's snapshot (loaded once per operation); outside an operation,
        re-read on every use (cached by file stamp), so edits to the YAML apply at once."""
        opened = operation.current()
        if opened is None:
            return load_settings(self.project_root, self.home)
        return opened.loaded(
            ("settings", self.project_root, self.home),
            lambda: load_settings(self.project_root, self.home),
        )

    @property
    def sync_config(self) -> SyncConfig:
        """Where memories are synced to, read once per operation like :attr:`settings`."""
        opened = operation.current()
        if opened is None:
            return load_sync_config(self.home)
        return opened.loaded(("sync", self.home), lambda: load_sync_config(self.home))

    def validate_config(self) -> Settings:
        return self.settings

    # -- names and access rules ----------------------------------------------------------
    def path_of(self, name: str) -> Path:
        """The file behind a (raw or normalized) name; lexically inside its folder."""
        name = N.normalize_name(name)
        if N.is_global(name):
            root, rel = self.global_dir, name[len(N.GLOBAL_TOPIC) + 1 :]
        else:
            root, rel = self.memories_dir, name
        path = root.joinpath(*rel.split("/")).with_name(rel.rsplit("/", 1)[-1] + N.MEMORY_SUFFIX)
        if os.path.commonpath([os.path.normpath(path), os.path.normpath(root)]) != os.path.normpath(
            root
        ):  # pragma: no cover - names.normalize_name already guarantees this
            raise InvalidNameError(f"memory name {name!r} resolves outside its memories folder")
        return path

    # -- the path gate (core/paths.py): every file access below goes through it ----------
    def gate_scopes(self, settings: Settings | None = None) -> tuple[paths.Scope, paths.Scope]:
        """(project scope, global scope): where each folder's links may lead."""
        extra = (settings or self.settings).global_config.allowed_memory_roots
        config = str(self.home / GLOBAL_CONFIG_NAME)
        project = paths.Scope(
            self._project_real,
            (".serena", "memories"),
            (self._project_real, *extra),
            f"the project folder {self._project_real}",
            config,
        )
        global_ = paths.Scope(
            self._home_real,
            ("memories", N.GLOBAL_TOPIC),
            (self._home_real, *extra),
            f"the Serena home folder {self._home_real}",
            config,
        )
        return project, global_

    def _locate(self, name: str, *, listed: bool = False) -> tuple[paths.Scope, list[str]]:
        """The scope of a name and its components below that scope's folder."""
        if not listed:
            name = N.normalize_name(name)
        project, global_ = self.gate_scopes()
        if N.is_global(name):
            scope, rel = global_, name[len(N.GLOBAL_TOPIC) + 1 :]
        else:
            scope, rel = project, name
        parts = rel.split("/")
        parts[-1] += N.MEMORY_SUFFIX
        return scope, parts

    def _resolve(self, scope: paths.Scope, parts: Iterable[str], what: str) -> str:
        """:func:`paths.resolve`, once per operation for the same scope and components
        (the store forgets them when it removes or moves files: :meth:`_moved`)."""
        parts = tuple(parts)
        opened = operation.current()
        if opened is None:
            return paths.resolve(scope, parts, what)
        return opened.resolved((scope, parts), lambda: paths.resolve(scope, parts, what))

    @staticmethod
    def _moved() -> None:
        """Files were removed or moved: a name resolved before may lead elsewhere now."""
        opened = operation.current()
        if opened is not None:
            opened.forget_paths()

    def real_path_of(self, name: str, *, listed: bool = False) -> Path:
        """The real file behind a name, every symlink on the way checked by the path gate
        (:class:`OutsidePathError` when one leads outside the allowed folders). What reads
        and writes use; :meth:`path_of` is the path as written, for messages."""
        scope, parts = self._locate(name, listed=listed)
        return Path(self._resolve(scope, parts, f"memory '{name}'"))

    def _entry_path(self, name: str) -> Path:
        """The directory entry of a memory (the link itself, when it is one) inside its real
        folder: what a delete or a rename's move removes, never a link's target."""
        scope, parts = self._locate(name)
        folder = self._resolve(scope, parts[:-1], f"the topic folder of memory '{name}'")
        return Path(folder, parts[-1])

    def _allowed(self, name: str) -> tuple[str, ...]:
        """The real folders the file of ``name`` may lie in."""
        return self._locate(name, listed=True)[0].allowed

    def _real_folder(self, scope: paths.Scope) -> Path:
        return Path(self._resolve(scope, (), f"the memories folder {scope.folder}"))

    def _read_bytes(self, name: str, *, listed: bool = False) -> bytes:
        scope, parts = self._locate(name, listed=listed)
        what = f"memory '{name}'"
        real = self._resolve(scope, parts, what)
        return paths.read_regular_file(real, scope.allowed, what)

    # -- the access rules (core/access.py) ----------------------------------------------------
    def access(self, settings: Settings | None = None) -> AccessPolicy:
        """The access rules under the open operation's settings (outside an operation, one
        load of them): who may read, write and propose which memory."""
        return AccessPolicy(
            settings or self.settings,
            self.sync_config,
            self.context,
            self.protect_read_only,
            self.global_writes_floor,
            self.path_of,
        )

    def read_only_pattern(self, name: str, settings: Settings | None = None) -> str | None:
        return self.access(settings).read_only_pattern(name)

    def is_read_only(self, name: str) -> bool:
        return self.access().is_read_only(N.normalize_name(name))

    def is_ignored(self, name: str) -> bool:
        return self.access().is_ignored(N.normalize_name(name))

    def _accessible(
        self, raw: str, *, write: bool, settings: Settings | None = None, proposing: bool = False
    ) -> str:
        """Normalize a name and apply the access rules for this context (core/access.py)."""
        return self.access(settings).check(raw, write=write, proposing=proposing)

    # -- the gates a change passes ----------------------------------------------------------
    def proposable_name(self, name: str) -> str:
        """:meth:`writable_name` for a change the agent proposes instead of making."""
        return self._accessible(name, write=True, proposing=True)

    def writable_name(self, name: str) -> str:
        """The normalized name, if this store may change that memory; else the error that
        says why (ignored, read-only for the agent, invalid)."""
        return self._accessible(name, write=True)

    def refuse_secrets(
        self, texts: dict[str, str | bytes | None], allow_secret: bool = False
    ) -> None:
        """The secret gate (core/secrets.py) on text about to be written; a person may
        override it (``allow_secret``), the agent never."""
        if allow_secret and self.context is Context.HUMAN:
            return
        from serena_memory.core import secrets  # only writes need the gate; reads start quicker

        secrets.check_all(texts, person=self.context is Context.HUMAN)

    def refuse_secret_name(self, name: str, allow_secret: bool = False) -> None:
        """The secret gate on a name alone (a rename's target, before anything else is
        said about it): a name becomes a committed, synced file name."""
        self.refuse_secrets({name: ""}, allow_secret)

    def usable_names(self, names: Iterable[str]) -> tuple[Names, Names]:
        """Split names a bulk restore may write (valid, not ignored, writable here) from
        the rest, which it leaves alone."""
        return self.access().usable(names)
