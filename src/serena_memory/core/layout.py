"""Where a memory's file is: names to paths, through the path gate.

A name becomes a file only here, through the path gate (core/paths.py), whose scopes are
anchored on the project and home folders resolved once. Every method that reaches a file
takes the scopes of one snapshot of the settings (:meth:`Layout.scopes`), so an operation
reads its configuration once however many files it reaches.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core import operation, paths
from serena_memory.core.config import GLOBAL_CONFIG_NAME, SerenaFolder, Settings, serena_folder
from serena_memory.core.errors import InvalidNameError, OutsidePathError
from serena_memory.core.files import ensure_folder

Scopes = tuple[paths.Scope, paths.Scope]
"""(project scope, global scope): where each folder's links may lead."""

Folders = list[Path]
"""Paths of memories folders or files in them."""


class Layout:
    """The folders of a store and the path gate every file access goes through."""

    def __init__(self, project_root: Path, home: Path) -> None:
        self.project_root = project_root
        self.home = home
        self.global_root = home / "memories"
        self.global_dir = self.global_root / N.GLOBAL_TOPIC
        # The anchors of the path gate: the folders as the person chose them, resolved once.
        self.project_real = os.path.realpath(project_root)
        paths.refuse_non_project(self.project_real)
        self.home_real = os.path.realpath(home)

    @functools.cached_property
    def serena_folder(self) -> SerenaFolder:
        """The project's ``.serena`` folder (``project_serena_folder_location``), read from
        the global file when first needed, as the settings are."""
        return serena_folder(self.project_root, self.home)

    @property
    def memories_dir(self) -> Path:
        folder = self.serena_folder
        if folder.parts == (".serena",):  # the folder as given, not resolved
            return self.project_root / ".serena" / "memories"
        return folder.path / "memories"

    def folders_key(self) -> str:
        """Both memory folders, resolved, as one string: what a cache of this store's
        memories (duplicates, search, references) is keyed by."""
        return f"{os.path.realpath(self.memories_dir)}\0{os.path.realpath(self.global_dir)}"

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

    def scopes(self, settings: Settings) -> Scopes:
        """(project scope, global scope) under ``settings``' allowed memory roots."""
        extra = settings.global_config.allowed_memory_roots
        config = str(self.home / GLOBAL_CONFIG_NAME)
        if "serena_folder" not in self.__dict__:  # placed by the global file just read
            placed = serena_folder(self.project_root, self.home, settings.global_config)
            self.__dict__["serena_folder"] = placed  # what the cached property keeps
        folder = self.serena_folder
        project = paths.Scope(
            folder.anchor,
            (*folder.parts, "memories"),
            tuple(dict.fromkeys((*folder.roots, *extra))),
            f"the project folder {self.project_real}",
            config,
        )
        global_ = paths.Scope(
            self.home_real,
            ("memories", N.GLOBAL_TOPIC),
            (self.home_real, *extra),
            f"the Serena home folder {self.home_real}",
            config,
        )
        return project, global_

    # -- names to files ----------------------------------------------------------------------
    @staticmethod
    def locate(name: str, scopes: Scopes, *, listed: bool = False) -> tuple[paths.Scope, list[str]]:
        """The scope of a name and its components below that scope's folder; ``listed``:
        a name from a listing or a journal, taken as it is spelled."""
        if not listed:
            name = N.normalize_name(name)
        project, global_ = scopes
        if N.is_global(name):
            scope, rel = global_, name[len(N.GLOBAL_TOPIC) + 1 :]
        else:
            scope, rel = project, name
        parts = rel.split("/")
        parts[-1] += N.MEMORY_SUFFIX
        return scope, parts

    @staticmethod
    def resolve(scope: paths.Scope, parts: Iterable[str], what: str) -> str:
        """:func:`paths.resolve`, once per operation for the same scope and components
        (forgotten when files are removed or moved: :meth:`moved`)."""
        parts = tuple(parts)
        return _resolved_once((scope, parts), lambda: paths.resolve(scope, parts, what))

    @staticmethod
    def moved() -> None:
        """Files were removed or moved: a name resolved before may lead elsewhere now."""
        opened = operation.CURRENT.get()
        if opened is not None:
            opened.forget_paths()

    def real_path_of(self, name: str, scopes: Scopes, *, listed: bool = False) -> Path:
        """The real file behind a name, every symlink on the way checked by the path gate
        (:class:`OutsidePathError` when one leads outside the allowed folders)."""
        scope, parts = self.locate(name, scopes, listed=listed)
        return Path(self.resolve(scope, parts, f"memory '{name}'"))

    def target(
        self, name: str, scopes: Scopes, *, listed: bool = False
    ) -> tuple[Path, tuple[str, ...]]:
        """The real file behind a name (as :meth:`real_path_of`) and the real folders it
        may lie in (as :meth:`allowed`): what a write asks of the gate, in one call."""
        scope, parts = self.locate(name, scopes, listed=listed)
        return Path(self.resolve(scope, parts, f"memory '{name}'")), scope.allowed

    def entry_path(self, name: str, scopes: Scopes) -> Path:
        """The directory entry of a memory (the link itself, when it is one) inside its real
        folder: what a delete or a rename's move removes, never a link's target."""
        return Path(self.memory_folder(name, scopes), self.locate(name, scopes)[1][-1])

    def memory_folder(self, name: str, scopes: Scopes, *, listed: bool = False) -> Path:
        """The real folder a memory lives in (or will), through the path gate."""
        scope, parts = self.locate(name, scopes, listed=listed)
        return Path(self.resolve(scope, parts[:-1], f"the topic folder of memory '{name}'"))

    def allowed(self, name: str, scopes: Scopes) -> tuple[str, ...]:
        """The real folders the file of ``name`` may lie in."""
        return self.locate(name, scopes, listed=True)[0].allowed

    def real_folder(self, scope: paths.Scope) -> Path:
        """A scope's real memories folder, through the path gate (kept as :meth:`resolve`
        keeps it: under the scope and no components)."""
        return Path(_resolved_once((scope, ()), lambda: paths.real_folder(scope)))

    def read_bytes(self, name: str, scopes: Scopes, *, listed: bool = False) -> bytes:
        """A memory's bytes, through the path gate (FileNotFoundError: none)."""
        scope, parts = self.locate(name, scopes, listed=listed)
        what = f"memory '{name}'"
        real = self.resolve(scope, parts, what)
        return paths.read_regular_file(real, scope.allowed, what)

    # -- the folders a change locks ----------------------------------------------------------
    def lock_folders(
        self,
        names: Iterable[str],
        scopes: Scopes,
        *,
        all_scopes: bool = False,
        create: Iterable[str] = (),
        listed: Iterable[str] = (),
        real_folders: Iterable[Path] = (),
        project_folder: Path | None = None,
    ) -> Folders:
        """The real folders a change to ``names`` locks (every one checked by the path gate:
        a `.serena` linked outside the project is refused here, before a folder is created
        or locked).

        Each scope's memories folder (every change in a project holds it, so a rename and
        its journal never interleave with another change), plus the real folder each
        memory lives in, so that two projects reaching a shared topic folder through
        different links hold the same lock. The folders of the memories in ``create`` are
        made first, so a new memory's folder is locked too; ``listed`` are names from a
        listing or a journal (whose folders are locked where the gate allows them);
        ``project_folder``: the project's real memories folder, when the caller has it.
        """
        names, create = list(names), list(create)
        project, global_ = scopes
        located = {n: self.locate(n, scopes) for n in dict.fromkeys((*create, *names))}  # once
        roots: dict[paths.Scope, Path] = {}  # each scope's real memories folder, resolved once
        named_global = {located[n][0] is global_ for n in names}  # {False}: project ones only
        if all_scopes or False in named_global:
            roots[project] = project_folder or self.real_folder(project)
        if True in named_global:
            roots[global_] = self.real_folder(global_)
        elif all_scopes:
            real_global = self.real_folder(global_)
            if real_global.is_dir():
                roots[global_] = real_global
        for name in create:
            scope, parts = located[name]
            ensure_folder(Path(self.resolve(scope, parts, f"memory '{name}'")).parent)
        homes = [self._home(name, *located[name], roots) for name in names]
        homes += real_folders
        for name in listed:
            try:
                homes.append(self.memory_folder(name, scopes, listed=True))
            except OutsidePathError:
                continue  # never read nor written: nothing to lock
        # a folder that does not exist holds no memory to protect (and is not made here)
        return [*roots.values(), *(f for f in dict.fromkeys(homes) if f.is_dir())]

    def _home(
        self, name: str, scope: paths.Scope, parts: list[str], roots: dict[paths.Scope, Path]
    ) -> Path:
        """The real folder of a located memory: its scope's, when it is a top-level memory
        and that was resolved already (in ``roots``)."""
        if len(parts) == 1 and scope in roots:
            return roots[scope]
        return Path(self.resolve(scope, parts[:-1], f"the topic folder of memory '{name}'"))

    def prune_empty_topics(self, folder: Path, scopes: Scopes) -> None:
        """Remove topic folders left empty, up to (not including) the memories roots; only
        real folders below the real memories folders, never through a link."""
        try:
            roots = [self.real_folder(scope) for scope in scopes]
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


def _resolved_once(key: Hashable, resolve: Callable[[], str]) -> str:
    """``resolve()``, a path through the path gate, once per open operation for ``key``
    (kept in the operation's ``resolved_paths``; a refusal is not kept: it is raised again
    at the next ask); outside any operation, at each ask."""
    opened = operation.CURRENT.get()
    if opened is None:
        return resolve()
    found = opened.resolved_paths.get(key)
    if found is None:
        found = opened.resolved_paths.setdefault(key, resolve())
    return found
