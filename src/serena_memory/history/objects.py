"""The git objects of a history: the engine that reads and writes them, and its trees.

The engine is libgit2 through pygit2: a real git implementation in-process (no ``git``
executable needed), fast enough to commit under the folder lock on every write. Trees are
built from the branch's tree by changing only the paths an operation touched, and read
without recursion, so a remote's tree nested to any depth costs no stack.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from serena_memory.core import paths
from serena_memory.core.errors import HistoryError

BRANCH = "refs/heads/main"


def engine() -> Any:
    """The pygit2 module, loaded on first use (the CLI's start never pays for it)."""
    try:
        import pygit2
    except ImportError as exc:  # pragma: no cover - pygit2 is a dependency
        raise HistoryError(
            f"the history engine can't be loaded ({exc}); reinstall serena-memory "
            "(pip install pygit2) to record history again"
        ) from None
    return pygit2


def move_branch(repo: Any, repo_path: Path, commit: Any) -> None:
    """Point the branch at ``commit``. A process killed while updating the branch leaves
    its ``.lock`` file; the caller holds the folder lock, so no live writer can own it."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(str(repo_path / BRANCH) + ".lock")
    repo.references.create(BRANCH, commit, force=True)


# -- reading trees -----------------------------------------------------------------------------
def tree_blob(tree: Any, rel: str) -> str | None:
    """The blob id at ``rel`` in ``tree`` (None: no such file, as for a path that is not
    UTF-8: git looks it up and finds none)."""
    if tree is None:
        return None
    try:
        entry = tree[rel]
    except KeyError:
        return None
    return str(entry.id) if entry.type_str == "blob" else None


def tree_paths(repo: Any, tree: Any) -> list[str]:
    return [] if tree is None else [rel for rel, _ in walk_tree(repo, tree, "")]


def subtree(tree: Any, folder: str) -> Any:
    """The tree at ``folder`` in ``tree`` (None: there is none, or a file is there)."""
    if tree is None:
        return None
    try:
        entry = tree[folder]
    except KeyError:
        return None
    return entry if entry.type_str == "tree" else None


def walk_entries(repo: Any, tree: Any) -> Iterator[tuple[str, Any]]:
    """Every blob entry of ``tree`` with its path, without recursion; folders whose path is
    already longer than a memory name can be are not entered (a remote's tree may be
    nested to any depth)."""
    from serena_memory.core.names import MAX_NAME_CHARS

    pending: list[tuple[str, Any]] = [("", tree)]
    while pending:
        prefix, folder = pending.pop()
        for item in folder:
            rel = f"{prefix}{item.name}"
            if item.type_str == "tree":
                if len(rel) < MAX_NAME_CHARS:
                    pending.append((f"{rel}/", repo[item.id]))
            elif item.type_str == "blob":
                yield rel, item


def walk_tree(repo: Any, tree: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every file of ``tree``: (path, blob id)."""
    for rel, item in walk_entries(repo, tree):
        yield f"{prefix}{rel}", str(item.id)


def memory_blob(repo: Any, item: Any) -> bool:
    """Whether a tree entry can be a memory's text: a regular file (not a link nor a
    submodule) no larger than a memory, measured from the object's header."""
    pygit2 = engine()
    if item.filemode not in (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE):
        return False
    return int(repo.odb.read_header(item.id)[1]) <= paths.MAX_MEMORY_BYTES


# -- building trees ----------------------------------------------------------------------------
def updated_tree(repo: Any, pygit2: Any, tree: Any, changes: dict[str, str | None]) -> Any:
    """The id of ``tree`` with ``changes`` applied (path -> blob id, None: removed),
    rebuilding only the folders on the changed paths; None when nothing is left. Without
    recursion: a folder's tree is written before its parent's, deepest first."""
    builders: dict[str, _Builder] = {}

    def builder(folder: str) -> _Builder:
        found = builders.get(folder)
        if found is None:
            existing = tree if not folder else subtree(tree, folder)
            found = builders[folder] = _Builder(repo, existing)
        return found

    for rel, oid in changes.items():
        folder, _, leaf = rel.rpartition("/")
        target = builder(folder)
        while folder:  # every folder on the path is rebuilt
            folder = folder.rpartition("/")[0]
            builder(folder)
        if oid is None:
            target.remove(leaf)
        else:
            target.insert(leaf, pygit2.Oid(hex=oid), pygit2.GIT_FILEMODE_BLOB)
    for folder in sorted(builders, key=lambda f: f.count("/"), reverse=True):
        if not folder:
            continue
        parent, _, name = folder.rpartition("/")
        new = builders[folder].write()
        if new is None:
            builders[parent].remove(name)
        else:
            builders[parent].insert(name, new, pygit2.GIT_FILEMODE_TREE)
    return builder("").write()


def empty_tree(repo: Any) -> Any:
    return repo.TreeBuilder().write()


class _Builder:
    """A tree builder that counts its entries (pygit2's does not), so an emptied folder
    is dropped without reading the written tree back."""

    def __init__(self, repo: Any, tree: Any) -> None:
        self.tree = tree
        self.builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
        self.count = len(tree) if tree is not None else 0
        self.added: set[str] = set()
        self.removed: set[str] = set()

    def has(self, name: str) -> bool:
        if name in self.added:
            return True
        return self.tree is not None and name not in self.removed and name in self.tree

    def get(self, name: str) -> Any:
        return self.builder.get(name) if self.has(name) else None

    def insert(self, name: str, oid: Any, mode: int) -> None:
        if not self.has(name):
            self.count += 1
        self.builder.insert(name, oid, mode)
        self.added.add(name)
        self.removed.discard(name)

    def remove(self, name: str) -> None:
        if self.has(name):
            self.count -= 1
            self.builder.remove(name)
        self.added.discard(name)
        self.removed.add(name)

    def write(self) -> Any:
        return self.builder.write() if self.count else None
