"""Transport: the ``git`` command line between a memories folder's history and its remote.

Authentication is git's own (credential helpers, the SSH agent), so any remote git reaches
works: a bare repository on a shared drive, SSH, HTTPS. Nothing here stores a credential.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from serena_memory.core.config import set_global_key
from serena_memory.core.errors import SyncError

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

BRANCH = "refs/heads/main"
FETCHED = "refs/serena-sync/"  # the remote's branches as last fetched, in the history
GIT_TIMEOUT = 120.0
CONFLICTS_BRANCH = "serena-conflicts"  # the remote's branch that carries the conflict records
CONFLICTS_OUT = "refs/serena-sync-out/conflicts"  # the records as this machine pushes them


# -- where a folder syncs to ----------------------------------------------------------------
def display_url(url: str) -> str:
    """A URL as messages and history entries show it: without a password or token someone
    may have written into it (git's credential helpers are the place for those)."""
    return re.sub(r"(?<=://)[^/@]*@", "", url)


def configured_remote(store: MemoryStore, scope: str) -> str | None:
    """The remote of the global folder (``memory_sync_remote``) or of this project's
    folder (``memory_sync_project_remotes``), both in the global configuration only (read
    once per operation: :attr:`MemoryStore.sync_config`)."""
    config = store.sync_config
    if scope == "global":
        return config.remote
    return config.project_remotes.get(os.path.realpath(store.layout.project_root))


def remember_remote(store: MemoryStore, scope: str, url: str) -> Path:
    """Write the remote into the person's own configuration (never the project's)."""
    check_url(url)
    if scope == "global":
        return set_global_key(store.layout.home, "memory_sync_remote", url)
    config = store.sync_config
    remotes = dict(config.project_remotes)
    remotes[os.path.realpath(store.layout.project_root)] = url
    return set_global_key(store.layout.home, "memory_sync_project_remotes", remotes)


def check_url(url: str) -> str:
    if not url.strip():
        raise SyncError("the sync remote is empty; give the URL or path of a git repository")
    if url.strip().startswith("-"):
        raise SyncError(f"{url!r} is not a repository URL (it starts with '-')")
    return url.strip()


# -- the git command line --------------------------------------------------------------------
def git(
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


def said(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (result.stderr or "").splitlines() if line.strip()]
    meaningful = [line for line in lines if line.lower().startswith(("fatal", "error"))]
    text = (meaningful or lines or ["no message"])[-1]
    return re.sub(r"^(fatal|error): ", "", text)


def fetch(repo_path: Path, url: str, *, interactive: bool = False) -> str | None:
    """The remote's branch, fetched into the history; None when the remote is empty."""
    result = git(
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
            f"the sync remote {display_url(url)} can't be reached ({said(result)}); your "
            "memories are unchanged, sync again when it is reachable"
        )
    import pygit2

    repo = pygit2.Repository(str(repo_path))
    ref = repo.references.get(f"{FETCHED}main")
    if ref is None:
        return None
    target = ref.resolve().target
    if repo[target].type_str != "commit":
        raise not_a_commit(url)
    return str(target)


def fetched_main(repo_path: Path) -> str | None:
    """What the remote's branch pointed at as last fetched (None: nothing yet)."""
    import pygit2

    ref = pygit2.Repository(str(repo_path)).references.get(f"{FETCHED}main")
    return None if ref is None else str(ref.target)


def forget_fetched(repo_path: Path, before: str | None) -> None:
    """Point the remote's fetched branch back at what it was before the fetch: entries
    held back for a secret are not kept reachable here, where `check --secrets`, which
    reads this history, would not tell of them."""
    import pygit2

    refs = pygit2.Repository(str(repo_path)).references
    if before is not None:
        refs.create(f"{FETCHED}main", before, force=True)
    elif f"{FETCHED}main" in refs:
        refs.delete(f"{FETCHED}main")


def not_a_commit(url: str) -> SyncError:
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
    result = git(
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
    why = rejected[-1].split("\t")[-1] if rejected else said(result)
    raise SyncError(
        f"the memories could not be pushed to {display_url(url)} ({why}); what was "
        "fetched is merged here, sync again to push"
    )
