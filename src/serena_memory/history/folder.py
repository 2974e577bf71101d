"""Writing one folder's history: outside edits caught up, operations committed.

One operation through any entry point is one commit whose author says who made it and
whose trailers say which memories it touched. Changes made outside (an editor, a checkout)
are committed as ``external`` before the next recorded operation, so an overwrite never
loses a hand edit. Memory files are read only through the path gate, never by git, and
only when their stamp moved (:mod:`serena_memory.history.stamps`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from serena_memory.core import paths
from serena_memory.core.changes import MEMORY_SUFFIX, Folder, Provenance, recordable
from serena_memory.core.display import counted
from serena_memory.core.errors import MemoryStoreError, OutsidePathError
from serena_memory.core.operation import receiver
from serena_memory.history import stamp_log
from serena_memory.history.entries import (
    EXTERNAL,
    STARTED,
    STARTED_AGAIN,
    entry_message,
    new_operation,
)
from serena_memory.history.notices import report
from serena_memory.history.objects import (
    empty_tree,
    move_branch,
    tree_blob,
    tree_paths,
    updated_tree,
)
from serena_memory.history.repository import FolderRepository
from serena_memory.history.stamps import FolderStamps
from serena_memory.history.times import shown_typed
from serena_memory.history.watching import WatchedFolder

_UNREADABLE = "(unreadable)"  # a file the gate refuses to read (too large, not regular)


class FolderHistory(FolderRepository):
    """The history of one memories folder, written by this process.

    Memory files are read only through the path gate (:mod:`serena_memory.core.paths`):
    the folder is listed with :func:`paths.scan` and each file read with
    :func:`paths.read_regular_file`, so the history never follows a link the store itself
    would refuse. New trees are built from the branch's tree, changing only the paths an
    operation touched. Outside changes are found by comparing each file's stamp (inode,
    modification time, size) with the stamp it had when last read, kept next to the
    repository: only files whose stamp moved are read and hashed again.

    Writing methods are called only under the folder's lock (see :class:`Recording`), so a
    process is the only writer while it records; readers never need the lock.
    """

    def __init__(self, folder: Folder, repo_path: Path) -> None:
        super().__init__(folder, repo_path)
        self.gate = folder.gate  # where its links may lead: the folder's, so taken once
        self.stamps = FolderStamps(repo_path)
        self.watch = WatchedFolder(folder.root)
        self._recordings = 0  # operations this process recorded in the folder
        self.held: dict[str, str] = {}
        """Outside changes left out because they hold a secret (relative path -> what to
        tell), until the file no longer holds it: a server's folder watch does not report
        an unchanged file again, yet every look at the history must still say it."""

    # -- the folder, through the path gate ---------------------------------------------------
    def _listing(self) -> dict[str, str]:
        """Every memory file of the folder (relative path -> real path), as the store
        lists them: links only into the allowed folders, regular ``*.md`` files only."""
        found = paths.scan(self.gate, skip_top=self.folder.skip_top)
        return {f"{rel}{MEMORY_SUFFIX}": real for rel, real in found.files.items()}

    def _real_path(self, rel: str) -> str | None:
        """The real file of ``rel`` through the gate; None when the gate refuses it."""
        try:
            return paths.resolve(self.gate, rel.split("/"), f"memory file {rel}")
        except OutsidePathError:
            return None

    def _blob(
        self,
        repo: Any,
        rel: str,
        real: str | None,
        now_ns: int,
        outside: bool = False,
        recorded: str | None = None,
    ) -> str | None:
        """The blob id of the file's current bytes (None: it is not there, or not a memory
        file the gate lets through); read and hashed only when its stamp moved.

        ``outside``: a change made outside serena (an editor), which passes the secret gate
        every write passes: one holding what looks like a secret is left out of the history
        (told, never written into it) until the file no longer holds it. Bytes that are
        ``recorded`` (the history's blob at ``rel``) passed that gate when they were
        recorded, so they are not scanned again: a file read again only because its stamp
        was too recent to trust (a write less than a second before) costs a hash."""
        if real is None:
            self.held.pop(rel, None)
            return None
        try:
            st = os.stat(real)
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            self.stamps.forget(rel)
            self.held.pop(rel, None)
            return None
        known = self.stamps.known(rel, st)
        if known is not None:
            return known
        try:  # the stamp is taken before the read: a change after it moves it again
            data = paths.read_regular_file(real, self.gate.allowed, f"memory file {rel}")
        except FileNotFoundError:
            self.stamps.forget(rel)
            return None
        except (OSError, MemoryStoreError):
            return _UNREADABLE
        found = self.git.hash(data)
        if outside and str(found) == recorded:
            self._not_held(rel)
        elif outside and self._holds_secret(rel, data):
            return _UNREADABLE  # its stamp is not taken: looked at again next time
        if found not in repo:  # an unchanged file's blob is there already: nothing to write
            repo.create_blob(data)
        oid = str(found)
        self.stamps.remember(rel, st, oid, now_ns)
        return oid

    def _holds_secret(self, rel: str, data: bytes) -> bool:
        from serena_memory.core import secrets

        name = self.folder.name_of(rel)
        found = secrets.holding_secrets({name: data}).get(name)
        if not found:
            self._not_held(rel)
            return False
        key = f"secret:{self.repo_path}:{rel}"
        named = found[0].line == secrets.NAME_LINE
        where = "its name" if named else f"line {found[0].line}"
        until = (
            "it is renamed (`serena memories rename`)"
            if named
            else "the secret is removed from the file"
        )
        self.held[rel] = (
            f"memory '{secrets.masked_name(name)}' was changed outside serena and holds what "
            f"looks like a secret ({where}: {found[0].kind}); the change is not recorded in "
            f"the history until {until}"
        )
        report(key, self.held[rel])
        return True

    def _not_held(self, rel: str) -> None:
        """``rel`` holds no secret now: a notice about it is over (said again if it comes
        back)."""
        if self.held.pop(rel, None) is not None:
            receiver().clear(f"secret:{self.repo_path}:{rel}")

    def tell_held(self) -> None:
        """Say again, to the operation looking at the history, each outside change left
        out for holding a secret (said once per operation, as every notice)."""
        for rel, message in list(self.held.items()):
            report(f"secret:{self.repo_path}:{rel}", message)

    def _moved(
        self, repo: Any, tree: Any, rel: str, real: str | None, now_ns: int, in_sync: bool
    ) -> tuple[bool, str | None]:
        """Whether ``rel`` now differs from its blob in ``tree``, and its blob id now. With
        ``in_sync`` (the folder matched ``tree`` when its stamps were taken), a file whose
        stamp did not move is unchanged; an unreadable file is left as it is."""
        known = self.stamps.files.get(rel)
        recorded = tree_blob(tree, rel)  # the tree is the same throughout: looked up once
        oid = self._blob(repo, rel, real, now_ns, outside=True, recorded=recorded)
        if oid is _UNREADABLE:
            return False, oid
        if in_sync and known is not None and known is self.stamps.files.get(rel):
            return False, oid  # same stamp as when the folder matched the branch
        if oid == recorded:
            return False, oid
        oid = self._stored(repo, rel, real, now_ns, oid, outside=True)
        return oid is not _UNREADABLE and oid != recorded, oid

    def _stored(
        self, repo: Any, rel: str, real: str | None, now_ns: int, oid: str | None, outside: bool
    ) -> str | None:
        """``oid`` (from :meth:`_blob`), about to be committed: a blob the repository holds.
        A stamp may name one it lacks (a stamps file that came back with a rewritten copy
        of the repository, docs/secrets.md): then the file is read again."""
        if oid is None or oid is _UNREADABLE or oid in repo:
            return oid
        self.stamps.forget(rel)
        return self._blob(repo, rel, real, now_ns, outside)

    def _writing(self) -> tuple[Any, Any, bool]:
        """The repository and its head, for a write (under the folder's lock), with stamps
        that describe it: stamps taken in a repository since removed or replaced
        (docs/secrets.md) name blobs and a tree the one there now may lack, so they start
        over, as a new process's would (then True)."""
        repo, head, identity = self.writable()
        if self.stamps.repository != identity:
            self.stamps.start_over(identity)
            return repo, head, True
        return repo, head, False

    def reset(self) -> None:
        """Forget what this process knows (after a failure: the files and the branch are
        compared afresh next time)."""
        self.close()
        self.stamps.reset()
        self.watch.close()  # events read before the failure are lost: look at everything
        with contextlib.suppress(OSError):  # and the next process too, before its write
            (self.repo_path / stamp_log.CATCH_UP_FILE).touch()

    def unrecorded(self, rels: Iterable[str]) -> list[str]:
        """The files among ``rels`` whose current text is not the one the history's
        latest entry holds (a text written while the history couldn't record it)."""
        repo = self.repo(create=False)
        head = None if repo is None else self.head(repo)
        tree = None if head is None else head.tree
        found = []
        for rel in rels:
            data = self._current_bytes(rel)
            if data is not None and str(self.git.hash(data)) != tree_blob(tree, rel):
                found.append(rel)
        return found

    def _current_bytes(self, rel: str) -> bytes | None:
        """The bytes of ``rel`` now, through the gate; None: not there, or not a memory
        file the gate lets through (the history never holds those either)."""
        real = self._real_path(rel)
        if real is None:
            return None
        try:
            return paths.read_regular_file(real, self.gate.allowed, f"memory file {rel}")
        except (OSError, MemoryStoreError):
            return None

    # -- catching up with outside changes ----------------------------------------------------
    def next_recording(self, names_given: bool) -> bool:
        """One more operation recorded in the folder by this process; returns whether it
        may look only at the files it changes (``names_given``: it names them; see
        :meth:`_may_narrow`), decided before it counts."""
        narrow = names_given and self._may_narrow()
        self._recordings += 1
        return narrow

    def _may_narrow(self) -> bool:
        """Whether the next operation may look only at the files it changes: the first
        one of this process in the folder (a command), when no recording failed and the
        stamp log is short. A process that records again (a server) compares the folder,
        then watches it, and so records outside edits elsewhere as they come."""
        return (
            self._recordings == 0
            and not self.watch.watching
            and not os.path.exists(self.repo_path / stamp_log.CATCH_UP_FILE)
            and stamp_log.size(self.repo_path) < stamp_log.LOG_MAX_BYTES
        )

    def catch_up(
        self,
        provenance: Provenance | None = None,
        summary: str = "",
        about_to_change: Iterable[str] = (),
        narrow: bool = False,
    ) -> str | None:
        """Commit whatever changed in the folder since the last entry (an editor, a
        checkout, a change whose recording failed); returns the new revision, if any.

        Every memory file's stamp is compared with the one it had when last read; only
        files whose stamp moved are read again. ``about_to_change`` names the files the
        coming operation will write (they are always looked at). ``narrow``: look at those
        files only (see :meth:`next_recording`).
        """
        repo, head, _new = self._writing()
        if narrow and head is not None:
            return self._catch_up_narrow(repo, head, about_to_change)
        self.stamps.load()
        tree = None if head is None else head.tree
        in_sync = tree is not None and self.stamps.synced == str(tree.id)
        changes = self._outside_changes(repo, tree, in_sync, about_to_change)
        if not changes:
            if self.stamps.dirty or not in_sync:
                self.stamps.save(None if tree is None else str(tree.id))
            return None
        if head is None:
            summary = summary or self._first_summary(len(changes))
            provenance = provenance or Provenance(EXTERNAL, "as found", "")
        else:
            summary = summary or _external_summary(changes, self.folder)
            provenance = provenance or Provenance(EXTERNAL, "outside serena", "")
        return self._commit(repo, head, changes, provenance, summary, None, new_operation())

    def _first_summary(self, files: int) -> str:
        """The first entry's summary: the history starts, or starts again after its
        repository was removed (so nothing before it can be shown or undone)."""
        found = counted(files, "memory", "memories")
        if self.begun_before:
            return (
                f"{STARTED_AGAIN} with {found} as found: the history begun "
                f"{self.begun_before} was removed, so no change before this entry can be "
                "shown or undone"
            )
        return f"{STARTED} with {found} as found"

    def _outside_changes(
        self, repo: Any, tree: Any, in_sync: bool, about_to_change: Iterable[str]
    ) -> dict[str, str | None]:
        """What changed against ``tree``: path -> new blob id (None: gone). Only what the
        folder watch reported, when the folder matched the tree; else every file."""
        # read before looking: whatever changes from now on is reported next time
        reported = self.watch.changed_rels()
        now_ns = time.time_ns()
        if in_sync and reported is not None:
            # only what the watch reported, and what the operation is about to change
            wanted = set(self.folder.held((*reported, *about_to_change)))
            changes: dict[str, str | None] = {}
            for rel in wanted:
                moved, oid = self._moved(repo, tree, rel, self._real_path(rel), now_ns, True)
                if moved:
                    changes[rel] = oid
            return changes
        changes = self._compare_all(repo, tree, in_sync, about_to_change, now_ns)
        self.watch.looked_at_everything()
        with contextlib.suppress(OSError):  # every file looked at: nothing left behind
            os.unlink(self.repo_path / stamp_log.CATCH_UP_FILE)
        return changes

    def _catch_up_narrow(self, repo: Any, head: Any, about_to_change: Iterable[str]) -> str | None:
        """Commit outside edits of the files about to change only (their own bytes, read
        now), so that an overwrite never loses a hand edit; the rest of the folder is left
        for the next look at the whole history."""
        tree = head.tree
        now_ns = time.time_ns()
        changes: dict[str, str | None] = {}
        for rel in self.folder.held(sorted(set(about_to_change))):
            real = self._real_path(rel)
            recorded = tree_blob(tree, rel)
            oid = self._blob(repo, rel, real, now_ns, outside=True, recorded=recorded)
            if oid is not _UNREADABLE and oid != recorded:
                oid = self._stored(repo, rel, real, now_ns, oid, outside=True)
            if oid is not _UNREADABLE and oid != recorded:
                changes[rel] = oid
        if not changes:
            return None
        summary = _external_summary(changes, self.folder)
        provenance = Provenance(EXTERNAL, "outside serena", "")
        return self._commit(
            repo, head, changes, provenance, summary, None, new_operation(), narrow=True
        )

    def _compare_all(
        self,
        repo: Any,
        tree: Any,
        in_sync: bool,
        about_to_change: Iterable[str],
        now_ns: int,
    ) -> dict[str, str | None]:
        """Every memory file against the branch's tree: path -> new blob id (None: gone)."""
        listing = self._listing()
        for rel in self.folder.held(about_to_change):
            if rel not in listing:
                real = self._real_path(rel)
                if real is not None and os.path.isfile(real):
                    listing[rel] = real
        changes: dict[str, str | None] = {}
        for rel, real in listing.items():
            moved, oid = self._moved(repo, tree, rel, real, now_ns, in_sync)
            if moved:
                changes[rel] = oid
        gone = list(self.stamps.files) if in_sync else tree_paths(repo, tree)
        for rel in gone:
            if rel in listing:
                continue
            self.stamps.forget(rel)
            if tree_blob(tree, rel) is not None:
                changes[rel] = None
        return changes

    # -- committing --------------------------------------------------------------------------
    def record(
        self,
        rels: Iterable[str],
        provenance: Provenance,
        summary: str,
        renamed: tuple[str, str] | None,
        operation: str,
        merged: tuple[str, ...] = (),
        narrow: bool = False,
        loaded: bool = False,
    ) -> str | None:
        """Commit the given files as they are now on disk (deleted if gone). ``merged``:
        further parents of the entry (a sync merges another machine's entries in), which
        make it a commit even when the files did not change. ``narrow``: the stamps of
        these files only are noted, in the stamp log. ``loaded``: a catch-up under the
        same hold of the folder's lock loaded the stamps (no other process changed them
        since: they are not looked at again)."""
        repo, head, started_over = self._writing()
        if not narrow and (started_over or not loaded):
            self.stamps.load()
        if head is None and merged:
            # an entry of our own first: a merge's first parent is this machine's history
            start = Provenance(EXTERNAL, "as found", "")
            summary_start = "History started with 0 memories as found"
            self._commit(repo, None, {}, start, summary_start, None, new_operation())
            head = self.head(repo)
        now_ns = time.time_ns()
        changes: dict[str, str | None] = {}
        for rel in sorted(set(rels)):
            real = self._real_path(rel)
            oid = self._stored(repo, rel, real, now_ns, self._blob(repo, rel, real, now_ns), False)
            if oid is not _UNREADABLE:
                changes[rel] = oid
        return self._commit(
            repo, head, changes, provenance, summary, renamed, operation, merged, narrow
        )

    def _commit(
        self,
        repo: Any,
        head: Any,
        changes: dict[str, str | None],
        provenance: Provenance,
        summary: str,
        renamed: tuple[str, str] | None,
        operation: str,
        merged: tuple[str, ...] = (),
        narrow: bool = False,
    ) -> str | None:
        pygit2 = self.git
        tree = None if head is None else head.tree
        effective, listed = self._effective(tree, changes)
        if not effective and tree is not None and not merged:
            if not narrow:
                self.stamps.save(str(tree.id))  # fresher stamps, nothing to record
            return None
        new_tree = updated_tree(repo, pygit2, tree, effective) or empty_tree(repo)
        shown = provenance.cleaned()  # the parts come from outside: cleaned once for both
        author, committer = _signatures(pygit2, shown)
        message = entry_message(summary, shown, listed, renamed, operation)
        parents = [] if head is None else [head.id]
        parents += [pygit2.Oid(hex=rev) for rev in merged]
        commit = repo.create_commit(None, author, committer, message, new_tree, parents)
        move_branch(repo, self.repo_path, commit)
        if narrow:
            self.stamps.note(None if tree is None else str(tree.id), str(new_tree), changes)
        else:  # after the branch: a crash in between re-compares
            self.stamps.save(str(new_tree))
        return str(commit)

    def _effective(
        self, tree: Any, changes: dict[str, str | None]
    ) -> tuple[dict[str, str | None], list[tuple[str, str]]]:
        """The changes that change ``tree`` (path -> blob id, None: removed), and how the
        entry lists them ((A|M|D, memory name)); files the history can't hold are said."""
        listed: list[tuple[str, str]] = []
        effective: dict[str, str | None] = {}
        left_out = sorted(rel for rel in changes if not recordable(rel))
        if left_out:
            self._left_out(left_out)
        for rel in sorted(changes):
            if rel in left_out:
                continue
            before, now = tree_blob(tree, rel), changes[rel]
            if before == now:
                continue
            effective[rel] = now
            kind = "A" if before is None else ("D" if now is None else "M")
            listed.append((kind, self.folder.name_of(rel)))
        return effective, listed

    def _left_out(self, rels: list[str]) -> None:
        """Say once which memory files the history can't hold; the rest is recorded."""
        shown = ", ".join(shown_typed(rel) for rel in rels[:3])
        more = f" and {len(rels) - 3} more" if len(rels) > 3 else ""
        digest = hashlib.sha256("\0".join(rels).encode("utf-8", "surrogateescape")).hexdigest()
        report(
            f"{self.repo_path}:left-out:{digest}",
            f"the history of the memories in {self.folder.root} leaves out {shown}{more}: a "
            "path longer or deeper than a memory name may be, or not UTF-8, can't be recorded "
            "(rename or move it); every other change is recorded",
        )


def _signatures(pygit2: Any, provenance: Provenance) -> tuple[Any, Any]:
    """The author (who acted, through which entry point) and the committer of an entry
    (``provenance`` cleaned)."""
    now_s = int(time.time())
    offset = (time.localtime(now_s).tm_gmtoff or 0) // 60
    shown = provenance
    author = pygit2.Signature(shown.who, f"{shown.entry_point}@serena-memory", now_s, offset)
    committer = pygit2.Signature("serena-memory", "history@serena-memory", now_s, offset)
    return author, committer


def _external_summary(changes: Iterable[str], folder: Folder) -> str:
    names = sorted(folder.name_of(rel) for rel in changes)
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"Changed outside serena: {shown}"
