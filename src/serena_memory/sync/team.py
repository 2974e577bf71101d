"""Team memories: a second remote, pulled only, into ``global/<topic>/``.

The team's history is kept in a bare repository of its own, so nothing of the person's is
ever pushed there; a memory changed here since the last pull is left as it is.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from serena_memory.core.config import set_global_key
from serena_memory.core.errors import MemoryStoreError, SyncError
from serena_memory.history.location import history_root
from serena_memory.sync.merge import apply_pulled, keep_secrets_out, memory_file, sync
from serena_memory.sync.result import SyncResult
from serena_memory.sync.transport import (
    FETCHED,
    check_url,
    configured_remote,
    display_url,
    git,
    not_a_commit,
    remember_remote,
    said,
)

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

TEAM_REF = f"{FETCHED}team/main"


def team_repository(store: MemoryStore, url: str) -> Path:
    """A bare repository of our own that holds the team's history as fetched: the pulled
    memories' history is the team's, and nothing of the person's is ever pushed there."""
    import hashlib

    import pygit2

    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
    path = history_root(store) / f"team-{digest}.git"
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
    started = time.perf_counter()
    config = store.sync_config
    url = check_url(url) if url is not None else config.team_remote
    if url is None:
        raise SyncError(
            "no team remote is configured; run `serena memories sync --team --remote URL` "
            "once with the URL of the team's memories repository"
        )
    result = SyncResult("team", display_url(url), pull_only=True)
    fetched = _fetch_team(team_repository(store, url), url, interactive)
    if fetched is not None:
        plan = _TeamPlan(store, fetched, f"global/{config.team_topic}/", result)
        applied = apply_pulled(store, plan)
        result.changed.update(applied.changed)
        if applied.unwritten:
            # what the next pull compares to stays the last pull written whole, so it
            # brings again what could not be written (what was is found in place)
            _keep_last_pull(fetched)
            result.unwritten = [f"{n} ({why})" for n, why in applied.unwritten.items()]
        elif plan.kept_out:
            _keep_pulled_without(fetched, plan.kept_out)
    result.seconds = time.perf_counter() - started
    return result


class _TeamFetch(NamedTuple):
    repo: Any
    old: dict[str, str]  # the memory blobs as last pulled: path -> blob id
    new: dict[str, str]  # ...and as fetched now
    left_out: list[str]  # the ``*.md`` paths of the fetched tree that can't be memories
    before: Any  # the commit last pulled whole (None: none yet)


def _keep_last_pull(fetched: _TeamFetch) -> None:
    """Point the team's branch back at the last pull written whole (none: remove it)."""
    refs = fetched.repo.references
    if fetched.before is not None:
        refs.create(TEAM_REF, fetched.before, force=True)
    elif TEAM_REF in refs:
        refs.delete(TEAM_REF)


def _keep_pulled_without(fetched: _TeamFetch, kept_out: list[str]) -> None:
    """Point the team's branch at what was written: the fetched memories but, for those
    kept out for a secret, the versions last pulled. The next pull then compares a kept-out
    memory to what is here, not to the refused text (which would read as a local change
    for good), and no ref here reaches the refused text."""
    import pygit2

    repo = fetched.repo
    index = pygit2.Index()
    index.read_tree(repo[repo.references[TEAM_REF].target].tree)
    for rel in kept_out:
        if rel in fetched.old:
            index.add(
                pygit2.IndexEntry(rel, pygit2.Oid(hex=fetched.old[rel]), pygit2.enums.FileMode.BLOB)
            )
        else:
            index.remove(rel)
    signature = pygit2.Signature("serena-memory", "sync@serena-memory")
    commit = repo.create_commit(
        None,
        signature,
        signature,
        "The team's memories as pulled, without those kept out for a secret",
        index.write_tree(repo),
        [] if fetched.before is None else [fetched.before],
    )
    repo.references.create(TEAM_REF, commit, force=True)


def _fetch_team(repo_path: Path, url: str, interactive: bool) -> _TeamFetch | None:
    """Fetch the team's branch; None when the team's repository is still empty."""
    import pygit2

    repo = pygit2.Repository(str(repo_path))
    before = repo.references.get(TEAM_REF)
    old_tree = repo[before.target].tree if before is not None else None  # always a commit
    fetched = git(
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
            return None  # an empty team repository: nothing to pull yet
        raise SyncError(
            f"the team remote {display_url(url)} can't be reached ({said(fetched)}); the "
            "team memories are unchanged, sync again when it is reachable"
        )
    repo = pygit2.Repository(str(repo_path))
    fetched_main = repo[repo.references[TEAM_REF].target]
    if fetched_main.type_str != "commit":
        # keep the last good pull as what the next one compares to
        if before is not None:
            repo.references.create(TEAM_REF, before.target, force=True)
        else:
            repo.references.delete(TEAM_REF)
        raise not_a_commit(url)
    old = _memory_blobs(repo, old_tree, []) if old_tree is not None else {}
    left_out: list[str] = []
    new = _memory_blobs(repo, fetched_main.tree, left_out)
    return _TeamFetch(repo, old, new, left_out, before.target if before is not None else None)


class _TeamPlan:
    """The versions a team pull writes, computed under the folder lock (and again when
    memories changed before the locks were taken)."""

    def __init__(
        self, store: MemoryStore, fetched: _TeamFetch, prefix: str, result: SyncResult
    ) -> None:
        self.store = store
        self.fetched = fetched
        self.prefix = prefix
        self.result = result
        self.kept_out: list[str] = []  # the paths of memories kept out for a secret

    def __call__(self) -> dict[str, bytes | None]:
        from serena_memory.core import names as N

        result, old, new = self.result, self.fetched.old, self.fetched.new
        result.skipped, result.kept_edits = list(self.fetched.left_out), []  # planned again: afresh
        versions: dict[str, bytes | None] = {}
        rels: dict[str, str] = {}  # name -> path in the team's tree
        for rel in sorted(set(old) | set(new)):
            if old.get(rel) == new.get(rel):
                continue
            name = self.prefix + rel[: -len(".md")]
            try:
                if N.normalize_name(name) != name:
                    raise SyncError(name)
                current = _blob_id_of_file(self.store, name)
            except MemoryStoreError:
                result.skipped.append(rel)
                continue
            if current not in (old.get(rel), new.get(rel)):
                result.kept_edits.append(name)  # changed here since the last pull: kept
            elif current != new.get(rel):
                blob: Any = self.fetched.repo[new[rel]] if rel in new else None
                versions[name] = None if blob is None else blob.data
                rels[name] = rel
        result.secrets_kept_out = keep_secrets_out(versions)
        self.kept_out = [rel for name, rel in rels.items() if name not in versions]
        return versions


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
                if memory_file(repo, item.filemode, item.id):
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
        if remote is not None and check_url(remote) != store.sync_config.team_remote:
            key = "memory_sync_team_remote"
            pulled.remembered = str(set_global_key(store.layout.home, key, check_url(remote)))
        return [pulled]
    team = store.sync_config.team_remote
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
