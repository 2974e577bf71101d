"""Sync: the same memories on every machine, through any git remote.

A memories folder's history (history/engine.py) is a git repository, so a sync is what git
does between machines: fetch the remote's branch, merge it with the local history, push
the result. The transport is the ``git`` command line, so authentication is git's own
(credential helpers, the SSH agent) and any remote git reaches works: a bare repository on
a shared drive, SSH, HTTPS. Nothing here stores a credential.

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
import json
import logging
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from serena_memory.core.changes import Folder, Provenance, current_os_user, machine_name
from serena_memory.core.config import load_sync_config, set_global_key
from serena_memory.core.display import escape_line
from serena_memory.core.errors import HistoryError, MemoryStoreError, SyncError
from serena_memory.history.engine import FolderHistory, folder_history

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

log = logging.getLogger("serena_memory.sync")


class SyncedVersions(NamedTuple):
    """What a sync brings into one memories folder: exact bytes per memory name (None
    deletes it), and how the entry that records it reads."""

    versions: dict[str, bytes | None]
    summary: str
    provenance: Provenance
    merged: tuple[str, ...]  # the other machine's entry, a further parent of this one


BRANCH = "refs/heads/main"
FETCHED = "refs/serena-sync/"  # the remote's branches as last fetched, in the history
CONFLICTS_FILE = "serena-sync-conflicts.json"
SYNC_LOCK = "serena-sync.lock"
ATTEMPTS = 5  # another machine pushed in between: fetch and merge again, this many times
GIT_TIMEOUT = 120.0
SCOPES = ("global", "project")


# -- where a folder syncs to ----------------------------------------------------------------
def display_url(url: str) -> str:
    """A URL as messages and history entries show it: without a password or token someone
    may have written into it (git's credential helpers are the place for those)."""
    return re.sub(r"(?<=://)[^/@]*@", "", url)


def configured_remote(store: MemoryStore, scope: str) -> str | None:
    """The remote of the global folder (``memory_sync_remote``) or of this project's
    folder (``memory_sync_project_remotes``), both in the global configuration only."""
    config = load_sync_config(store.home)
    if scope == "global":
        return config.remote
    return config.project_remotes.get(os.path.realpath(store.project_root))


def remember_remote(store: MemoryStore, scope: str, url: str) -> Path:
    """Write the remote into the person's own configuration (never the project's)."""
    check_url(url)
    if scope == "global":
        return set_global_key(store.home, "memory_sync_remote", url)
    config = load_sync_config(store.home)
    remotes = dict(config.project_remotes)
    remotes[os.path.realpath(store.project_root)] = url
    return set_global_key(store.home, "memory_sync_project_remotes", remotes)


def check_url(url: str) -> str:
    if not url.strip():
        raise SyncError("the sync remote is empty; give the URL or path of a git repository")
    if url.strip().startswith("-"):
        raise SyncError(f"{url!r} is not a repository URL (it starts with '-')")
    return url.strip()


# -- the git command line --------------------------------------------------------------------
def _git(
    repo_path: Path, *args: str, interactive: bool = False, timeout: float = GIT_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run git on a history repository. Without a person at the terminal, git must never
    wait for a password: it fails instead, and the sync says the remote is unreachable."""
    env = dict(os.environ)
    env["LC_ALL"] = "C"  # the answers below are read by this code
    if not interactive:
        env["GIT_TERMINAL_PROMPT"] = "0"
        env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    command = [
        "git",
        "-c",
        "gc.auto=0",  # the history's own maintenance, not git's, packs it
        "-c",
        "maintenance.auto=false",
        f"--git-dir={repo_path}",
        *args,
    ]
    try:
        return subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=None if interactive else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise SyncError(
            "sync needs the git command line, which is not installed; install git (for "
            "example `sudo apt-get install git`) and sync again"
        ) from None
    except subprocess.TimeoutExpired:
        raise SyncError(
            f"git did not finish within {int(timeout)} seconds; check that the remote is "
            "reachable and sync again"
        ) from None


def _said(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (result.stderr or "").splitlines() if line.strip()]
    meaningful = [line for line in lines if line.lower().startswith(("fatal", "error"))]
    text = (meaningful or lines or ["no message"])[-1]
    return re.sub(r"^(fatal|error): ", "", text)


def fetch(repo_path: Path, url: str, *, interactive: bool = False) -> str | None:
    """The remote's branch, fetched into the history; None when the remote is empty."""
    result = _git(
        repo_path,
        "fetch",
        "--quiet",
        "--no-tags",
        "--prune",
        "--no-write-fetch-head",
        "--end-of-options",
        url,
        f"+refs/heads/*:{FETCHED}*",
        interactive=interactive,
    )
    if result.returncode != 0:
        raise SyncError(
            f"the sync remote {display_url(url)} can't be reached ({_said(result)}); your "
            "memories are unchanged, sync again when it is reachable"
        )
    import pygit2

    repo = pygit2.Repository(str(repo_path))
    ref = repo.references.get(f"{FETCHED}main")
    if ref is None:
        return None
    target = ref.resolve().target
    if repo[target].type_str != "commit":
        raise _not_a_commit(url)
    return str(target)


def _not_a_commit(url: str) -> SyncError:
    return SyncError(
        f"the branch main of the sync remote {display_url(url)} is not a commit (someone "
        "pointed it at another kind of git object); nothing was changed here, ask whoever "
        "keeps that repository to fix its branch"
    )


def push(
    repo_path: Path,
    url: str,
    *,
    interactive: bool = False,
    branch: bool = True,
    records: bool = False,
) -> bool:
    """Push the history's branch and, with ``records``, the conflict records, both or
    neither (an atomic push); False when the remote moved since the fetch (another machine
    pushed first), which the caller answers with another fetch and merge."""
    refspecs = [f"{BRANCH}:refs/heads/main"] if branch else []
    if records:
        refspecs.append(f"{CONFLICTS_OUT}:refs/heads/{CONFLICTS_BRANCH}")
    atomic = ["--atomic"] if len(refspecs) > 1 else []
    result = _git(
        repo_path,
        "push",
        "--porcelain",
        *atomic,
        "--end-of-options",
        url,
        *refspecs,
        interactive=interactive,
    )
    if result.returncode == 0:
        return True
    rejected = [line for line in result.stdout.splitlines() if line.startswith("!")]
    text = " ".join(rejected) + " " + (result.stderr or "")
    if rejected and re.search(r"fetch first|non-fast-forward|stale info|failed to lock", text):
        return False
    if "cannot lock ref" in text or "failed to lock" in text:
        return False
    why = rejected[-1].split("\t")[-1] if rejected else _said(result)
    raise SyncError(
        f"the memories could not be pushed to {display_url(url)} ({why}); what was "
        "fetched is merged here, sync again to push"
    )


# -- conflicts -----------------------------------------------------------------------------
CONFLICTS_BRANCH = "serena-conflicts"  # the remote's branch that carries the records
CONFLICTS_BLOB = "conflicts.json"
CONFLICTS_OUT = "refs/serena-sync-out/conflicts"  # the records as this machine pushes them
MAX_CONFLICT_RECORDS = 1000  # a folder's records, resolved ones included; more is not ours
MAX_RECORDS_BYTES = 64 * 2**20  # a folder's records file; a larger one is not ours either
RECORD_FIELDS = ("id", "remote_text", "local_text", "remote", "at", "machine", "resolved")


@dataclass
class Conflict:
    """Both sides changed the same lines of a memory: one text stayed in the memory (the
    text of the machine that merged); the other side's whole text is kept here until a
    person resolves it, on whichever machine."""

    name: str
    remote_text: str  # the text set aside
    remote: str
    at: str
    folder: str = ""
    local_text: str = ""  # the text that stayed in the memory when the conflict was found
    machine: str = ""  # the machine whose sync found it

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "remote_text": self.remote_text,
            "local_text": self.local_text,
            "remote": self.remote,
            "at": self.at,
            "machine": self.machine,
            "folder": self.folder,
        }


def _bounded(value: str, limit: int) -> str:
    return re.sub(r"[\x00-\x1f\x7f]+", " ", value).strip()[:limit]


def _record_id(name: str, local_text: str, remote_text: str) -> str:
    import hashlib

    digest = hashlib.sha256("\0".join((name, local_text, remote_text)).encode("utf-8", "replace"))
    return digest.hexdigest()[:16]


def _conflicts_path(history: FolderHistory) -> Path:
    return history.repo_path / CONFLICTS_FILE


def _parse_records(raw: bytes, folder: Folder | None) -> dict[str, dict[str, str]]:
    """Conflict records from their JSON: only string fields of the known kinds, only names
    the name gate spells the same way in this folder (when ``folder`` is given: a remote's
    records are untrusted), texts no larger than a memory, at most MAX_CONFLICT_RECORDS.
    Anything else counts as no record rather than failing a listing or a sync."""
    from serena_memory.core.paths import MAX_MEMORY_BYTES

    if len(raw) > MAX_RECORDS_BYTES:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    found: dict[str, dict[str, str]] = {}
    for name, item in data.items():
        if len(found) >= MAX_CONFLICT_RECORDS:
            break
        if not isinstance(name, str) or not isinstance(item, dict):
            continue
        if folder is not None and not _names_a_memory(folder, name):
            continue
        record = {k: v for k, v in item.items() if k in RECORD_FIELDS and isinstance(v, str)}
        if not record.get("resolved") and "remote_text" not in record:
            continue  # an open conflict without the text set aside is none
        texts = (record.get("remote_text", ""), record.get("local_text", ""))
        if any(len(t.encode("utf-8", "replace")) > MAX_MEMORY_BYTES for t in texts):
            continue
        for key in ("remote", "at", "machine", "resolved", "id"):
            if key in record:
                record[key] = _bounded(record[key], 300)
        record.setdefault("id", _record_id(name, *reversed(texts)))
        found[name] = record
    return found


def _names_a_memory(folder: Folder, name: str) -> bool:
    """Whether a name from a remote's record is a memory name of ``folder``, spelled as
    the name gate spells it."""
    rel = folder.rel_of(name)
    return rel is not None and folder.admits(rel)


def _read_conflicts(path: Path) -> dict[str, dict[str, str]]:
    """The conflict records kept on this machine (resolved ones included, so that a
    resolution travels); a file that is not what this module writes counts as none."""

    try:
        if path.stat().st_size > MAX_RECORDS_BYTES:
            return {}
        raw = path.read_bytes()
    except OSError:
        return {}
    return _parse_records(raw, None)


def _records_json(data: dict[str, dict[str, str]]) -> bytes:
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")


def _write_conflicts(path: Path, data: dict[str, dict[str, str]]) -> None:
    if not data:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(_records_json(data))
    os.replace(tmp, path)


def _merge_records(
    ours: dict[str, dict[str, str]], theirs: dict[str, dict[str, str]]
) -> dict[str, dict[str, str]]:
    """Both machines' records of one folder as one: the same conflict is resolved when
    either side resolved it; of two different conflicts of one memory the later stands."""
    merged = dict(ours)
    for name, other in theirs.items():
        mine = merged.get(name)
        if mine is None:
            merged[name] = other
        elif mine.get("id") == other.get("id"):
            if other.get("resolved") and not mine.get("resolved"):
                merged[name] = other
        elif other.get("at", "") > mine.get("at", ""):
            merged[name] = other
    if len(merged) > MAX_CONFLICT_RECORDS:  # the oldest resolved ones go first
        order = sorted(merged, key=lambda n: (not merged[n].get("resolved"), merged[n]["at"]))
        for name in order[: len(merged) - MAX_CONFLICT_RECORDS]:
            del merged[name]
    return merged


def _unresolved(data: dict[str, dict[str, str]]) -> set[str]:
    return {name for name, item in data.items() if not item.get("resolved")}


def conflicts(store: MemoryStore) -> list[Conflict]:
    """Unresolved sync conflicts of the project's and the global memories (one small file
    read per folder, so every listing can afford it)."""
    from serena_memory.history.engine import repository_path

    found: list[Conflict] = []
    root = store.history_root()
    try:
        folders = store.history_folders()
    except MemoryStoreError:
        return []
    for spec in folders:
        path = repository_path(root, spec.root) / CONFLICTS_FILE
        for name, item in sorted(_read_conflicts(path).items()):
            if item.get("resolved"):
                continue
            found.append(
                Conflict(
                    name,
                    item.get("remote_text", ""),
                    item.get("remote", ""),
                    item.get("at", ""),
                    spec.label,
                    item.get("local_text", ""),
                    item.get("machine", ""),
                )
            )
    return found


def resolve(store: MemoryStore, name: str, keep: str) -> str:
    """Settle a conflict: ``local`` keeps the memory as it is now (edit it first to combine
    both texts), ``remote`` replaces it with the text set aside (a new history entry, so
    that too can be undone). The resolution travels with the next sync."""
    from serena_memory.core import names as N
    from serena_memory.core.files import locked
    from serena_memory.history.engine import folder_history

    name = N.normalize_name(name)
    scope = "global" if N.is_global(name) else "project"
    spec = store.history_folder(scope)
    history = folder_history(store.history_root(), spec)
    path = _conflicts_path(history)
    recorded = _read_conflicts(path).get(name)
    if recorded is None or recorded.get("resolved"):
        raise SyncError(
            f"memory '{name}' has no sync conflict; list them with `serena memories conflicts`"
        )
    if keep not in ("local", "remote"):
        raise SyncError("say which text to keep: --keep local or --keep remote")
    if keep == "remote":
        text = recorded.get("remote_text", "")
        store.apply_versions({name: text.encode("utf-8")}, f"Resolve {name}: keep the synced text")
    with locked([spec.root]):
        data = _read_conflicts(path)
        if name in data:
            # a tombstone without the texts: enough for every machine to drop the conflict
            data[name] = {
                "id": data[name]["id"],
                "at": data[name].get("at", ""),
                "resolved": datetime.now(UTC).isoformat(timespec="seconds"),
                "machine": machine_name(),
            }
        _write_conflicts(path, data)
    return (
        f"Kept the text that was set aside for '{name}' (the other one is in the history); "
        "the next sync takes the resolution to the other machines."
        if keep == "remote"
        else f"Kept the local text of '{name}' (the memory as it is now); the conflict is "
        "resolved, and the next sync takes the resolution to the other machines."
    )


def _fetched_records(
    repo_path: Path, folder: Folder
) -> tuple[str | None, dict[str, dict[str, str]]]:
    """The remote's conflict records as last fetched: (its commit, the records). What is
    not a commit holding a small JSON file counts as no records."""
    import pygit2

    repo: Any = pygit2.Repository(str(repo_path))
    ref = repo.references.get(f"{FETCHED}{CONFLICTS_BRANCH}")
    if ref is None:
        return None, {}
    commit = repo[ref.resolve().target]
    if commit.type_str != "commit":
        return None, {}
    try:
        entry = commit.tree[CONFLICTS_BLOB]
    except KeyError:
        return str(commit.id), {}
    if entry.type_str != "blob":
        return str(commit.id), {}
    if int(repo.odb.read_header(entry.id)[1]) > MAX_RECORDS_BYTES:
        return str(commit.id), {}
    return str(commit.id), _parse_records(repo[entry.id].data, folder)


def _records_to_push(
    repo_path: Path, data: dict[str, dict[str, str]], remote_commit: str | None
) -> bool:
    """Point CONFLICTS_OUT at a commit holding ``data`` whose parent is the remote's
    records (so the push is a fast-forward); False when the remote already holds them."""
    import pygit2

    repo = pygit2.Repository(str(repo_path))
    blob = repo.create_blob(_records_json(data))
    if remote_commit is not None:
        try:
            if repo[remote_commit].tree[CONFLICTS_BLOB].id == blob:
                return False
        except KeyError:
            pass
    elif not data:
        return False
    builder = repo.TreeBuilder()
    builder.insert(CONFLICTS_BLOB, blob, pygit2.GIT_FILEMODE_BLOB)
    signature = pygit2.Signature("serena-memory", "sync@serena-memory")
    parents = [] if remote_commit is None else [pygit2.Oid(hex=remote_commit)]
    commit = repo.create_commit(
        None, signature, signature, "Sync conflicts\n", builder.write(), parents
    )
    repo.references.create(CONFLICTS_OUT, commit, force=True)
    return True


# -- merging -------------------------------------------------------------------------------
@dataclass
class SyncResult:
    """What one sync did."""

    scope: str
    remote: str
    changed: dict[str, str] = field(default_factory=dict)  # name -> created|changed|deleted
    pushed: bool = False
    conflicts: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)  # deleted on one side, edited on the other
    skipped: list[str] = field(default_factory=list)  # not usable as memories here
    seconds: float = 0.0
    pull_only: bool = False  # the team's memories: pulled, never pushed
    remembered: str = ""  # the configuration file the remote was written into, if it was
    conflicts_elsewhere: list[str] = field(default_factory=list)  # found by another machine
    resolved_elsewhere: list[str] = field(default_factory=list)
    # memories the other side changed to hold a secret (core/secrets.py): not written here
    secrets_kept_out: list[str] = field(default_factory=list)

    def summary(self) -> str:
        where = f"the {self.scope} memories with {self.remote}"
        if self.pull_only:
            pulled = ", ".join(
                f"{sum(1 for w in self.changed.values() if w == what)} {what}"
                for what in ("created", "changed", "deleted")
                if what in self.changed.values()
            )
            text = f"Pulled the {self.scope} memories from {self.remote}: " + (
                f"{pulled}." if pulled else "already up to date."
            )
        elif not self.changed and not self.pushed:
            text = f"Synced {where}: already up to date."
        else:
            parts = []
            if self.changed:
                counts: dict[str, int] = {}
                for what in self.changed.values():
                    counts[what] = counts.get(what, 0) + 1
                parts.append(
                    "here " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
                )
            parts.append("local changes pushed" if self.pushed else "nothing to push")
            text = f"Synced {where}: " + "; ".join(parts) + "."
        if self.remembered:
            text += f" The remote is remembered for the next syncs (in {self.remembered})."
        if self.kept_edits and self.pull_only:
            text += " Changed here since the last pull, so kept: " + _names(self.kept_edits) + "."
        elif self.kept_edits:
            text += (
                " Deleted on one side but edited on the other, so kept: "
                + _names(self.kept_edits)
                + "."
            )
        if self.conflicts:
            text += (
                " Both sides changed the same lines of "
                + _names(self.conflicts)
                + ": the local text stays, the other is kept for you; see `serena memories "
                "conflicts`."
            )
        if self.conflicts_elsewhere:
            text += (
                " Another machine's sync found that both sides changed the same lines of "
                + _names(self.conflicts_elsewhere)
                + ": the memory holds the text kept there, the other text is kept for you; "
                "see `serena memories conflicts`."
            )
        if self.resolved_elsewhere:
            text += " Resolved on another machine: " + _names(self.resolved_elsewhere) + "."
        if self.secrets_kept_out:
            text += (
                " Kept out because the incoming text holds what looks like a secret (the local "
                "text stays; remove the secret on the other side, then sync again): "
                + "; ".join(self.secrets_kept_out)
                + "."
            )
        if self.skipped:
            shown = _names(self.skipped)
            text += f" Not usable as memories here (name, kind of file or size), left out: {shown}."
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "remote": self.remote,
            "changed": self.changed,
            "pushed": self.pushed,
            "conflicts": self.conflicts,
            "remembered": self.remembered,
            "conflicts_elsewhere": self.conflicts_elsewhere,
            "resolved_elsewhere": self.resolved_elsewhere,
            "kept_edits": self.kept_edits,
            "skipped": self.skipped,
            "secrets_kept_out": self.secrets_kept_out,
            "seconds": round(self.seconds, 3),
        }


def _names(names: list[str]) -> str:
    """Names (or paths) from a remote as a message shows them: what could steer a terminal
    or pass for another name escaped (core/display.py)."""
    return ", ".join(escape_line(name) for name in names)


class _Merge:
    """The plan of one merge, computed under the folder lock from the recorded history."""

    def __init__(self, store: MemoryStore, scope: str, url: str, remote_rev: str) -> None:
        self.store = store
        self.scope = scope
        self.url = url
        self.remote_rev = remote_rev
        self.result = SyncResult(scope, display_url(url))
        self.new_conflicts: dict[str, dict[str, str]] = {}

    def __call__(self, history: FolderHistory) -> SyncedVersions | None:
        import pygit2

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
        empty = repo.TreeBuilder().write()
        ours_tree = head.tree if head is not None else repo[empty]
        base = None if head is None else repo.merge_base(head.id, theirs.id)
        base_tree = repo[base].tree if base is not None else repo[empty]
        folder = history.folder
        # Pass one finds the memories whose same lines both sides changed; pass two takes
        # the local side of those lines and every other change of both sides.
        plain = repo.merge_trees(base_tree, ours_tree, theirs.tree)
        clashing: dict[str, Any] = {}
        for _ancestor, ours, other in list(plain.conflicts or ()):
            if ours is not None and other is not None and ours.id != other.id:
                clashing[ours.path] = other
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
        tree = repo[merged.write_tree(repo)]
        versions: dict[str, bytes | None] = {}
        diff = repo.diff(ours_tree, tree)
        for delta in diff.deltas:
            rel = delta.new_file.path if delta.status_char() != "D" else delta.old_file.path
            written = delta.status_char() != "D"
            if (
                not folder.holds(rel)
                or not self._usable(folder, rel)
                or (written and not _memory_file(repo, delta.new_file.mode, delta.new_file.id))
            ):
                self.result.skipped.append(rel)
                continue
            name = folder.name_of(rel)
            versions[name] = None if delta.status_char() == "D" else repo[delta.new_file.id].data
        self.result.secrets_kept_out = _keep_secrets_out(versions)
        when = datetime.now(UTC).isoformat(timespec="seconds")
        for rel, other in clashing.items():
            if not _memory_file(repo, other.mode, other.id):
                self.result.skipped.append(rel)
                continue
            name = folder.name_of(rel)
            self.result.conflicts.append(name)
            remote_text = repo[other.id].data.decode("utf-8", "replace")
            stays = _tree_text(repo, tree, rel)
            self.new_conflicts[name] = {
                "id": _record_id(name, stays, remote_text),
                "remote_text": remote_text,
                "local_text": stays,
                "remote": display_url(self.url),
                "at": when,
                "machine": machine_name(),
            }
        count = len(versions)
        summary = f"Sync with {display_url(self.url)}: " + (
            "1 memory changed here" if count == 1 else f"{count} memories changed here"
        )
        if self.result.conflicts:
            clashes = len(self.result.conflicts)
            summary += ", 1 conflict" if clashes == 1 else f", {clashes} conflicts"
            summary += " kept for review"
        provenance = Provenance("sync", current_os_user(), f"sync {display_url(self.url)}")
        return SyncedVersions(versions, summary, provenance, (str(theirs.id),))

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
) -> dict[str, str]:
    """Bring what a sync merged into one memories folder through the store: under the
    locks, outside changes are recorded first (so the merge sees them; a failure there is
    raised, never merged over), ``plan`` computes the versions from that history, the
    store writes them through the path gate, and they are recorded as one entry whose
    further parents are the merged entries."""
    spec = store.history_folder(scope)
    history = folder_history(store.history_root(), spec)
    planned: list[SyncedVersions | None] = [None]

    def versions() -> dict[str, bytes | None] | None:
        history.catch_up()
        planned[0] = plan(history)
        return None if planned[0] is None else planned[0].versions

    def record(found: dict[str, bytes | None]) -> None:
        final = planned[0]
        assert final is not None  # found is only given when the plan is
        rels = [r for r in map(spec.rel_of, found) if r is not None]
        history.record(
            rels, final.provenance, final.summary, None, os.urandom(6).hex(), final.merged
        )

    return store.apply_planned(scope, versions, record)


def _keep_secrets_out(versions: dict[str, bytes | None]) -> list[str]:
    """Drop from ``versions`` the memories whose incoming text holds a secret; says which
    (name, line and kind) for the sync's summary."""
    from serena_memory.core import secrets

    kept_out = []
    for name, findings in secrets.holding_secrets(versions).items():
        del versions[name]
        kept_out.append(f"{name} (line {findings[0].line}: {findings[0].kind})")
    return kept_out


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

    from serena_memory.history.engine import folder_history

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
    spec = store.history_folder(scope)
    history = folder_history(store.history_root(settings), spec)
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
    import pygit2

    result = SyncResult(scope, display_url(url))
    repo_path = history.repo_path
    for _ in range(ATTEMPTS):
        remote_rev = fetch(repo_path, url, interactive=interactive)
        if remote_rev is not None:
            merge = _Merge(store, scope, url, remote_rev)
            try:
                changed = apply_synced(store, scope, merge)
            except (HistoryError, pygit2.GitError) as exc:
                raise SyncError(
                    f"the history of the {scope} memories can't be merged ({exc}); the "
                    "memories are as they were, or as far as the merge got (see `serena "
                    "memories history`)"
                ) from None
            for name, what in changed.items():
                result.changed[name] = what
            _merge_lists(result, merge.result)
            found = merge.new_conflicts
        else:
            store.catch_up_history()
            found = {}
        records_rev, records = _fetched_records(repo_path, history.folder)
        new_records = _add_conflicts(history, found, records, result)
        records_out = _records_to_push(repo_path, new_records, records_rev)
        repo = history.repo(create=True)
        head = history.head(repo)
        # The remote lacks nothing when it has this entry, or the same memories (then this
        # machine's merge entry is pushed with its next change, not alone).
        branch_out = head is not None and not (
            remote_rev is not None
            and (
                str(head.id) == remote_rev
                or repo.descendant_of(remote_rev, head.id)
                or repo[remote_rev].tree.id == head.tree.id
            )
        )
        if not branch_out and not records_out:
            return result  # the remote already has everything (or there is nothing at all)
        if push(repo_path, url, interactive=interactive, branch=branch_out, records=records_out):
            result.pushed = result.pushed or branch_out
            return result
    raise SyncError(
        f"the remote {display_url(url)} changed during each of {ATTEMPTS} attempts (other "
        "machines are syncing); what was fetched is merged here, sync again to push"
    )


def _merge_lists(into: SyncResult, new: SyncResult) -> None:
    for attr in ("conflicts", "kept_edits", "skipped", "secrets_kept_out"):
        target = getattr(into, attr)
        target.extend(x for x in getattr(new, attr) if x not in target)


def _add_conflicts(
    history: FolderHistory,
    new: dict[str, dict[str, str]],
    fetched: dict[str, dict[str, str]],
    result: SyncResult,
) -> dict[str, dict[str, str]]:
    """This folder's records with the conflicts this sync found and the remote's records
    merged in; what changed for the person (a conflict found elsewhere, one resolved
    elsewhere) goes into ``result``."""
    from serena_memory.core.files import locked

    path = _conflicts_path(history)
    with locked([history.folder.root]):
        data = _read_conflicts(path)
        before = _unresolved(data)
        data = _merge_records(data, fetched)
        data.update(new)
        _write_conflicts(path, data)
    after = _unresolved(data)
    for name in sorted(after - before - set(new)):
        if name not in result.conflicts_elsewhere:
            result.conflicts_elsewhere.append(name)
    for name in sorted(before - after):
        if name not in result.resolved_elsewhere:
            result.resolved_elsewhere.append(name)
    return data


# -- automatic sync (memory_sync: auto) -------------------------------------------------------
DEBOUNCE_SECONDS = 2.0  # writes in a burst are pushed together, this long after the last
MAX_DELAY_SECONDS = 30.0  # ...but never later than this after the first
RETRY_SECONDS = 120.0  # an unreachable remote is tried again after this long


class AutoSync:
    """Sync in the background for a long-running server: a pull when it starts, a push
    after writes (debounced), never on the thread that answers a tool call. An unreachable
    remote is a normal state: said once in the server's log, tried again later, and said
    again only once it works again.

    ``store_source`` gives the store to sync (a server may switch projects); the global
    memories are synced whenever ``memory_sync_remote`` is set, a project's when it has a
    remote in ``memory_sync_project_remotes``.
    """

    def __init__(
        self,
        store_source: Any,
        *,
        debounce: float = DEBOUNCE_SECONDS,
        retry: float = RETRY_SECONDS,
    ) -> None:
        import threading

        self.store_source = store_source
        self.debounce = debounce
        self.retry = retry
        self._wake = threading.Condition()
        self._due: float | None = None
        self._first: float | None = None
        self._stopped = False
        self._offline: set[str] = set()
        self.last: dict[str, SyncResult] = {}
        self._thread = threading.Thread(target=self._run, name="serena-auto-sync", daemon=True)

    def start(self) -> None:
        """Pull now (in the background) and serve later requests."""
        self._schedule(0.0)
        self._thread.start()

    def changed(self) -> None:
        """A memory was written: push soon. Cheap; never blocks on the sync itself."""
        self._schedule(self.debounce)

    def stop(self) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()

    def finish(self) -> None:
        """Stop, and push what is still waiting (a server that ends after a write)."""
        with self._wake:
            pending = self._due is not None
        self.stop()
        self._thread.join(timeout=GIT_TIMEOUT)
        if pending:
            self.sync_once()

    def _schedule(self, delay: float) -> None:
        now = time.monotonic()
        with self._wake:
            if self._first is None:
                self._first = now
            self._due = min(now + delay, self._first + MAX_DELAY_SECONDS)
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._stopped and (self._due is None or self._due > time.monotonic()):
                    timeout = None if self._due is None else self._due - time.monotonic()
                    self._wake.wait(timeout)
                if self._stopped:
                    return
                self._due = self._first = None
            if not self.sync_once():
                with self._wake:
                    if self._due is None:
                        self._due = time.monotonic() + self.retry

    def sync_once(self) -> bool:
        """Sync every folder that has a remote; False when one could not be synced."""
        store = self.store_source()
        if store is None:
            return True
        fine = True
        for scope in (*SCOPES, "team"):
            try:
                if scope == "team":
                    if load_sync_config(store.home).team_remote is None:
                        continue
                    self.last[scope] = pull_team(store)
                    continue
                if configured_remote(store, scope) is None:
                    continue
                self.last[scope] = sync(store, scope)
            except MemoryStoreError as exc:
                fine = False
                if scope not in self._offline:
                    self._offline.add(scope)
                    log.warning(
                        "automatic sync of the %s memories failed, tried again later: %s",
                        scope,
                        exc,
                    )
                continue
            except Exception as exc:  # a background thread must never die of a surprise
                fine = False
                log.warning("automatic sync of the %s memories failed: %s", scope, exc)
                continue
            if scope in self._offline:
                self._offline.discard(scope)
                log.warning("automatic sync of the %s memories works again", scope)
        return fine


def start_auto_sync(store_source: Any, home: Path | None = None) -> AutoSync | None:
    """An :class:`AutoSync` started when the configuration says ``memory_sync: auto``."""
    if load_sync_config(home).mode != "auto":
        return None
    auto = AutoSync(store_source)
    auto.start()
    return auto


# -- team memories: a second remote, pulled only, under global/<topic>/ -------------------------
TEAM_REF = f"{FETCHED}team/main"


def team_repository(store: MemoryStore, url: str) -> Path:
    """A bare repository of our own that holds the team's history as fetched: the pulled
    memories' history is the team's, and nothing of the person's is ever pushed there."""
    import hashlib

    import pygit2

    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
    path = store.history_root() / f"team-{digest}.git"
    if not (path / "HEAD").is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        pygit2.init_repository(str(path), bare=True, initial_head="main")
    return path


def pull_team(
    store: MemoryStore, *, interactive: bool = False, url: str | None = None
) -> SyncResult:
    """Bring the team's memories into ``global/<topic>/``: created, changed and deleted as
    in the team's repository. A memory changed here since the last pull (possible with
    ``memory_sync_team_writable``) is left as it is and named in the answer."""
    import pygit2

    started = time.perf_counter()
    config = load_sync_config(store.home)
    url = check_url(url) if url is not None else config.team_remote
    if url is None:
        raise SyncError(
            "no team remote is configured; run `serena memories sync --team --remote URL` "
            "once with the URL of the team's memories repository"
        )
    result = SyncResult("team", display_url(url), pull_only=True)
    repo_path = team_repository(store, url)
    repo = pygit2.Repository(str(repo_path))
    before = repo.references.get(TEAM_REF)
    old_tree = repo[before.target].tree if before is not None else None  # always a commit
    fetched = _git(
        repo_path,
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        "--end-of-options",
        url,
        f"+refs/heads/main:{TEAM_REF}",
        interactive=interactive,
    )
    if fetched.returncode != 0:
        if "couldn't find remote ref" in (fetched.stderr or ""):
            result.seconds = time.perf_counter() - started
            return result  # an empty team repository: nothing to pull yet
        raise SyncError(
            f"the team remote {display_url(url)} can't be reached ({_said(fetched)}); the "
            "team memories are unchanged, sync again when it is reachable"
        )
    repo = pygit2.Repository(str(repo_path))
    fetched_main = repo[repo.references[TEAM_REF].target]
    if (
        fetched_main.type_str != "commit"
    ):  # keep the last good pull as what the next one compares to
        if before is not None:
            repo.references.create(TEAM_REF, before.target, force=True)
        else:
            repo.references.delete(TEAM_REF)
        raise _not_a_commit(url)
    new_tree = fetched_main.tree
    old = _memory_blobs(repo, old_tree, []) if old_tree is not None else {}
    left_out: list[str] = []
    new = _memory_blobs(repo, new_tree, left_out)
    prefix = f"global/{config.team_topic}/"

    def plan() -> dict[str, bytes | None]:
        from serena_memory.core import names as N

        result.skipped, result.kept_edits = list(left_out), []  # planned again: start afresh
        versions: dict[str, bytes | None] = {}
        for rel in sorted(set(old) | set(new)):
            if old.get(rel) == new.get(rel):
                continue
            name = prefix + rel[: -len(".md")]
            try:
                if N.normalize_name(name) != name:
                    raise SyncError(name)
                current = _blob_id_of_file(store, name)
            except MemoryStoreError:
                result.skipped.append(rel)
                continue
            if current not in (old.get(rel), new.get(rel)):
                result.kept_edits.append(name)  # changed here since the last pull: kept
            elif current != new.get(rel):
                blob: Any = repo[new[rel]] if rel in new else None
                versions[name] = None if blob is None else blob.data
        result.secrets_kept_out = _keep_secrets_out(versions)
        return versions

    result.changed.update(store.apply_pulled(plan))
    result.seconds = time.perf_counter() - started
    return result


def _memory_file(repo: Any, mode: int, oid: Any) -> bool:
    """Whether a tree entry from a remote can be a memory: a regular file (not a link, nor
    a submodule, whose commit is not even here) no larger than a memory may be, measured
    from the object's header so a huge one is never loaded."""
    import pygit2

    from serena_memory.core.paths import MAX_MEMORY_BYTES

    regular = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
    return mode in regular and int(repo.odb.read_header(oid)[1]) <= MAX_MEMORY_BYTES


def _memory_blobs(repo: Any, tree: Any, left_out: list[str]) -> dict[str, str]:
    """Every memory file of a remote's tree (``*.md``, no hidden part, a regular file no
    larger than a memory): path -> blob id; other ``*.md`` entries go to ``left_out``. The
    tree is someone else's: it is walked without recursion and not below the depth a
    memory name can reach."""
    from serena_memory.core.names import MAX_NAME_CHARS

    found: dict[str, str] = {}
    pending = [("", tree)]
    while pending:
        prefix, folder = pending.pop()
        for item in folder:
            rel = f"{prefix}{item.name}"
            if item.name.startswith(".") or len(rel) > MAX_NAME_CHARS:
                continue
            if item.type_str == "tree":
                pending.append((f"{rel}/", repo[item.id]))
            elif item.type_str == "blob" and rel.endswith(".md"):
                if _memory_file(repo, item.filemode, item.id):
                    found[rel] = str(item.id)
                else:
                    left_out.append(rel)
    return found


def _blob_id_of_file(store: MemoryStore, name: str) -> str | None:
    import pygit2

    try:
        data = store.read_bytes(name)
    except FileNotFoundError:
        return None
    return str(pygit2.hash(data))


def sync_everything(
    store: MemoryStore, scope: str, remote: str | None = None, *, interactive: bool = False
) -> list[SyncResult]:
    """What `serena memories sync` does: the folder of ``scope`` (``global``, ``project``
    or ``team``); with ``global``, the team's memories are pulled too when a team remote is
    configured (and only they, when the global memories have no remote)."""
    if scope == "team":
        pulled = pull_team(store, interactive=interactive, url=remote)
        if remote is not None and check_url(remote) != load_sync_config(store.home).team_remote:
            key = "memory_sync_team_remote"
            pulled.remembered = str(set_global_key(store.home, key, check_url(remote)))
        return [pulled]
    team = load_sync_config(store.home).team_remote
    results = []
    if scope != "global" or remote is not None or configured_remote(store, scope) or not team:
        synced = sync(store, scope, remote, interactive=interactive)
        # remembered only once a sync with it worked: a mistyped URL replaces nothing
        if remote is not None and check_url(remote) != configured_remote(store, scope):
            synced.remembered = str(remember_remote(store, scope, remote))
        results.append(synced)
    if scope == "global" and team:
        results.append(pull_team(store, interactive=interactive))
    return results
