"""The newest entry that changed each memory of a folder, kept per process so that every
read can say who last wrote the memory without walking the history again.

The first look walks the folder's newest :data:`WITHIN` entries once and notes, for each
memory name, the newest entry that changed it (a rename counts for the new name). Later
looks walk only the entries added since (git hides the ones already seen), so a read after
a write costs one entry. A memory not changed in those entries has no last change here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from serena_memory.core.process import PROCESS
from serena_memory.history.entries import Entry, parse_entry

if TYPE_CHECKING:
    from serena_memory.history.folder import FolderHistory

WITHIN = 5000
"""The newest entries of a folder looked at; a memory changed only before them has none."""


@dataclass
class _Seen:
    head: str = ""
    newest: dict[str, Entry] = field(default_factory=dict)


class _SeenByRepository(dict[str, _Seen]):
    """What this process has read of each history repository's newest entries."""


_lock = threading.Lock()


def last_change(history: FolderHistory, name: str) -> Entry | None:
    """The newest entry of ``history`` that changed memory ``name`` (None: none did within
    the newest :data:`WITHIN` entries, or there is no history)."""
    repo = history.repo(create=False)
    head = None if repo is None else history.head(repo)
    if head is None:
        return None
    key = str(history.repo_path)
    with _lock:
        by_repository = PROCESS.owned(_SeenByRepository)
        seen = by_repository.get(key)
        if seen is None or seen.head != str(head.id):
            seen = _caught_up(repo, history.folder.label, head, seen)
            by_repository[key] = seen
        return seen.newest.get(name)


def _caught_up(repo: Any, label: str, head: Any, seen: _Seen | None) -> _Seen:
    """``seen`` with the entries added since its head, or made afresh."""
    import pygit2

    walker = repo.walk(head.id, pygit2.enums.SortMode.NONE)
    if seen is not None and seen.head:
        try:
            walker.hide(pygit2.Oid(hex=seen.head))
        except (KeyError, ValueError, pygit2.GitError):
            seen = None  # the old head is gone (a pruned history): start afresh
    newest = dict(seen.newest) if seen is not None else {}
    for count, commit in enumerate(walker):
        if count >= WITHIN:
            if seen is not None:  # more new entries than are kept: start afresh
                return _caught_up(repo, label, head, None)
            break
        entry = parse_entry(commit, label)
        names = entry.names() + ([entry.renamed[1]] if entry.renamed else [])
        for name in names:
            held = newest.get(name)
            if held is None or entry.time > held.time:
                newest[name] = entry
    return _Seen(str(head.id), newest)
