"""Where a folder's history lives, and reading it.

Each memories folder (a project's, the global one) has its own bare git repository, kept
outside the project under ``$SERENA_HOME/history`` and keyed by the folder's resolved
path, so the user's own repository is never touched and ``git log`` works on it. Reading
walks the branch ``main``; only the entries of that branch count, never a blob or a
fetched commit that was never merged.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from serena_memory.core.changes import Folder, recordable
from serena_memory.core.errors import HistoryError
from serena_memory.history.entries import Entry, Record, stated_time
from serena_memory.history.objects import BRANCH, engine, memory_blob, walk_entries

RepositoryIdentity = tuple[int, int, int]
"""Which repository is at a path: its ``HEAD`` file's device, inode and modification time."""


def repository_identity(repo_path: Path) -> RepositoryIdentity | None:
    """Which repository is at ``repo_path`` now (None: none is there). A person may remove a
    history or put a rewritten one in its place (docs/secrets.md) while a server runs: the
    repository then at that path has another ``HEAD`` file, so another identity, and
    whatever a process learned of the one it opened no longer holds."""
    try:
        st = os.stat(repo_path / "HEAD")
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


class FolderRepository:
    """The repository of one memories folder, opened on first use, and its entries read
    back: a bare git repository (nothing is ever written into the memories folder), whose
    branch ``main`` is the folder's history."""

    def __init__(self, folder: Folder, repo_path: Path) -> None:
        self.folder = folder
        self.repo_path = repo_path
        # the open handle and which repository it is, set together (readers run in threads)
        self._opened: tuple[Any, RepositoryIdentity | None] | None = None
        # the day an earlier repository of this folder was begun, when this one was
        # created after it was removed (docs/secrets.md): its first entry says so
        self.begun_before: str | None = None

    # -- the repository --------------------------------------------------------------------
    @functools.cached_property
    def git(self) -> Any:
        """The pygit2 module, loaded when this folder's history is first used and then
        kept (the CLI's start never pays for it)."""
        return engine()

    @property
    def identity(self) -> RepositoryIdentity | None:
        """Which repository the open handle is of (None: none is open)."""
        opened = self._opened
        return None if opened is None else opened[1]

    def repo(self, create: bool) -> Any:
        """The repository at :attr:`repo_path` (None: there is none, and ``create`` is
        false). A long-running process outlives what a person does to its histories: one
        removed or replaced since it was opened (docs/secrets.md) is opened afresh, or
        created again, never used through a handle to what is gone."""
        found = repository_identity(self.repo_path)
        opened = self._opened
        if opened is not None and found is not None and opened[1] == found:
            return opened[0]
        pygit2 = self.git
        if found is not None:
            try:
                repo = pygit2.Repository(str(self.repo_path))
            except pygit2.GitError as exc:
                raise HistoryError(
                    f"the history at {self.repo_path} can't be opened: {exc}"
                ) from None
        elif create:
            repo = self._create(pygit2)
            found = repository_identity(self.repo_path)
        else:
            self._opened = None
            return None
        self._opened = (repo, found)
        return repo

    @property
    def begun_path(self) -> Path:
        """Beside the repository, so it outlives the repository's removal: the day this
        folder's history was first begun."""
        return self.repo_path.with_name(self.repo_path.name + ".begun")

    def _create(self, pygit2: Any) -> Any:
        self.repo_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.begun_before = self.begun_path.read_text(encoding="utf-8").strip()[:40] or None
        except (OSError, UnicodeDecodeError):
            self.begun_before = None
            with contextlib.suppress(OSError):
                self.begun_path.write_text(f"{datetime.now().date()}\n", encoding="utf-8")
        repo = pygit2.init_repository(str(self.repo_path), bare=True, initial_head="main")
        config = repo.config
        config["core.logAllRefUpdates"] = False
        (self.repo_path / "description").write_text(
            f"History of the memories in {self.folder.root}\n", encoding="utf-8"
        )
        return repo

    def close(self) -> None:
        """Open the repository afresh at the next use (its objects were rewritten)."""
        self._opened = None

    def writable(self) -> tuple[Any, Any, RepositoryIdentity | None]:
        """The repository for a write (created when missing), its head commit (None: no
        entry yet) and which repository it is: what a recording asks of it, in one call."""
        repo = self.repo(create=True)
        return repo, self.head(repo), self.identity

    def head(self, repo: Any) -> Any:
        ref = repo.references.get(BRANCH)
        return None if ref is None else repo[ref.target]

    # -- reading -----------------------------------------------------------------------------
    def records(self, since: datetime | None = None) -> Iterator[Record]:
        """Newest first, unparsed: reading a message is cheap, parsing it is not."""
        repo = self.repo(create=False)
        if repo is None:
            return
        head = self.head(repo)
        if head is None:
            return
        pygit2 = self.git
        cutoff = None if since is None else since.timestamp()
        # newest first by commit time (a sync's merges interleave both sides by time)
        for commit in repo.walk(head.id, pygit2.enums.SortMode.NONE):
            if cutoff is not None and commit.commit_time < cutoff - 1:
                return
            record = Record(commit, self.folder.label)
            if cutoff is None or record.time >= cutoff:
                yield record

    def entries(self, since: datetime | None = None) -> Iterator[Entry]:
        """Newest first."""
        for record in self.records(since):
            yield record.entry()

    def content_at(self, rev: str, name: str) -> bytes | None:
        """The bytes of memory ``name`` in revision ``rev`` (None: it did not exist, or the
        entry holds something there that can't be a memory: a link, a huge file)."""
        repo = self.repo(create=False)
        if repo is None:
            return None
        rel = self.folder.rel_of(name)
        if rel is None or not recordable(rel):
            return None
        commit = repo[rev]
        try:
            entry = commit.tree[rel]
        except KeyError:
            return None
        if not memory_blob(repo, entry):
            return None
        return bytes(repo[entry.id].data)

    def files_at(self, rev: str) -> dict[str, bytes]:
        """Every memory of revision ``rev`` that this folder may hold: name -> bytes.

        An entry may come from a sync remote, whose trees are anyone's: a path is taken
        only when it is a memory of this folder (no hidden part, no other folder's names,
        such as ``global/`` in a project's history), spelled as the name gate spells it,
        and a regular file no larger than a memory."""
        repo = self.repo(create=False)
        if repo is None:
            return {}
        out = {}
        for rel, item in walk_entries(repo, repo[rev].tree):
            if self.folder.admits(rel) and memory_blob(repo, item):
                out[self.folder.name_of(rel)] = bytes(repo[item.id].data)
        return out

    def head_rev(self) -> str | None:
        repo = self.repo(create=False)
        head = None if repo is None else self.head(repo)
        return None if head is None else str(head.id)

    def matching(self, entry_id: str) -> list[str]:
        """The entries of this history whose id starts with ``entry_id`` (lower-case hex).

        Found by walking the branch, never by git's revision parser: only entries of the
        history count (not a blob, nor a fetched remote commit that was never merged)."""
        repo = self.repo(create=False)
        head = None if repo is None else self.head(repo)
        if head is None:
            return []
        if len(entry_id) == 40:  # a whole id (the entry points pass these on): no walk
            found = repo.get(entry_id)
            if found is None or found.type_str != "commit":
                return []
            if found.id == head.id or repo.descendant_of(head.id, found.id):
                return [entry_id]
            return []
        pygit2 = self.git
        return [
            str(commit.id)
            for commit in repo.walk(head.id, pygit2.enums.SortMode.NONE)
            if str(commit.id).startswith(entry_id)
        ]

    def local_entries(self) -> Iterator[tuple[Any, float]]:
        """The entries this machine recorded, newest first, each with the time it was
        recorded: the branch's first parents (a sync's merge has the local history as its
        first parent and the remote's as the others). Times only go back along that line:
        a time stated later than the entry after it, or than now, counts as that one."""
        repo = self.repo(create=False)
        head = None if repo is None else self.head(repo)
        if head is None:
            return
        pygit2 = self.git
        walker = repo.walk(head.id, pygit2.enums.SortMode.NONE)
        walker.simplify_first_parent()
        ceiling = time.time()
        for commit in walker:
            recorded = min(stated_time(commit), ceiling)
            ceiling = recorded
            yield commit, recorded

    def rev_at(self, when: datetime) -> str | None:
        """The entry that was the folder's state at ``when`` on this machine: the newest
        of :meth:`local_entries` recorded at or before it (None: none that old)."""
        moment = when.timestamp()
        for commit, recorded in self.local_entries():
            if recorded <= moment:
                return str(commit.id)
        return None

    def first_rev(self) -> str | None:
        """The oldest of :meth:`local_entries`: where this machine's history of the folder
        begins (None: it holds no entry)."""
        oldest = None
        for commit, _ in self.local_entries():
            oldest = commit
        return None if oldest is None else str(oldest.id)
