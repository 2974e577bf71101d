"""Reading and undoing the history of a store's memories: entries that follow a memory
across renames, its text at any entry, diffs, and restores that are new entries, never
rewrites of the history."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from serena_memory.core import names as N
from serena_memory.core.errors import (
    HistoryError,
    IgnoredMemoryError,
    MemoryNotFoundError,
    MemoryStoreError,
    Remedy,
)
from serena_memory.core.files import locked
from serena_memory.core.store import catch_up_history
from serena_memory.history.entries import STARTED, STARTED_AGAIN, Entry, Record, parse_entry
from serena_memory.history.folder import FolderHistory
from serena_memory.history.location import history_folders, history_root
from serena_memory.history.pruning import prune as prune_folder
from serena_memory.history.registry import folder_history
from serena_memory.history.times import MIN_ENTRY_ID, Revision, parse_revision, shown_typed

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore


@dataclass
class Restored:
    """What a restore changed: memory name -> 'restored' | 'deleted'."""

    changed: dict[str, str]
    skipped: list[str]
    rev: str
    # how the target reads: "entry 4be1c09a2f of 2026-12-01T09:02:11+00:00", "the state at
    # ... (entry ...)", "as it was before its deletion in ..."; "" reads as the revision
    target: str = ""
    note: str = ""  # a sentence told after the summary

    def summary(self) -> str:
        target = self.target or self.rev[:10]
        if not self.changed:
            text = f"Nothing to restore: the memories already match {target}."
        elif self.target.startswith("as it was"):
            text = f"Restored {', '.join(sorted(self.changed))} {target}."
        else:
            parts = [f"{name} ({what})" for name, what in sorted(self.changed.items())]
            count = "1 memory" if len(parts) == 1 else f"{len(parts)} memories"
            text = f"Restored {count} to {target}: " + ", ".join(parts) + "."
        if self.skipped:
            text += (
                " Left as they are (ignored or not usable names): " + ", ".join(self.skipped) + "."
            )
        return f"{text} {self.note}" if self.note else text


def _before_the_start(name: str, first: Entry) -> str:
    """A restore that reaches back past a history's first entry: when and why it begins,
    since "did not exist" would be wrong."""
    day = first.time.astimezone().strftime("%Y-%m-%d %H:%M")
    if first.summary.startswith(STARTED_AGAIN):
        why = (
            f"its history was started again on {day} (entry {first.short}) after the "
            "earlier one was removed, so its texts before then are gone"
        )
    else:
        why = (
            f"its history was started on {day} (entry {first.short}) from the memories as "
            "they were, so nothing before then is recorded"
        )
    return f"memory '{name}' has no earlier text to bring back: {why}"


class MemoryHistory:
    """The history of a store's memories (its project folder and the global one): entries
    that follow a memory across renames, its text at any entry, and restores that are new
    entries, never rewrites."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        settings = store.settings
        self.enabled = settings.history_enabled
        self.keep_days = settings.history_keep_days  # the project's history
        self.global_keep_days = settings.global_config.memory_history_keep_days
        root = history_root(store, settings)
        self.folders = [folder_history(root, f) for f in history_folders(store)]

    # -- entries -----------------------------------------------------------------------
    def _merged(self, since: datetime | None = None) -> Iterator[Entry]:
        for record in self._merged_records(since):
            yield record.entry()

    def _merged_records(self, since: datetime | None = None) -> Iterator[Record]:
        import heapq

        streams = [h.records(since) for h in self.folders]
        yield from heapq.merge(*streams, key=lambda r: r.time, reverse=True)

    def _follow(self, name: str) -> Iterator[tuple[Record, str, bool]]:
        """Every entry, newest first, with the name the memory had in it and whether the
        entry touched it; the name changes where a rename made it."""
        current = name
        for record in self._merged_records():
            at_entry = current
            if not record.may_name(current):
                yield record, at_entry, False
                continue
            entry = record.entry()
            touched = current in entry.names()
            if entry.renamed and entry.renamed[1] == current:
                touched = True
                current = entry.renamed[0]
            yield record, at_entry, touched

    def _reachable(self, name: str) -> str:
        """Ignored memories are out of reach of every memory operation, history included."""
        if self.store.access().is_ignored(N.normalize_name(name)):
            raise IgnoredMemoryError(
                f"memory '{name}' is ignored (ignored_memory_patterns), so its history can't "
                "be reached either"
            )
        return name

    def entries(self, name: str | None = None, since: datetime | None = None) -> list[Entry]:
        """Newest first; for one memory, its entries under every name it had. Outside
        edits not recorded yet (a command records only what it changes) are recorded
        first, as ``external``."""
        self._look()
        if name is None:
            return _combine(self._merged(since))
        self._reachable(name)
        cutoff = None if since is None else since.timestamp()
        found = []
        for record, _, touched in self._follow(name):
            if cutoff is not None and record.time < cutoff:
                break
            if touched:
                found.append(record.entry())
        if not found and not self.store.exists(name) and not self._recorded(name):
            raise MemoryNotFoundError(
                f"memory '{name}' does not exist and has no recorded changes; see the "
                "memories with ",
                remedy=Remedy("list"),
            )
        return _combine(found)

    def last_change(self, name: str) -> tuple[Entry, bytes | None] | None:
        """The newest entry that changed ``name`` (history/last_changes.py), and the
        memory's bytes as that entry left them: what a read tells of who wrote the memory.
        None when none did (or history is off). No lock is taken, so outside edits are not
        recorded first: compare the bytes with the memory's text."""
        last = self.last_entry(name)
        if last is None:
            return None
        entry, history = last
        return entry, history.content_at(entry.rev, name)

    def last_entry(self, name: str) -> tuple[Entry, FolderHistory] | None:
        """The newest entry that changed ``name`` and the history holding it, without the
        memory's bytes (a listing asks this of every name it shows)."""
        if not self.enabled:
            return None
        from serena_memory.history.last_changes import last_change

        found = []
        for history in self.folders:
            if history.folder.rel_of(name) is not None:
                entry = last_change(history, name)
                if entry is not None:
                    found.append((entry.time, entry, history))
        if not found:
            return None
        _, entry, history = max(found, key=lambda item: item[0])
        return entry, history

    def renamed_to(self, name: str) -> tuple[str, Entry] | None:
        """Where a memory that is not there went: the name its renames gave it (followed
        through later ones) and the last of those entries; None when it was never renamed
        or the name is back in use."""
        if self.store.exists(name):
            return None
        current, last = name, None
        for record in reversed(list(self._merged_records())):  # oldest first
            if not record.may_name(current):
                continue
            entry = record.entry()
            if entry.renamed and entry.renamed[0] == current:
                current, last = entry.renamed[1], entry
        return None if last is None else (current, last)

    def moved_to(self, names: set[str]) -> dict[str, str]:
        """Where memories that are gone went, as the history saw it: renamed through serena,
        or moved by hand (one entry deleted the file and created another with the same
        text, as ``mv a.md b.md`` is recorded); only to memories that exist now."""
        wanted = {n for n in names if not self.store.exists(n)}
        if not wanted:
            return {}
        self._look()
        found: dict[str, str] = {}
        done: set[str] = set()
        for record in self._merged_records():  # newest first: each name's latest fate
            hits = [n for n in wanted - done if record.may_name(n)]
            if not hits:
                continue
            entry = record.entry()
            for name in hits:
                fate = self._fate(entry, name)
                if fate is not None:
                    done.add(name)
                    if fate:
                        found[name] = fate
            if done == wanted:
                break
        return {old: new for old, new in found.items() if self.store.exists(new)}

    def _fate(self, entry: Entry, name: str) -> str | None:
        """What ``entry`` did with ``name``: its new name (renamed, or moved by hand), ''
        when it deleted it, None when it did neither."""
        if entry.renamed and entry.renamed[0] == name:
            return entry.renamed[1]
        if ("D", name) in entry.changes:
            return self._moved_by_hand(entry, name) or ""
        return None

    def _moved_by_hand(self, entry: Entry, name: str) -> str | None:
        """The memory ``entry`` created with the text ``name`` had before it deleted it."""
        created = [m for kind, m in entry.changes if kind == "A"]
        if not created:
            return None
        history, full = self.resolve(entry.rev)
        parents = history.repo(create=False)[full].parent_ids
        if not parents:
            return None
        before = history.content_at(str(parents[0]), name)
        return next((m for m in created if history.content_at(full, m) == before), None)

    def _look(self) -> None:
        """Record outside edits now: someone is looking at the history."""
        with contextlib.suppress(MemoryStoreError, OSError):  # reading never fails on it
            catch_up_history(self.store)
        for history in self.folders:  # held back earlier, and not looked at again this time
            history.tell_held()

    def _recorded(self, name: str) -> bool:
        """Whether any entry touched ``name`` (under it or an earlier name), at any time."""
        return any(touched for _, _, touched in self._follow(name))

    # -- revisions ---------------------------------------------------------------------
    def resolve(self, rev: str, name: str | None = None) -> tuple[FolderHistory, str]:
        """The entry a typed revision names (:func:`parse_revision`): an entry id, or for a
        time the entry that was this machine's state then, in the folder of memory
        ``name`` (default: the first folder that is that old)."""
        wanted = parse_revision(rev)
        found = self._by_id(wanted)
        if found is not None:
            return found
        assert wanted.when is not None
        for history in self.folders:
            if name is not None and history.folder.rel_of(name) is None:
                continue
            full = history.rev_at(wanted.when)
            if full is not None:
                return history, full
        raise HistoryError(
            f"the history holds nothing as old as {shown_typed(rev)}{_short_id_hint(rev)}; "
            "list the entries with ",
            remedy=Remedy("history"),
        )

    def _by_id(self, wanted: Revision) -> tuple[FolderHistory, str] | None:
        """The one entry whose id starts as ``wanted`` says; None when it is a time."""
        if wanted.entry_id is None:
            return None
        found = [(h, full) for h in self.folders for full in h.matching(wanted.entry_id)]
        if len(found) > 1:
            raise HistoryError(
                f"the entry id {shown_typed(wanted.text)} is ambiguous: {len(found)} entries start "
                "with it; give more of its characters"
            )
        if found:
            return found[0]
        if wanted.when is None:
            raise HistoryError(
                f"no history entry {shown_typed(wanted.text)}; list the entries with ",
                remedy=Remedy("history"),
            )
        return None

    def name_at(self, name: str, rev: str) -> str:
        for record, at_entry, _ in self._follow(name):
            if record.rev == rev:
                return at_entry
        return name

    def content_at(self, name: str, rev: str) -> tuple[str, bytes | None]:
        """The memory's name and bytes as of entry ``rev`` (bytes None: it did not exist)."""
        self._reachable(name)
        history, full = self.resolve(rev, name)
        old_name = self.name_at(name, full)
        for candidate in self.folders:
            if candidate.folder.rel_of(old_name) is None:
                continue
            if candidate is history:
                return old_name, candidate.content_at(full, old_name)
            # the memory lives in the other folder: its state at the time of that entry
            when = next(r.time for r in history.records() if r.rev == full)
            try:
                moment = datetime.fromtimestamp(when, UTC)
            except (ValueError, OverflowError, OSError):
                return old_name, None
            other = candidate.rev_at(moment)
            return old_name, None if other is None else candidate.content_at(other, old_name)
        return old_name, None

    def before(self, name: str, rev: str) -> bytes | None:
        """The memory's bytes just before entry ``rev`` changed them."""
        history, full = self.resolve(rev, name)
        repo = history.repo(create=False)
        parents = repo[full].parent_ids
        if not parents:
            return None
        return self.content_at(name, str(parents[0]))[1]

    def latest(self, name: str) -> Entry:
        entries = self.entries(name)
        if not entries:
            raise HistoryError(
                f"memory '{name}' has no history yet (it was never changed while history was on)"
            )
        return entries[0]

    # -- undo --------------------------------------------------------------------------
    def restore(self, name: str, rev: str | None = None, *, allow_secret: bool = False) -> Restored:
        """Bring back ``name`` as it was at ``rev`` (default: before its latest change,
        which brings back a deleted memory) as a new entry."""
        name = self.store.access().check(name, write=True)  # read-only and ignored rules first
        catch_up_history(self.store)
        if rev is None:
            latest = self.latest(name)
            full = latest.rev
            data = self.before(name, full)
            if data is None and latest.summary.startswith(STARTED):
                raise HistoryError(_before_the_start(name, latest))
            if data is None:
                raise HistoryError(
                    f"memory '{name}' did not exist before its latest entry {full[:10]}; "
                    "pick an entry with ",
                    remedy=Remedy("history", name),
                )
            target = self._own_entry(name, self.before_rev(full)).rev
            deleted = ("D", name) in latest.changes or not self.store.exists(name)
            what = "its deletion" if deleted else "its latest change"
            reads = f"as it was before {what} in {_entry_words(latest)}"
        else:
            _, full = self.resolve(rev, name)
            _, data = self.content_at(name, full)
            if data is None:
                raise HistoryError(
                    f"memory '{name}' did not exist at {full[:10]}; pick an entry with ",
                    remedy=Remedy("history", name),
                )
            own = self._own_entry(name, full)
            target = own.rev
            reads = _entry_words(own)
        changed = self.store.apply_versions(
            {name: data}, f"Restore {name} to {target[:10]}", allow_secret=allow_secret
        )
        return Restored(changed, [], target, reads)

    def _own_entry(self, name: str, rev: str) -> Entry:
        """The entry of the memory's own history (what `history NAME` lists) that wrote
        its text as of entry ``rev``: the newest to touch it at or before ``rev``, which
        may be another memory's entry or a time's; ``rev``'s own entry when none did."""
        history, full = self.resolve(rev, name)
        when = next(r.time for r in history.records() if r.rev == full)
        reached = False
        for record, _, touched in self._follow(name):
            reached = reached or record.rev == full or record.time < when
            if reached and touched:
                return record.entry()
        return parse_entry(history.repo(create=False)[full], history.folder.label)

    def _entry_named(self, rev: str) -> str:
        """An entry as an answer names it: its id and its full time."""
        history, full = self.resolve(rev)
        repo = history.repo(create=False)
        return _entry_words(parse_entry(repo[full], history.folder.label))

    def before_rev(self, rev: str) -> str:
        history, full = self.resolve(rev)
        parents = history.repo(create=False)[full].parent_ids
        return str(parents[0]) if parents else full

    def restore_all(self, at: str) -> Restored:
        """Every memory back to entry ``at`` (its folder only) or to the time ``at`` (both
        folders): memories created since are deleted, changed ones restored.

        A time picks, in each folder, the entry that was this machine's state then (its
        own line of entries and the times it recorded them: never a date a sync remote
        wrote), and only the memories the folder may hold are written or deleted (see
        :meth:`FolderHistory.files_at`), under the store's ignored and read-only rules."""
        revision = parse_revision(at)
        catch_up_history(self.store)
        found = self._by_id(revision)
        targets: list[tuple[FolderHistory, str | None]]
        if found is not None:
            targets, label, reads = [found], found[1], self._entry_named(found[1])
            note = ""
        else:
            assert revision.when is not None
            targets, reads, note = self._at_time(revision.when)
            label = revision.when.isoformat(timespec="seconds")
        changed: dict[str, str] = {}
        skipped: list[str] = []
        for history, rev in targets:
            versions = _undone(history, rev)
            usable, refused = self.store.access().usable(versions)
            skipped += refused
            if usable:
                to = rev[:10] if rev else "before the history began"
                changed.update(
                    self.store.apply_versions(
                        {n: versions[n] for n in usable}, f"Restore every memory to {to}"
                    )
                )
        return Restored(changed, skipped, label, reads, note)

    def _at_time(self, when: datetime) -> tuple[list[tuple[FolderHistory, str | None]], str, str]:
        """Each folder's entry at ``when``, how the answer names them and a sentence on the
        folders whose history begins later. Those go back to the oldest state they hold
        (what a person asking for "2h" in a project's first hour means): the first entry
        when it found the memories there, else the empty folder before it (None)."""
        targets: list[tuple[FolderHistory, str | None]] = []
        named: list[str] = []
        later: list[tuple[str, str]] = []  # (folder, when its history starts)
        for history in self.folders:
            rev = history.rev_at(when)
            if rev is not None:
                targets.append((history, rev))
                named.append(self._entry_named(rev))
                continue
            first = history.first_rev()
            if first is None:
                continue
            oldest = parse_entry(history.repo(create=False)[first], history.folder.label)
            found = oldest.summary.startswith(STARTED)  # it holds the memories found then
            targets.append((history, first if found else None))
            where = f"{_entry_words(oldest)}, the first of the {history.folder.label} history"
            named.append(where if found else f"the state before {where}")
            later.append((history.folder.label, oldest.time.isoformat(timespec="seconds")))
        if not targets:
            raise HistoryError(
                "the history holds no entry yet, so there is no earlier state to restore"
            )
        label = when.isoformat(timespec="seconds")
        if not later:
            return targets, f"the state at {label} ({'; '.join(named)})", ""
        note = _starts_later(later, label)
        if len(later) == len(targets):
            return targets, "; ".join(named), note
        return targets, f"the state at {label} ({'; '.join(named)})", note

    def prune(self) -> int:
        """Drop old entries: the project's history as its settings say (project.yml, else
        serena_config.yml), the global history as serena_config.yml alone says."""
        if self.keep_days <= 0 and self.global_keep_days <= 0:
            raise HistoryError(
                "memory_history_keep_days is 0 (keep everything), so nothing is pruned; set "
                "it to the number of days to keep in serena_config.yml or project.yml"
            )
        keep_days = {"project": self.keep_days, "global": self.global_keep_days}
        dropped = 0
        root = history_root(self.store)
        for spec in history_folders(self.store):
            days = keep_days.get(spec.label, 0)
            if days <= 0 or not spec.root.is_dir():
                continue
            with locked([spec.root]):
                dropped += prune_folder(folder_history(root, spec), days)
        return dropped


def _entry_words(entry: Entry) -> str:
    return f"entry {entry.short} of {entry.time.isoformat(timespec='seconds')}"


def _starts_later(later: list[tuple[str, str]], asked: str) -> str:
    """The sentence on the folders whose history starts after the time asked for, which
    went back to the oldest state they record (what that deleted is listed before it)."""
    starts = " and the ".join(f"{folder} history starts at {when}" for folder, when in later)
    one = len(later) == 1
    return (
        f"The {starts}, {'' if one else 'both '}later than the time asked for ({asked}), so "
        f"the oldest state {'it' if one else 'each'} records was restored."
    )


def unified_diff(
    name: str, old: bytes | None, new: bytes | None, new_rev: str, old_rev: str = ""
) -> str:
    """The difference between two texts of a memory, as ``diff -u`` writes it; an absent
    text is /dev/null, as git writes a created or deleted file. One function for every
    front-end, so the command line and the dashboard show the same diff."""
    import difflib

    def lines(data: bytes | None) -> list[str]:
        if data is None:
            return []
        found = data.decode("utf-8", errors="replace").splitlines(keepends=True)
        if found and not found[-1].endswith("\n"):
            found[-1] += "\n\\ No newline at end of file\n"
        return found

    old_label = f"{name} @ {_short(old_rev)}" if old_rev else f"{name} before {_short(new_rev)}"
    return "".join(
        difflib.unified_diff(
            lines(old),
            lines(new),
            fromfile=old_label if old is not None else "/dev/null",
            tofile=f"{name} @ {_short(new_rev)}" if new is not None else "/dev/null",
        )
    )


def _short(rev: str) -> str:
    """A commit id shortened as git shows it; any other label (a proposal, a time the
    person gave, "now") whole, since a cut label names something else."""
    return rev[:10] if re.fullmatch(r"[0-9a-f]{11,64}", rev) else rev


def _undone(history: FolderHistory, rev: str | None) -> dict[str, bytes | None]:
    """What brings the folder back to entry ``rev`` (None: to before its first entry, no
    memory at all): memory name -> its bytes then (None: delete it)."""
    wanted = {} if rev is None else history.files_at(rev)
    head = history.head_rev() or rev
    now = {} if head is None else history.files_at(head)
    return {
        name: wanted.get(name)
        for name in sorted(set(wanted) | set(now))
        if wanted.get(name) != now.get(name)
    }


def _combine(entries: Iterable[Entry]) -> list[Entry]:
    """One operation that touched both folders (a rename into global/) is one entry."""
    out: list[Entry] = []
    seen: dict[str, Entry] = {}
    for entry in entries:
        first = seen.get(entry.operation) if entry.operation else None
        if first is None:
            if entry.operation:
                seen[entry.operation] = entry
            out.append(entry)
            continue
        first.changes += [c for c in entry.changes if c not in first.changes]
        first.renamed = first.renamed or entry.renamed
    return out


_SHORT_HEX = re.compile(rf"[0-9a-fA-F]{{1,{MIN_ENTRY_ID - 1}}}", re.ASCII)


def _short_id_hint(rev: str) -> str:
    """For a text such as ``20d``, read as a time (20 days ago) but typed as the first
    characters of an entry id: an entry id is taken from its first characters on."""
    if _SHORT_HEX.fullmatch(rev.strip()) is None:
        return ""
    return f" (read as a time; an entry id needs at least its first {MIN_ENTRY_ID} characters)"
