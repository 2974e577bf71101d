"""Sync: the same memories on every machine, through any git remote.

A memories folder's history (history/repository.py) is a git repository, so a sync is what git
does between machines: fetch the remote's branch, merge it with the local history, push
the result. The transport is the ``git`` command line (transport.py).

The merge is per memory and three-way (libgit2's tree merge, renames detected): changes to
different memories or different lines merge silently. When both sides changed the same
lines, the local text stays in place and the other side's whole text is kept in a conflict
record next to the history, which ``conflicts``, ``check``, ``list``, the dashboard and
the agent's activation message report until a person resolves it. The records travel on
a second branch of the remote (``serena-conflicts``), merged at each sync, so every
machine shows an open conflict and learns of its resolution. A memory deleted on one
side and edited on the other keeps the edit. What the sync brings is written through the
store (path gate, folder lock) and recorded as one entry with provenance ``sync``, so it
can be undone with ``restore``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from serena_memory.core.changes import Provenance, current_os_user, machine_name
from serena_memory.core.errors import HistoryError, MemoryStoreError, SyncError
from serena_memory.core.files import ensure_folder
from serena_memory.core.planned_change import refuse_secrets
from serena_memory.core.store import catch_up_history
from serena_memory.core.store_writing import set_version
from serena_memory.history.folder import FolderHistory
from serena_memory.history.location import history_folder, history_root
from serena_memory.history.registry import folder_history
from serena_memory.sync.conflicts import add_conflicts, fetched_records, record_id, records_to_push
from serena_memory.sync.result import SyncResult
from serena_memory.sync.transport import (
    GIT_TIMEOUT,
    check_url,
    configured_remote,
    display_url,
    fetch,
    fetched_main,
    forget_fetched,
    push,
)

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore, Snapshot
    from serena_memory.core.transaction import Transaction
    from serena_memory.history.secret_scan import IncomingScan


class SyncedVersions(NamedTuple):
    """What a sync brings into one memories folder: exact bytes per memory name (None
    deletes it), and how the entry that records it reads."""

    versions: dict[str, bytes | None]
    summary: str
    provenance: Provenance
    merged: tuple[str, ...]  # the other machine's entry, a further parent of this one
    # memories whose merged text holds a secret, kept out: then the entry does not name
    # the other machine's as merged, so the next sync merges them again
    kept_out: bool = False


SYNC_LOCK = "serena-sync.lock"
ATTEMPTS = 5  # another machine pushed in between: fetch and merge again, this many times
SCOPES = ("global", "project")


class _Merge:
    """The plan of one merge, computed under the folder lock from the recorded history."""

    def __init__(
        self, store: MemoryStore, scope: str, url: str, remote_rev: str, scanned: IncomingScan
    ) -> None:
        self.store = store
        self.scope = scope
        self.url = url
        self.remote_rev = remote_rev
        self.result = SyncResult(scope, display_url(url))
        self.new_conflicts: dict[str, dict[str, str]] = {}
        # the secret scan of the remote's new entries, made before the folder's lock was
        # taken (scan_incoming): entries written here meanwhile are this machine's own,
        # so what it found still holds
        self.scanned = scanned

    def __call__(self, history: FolderHistory) -> SyncedVersions | None:
        # planned again when memories changed before their locks were taken: start afresh
        self.result = SyncResult(self.scope, display_url(self.url))
        self.new_conflicts = {}
        repo = history.repo(create=True)
        head = history.head(repo)
        theirs = repo[self.remote_rev]
        if head is not None:
            if head.id == theirs.id or repo.descendant_of(head.id, theirs.id):
                return None  # the remote has nothing we lack
            if head.tree.id == theirs.tree.id:
                # The same memories (perhaps a longer history): nothing to merge, and no
                # entry for nothing. The branch stays where it is: its first parents are
                # this machine's own entries (a restore by time walks them), never the
                # remote's; the remote's entries come in with the next merge.
                return None
        if self._secrets_held_back():
            return None
        empty = repo.TreeBuilder().write()
        ours_tree = head.tree if head is not None else repo[empty]
        base = None if head is None else repo.merge_base(head.id, theirs.id)
        base_tree = repo[base].tree if base is not None else repo[empty]
        tree, clashing = self._merged_tree(repo, history.folder, base_tree, ours_tree, theirs)
        versions = self._versions(repo, history.folder, ours_tree, tree)
        self.result.secrets_kept_out = keep_secrets_out(versions, self.scanned.clean)
        self._record_clashes(repo, history.folder, tree, clashing)
        provenance = Provenance("sync", current_os_user(), f"sync {display_url(self.url)}")
        return SyncedVersions(
            versions,
            self._summary(len(versions)),
            provenance,
            (str(theirs.id),),
            bool(self.result.secrets_kept_out),
        )

    def _secrets_held_back(self) -> bool:
        """Whether the entries the merge would bring in hold a secret in any version of a
        memory, or could not all be checked: then nothing of them is merged (a merge entry
        would make every one of them part of this history), and the result says why."""
        found = self.scanned.found
        self.result.secrets_held_back = [
            f"{s.memory} (entry {s.entry}, line {s.line}: {s.kind})"
            if s.line
            else f"{s.memory} (entry {s.entry}: {s.kind})"
            for s in found
        ]
        self.result.secrets_unchecked = self.scanned.unfinished
        return bool(found or self.scanned.unfinished)

    def _merged_tree(
        self, repo: Any, folder: Any, base_tree: Any, ours_tree: Any, theirs: Any
    ) -> tuple[Any, dict[str, Any]]:
        """The merged tree, and the other side's entries of the memories whose same lines
        both sides changed. Pass one finds those memories; pass two takes the local side of
        those lines and every other change of both sides."""
        import pygit2

        clashing = _clashing(repo.merge_trees(base_tree, ours_tree, theirs.tree))
        merged = repo.merge_trees(
            base_tree, ours_tree, theirs.tree, favor=pygit2.enums.MergeFavor.OURS
        )
        remaining = list(merged.conflicts or ())
        for path in {e.path for entries in remaining for e in entries if e is not None}:
            if merged.conflicts is not None:  # None once the last conflict is gone
                with contextlib.suppress(KeyError):
                    del merged.conflicts[path]
        for ancestor, ours, other in remaining:
            # Whatever either side still has stays: deleted on one side and edited on the
            # other keeps the edit; renamed differently on both sides keeps both names.
            kept = [entry for entry in (ours, other) if entry is not None]
            for entry in kept:
                merged.add(pygit2.IndexEntry(entry.path, entry.id, entry.mode))
            if ancestor is not None and len(kept) == 1:
                self.result.kept_edits.append(folder.name_of(kept[0].path))
        for path, (stays, aside) in deprecated_kept(repo, base_tree, ours_tree, theirs.tree):
            merged.add(stays)
            clashing[path] = aside
        return repo[merged.write_tree(repo)], clashing

    def _versions(
        self, repo: Any, folder: Any, ours_tree: Any, tree: Any
    ) -> dict[str, bytes | None]:
        """What the merge changes here, per memory name; paths that can't be memories here
        go to the result's skipped list."""
        versions: dict[str, bytes | None] = {}
        for delta in repo.diff(ours_tree, tree).deltas:
            deleted = delta.status_char() == "D"
            rel = delta.old_file.path if deleted else delta.new_file.path
            if (
                not folder.holds(rel)
                or not self._usable(folder, rel)
                or (not deleted and not memory_file(repo, delta.new_file.mode, delta.new_file.id))
            ):
                self.result.skipped.append(rel)
                continue
            versions[folder.name_of(rel)] = None if deleted else repo[delta.new_file.id].data
        return versions

    def _record_clashes(self, repo: Any, folder: Any, tree: Any, clashing: dict[str, Any]) -> None:
        """A conflict record for each memory whose same lines both sides changed."""
        when = datetime.now(UTC).isoformat(timespec="seconds")
        for rel, other in clashing.items():
            if not memory_file(repo, other.mode, other.id):
                self.result.skipped.append(rel)
                continue
            name = folder.name_of(rel)
            self.result.conflicts.append(name)
            remote_text = repo[other.id].data.decode("utf-8", "replace")
            stays = _tree_text(repo, tree, rel)
            self.new_conflicts[name] = {
                "id": record_id(name, stays, remote_text),
                "remote_text": remote_text,
                "local_text": stays,
                "remote": display_url(self.url),
                "at": when,
                "machine": machine_name(),
            }

    def _summary(self, count: int) -> str:
        """How the history entry that records the merge reads."""
        summary = f"Sync with {display_url(self.url)}: " + (
            "1 memory changed here" if count == 1 else f"{count} memories changed here"
        )
        if self.result.conflicts:
            clashes = len(self.result.conflicts)
            summary += ", 1 conflict" if clashes == 1 else f", {clashes} conflicts"
            summary += " kept for review"
        return summary

    def _usable(self, folder: Any, rel: str) -> bool:
        """A path from the remote becomes a memory only if its name is one here, spelled
        the same (the name gate; the path gate applies when it is written)."""
        from serena_memory.core import names as N

        try:
            name = N.normalize_name(folder.name_of(rel))
        except MemoryStoreError:
            return False
        return folder.rel_of(name) == rel


def apply_synced(
    store: MemoryStore, scope: str, plan: Callable[[FolderHistory], SyncedVersions | None]
) -> Applied:
    """Bring what a sync merged into one memories folder through the store: under the
    locks, outside changes are recorded first (so the merge sees them; a failure there is
    raised, never merged over), ``plan`` computes the versions from that history, the
    store writes them through the path gate, and they are recorded as one entry whose
    further parents are the merged entries."""
    spec = history_folder(store, scope)
    history = folder_history(history_root(store), spec)
    planned: list[SyncedVersions | None] = [None]

    def versions() -> dict[str, bytes | None] | None:
        history.catch_up()
        planned[0] = plan(history)
        return None if planned[0] is None else planned[0].versions

    def record(found: dict[str, bytes | None], unwritten: dict[str, str]) -> None:
        final = planned[0]
        assert final is not None  # found is only given when the plan is
        written = [n for n in found if n not in unwritten]
        rels = [r for r in map(spec.rel_of, written) if r is not None]
        missing = bool(unwritten) or final.kept_out
        if missing and not rels:
            return  # nothing of the merge is here: the next sync merges it again
        # A memory of the merge that could not be written, or whose merged text was kept
        # out for a secret, keeps the entry from naming the remote's as merged: the next
        # sync merges what is still missing (the remote's change is never lost), and the
        # branch, which does not follow the remote, is not pushed meanwhile.
        merged = () if missing else final.merged
        history.record(rels, final.provenance, final.summary, None, os.urandom(6).hex(), merged)

    return apply_planned(store, scope, versions, record)


def keep_secrets_out(
    versions: dict[str, bytes | None], clean: frozenset[str] = frozenset()
) -> list[str]:
    """Drop from ``versions`` the memories whose incoming text holds a secret; says which
    (name, line and kind) for the sync's summary. A version among ``clean`` (git object
    ids the scan of the incoming entries found clean, name included) is not scanned again:
    a merge usually takes the other side's versions as they are."""
    import pygit2

    from serena_memory.core import secrets

    unknown = {
        name: data
        for name, data in versions.items()
        if data is not None and str(pygit2.hash(data)) not in clean
    }
    kept_out = []
    for name, findings in secrets.holding_secrets(unknown).items():
        del versions[name]
        first = findings[0]
        if first.line == secrets.NAME_LINE:  # the name itself is never repeated
            kept_out.append(f"a memory whose name holds one ({first.kind})")
        else:
            kept_out.append(f"{name} (line {first.line}: {first.kind})")
    return kept_out


def scan_incoming(history: FolderHistory, remote_rev: str) -> IncomingScan:
    """The secret scan of the entries a merge of ``remote_rev`` would bring in, made
    before the merge takes the folder's lock: writes to the memories go on meanwhile."""
    from serena_memory.history.secret_scan import IncomingScan, in_incoming

    repo = history.repo(create=True)
    head = history.head(repo)
    theirs = repo[remote_rev]
    if head is not None and (head.id == theirs.id or repo.descendant_of(head.id, theirs.id)):
        return IncomingScan([])  # nothing comes in
    return in_incoming(repo, history.folder, head, theirs)


def deprecated_kept(
    repo: Any, base_tree: Any, ours_tree: Any, theirs_tree: Any
) -> Iterator[tuple[str, tuple[Any, Any]]]:
    """The memories one side deprecated (core/lifecycle.py) while the other, an agent on
    another machine say, wrote to them: (path, (the deprecated side's entry, which stays,
    the other side's, set aside as a conflict)). A merge of the two would make the old
    text current again, or the deprecation quietly lost."""
    from serena_memory.core.lifecycle import deprecated_text

    ours, theirs = _changed(repo, base_tree, ours_tree), _changed(repo, base_tree, theirs_tree)
    for path in sorted(ours.keys() & theirs.keys()):
        mine, other = ours[path], theirs[path]
        if mine.id == other.id:
            continue
        mine_old = deprecated_text(repo[mine.id].data)
        other_old = deprecated_text(repo[other.id].data)
        if mine_old and not other_old:
            yield path, (mine, other)
        elif other_old and not mine_old:
            yield path, (other, mine)


def _changed(repo: Any, base_tree: Any, tree: Any) -> dict[str, Any]:
    """The entries of ``tree`` that differ from ``base_tree`` (new or changed) and can be
    memories, by path."""
    import pygit2

    found = {}
    for delta in repo.diff(base_tree, tree).deltas:
        new = delta.new_file
        if delta.status_char() in ("A", "M") and memory_file(repo, new.mode, new.id):
            found[new.path] = pygit2.IndexEntry(new.path, new.id, new.mode)
    return found


def _clashing(plain: Any) -> dict[str, Any]:
    """The other side's entries of the memories whose same lines both sides changed, from
    a plain merge's index."""
    clashing: dict[str, Any] = {}
    for _ancestor, ours, other in list(plain.conflicts or ()):
        if ours is not None and other is not None and ours.id != other.id:
            clashing[ours.path] = other
    return clashing


def _tree_text(repo: Any, tree: Any, rel: str) -> str:
    try:
        entry = tree[rel]
    except KeyError:
        return ""
    return repo[entry.id].data.decode("utf-8", "replace") if entry.type_str == "blob" else ""


def sync(
    store: MemoryStore,
    scope: str = "global",
    remote: str | None = None,
    *,
    interactive: bool = False,
) -> SyncResult:
    """Fetch, merge and push one memories folder (``global`` or ``project``)."""
    from filelock import FileLock, Timeout

    from serena_memory.history.registry import folder_history

    started = time.perf_counter()
    if scope not in SCOPES:
        raise SyncError(f"unknown sync scope {scope!r}; use global or project")
    settings = store.settings
    url = check_url(remote) if remote else configured_remote(store, scope)
    if url is None:
        flag = "" if scope == "global" else " --project"
        raise SyncError(
            f"no sync remote is configured for the {scope} memories; run `serena memories "
            f"sync{flag} --remote URL` once (a bare git repository on a shared drive, or over "
            "SSH or HTTPS)"
        )
    enabled = (
        settings.history_enabled if scope == "project" else settings.global_config.memory_history
    )
    if not enabled:
        raise SyncError(
            "sync carries the history of the memories, which is off (memory_history: false); "
            "turn it on to sync"
        )
    spec = history_folder(store, scope)
    history = folder_history(history_root(store, settings), spec)
    try:
        history.repo(create=True)
    except HistoryError as exc:
        raise SyncError(f"the history can't be synced: {exc}") from None
    repo_path = history.repo_path
    # One sync of a folder at a time on this machine; writes to the memories go on
    # meanwhile (the folder lock is held only while the merge is written).
    lock = FileLock(str(repo_path / SYNC_LOCK))
    try:
        lock.acquire(timeout=GIT_TIMEOUT)
    except Timeout:
        raise SyncError(
            "another sync of these memories is still running; wait for it and sync again"
        ) from None
    try:
        result = _sync_locked(store, scope, url, history, interactive)
    finally:
        lock.release()
    result.seconds = time.perf_counter() - started
    return result


def _sync_locked(
    store: MemoryStore, scope: str, url: str, history: FolderHistory, interactive: bool
) -> SyncResult:
    """Fetch, merge and push under the sync lock, fetching again when the remote moved
    between this attempt's fetch and its push."""
    result = SyncResult(scope, display_url(url))
    repo_path = history.repo_path
    for _ in range(ATTEMPTS):
        before = fetched_main(repo_path)
        remote_rev = fetch(repo_path, url, interactive=interactive)
        result.secrets_held_back = []  # as this attempt's fetch finds it
        result.secrets_unchecked = ""
        if remote_rev is not None:
            found = _merge_fetched(store, scope, url, history, remote_rev, result)
            if result.secrets_held_back:
                forget_fetched(repo_path, before)
        else:
            catch_up_history(store)
            found = {}
        records_rev, records = fetched_records(repo_path, history.folder)
        new_records = add_conflicts(history, found, records, result)
        records_out = records_to_push(repo_path, new_records, records_rev)
        branch_out = _branch_to_push(history, remote_rev, result)
        if not branch_out and not records_out:
            return result  # the remote already has everything (or there is nothing at all)
        if push(repo_path, url, interactive=interactive, branch=branch_out, records=records_out):
            result.pushed = result.pushed or branch_out
            return result
    raise SyncError(
        f"the remote {display_url(url)} changed during each of {ATTEMPTS} attempts (other "
        "machines are syncing); what was fetched is merged here, sync again to push"
    )


def _merge_fetched(
    store: MemoryStore,
    scope: str,
    url: str,
    history: FolderHistory,
    remote_rev: str,
    result: SyncResult,
) -> dict[str, dict[str, str]]:
    """Merge the fetched ``remote_rev`` into the memories, noting in ``result`` what
    changed; returns the conflicts this merge found, to be recorded."""
    import pygit2

    try:
        merge = _Merge(store, scope, url, remote_rev, scan_incoming(history, remote_rev))
        changed = apply_synced(store, scope, merge)
    except (HistoryError, pygit2.GitError) as exc:
        raise SyncError(
            f"the history of the {scope} memories can't be merged ({exc}); the "
            "memories are as they were, or as far as the merge got (see `serena "
            "memories history`)"
        ) from None
    for name, what in changed.changed.items():
        result.changed[name] = what
    result.unwritten = [f"{n} ({why})" for n, why in changed.unwritten.items()]
    _merge_lists(result, merge.result)
    return merge.new_conflicts


def _branch_to_push(history: FolderHistory, remote_rev: str | None, result: SyncResult) -> bool:
    """Whether the remote lacks this machine's history. It lacks nothing when it has this
    entry, or the same memories (then this machine's merge entry is pushed with its next
    change, not alone). A remote whose entries were held back, or a memory of whose merge
    was not written (or kept out for a secret), gets nothing either: the branch can't
    follow it."""
    repo = history.repo(create=True)
    head = history.head(repo)
    if result.held_back or result.unwritten or result.secrets_kept_out or head is None:
        return False
    return not (
        remote_rev is not None
        and (
            str(head.id) == remote_rev
            or repo.descendant_of(remote_rev, head.id)
            or repo[remote_rev].tree.id == head.tree.id
        )
    )


def _merge_lists(into: SyncResult, new: SyncResult) -> None:
    for attr in ("conflicts", "kept_edits", "skipped", "secrets_kept_out", "secrets_held_back"):
        target = getattr(into, attr)
        target.extend(x for x in getattr(new, attr) if x not in target)
    into.secrets_unchecked = into.secrets_unchecked or new.secrets_unchecked


def memory_file(repo: Any, mode: int, oid: Any) -> bool:
    """Whether a tree entry from a remote can be a memory: a regular file (not a link, nor
    a submodule, whose commit is not even here) no larger than a memory may be, measured
    from the object's header so a huge one is never loaded."""
    import pygit2

    from serena_memory.core.paths import MAX_MEMORY_BYTES

    regular = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
    return mode in regular and int(repo.odb.read_header(oid)[1]) <= MAX_MEMORY_BYTES


# -- writing what a sync computed, under the locks of what it changes ----------------------
PLAN_ATTEMPTS = 5  # a sync re-plans when memories change between its plan and its locks


@contextlib.contextmanager
def _planned_change(
    store: MemoryStore,
    snap: Snapshot,
    root: Path,
    plan: Callable[[], dict[str, bytes | None] | None],
) -> Iterator[tuple[Transaction, dict[str, bytes | None] | None]]:
    """Run ``plan`` under the locks of the memories it will change, which only the plan
    knows: it runs under the folder's lock first, then again under the locks of the
    memories it named, until they are the same (usually the second time). Yields the
    transaction holding those locks and the final plan."""
    ensure_folder(root)
    names: list[str] = []
    created: list[str] = []
    for _ in range(PLAN_ATTEMPTS):
        with store.transaction(snap, *names, create=created, real_folders=[root]) as change:
            versions = plan()
            wanted = [] if versions is None else sorted(versions)
            if versions is None or set(wanted) <= set(names):
                yield change, versions
                return
        names = wanted
        created = [n for n in wanted if versions and versions[n] is not None]
    raise MemoryStoreError(
        f"the memories in {root} kept changing while a sync was written; sync again"
    )


class Applied(NamedTuple):
    """What a sync wrote: name -> created|changed|deleted; and the memories it could not
    write, name -> why (the caller keeps them for the next sync)."""

    changed: dict[str, str]
    unwritten: dict[str, str]


def apply_planned(
    store: MemoryStore,
    scope: str,
    plan: Callable[[], dict[str, bytes | None] | None],
    written: Callable[[dict[str, bytes | None], dict[str, str]], None] | None = None,
) -> Applied:
    """Write the memories that ``plan`` computes in one folder ("project" or "global"),
    under their locks, through the path gate; ``written`` then runs with the locks
    still held (a sync records its entry there). Read-only patterns do not apply: a
    sync carries the person's own changes from another machine, or the team's.

    A memory that can't be written (the file system refuses it, a folder is in its
    place) does not stop the others: it is returned with why, for the caller to keep."""
    snap = store.snapshot()
    spec = history_folder(store, scope, snap.settings)
    done: dict[str, str] = {}
    unwritten: dict[str, str] = {}
    with _planned_change(store, snap, spec.root, plan) as (change, found):
        if found is None:
            return Applied({}, {})
        refuse_secrets(store, dict(found))  # a sync keeps them out before; never written
        for name, data in found.items():
            try:
                what = set_version(change, name, data)
            except (OSError, MemoryStoreError) as exc:
                unwritten[name] = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)
                continue
            if what:
                done[name] = what
        if written is not None:
            written(found, unwritten)
    return Applied(done, unwritten)


def apply_pulled(store: MemoryStore, plan: Callable[[], dict[str, bytes | None]]) -> Applied:
    """Write the team's memories that ``plan`` computes, under their locks. They have
    their own history, the team's repository, so nothing is recorded here."""
    return apply_planned(store, "global", plan)
