"""The memory store: every rule about memories, used by the CLI, MCP server and dashboard.

Agent context versus human context is a constructor parameter, not a second code path:
read-only patterns bind the agent; ignored patterns bind everyone.
"""

from __future__ import annotations

import builtins
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from serena_memory.core import journal as J
from serena_memory.core import names as N
from serena_memory.core import operation, paths, secrets
from serena_memory.core.changes import (
    ChangeHistory,
    ChangeRecord,
    ChangeRecorder,
    Folder,
    Provenance,
    acting_provenance,
    default_recorder,
)
from serena_memory.core.config import (
    GLOBAL_CONFIG_NAME,
    Settings,
    SyncConfig,
    load_settings,
    load_sync_config,
    serena_home,
)
from serena_memory.core.display import counted
from serena_memory.core.editing import EditMode, apply_edit
from serena_memory.core.errors import (
    AgentWritesError,
    ContentTooLongError,
    IgnoredMemoryError,
    InvalidNameError,
    MemoryChangedError,
    MemoryEncodingError,
    MemoryExistsError,
    MemoryNotFoundError,
    MemoryStoreError,
    OutsidePathError,
    ReadOnlyMemoryError,
    RenameJournalError,
    describe,
)
from serena_memory.core.files import (
    atomic_write,
    ensure_folder,
    fsync_dir,
    locked,
    remove_file,
)
from serena_memory.core.references import can_be_referenced, rewrite_references

JOURNAL_NAME = J.JOURNAL_NAME
PLAN_ATTEMPTS = 5  # a sync re-plans when memories change between its plan and its locks


Folders = list[Path]
"""Paths of memories folders or files in them. An alias, because inside
:class:`MemoryStore` the name ``list`` is the method that lists memories."""
HistoryFolders = list[Folder]
Names = list[str]


class Context(StrEnum):
    """Who is calling: the agent (MCP tools) or a person (command line, dashboard)."""

    AGENT = "agent"
    HUMAN = "human"


class MemoryListing(NamedTuple):
    memories: list[str]
    read_only_memories: list[str]
    skipped: list[paths.SkippedFile] = []  # look like memories but are not read, and why
    # why the project's rename journal was not replayed, and what to do (changes are
    # refused until it is dealt with); None when there is no such journal
    rename_journal: str | None = None

    @property
    def all(self) -> list[str]:
        return sorted(self.memories + self.read_only_memories)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "memories": self.memories,
            "read_only_memories": self.read_only_memories,
        }
        if self.skipped:
            data["skipped"] = [s.to_dict() for s in self.skipped]
        if self.rename_journal:
            data["rename_journal"] = self.rename_journal
        return data


class WriteResult(NamedTuple):
    name: str
    created: bool
    chars: int


class Memory(NamedTuple):
    """A memory as read: its canonical name (what front-ends show and link to), its text,
    and whether it is read-only under the configuration."""

    name: str
    content: str
    read_only: bool


class EditResult(NamedTuple):
    name: str
    replacements: int


class RenameResult(NamedTuple):
    old: str
    new: str
    references_rewritten: int = 0
    memories_rewritten: list[str] = []
    read_only_skipped: list[str] = []
    undecodable_skipped: list[str] = []
    left_unchanged: list[str] = []
    global_not_rewritten: list[str] = []

    def summary(self) -> str:
        text = (
            f"Renamed '{self.old}' to '{self.new}'; rewrote "
            f"{counted(self.references_rewritten, 'reference')} in "
            f"{counted(len(self.memories_rewritten), 'memory', 'memories')}."
        )
        if self.read_only_skipped:
            text += (
                " Left untouched because read-only (they still point to the old name): "
                + ", ".join(self.read_only_skipped)
                + "."
            )
        if self.undecodable_skipped:
            text += (
                " Not valid UTF-8, so not rewritten (fix the encoding, then rewrite the "
                "reference by hand): " + ", ".join(self.undecodable_skipped) + "."
            )
        if self.global_not_rewritten:
            text += (
                f" Global memories are read in every project, where `mem:{self.old}` names "
                "that project's memory, so these still say it (edit them by hand if they "
                "meant this one): " + ", ".join(self.global_not_rewritten) + "."
            )
        if self.left_unchanged:
            text += (
                " Not rewritten because changed meanwhile, linked outside the allowed folders "
                "or named in a way no tool accepts (rewrite the reference by hand): "
                + ", ".join(self.left_unchanged)
                + "."
            )
        return text


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

    def listed_path(self, name: str) -> Path:
        """The file behind a name taken from a folder listing, as written (not resolved,
        not validated: hand-saved names such as ``a:b`` included). For messages and
        comparisons only; every read and write goes through :meth:`real_path_of`."""
        if N.is_global(name):
            return self.global_dir / (name[len(N.GLOBAL_TOPIC) + 1 :] + N.MEMORY_SUFFIX)
        return self.memories_dir / (name + N.MEMORY_SUFFIX)

    def read_only_pattern(self, name: str, settings: Settings | None = None) -> str | None:
        return (settings or self.settings).patterns.read_only_match(name)

    def is_read_only(self, name: str) -> bool:
        return self.read_only_pattern(N.normalize_name(name)) is not None

    def is_ignored(self, name: str) -> bool:
        return self.settings.patterns.ignored_match(N.normalize_name(name)) is not None

    def _accessible(
        self, raw: str, *, write: bool, settings: Settings | None = None, proposing: bool = False
    ) -> str:
        """Normalize a name and apply the ignored and read-only rules for this context.
        ``proposing``: the agent's change becomes a proposal (core/proposals.py), which
        review mode allows where it refuses the change itself."""
        name = N.normalize_name(raw)
        settings = settings or self.settings
        if write and self.context is Context.AGENT:
            _refuse_agent_write(name, settings.agent_writes, proposing)
        ignored = settings.patterns.ignored_match(name)
        if ignored is not None:
            raise IgnoredMemoryError(
                f"memory '{name}' is ignored (it matches the ignored_memory_patterns entry "
                f"{ignored!r}), so memory operations can't reach it; the raw file can still "
                f"be opened at {self.path_of(name)}"
            )
        if write:
            self._refuse_team(name)
        if write and self.protect_read_only:
            pattern = settings.patterns.read_only_match(name)
            if pattern is not None:
                advice = (
                    "ask the user to change it or to lift the pattern"
                    if self.context is Context.AGENT
                    else "change the file in an editor, or lift the pattern in the configuration"
                )
                raise ReadOnlyMemoryError(
                    f"memory '{name}' is read-only (it matches the read_only_memory_patterns "
                    f"entry {pattern!r}); {advice}"
                )
        return name

    def _refuse_team(self, name: str) -> None:
        """The team's memories are pulled from its repository and read-only for the agent
        and the person alike, unless ``memory_sync_team_writable: true``."""
        prefix = self.sync_config.team_prefix()
        if prefix is not None and name.startswith(prefix):
            raise ReadOnlyMemoryError(
                f"memory '{name}' comes from the team's repository (memory_sync_team_remote), "
                "so it is read-only here; change it in the team's repository, or set "
                "memory_sync_team_writable: true in serena_config.yml"
            )

    # -- listing ---------------------------------------------------------------------------
    def iter_all_names(self, include_ignored: bool = False) -> Iterator[str]:
        """Every memory name, project then global, unsorted; ignored ones unless asked."""
        yield from self.scan(include_ignored=include_ignored).files

    def scan(self, include_ignored: bool = False, *, scopes: str = "both") -> paths.MemoryScan:
        """Every memory name with its real file (project, then global), and the entries that
        look like memories but are not read (broken links, links leading outside the allowed
        folders, files that are not regular), each with its reason. Ignored memories are
        left out of both unless asked. ``scopes``: "both", "project" or "global"."""
        self.recover()
        settings = self.settings
        ignored = None if include_ignored else settings.patterns.ignored
        project, global_ = self.gate_scopes(settings)
        files: dict[str, str] = {}
        skipped: list[paths.SkippedFile] = []
        parts = []
        if scopes in ("both", "project"):
            parts.append(("", paths.scan(project, skip_top=frozenset({N.GLOBAL_TOPIC}))))
        if scopes in ("both", "global"):
            parts.append((N.GLOBAL_TOPIC + "/", paths.scan(global_)))
        for prefix, found in parts:
            for rel, real in found.files.items():
                name = prefix + rel
                if ignored and any(p.fullmatch(name) for _, p in ignored):
                    continue
                files[name] = real
            for item in found.skipped:
                name = prefix + item.name if item.name else ""
                if name and ignored and any(p.fullmatch(name) for _, p in ignored):
                    continue
                skipped.append(paths.SkippedFile(name, item.path, item.reason))
        return paths.MemoryScan(files, skipped)

    def list(self, topic: str = "") -> MemoryListing:
        topic = N.normalize_topic(topic)
        settings = self.settings
        found = self.scan()
        writable, read_only = [], []
        for name in found.files:
            if not N.in_topic(name, topic):
                continue
            if settings.patterns.read_only_match(name) is not None:
                read_only.append(name)
            else:
                writable.append(name)
        skipped = [s for s in found.skipped if not topic or not s.name or N.in_topic(s.name, topic)]
        return MemoryListing(sorted(writable), sorted(read_only), skipped, self.journal_problem())

    def exists(self, name: str) -> bool:
        """Whether ``name`` is a memory: a regular file the path gate lets through."""
        try:
            return os.path.isfile(self.real_path_of(name))
        except OutsidePathError:
            return False

    def has_project_memories(self, excluding: Iterable[str] = ()) -> bool:
        skip = set(excluding)
        return any(name not in skip for name in self.scan(scopes="project").files)

    # -- reading ---------------------------------------------------------------------------
    def read(self, name: str) -> str:
        """The text of a memory (see :meth:`load` for its canonical name too)."""
        return self.load(name).content

    def load(self, name: str) -> Memory:
        """The memory behind a raw name (``auth/login.md``, ``mem:core``), under its
        canonical name, so front-ends never normalize names themselves."""
        self.recover()
        settings = self.settings
        name = self._accessible(name, write=False, settings=settings)
        content = self._read_text(name)
        return Memory(name, content, self.read_only_pattern(name, settings) is not None)

    def read_many(
        self, names: Iterable[str], real_paths: dict[str, str] | None = None
    ) -> Iterator[tuple[str, str | None]]:
        """(name, text) for each name, text None when it can't be read (gone, ignored,
        not UTF-8). Same rules as :meth:`read`, with the configuration loaded once: for
        indexes that read every memory. ``real_paths``: the files a :meth:`scan` found,
        read as they are (the read itself still refuses what the gate refuses)."""
        self.recover()
        settings = self.settings
        project, global_ = self.gate_scopes(settings)
        cut = len(N.GLOBAL_TOPIC) + 1
        for raw in names:
            try:
                name = self._accessible(raw, write=False, settings=settings)
                scope, rel = (global_, name[cut:]) if N.is_global(name) else (project, name)
                parts = rel.split("/")
                parts[-1] += N.MEMORY_SUFFIX
                what = f"memory '{name}'"
                real = (real_paths or {}).get(name) or paths.resolve(scope, parts, what)
                data = paths.read_regular_file(real, scope.allowed, what)
                yield raw, decode_memory(name, data)
            except (MemoryStoreError, OSError):
                yield raw, None

    def _read_text(self, name: str) -> str:
        try:
            data = self._read_bytes(name)
        except FileNotFoundError:
            raise MemoryNotFoundError(self._not_found_message(name), name=name) from None
        except IsADirectoryError:
            raise MemoryNotFoundError(
                f"'{name}' is a topic, not a memory; list it with topic '{name}'"
            ) from None
        except OSError as exc:
            raise MemoryStoreError(f"memory '{name}' can't be read: {exc.strerror}") from None
        return decode_memory(name, data)

    def _not_found_message(self, name: str) -> str:
        message = f"memory '{name}' not found"
        try:
            topic = self.real_path_of(name).with_suffix("")
        except OutsidePathError:
            return message
        if topic.is_dir():
            message += f"; '{name}' is a topic, list it to see its memories"
        return message

    # -- writing ---------------------------------------------------------------------------
    def _lock_folders(
        self,
        *names: str,
        all_scopes: bool = False,
        create: Iterable[str] = (),
        listed: Iterable[str] = (),
        real_folders: Iterable[Path] = (),
    ) -> Folders:
        """The real folders a change to ``names`` locks (every one checked by the path gate:
        a `.serena` linked outside the project is refused here, before a folder is created
        or locked).

        Each scope's memories folder (every change in a project holds it, so a rename and
        its journal never interleave with another change), plus the real folder each
        memory lives in, so that two projects reaching a shared topic folder through
        different links hold the same lock. The folders of the memories in ``create`` are
        made first, so a new memory's folder is locked too; ``listed`` are names from a
        listing or a journal (whose folders are locked where the gate allows them).
        """
        project, global_ = self.gate_scopes()
        roots = []
        if all_scopes or any(not N.is_global(n) for n in names):
            roots.append(self._real_folder(project))
        if any(N.is_global(n) for n in names):
            roots.append(self._real_folder(global_))
        elif all_scopes:
            real_global = self._real_folder(global_)
            if real_global.is_dir():
                roots.append(real_global)
        for name in create:
            ensure_folder(self.real_path_of(name).parent)
        homes = [self._memory_folder(name) for name in names] + list(real_folders)
        for name in listed:
            try:
                homes.append(self._memory_folder(name, listed=True))
            except OutsidePathError:
                continue  # never read nor written: nothing to lock
        # a folder that does not exist holds no memory to protect (and is not made here)
        return roots + [f for f in dict.fromkeys(homes) if f.is_dir()]

    def _memory_folder(self, name: str, *, listed: bool = False) -> Path:
        """The real folder a memory lives in (or will), through the path gate."""
        scope, parts = self._locate(name, listed=listed)
        return Path(self._resolve(scope, parts[:-1], f"the topic folder of memory '{name}'"))

    @contextlib.contextmanager
    def _changing(
        self,
        *names: str,
        all_scopes: bool = False,
        create: Iterable[str] = (),
        listed: Iterable[str] = (),
        real_folders: Iterable[Path] = (),
    ) -> Iterator[None]:
        """Hold the locks for changing ``names`` (see :meth:`_lock_folders`), after
        finishing a rename a crash interrupted (under that journal's own locks)."""
        self.recover(strict=True)
        folders = self._lock_folders(
            *names, all_scopes=all_scopes, create=create, listed=listed, real_folders=real_folders
        )
        try:
            with locked(folders):
                # a rename killed between that recovery and these locks left a journal:
                # finish it here (its digests keep it from overwriting anything changed since)
                self._recover_locked()
                yield
        finally:
            self._moved()  # what the change removed or moved resolves afresh after it

    # -- history -------------------------------------------------------------------------
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
            self,
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
        return self.recorder.history(self)

    def catch_up_history(self) -> None:
        """Record changes made outside (an editor, a checkout) now, as ``external``."""
        if not self.settings.global_config.memory_history:
            return
        with self._changing(all_scopes=True), self.recording("", all_scopes=True):
            pass

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
        secrets.check_all(texts, person=self.context is Context.HUMAN)

    def usable_names(self, names: Iterable[str]) -> tuple[Names, Names]:
        """Split names a bulk restore may write (valid, not ignored, writable here) from
        the rest, which it leaves alone."""
        usable: Names = []
        refused: Names = []
        settings = self.settings
        for name in names:
            try:
                self._accessible(name, write=True, settings=settings)
            except MemoryStoreError:
                refused.append(name)
            else:
                usable.append(name)
        return usable, refused

    def apply_versions(
        self, versions: dict[str, bytes | None], summary: str, *, allow_secret: bool = False
    ) -> dict[str, str]:
        """Set memories to exact bytes (None: delete them) as one history entry, under the
        lock; a restore is such a change, never a rewrite of the history."""
        settings = self.settings
        planned = {
            self._accessible(n, write=True, settings=settings): v for n, v in versions.items()
        }
        self.refuse_secrets(dict(planned), allow_secret)
        done: dict[str, str] = {}
        created = [n for n, data in planned.items() if data is not None]
        for name in created:
            if not self.real_path_of(name).exists():
                N.check_portable(name)  # before its folder is made
        with (
            self._changing(*planned, create=created),
            self.recording(summary, *planned, settings=settings) as record,
        ):
            for name, data in planned.items():
                what = self._set_version(name, data)
                if what:
                    done[name] = "restored" if what != "deleted" else what
                record.touched(name)
        return done

    def _set_version(self, name: str, data: bytes | None) -> str | None:
        """Write exact bytes to a memory (None: delete it), through the path gate, with its
        locks held; returns "created", "changed", "deleted" or None (nothing to delete)."""
        if data is None:
            path = self._entry_path(name)
            try:
                remove_file(path, self._allowed(name))
            except (FileNotFoundError, NotADirectoryError):
                return None
            self._moved()
            self._prune_empty_topics(path.parent)
            return "deleted"
        path = self.real_path_of(name)
        created = not path.exists()
        _refuse_folder(name, path)
        atomic_write(path, data, self._allowed(name))
        return "created" if created else "changed"

    def history_folder(self, scope: str) -> Folder:
        """The project's ("project") or the global ("global") memories folder."""
        return next(f for f in self.history_folders() if f.label == scope)

    def read_bytes(self, name: str) -> bytes:
        """A memory's exact bytes, through the path gate (FileNotFoundError: none)."""
        return self._read_bytes(N.normalize_name(name))

    @contextlib.contextmanager
    def _planned_change(
        self, root: Path, plan: Callable[[], dict[str, bytes | None] | None]
    ) -> Iterator[dict[str, bytes | None] | None]:
        """Run ``plan`` under the locks of the memories it will change, which only the plan
        knows: it runs under the folder's lock first, then again under the locks of the
        memories it named, until they are the same (usually the second time). Yields the
        final plan with those locks held."""
        ensure_folder(root)
        names: list[str] = []
        created: list[str] = []
        for _ in range(PLAN_ATTEMPTS):
            with self._changing(*names, create=created, real_folders=[root]):
                versions = plan()
                wanted = [] if versions is None else sorted(versions)
                if versions is None or set(wanted) <= set(names):
                    yield versions
                    return
            names = wanted
            created = [n for n in wanted if versions and versions[n] is not None]
        raise MemoryStoreError(
            f"the memories in {root} kept changing while a sync was written; sync again"
        )

    def apply_planned(
        self,
        scope: str,
        plan: Callable[[], dict[str, bytes | None] | None],
        written: Callable[[dict[str, bytes | None]], None] | None = None,
    ) -> dict[str, str]:
        """Write the memories that ``plan`` computes in one folder ("project" or "global"),
        under their locks, through the path gate; ``written`` then runs with the locks
        still held (a sync records its entry there). Read-only patterns do not apply: a
        sync carries the person's own changes from another machine, or the team's."""
        spec = self.history_folder(scope)
        done: dict[str, str] = {}
        with self._planned_change(spec.root, plan) as found:
            if found is None:
                return {}
            self.refuse_secrets(dict(found))  # a sync keeps them out before; never written
            for name, data in found.items():
                what = self._set_version(name, data)
                if what:
                    done[name] = what
            if written is not None:
                written(found)
        return done

    def apply_pulled(self, plan: Callable[[], dict[str, bytes | None]]) -> dict[str, str]:
        """Write the team's memories that ``plan`` computes, under their locks. They have
        their own history, the team's repository, so nothing is recorded here."""
        return self.apply_planned("global", plan)

    def prune_history(self, keep_days: dict[str, int]) -> int:
        """Drop history entries older than ``keep_days[label]`` days in each folder
        ("project", "global"; 0 or absent: keep all)."""
        return self.recorder.prune(self, keep_days)

    def write(
        self,
        name: str,
        content: str,
        max_chars: int | None = None,
        *,
        allow_secret: bool = False,
    ) -> WriteResult:
        """Create or replace a memory. ``max_chars`` None: no limit; -1: configured default."""
        if not isinstance(content, str):
            raise MemoryStoreError("memory content must be text")
        settings = self.settings
        name = self._accessible(name, write=True, settings=settings)
        if max_chars is not None:
            limit = (
                settings.global_config.default_max_tool_answer_chars if max_chars < 0 else max_chars
            )
            if len(content) > limit:
                raise ContentTooLongError(
                    f"content of '{name}' has {len(content)} characters, more than the limit of "
                    f"{limit}; split it into several memories (or raise max_chars)"
                )
        self.refuse_secrets({name: content}, allow_secret)
        path = self.real_path_of(name)
        if not path.exists():
            N.check_portable(name)  # before its folder is made
        with (
            self._changing(name, create=[name]),
            # the entry says whether the memory was created or replaced (the lock is held)
            self.recording(_write_summary(name, path.exists()), name, settings=settings) as record,
        ):
            created = not path.exists()
            if created:
                N.check_portable(name)
            _refuse_folder(name, path)
            atomic_write(path, encode_memory(name, content), self._allowed(name))
            record.touched(name)
        return WriteResult(name, created, len(content))

    def create_if_absent(self, name: str, content: str) -> bool:
        """Write a new memory unless one exists (any file or link in its place counts);
        for seeding files a person may have customized. No access rules: callers seed
        what they own. Returns whether it was written."""
        name = N.normalize_name(name)
        self.refuse_secrets({name: content})
        path = self.real_path_of(name)
        with self._changing(name, create=[name]):
            if os.path.lexists(path):
                return False
            with self.recording(_write_summary(name, False), name) as record:
                atomic_write(path, encode_memory(name, content), self._allowed(name))
                record.touched(name)
        return True

    def delete(self, name: str, expected_version: str | None = None) -> str:
        """Delete a memory; with ``expected_version``, only if nobody changed it since.
        Returns the canonical name of the memory deleted."""
        name = self._accessible(name, write=True)
        path = self._entry_path(name)  # a link is removed itself, never its target
        with self._changing(name), self.recording(f"Delete {name}", name) as record:
            if expected_version is not None:
                current = self._read_text(name)
                if self.version_of(current) != expected_version:
                    raise MemoryChangedError(
                        f"memory '{name}' was changed since it was read; nothing was deleted",
                        name,
                        current,
                        self.version_of(current),
                    )
            try:
                remove_file(path, self._allowed(name))
            except (FileNotFoundError, NotADirectoryError):
                raise MemoryNotFoundError(self._not_found_message(name), name=name) from None
            except IsADirectoryError:
                raise MemoryNotFoundError(self._not_found_message(name), name=name) from None
            self._moved()
            record.touched(name)
            self._prune_empty_topics(path.parent)
        return name

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
        """Read-modify-write under the lock, so concurrent edits never lose one another."""
        name = self._accessible(name, write=True)
        path = self.real_path_of(name)
        with self._changing(name):
            text = self._read_text(name)
            new_text, count = apply_edit(text, needle, repl, mode, allow_multiple_occurrences)
            if new_text != text:
                self.refuse_secrets({name: new_text}, allow_secret)
                with self.recording(f"Edit {name}", name) as record:
                    atomic_write(path, encode_memory(name, new_text), self._allowed(name))
                    record.touched(name)
        return EditResult(name, count)

    def update(self, name: str, transform: Callable[[str], str]) -> bool:
        """Read-modify-write with a computed change (a reference fix, prefixing bare names).

        ``transform`` receives the current text under the folder lock, so an edit made
        meanwhile is never lost. Returns whether the memory changed.
        """
        name = self._accessible(name, write=True)
        path = self.real_path_of(name)
        with self._changing(name):
            text = self._read_text(name)
            new_text = transform(text)
            if new_text == text:
                return False
            self.refuse_secrets({name: new_text})
            with self.recording(f"Update {name}", name) as record:
                atomic_write(path, encode_memory(name, new_text), self._allowed(name))
                record.touched(name)
        return True

    def update_many(
        self, transforms: dict[str, Callable[[str], str]], summary: str
    ) -> builtins.list[str]:
        """:meth:`update` for several memories at once, recorded as one history entry.
        Returns the names that changed."""
        names = [self._accessible(n, write=True) for n in transforms]
        funcs = dict(zip(names, transforms.values(), strict=True))
        changed: list[str] = []
        with self._changing(*names):
            texts = {name: self._read_text(name) for name in names}
            new_texts = {name: funcs[name](texts[name]) for name in names}
            self.refuse_secrets({n: t for n, t in new_texts.items() if t != texts[n]})
            with self.recording(summary, *names) as record:
                for name in names:
                    new_text = new_texts[name]
                    if new_text == texts[name]:
                        continue
                    path = self.real_path_of(name)
                    atomic_write(path, encode_memory(name, new_text), self._allowed(name))
                    record.touched(name)
                    changed.append(name)
        return changed

    def create_many(
        self, contents: dict[str, str], summary: str, *, allow_secret: bool = False
    ) -> builtins.list[str]:
        """Create the memories of ``contents`` that do not exist yet, as one history entry
        (an import, undone in one restore); an existing one is left as it is, checked under
        the lock. Same gates as :meth:`write`. Returns the names created."""
        settings = self.settings
        planned = {
            self._accessible(n, write=True, settings=settings): t for n, t in contents.items()
        }
        self.refuse_secrets(dict(planned), allow_secret)
        data = {name: encode_memory(name, text) for name, text in planned.items()}
        for name in planned:
            if not os.path.lexists(self.real_path_of(name)):
                N.check_portable(name)  # before its folder is made
        created: list[str] = []
        with (
            self._changing(*planned, create=planned),
            self.recording(summary, *planned, settings=settings) as record,
        ):
            for name, raw in data.items():
                path = self.real_path_of(name)
                if os.path.lexists(path):
                    continue
                atomic_write(path, raw, self._allowed(name))
                record.touched(name)
                created.append(name)
        return created

    def rename(self, old: str, new: str, *, allow_secret: bool = False) -> RenameResult:
        """Move a memory (across topics or scopes) and point every reference naming it whole
        (`mem:OLD`) at `mem:NEW`: in the project's memories and, when OLD is a global
        memory, in the global ones (a global memory's `mem:core` names each project's own
        `core`, so a project rename reports those instead of rewriting them).

        The whole plan is journaled before the first file changes, so a crash part-way is
        finished by the next operation instead of leaving references half-rewritten.
        """
        settings = self.settings
        old = self._accessible(old, write=True, settings=settings)
        new = N.check_portable(self._accessible(new, write=True, settings=settings))
        if old == new:
            raise MemoryStoreError(f"'{old}' and '{new}' are the same memory name")
        old_path, new_path = self._entry_path(old), self.real_path_of(new)
        # the real folders of every memory it may rewrite are locked too (shared ones
        # included); the listing already resolved them through the path gate
        homes = {Path(real).parent for real in self.scan().files.values()}
        with self._changing(old, new, all_scopes=True, real_folders=homes):
            if not os.path.lexists(old_path):
                raise MemoryNotFoundError(self._not_found_message(old), name=old)
            if os.path.lexists(new_path):
                raise MemoryExistsError(f"memory '{new}' already exists; delete or rename it first")
            try:
                old_bytes = self._read_bytes(old)
            except OSError as exc:
                raise MemoryStoreError(f"memory '{old}' can't be read: {exc.strerror}") from None
            moved_text = decode_memory(old, old_bytes)
            rewrites: list[J.Change] = []
            counts: dict[str, int] = {}
            skipped: list[str] = []
            undecodable: list[str] = []
            left: list[str] = []
            global_left: list[str] = []
            found = 0
            needle = f"mem:{old}".encode()
            project, global_ = self.gate_scopes(settings)
            for name, real in sorted(self.scan().files.items()):
                if name == old:
                    text = moved_text
                else:
                    scope = global_ if N.is_global(name) else project
                    try:
                        data = paths.read_regular_file(real, scope.allowed, f"memory '{name}'")
                    except (OSError, MemoryStoreError):
                        continue
                    if needle not in data:
                        continue
                    try:
                        text = data.decode("utf-8")
                    except UnicodeDecodeError:
                        undecodable.append(name)
                        continue
                new_text, count = rewrite_references(text, old, new)
                if count == 0:
                    continue
                found += count
                if name != old and N.is_global(name) and not N.is_global(old):
                    # read in every project, where `mem:OLD` names that project's memory
                    global_left.append(name)
                    continue
                if (
                    name != old
                    and self.protect_read_only
                    and settings.patterns.read_only_match(name) is not None
                ):
                    skipped.append(name)
                    continue
                if name == old:
                    moved_text = new_text
                    counts[new] = count
                    continue
                try:
                    N.check_stored_name(name)
                except InvalidNameError:
                    left.append(name)  # a hand-saved name no journal may record
                    continue
                counts[name] = count
                rewrites.append(J.Change(name, J.digest(data), new_text))
            ensure_folder(new_path.parent)  # fail before the journal, not half-way through it
            if found and not can_be_referenced(new):
                self._prune_empty_topics(new_path.parent)
                raise MemoryStoreError(
                    f"'{new}' can't be written as a mem: reference (a reference is letters, "
                    f"digits, '_', '-' and '/'), and {found} reference(s) point to '{old}'; "
                    "choose such a name, or remove those references first"
                )
            self.refuse_secrets(
                {new: moved_text, **{c.memory: c.content for c in rewrites}}, allow_secret
            )
            journal = J.plan(old, new, old_bytes, moved_text, rewrites)
            with self.recording(
                f"Rename {old} to {new}", old, new, *counts, all_scopes=True, settings=settings
            ) as record:
                replayed = self._run_journal(journal)
                self._prune_empty_topics(old_path.parent)
                record.renamed = (old, new)
                record.touched(old, new, *(n for n in counts if n not in replayed.skipped))
        left += replayed.skipped  # changed meanwhile (by an editor that takes no lock)
        rewritten = sorted(n for n in counts if n not in replayed.skipped)
        return RenameResult(
            old,
            new,
            sum(counts[n] for n in rewritten),
            rewritten,
            sorted(skipped),
            sorted(undecodable),
            sorted(left),
            sorted(global_left),
        )

    # -- the rename journal and crash recovery ---------------------------------------------
    @property
    def journal_path(self) -> Path | None:
        """Where a rename's journal goes: always the project's real memories folder, whose
        lock every rename holds (a journal in the shared global folder could be replayed
        by another project without this project's lock); None when the gate refuses it."""
        try:
            return self._real_folder(self.gate_scopes()[0]) / JOURNAL_NAME
        except OutsidePathError:
            return None

    def _journal_target(self, name: str) -> tuple[Path, Path] | None:
        """(directory entry, real file) of a memory a journal names, or None.

        Resolved by the path gate from the listed name, and only a ``.md`` file: a journal
        can never reach a file outside the memories, whatever links the project holds.
        """
        try:
            scope, parts = self._locate(name, listed=True)
            what = f"memory '{name}'"
            real = paths.resolve(scope, parts, what)
            folder = paths.resolve(scope, parts[:-1], what)
        except OutsidePathError:
            return None
        if not real.endswith(N.MEMORY_SUFFIX):
            return None
        return Path(folder, parts[-1]), Path(real)

    def _journal_read(
        self, name: str, real: Path, scopes: tuple[paths.Scope, paths.Scope] | None = None
    ) -> bytes | None:
        scope = (scopes or self.gate_scopes())[1 if N.is_global(name) else 0]
        try:
            return paths.read_regular_file(str(real), scope.allowed, f"memory '{name}'")
        except FileNotFoundError:
            return None

    def _run_journal(self, journal: J.RenameJournal) -> J.Replayed:
        """Write the journal (and, for global memories, its record in $SERENA_HOME), roll it
        forward, then remove both. The caller holds the locks."""
        journal_path = self.journal_path
        if journal_path is None:  # pragma: no cover - the locks were taken in that folder
            raise MemoryStoreError("the project's memories folder is refused by the path gate")
        data = journal.to_bytes()
        record = None
        if journal.touches_global:
            record = J.record_path(self.global_root, self.memories_dir, data)
            J.write_record(record, self.memories_dir)
        atomic_write(journal_path, data)
        return self._replay_locked(journal_path, journal, record)

    def _replay_locked(
        self, journal_path: Path, journal: J.RenameJournal, record: Path | None
    ) -> J.Replayed:
        scopes = self.gate_scopes()  # once: each use re-reads the configuration's stamp
        replayed = J.replay(
            journal,
            self._journal_target,
            lambda name, real: self._journal_read(name, real, scopes),
            lambda p, d: atomic_write(p, d),
        )
        self._moved()
        journal_path.unlink()
        fsync_dir(journal_path.parent)
        if record is not None:
            with contextlib.suppress(FileNotFoundError):
                record.unlink()
            self._sweep_records()
        for path in replayed.removed:
            self._prune_empty_topics(path.parent)
        return replayed

    def _sweep_records(self) -> None:
        """Remove the records in $SERENA_HOME that vouch for no journal any more (see
        journal.RECORD_MAX_AGE): done whenever a rename of global memories ends, so they
        never pile up. Only in the records folder the path gate lets through."""
        global_ = self.gate_scopes()[1]
        scope = global_._replace(parts=("memories", J.RECORDS_FOLDER))
        try:
            folder = paths.resolve(scope, (), "the rename records folder")
        except OutsidePathError:
            return
        J.sweep_records(folder)

    def recover(self, strict: bool = False) -> bool:
        """Finish a rename that a crash interrupted; cheap (one stat) when there is none.

        Holds the locks of every folder the journal names. A journal that can't be
        replayed is left alone, so reading and listing go on; with ``strict`` (before a
        change) it raises its error instead.
        """
        journal_path = self.journal_path
        if journal_path is None or not os.path.lexists(journal_path):
            return False
        try:
            journal = J.read(journal_path)
        except RenameJournalError:
            if strict:
                raise
            return False
        if journal is None:
            return False
        names = [change.memory for change in journal.changes]
        folders = self._lock_folders(all_scopes=True, listed=names)
        if journal.touches_global:
            folders.append(self._real_folder(self.gate_scopes()[1]))
        with locked(folders):
            return self._recover_locked(strict=strict)

    def _checked_journal(self, journal_path: Path) -> tuple[J.RenameJournal | None, Path | None]:
        """The journal at ``journal_path`` (None: there is none) and the record vouching
        for it; RenameJournalError when it must not be replayed."""
        journal = J.read(journal_path)
        record = None
        if journal is not None and journal.touches_global:
            record = J.record_path(self.global_root, self.memories_dir, journal.to_bytes())
            if not record.is_file():
                raise J.invalid(
                    journal_path,
                    f"it changes global memories and {self.home} holds no record of that "
                    "rename (so it did not come from a rename made on this computer)",
                )
        return journal, record

    def journal_problem(self) -> str | None:
        """Why the project's rename journal is not replayed, and what to do; None when
        there is none (cheap: one stat). For listings, which go on regardless."""
        journal_path = self.journal_path
        if journal_path is None or not os.path.lexists(journal_path):
            return None
        try:
            self._checked_journal(journal_path)
        except RenameJournalError as exc:
            return describe(exc)
        return None  # a valid one, replayed by the next operation

    def _recover_locked(self, strict: bool = True) -> bool:
        """Replay a journal left by a crash; a journal that fails validation is never
        replayed and, when ``strict``, raises RenameJournalError naming it."""
        journal_path = self.journal_path
        if journal_path is None:
            return False
        try:
            journal, record = self._checked_journal(journal_path)
        except RenameJournalError:
            if strict:
                raise
            return False
        if journal is None:
            return False
        replayed = self._replay_locked(journal_path, journal, record)
        opened = operation.current()
        if opened is None:
            self.notices.append(replayed.summary(journal))
        else:  # told to whoever opened the operation that finished it, and no other
            opened.tell(operation.DONE, replayed.summary(journal))
        return True

    def take_notices(self) -> tuple[str, ...]:
        """The notices not shown yet (see ``notices``; inside an operation, also those of
        the open operation), forgotten once taken."""
        taken, self.notices = self.notices, []
        opened = operation.current()
        if opened is not None:
            taken += opened.take(operation.DONE)
        return tuple(taken)

    def _prune_empty_topics(self, folder: Path) -> None:
        """Remove topic folders left empty, up to (not including) the memories roots; only
        real folders below the real memories folders, never through a link."""
        try:
            roots = [self._real_folder(scope) for scope in self.gate_scopes()]
        except OutsidePathError:
            return
        while folder not in roots and any(folder.is_relative_to(root) for root in roots):
            if folder.is_symlink() or os.path.realpath(folder) != str(folder):
                return
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent

    # -- optimistic concurrency (the dashboard's "no lost work") ------------------------
    @staticmethod
    def version_of(content: str) -> str:
        """A memory's version token: the SHA-256 of its UTF-8 bytes."""
        import hashlib

        return hashlib.sha256(content.encode("utf-8")).hexdigest()

    def write_if_unchanged(
        self,
        name: str,
        content: str,
        expected_version: str | None,
        *,
        allow_secret: bool = False,
    ) -> WriteResult:
        """Write only if the memory still has ``expected_version`` (None: must not exist).

        The check and the write happen under the folder lock, so a change made in between
        by the agent, an editor or another tab is reported instead of overwritten.
        """
        if not isinstance(content, str):
            raise MemoryStoreError("memory content must be text")
        name = self._accessible(name, write=True)
        self.refuse_secrets({name: content}, allow_secret)
        path = self.real_path_of(name)
        with self._changing(name, create=[name]):
            try:
                current: str | None = self._read_text(name)
            except MemoryNotFoundError:
                current = None
            current_version = None if current is None else self.version_of(current)
            if current_version != expected_version:
                if expected_version is None:
                    why = "already exists"
                elif current is None:
                    why = "was deleted since it was read"
                else:
                    why = "was changed since it was read"
                raise MemoryChangedError(
                    f"memory '{name}' {why}; nothing was written", name, current, current_version
                )
            if current is None:
                N.check_portable(name)
            _refuse_folder(name, path)
            with self.recording(_write_summary(name, current is not None), name) as record:
                atomic_write(path, encode_memory(name, content), self._allowed(name))
                record.touched(name)
        return WriteResult(name, current is None, len(content))


def _refuse_agent_write(name: str, mode: str, proposing: bool) -> None:
    """``memory_agent_writes``: read-only refuses every change of the agent; propose lets
    through only the changes that become proposals."""
    if mode == "read-only":
        raise AgentWritesError(
            f"memory '{name}' was not changed: memories are read-only for the agent here "
            "(memory_agent_writes: read-only); tell the user what you would change instead"
        )
    if mode == "propose" and not proposing:
        raise AgentWritesError(
            f"memory '{name}' was not changed: the agent's changes are proposals for the user "
            "to review here (memory_agent_writes: propose), and this one can't be proposed; "
            "tell the user what you would change instead"
        )


def _write_summary(name: str, replacing: bool) -> str:
    return f"{'Replace' if replacing else 'Create'} {name}"


def _refuse_folder(name: str, path: Path) -> None:
    """A folder named like the memory's file (``t/a.md/``) can't be replaced by it."""
    if path.is_dir():
        raise MemoryStoreError(
            f"can't write memory '{name}': {path} is a folder; rename or remove that folder"
        )


def encode_memory(name: str, text: str) -> bytes:
    """UTF-8 bytes of a memory; text holding lone surrogates (undecodable input) is refused."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MemoryEncodingError(
            f"content for memory '{name}' can't be stored as UTF-8 (character "
            f"{exc.start + 1} is {exc.object[exc.start]!r}); it probably came from "
            "undecodable input"
        ) from None


def decode_memory(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemoryEncodingError(
            f"memory '{name}' is not valid UTF-8 (byte {exc.start}: {exc.reason}); "
            "re-save the file as UTF-8"
        ) from None
