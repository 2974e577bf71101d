"""Pruning a folder's history: entries older than a number of days really go.

The state at the cut becomes the first entry, newer entries are committed again on top of
it, and the repository is repacked with only what the branch reaches, so a pruned entry's
text is gone from the disk too (not merely unreachable).
"""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from serena_memory.core.changes import Provenance
from serena_memory.history.entries import EXTERNAL, entry_message, message_of, new_operation
from serena_memory.history.objects import engine, move_branch
from serena_memory.history.repository import FolderRepository


def prune(history: FolderRepository, keep_days: int) -> int:
    """Drop entries older than ``keep_days`` days: the state at the cut becomes the first
    entry and newer entries are committed again on top of it (same trees, authors,
    times, messages; a sync's merge keeps the remote entries it merged). The cut is
    made on this machine's own line of entries and times (``local_entries``). Called
    under the folder's lock. Returns how many entries were dropped."""
    repo = history.repo(create=False)
    if repo is None or keep_days <= 0:
        return 0
    head = history.head(repo)
    if head is None:
        return 0
    pygit2 = engine()
    cutoff = time.time() - keep_days * 86400
    line = list(history.local_entries())
    keep = [c for c, recorded in line if recorded >= cutoff]
    older = [(c, recorded) for c, recorded in line if recorded < cutoff]
    if len(older) <= 1:
        return 0
    base, base_time = older[0]  # the newest dropped entry: its tree is the state at the cut
    when = datetime.fromtimestamp(base_time, UTC).strftime("%Y-%m-%d %H:%M UTC")
    start = Provenance(EXTERNAL, "pruned history", "").cleaned()
    parent = repo.create_commit(
        None,
        base.author,
        base.committer,
        entry_message(
            f"The memories as they were at {when}", start, [], None, new_operation(), base_time
        ),
        base.tree.id,
        [],
    )
    for commit in reversed(keep):
        parent = repo.create_commit(
            None,
            commit.author,
            commit.committer,
            message_of(commit),  # a remote's entry may name an encoding Python lacks
            commit.tree.id,
            [parent, *commit.parent_ids[1:]],
        )
    move_branch(repo, history.repo_path, parent)
    _repack(repo, pygit2, history.repo_path, parent)
    history.close()
    return len(older) - 1


def _repack(repo: Any, pygit2: Any, repo_path: Path, head: Any) -> None:
    """Keep only what the branch reaches, in one pack: pruned entries really go."""
    builder = pygit2.PackBuilder(repo)
    for commit in repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL):
        builder.add_recur(commit.id)  # a commit with its tree; parents are added one by one
    pack_dir = repo_path / "objects" / "pack"
    before = set(pack_dir.glob("pack-*")) if pack_dir.is_dir() else set()
    builder.write(str(pack_dir))
    after = set(pack_dir.glob("pack-*"))
    written = after - before
    if not written:
        return
    for old in before:
        with contextlib.suppress(OSError):
            old.unlink()
    objects = repo_path / "objects"
    for sub in objects.iterdir():
        if len(sub.name) == 2 and sub.is_dir():
            for loose in sub.iterdir():
                with contextlib.suppress(OSError):
                    loose.unlink()
            with contextlib.suppress(OSError):
                sub.rmdir()
