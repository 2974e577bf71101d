"""Sync conflicts: both sides changed the same lines of a memory.

The local text stays in the memory and the other side's whole text is kept in a record
next to the history, which ``conflicts``, ``check``, ``list``, the dashboard and the
agent's activation message report until a person resolves it. The records travel on a
second branch of the remote (``serena-conflicts``), merged at each sync, so every machine
shows an open conflict and learns of its resolution. What comes from a remote's records is
untrusted: bounded, and only names the name gate spells the same way count.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core.changes import CONTROLS, Folder, machine_name
from serena_memory.core.errors import MemoryStoreError, SyncError
from serena_memory.history.location import history_folder, history_folders, history_root
from serena_memory.sync.transport import CONFLICTS_BRANCH, CONFLICTS_OUT, FETCHED

if TYPE_CHECKING:  # listing conflicts (every `memories list`) loads no history engine
    from serena_memory.core.store import MemoryStore
    from serena_memory.history.folder import FolderHistory
    from serena_memory.sync.result import SyncResult

CONFLICTS_FILE = "serena-sync-conflicts.json"
CONFLICTS_BLOB = "conflicts.json"
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
    return CONTROLS.sub(" ", value).strip()[:limit]  # as every name from outside


def record_id(name: str, local_text: str, remote_text: str) -> str:
    import hashlib

    digest = hashlib.sha256("\0".join((name, local_text, remote_text)).encode("utf-8", "replace"))
    return digest.hexdigest()[:16]


def conflicts_path(history: FolderHistory) -> Path:
    return history.repo_path / CONFLICTS_FILE


def _parse_records(raw: bytes, folder: Folder | None) -> dict[str, dict[str, str]]:
    """Conflict records from their JSON: only string fields of the known kinds, only names
    the name gate spells the same way in this folder (when ``folder`` is given: a remote's
    records are untrusted), texts no larger than a memory, at most MAX_CONFLICT_RECORDS.
    Anything else counts as no record rather than failing a listing or a sync."""
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
        record = _record(name, item)
        if record is not None:
            found[name] = record
    return found


def _record(name: str, item: dict[Any, Any]) -> dict[str, str] | None:
    """One conflict record's known string fields, bounded; None when it is no record."""
    from serena_memory.core.paths import MAX_MEMORY_BYTES

    record = {k: v for k, v in item.items() if k in RECORD_FIELDS and isinstance(v, str)}
    if not record.get("resolved") and "remote_text" not in record:
        return None  # an open conflict without the text set aside is none
    texts = (record.get("remote_text", ""), record.get("local_text", ""))
    if any(len(t.encode("utf-8", "replace")) > MAX_MEMORY_BYTES for t in texts):
        return None
    for key in ("remote", "at", "machine", "resolved", "id"):
        if key in record:
            record[key] = _bounded(record[key], 300)
    record.setdefault("id", record_id(name, *reversed(texts)))
    return record


def _names_a_memory(folder: Folder, name: str) -> bool:
    """Whether a name from a remote's record is a memory name of ``folder``, spelled as
    the name gate spells it."""
    rel = folder.rel_of(name)
    return rel is not None and folder.admits(rel)


def read_conflicts(path: Path) -> dict[str, dict[str, str]]:
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
    from serena_memory.history.location import repository_path

    found: list[Conflict] = []
    root = history_root(store)
    try:
        folders = history_folders(store)
    except MemoryStoreError:
        return []
    for spec in folders:
        path = repository_path(root, spec.root) / CONFLICTS_FILE
        for name, item in sorted(read_conflicts(path).items()):
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


KEEP_CHOICES = ("memory", "set-aside")
"""What ``resolve`` keeps: the memory as it is now, or the text set aside. Named by where
the texts are, so they read the same on the machine whose sync kept its own text and on the
one whose text was set aside; ``local`` and ``remote`` are the earlier spellings."""
_KEEP_SPELLINGS = {
    "memory": "memory",
    "local": "memory",
    "set-aside": "set-aside",
    "remote": "set-aside",
}


@dataclass(frozen=True)
class Sides:
    """Whose each text of a conflict is, as this machine reads it."""

    in_memory: str  # "this machine's text", "laptop's text"
    set_aside: str  # "the text from me@host:m.git", "this machine's text", ...


def sides(store: MemoryStore, conflict: Conflict) -> Sides:
    """Name the two texts by machine: the memory holds the text of the machine whose sync
    found the conflict; the text set aside is the other side's, which is this machine's
    when its history recorded that text here."""
    here = machine_name()
    if not conflict.machine or conflict.machine == here:
        return Sides("this machine's text", f"the text from {conflict.remote or 'the remote'}")
    kept = f"{conflict.machine}'s text"
    if _written_here(store, conflict.name, conflict.remote_text, here):
        return Sides(kept, "this machine's text")
    return Sides(kept, "the other side's text")


def _written_here(store: MemoryStore, name: str, text: str, here: str, look: int = 20) -> bool:
    """Whether one of the last ``look`` entries recorded on this machine left ``text``."""
    from serena_memory.history.restore import MemoryHistory

    wanted = text.encode("utf-8")
    try:
        history = MemoryHistory(store)
        mine = [e for e in history.entries(name) if e.machine == here][:look]
        return any(history.content_at(name, e.rev)[1] == wanted for e in mine)
    except MemoryStoreError:
        return False  # no history to tell: the neutral words stand


def resolve(store: MemoryStore, name: str, keep: str) -> str:
    """Settle a conflict: ``memory`` keeps the memory as it is now (edit it first to
    combine both texts), ``set-aside`` replaces it with the text set aside (a new history
    entry, so that too can be undone). The resolution travels with the next sync."""
    from serena_memory.core import names as N
    from serena_memory.core.files import locked
    from serena_memory.history.registry import folder_history

    name = N.normalize_name(name)
    scope = "global" if N.is_global(name) else "project"
    spec = history_folder(store, scope)
    history = folder_history(history_root(store), spec)
    path = conflicts_path(history)
    recorded = read_conflicts(path).get(name)
    if recorded is None or recorded.get("resolved"):
        raise SyncError(
            f"memory '{name}' has no sync conflict; list them with `serena memories conflicts`"
        )
    keep = _KEEP_SPELLINGS.get(keep, "")
    if not keep:
        raise SyncError("say which text to keep: --keep memory or --keep set-aside")
    if keep == "set-aside":
        text = recorded.get("remote_text", "")
        store.apply_versions({name: text.encode("utf-8")}, f"Resolve {name}: keep the synced text")
    with locked([spec.root]):
        data = read_conflicts(path)
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
        if keep == "set-aside"
        else f"Kept the text in memory '{name}' as it is now; the conflict is resolved, and "
        "the next sync takes the resolution to the other machines."
    )


def fetched_records(
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


def records_to_push(
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


def add_conflicts(
    history: FolderHistory,
    new: dict[str, dict[str, str]],
    fetched: dict[str, dict[str, str]],
    result: SyncResult,
) -> dict[str, dict[str, str]]:
    """This folder's records with the conflicts this sync found and the remote's records
    merged in; what changed for the person (a conflict found elsewhere, one resolved
    elsewhere) goes into ``result``."""
    from serena_memory.core.files import locked

    path = conflicts_path(history)
    # found here: the text that stayed is this memory's own; the other one is set aside
    new, held_new = _withhold_secrets(new, result, ("remote_text",))
    result.conflicts[:] = [name for name in result.conflicts if name not in held_new]
    # a remote's record is anyone's: every field of it, not only its texts
    fetched, held = _withhold_secrets(fetched, result, RECORD_FIELDS)
    with locked([history.folder.root]):
        data = read_conflicts(path)
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
    # the remote keeps the records withheld here as they are (they are not ours to drop)
    return _merge_records(data, held)


def _withhold_secrets(
    records: dict[str, dict[str, str]], result: SyncResult, keys: tuple[str, ...]
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """``records`` split into those whose texts (``keys``) pass the secret gate
    (core/secrets.py) and those withheld because one holds a secret, which ``result``
    names (memory, line and kind, never the secret)."""
    from serena_memory.core import secrets

    kept: dict[str, dict[str, str]] = {}
    held: dict[str, dict[str, str]] = {}
    for name, record in records.items():
        found = secrets.holding_secrets({key: record.get(key) for key in keys})
        if not found:
            kept[name] = record
            continue
        held[name] = record
        first = next(iter(found.values()))
        said = f"{name} (line {first[0].line}: {first[0].kind})"
        if said not in result.secrets_withheld:
            result.secrets_withheld.append(said)
    return kept, held
