"""What git remembers about the project's files, for the code checks: one walk of the
history (where renamed paths went, when paths were deleted, when files and memories last
changed). What changed since a given revision (for ``check --code --since``) is
:mod:`~serena_memory.integrity.code_drift.since`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from serena_memory.core.paths import is_inside
from serena_memory.integrity.code_drift.code_report import WORK_TREE
from serena_memory.integrity.code_drift.git import GitJob, GitStalled, GitUnavailable, run_git
from serena_memory.integrity.code_drift.project import ProjectFiles

MEMORIES_FOLDER = ".serena/memories/"


def name_status(fields: list[str]) -> Iterator[tuple[str, str | None, str]]:
    """The entries of git's ``--name-status -z`` output (``fields``: split at its NULs):
    (status letter, the old path of a rename or a copy or None, the path); an entry cut
    short ends the list."""
    i, count = 0, len(fields)
    while i < count:
        status = fields[i].strip()
        if not status:
            i += 1
        elif status[0] in "RC":
            if i + 2 >= count:
                return
            yield status[0], fields[i + 1], fields[i + 2]
            i += 3
        else:
            if i + 1 >= count:
                return
            yield status[0], None, fields[i + 1]
            i += 2


@dataclass
class GitPast:
    """From one walk of the history (newest first): where renamed paths went, when paths
    were deleted, when files and memories last changed, which paths ever existed."""

    renamed: dict[str, tuple[str, str, float]] = field(default_factory=dict)  # old -> new, commit
    deleted: dict[str, tuple[str, float]] = field(default_factory=dict)  # path -> commit, time
    changes: dict[str, list[float]] = field(default_factory=dict)  # path -> commit times
    seen: set[str] = field(default_factory=set)
    left: dict[str, list[float]] = field(default_factory=dict)  # path -> deleted or renamed away
    note: str = ""  # why the history is missing although this is a work tree
    by_name: dict[str, list[str]] | None = field(default=None, repr=False)  # name -> seen
    arrived: dict[str, tuple[str, str, float]] = field(default_factory=dict)  # new -> old
    _left: dict[str, str] = field(default_factory=dict, repr=False)  # deleted -> content id
    _made: dict[str, tuple[str | None, float]] = field(default_factory=dict, repr=False)
    # the content a deleted file left -> the other path that took it before, when (None:
    # several did)
    _came: dict[str, tuple[str, str, float] | None] = field(default_factory=dict, repr=False)
    # the content a file was added with -> (its path, the commit, when; None: several)
    _readded: dict[str, tuple[str, str, float]] = field(default_factory=dict, repr=False)
    # deleted -> the one path that took its last content in a later commit
    _indexed: tuple[int, int] = field(default=(-1, -1), repr=False)  # len(seen) by_name, dirs
    _dirs: frozenset[str] = field(default=frozenset(), repr=False)
    _folders: tuple[int, dict[str, list[str]], dict[str, tuple[float, int]]] | None = field(
        default=None, repr=False
    )  # len(seen) indexed, folder name -> folders, folder -> when its first file came

    def ending_with(self, tail: str) -> list[str]:
        """The paths git saw that end with ``/tail`` (``tail`` itself not counted), sorted;
        looked up by file name, so many questions cost one pass over the history."""
        if self.by_name is None or self._indexed[0] != len(self.seen):
            self.by_name = {}
            for path in sorted(self.seen):
                self.by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
            self._indexed = (len(self.seen), self._indexed[1])
        bare = "/" + tail
        return [p for p in self.by_name.get(tail.rsplit("/", 1)[-1], ()) if p.endswith(bare)]

    def had_folder(self, folder: str) -> bool:
        """Whether git saw a file below ``folder`` (with or without its ``/``); the
        folders are listed once for many questions."""
        if self._indexed[1] != len(self.seen):
            dirs = set()
            for path in self.seen:
                head = path.rpartition("/")[0]
                while head and head not in dirs:
                    dirs.add(head)
                    head = head.rpartition("/")[0]
            self._dirs, self._indexed = frozenset(dirs), (self._indexed[0], len(self.seen))
        return folder.rstrip("/") in self._dirs

    def _folder_index(self) -> tuple[dict[str, list[str]], dict[str, tuple[float, int]]]:
        """The folders git saw by name, and for each when its first file came and how
        many files it ever held (built once for many questions)."""
        if self._folders is None or self._folders[0] != len(self.seen):
            named: dict[str, list[str]] = {}
            first: dict[str, tuple[float, int]] = {}
            for path in self.seen:
                came = min(self.changes.get(path) or (0.0,))
                head = path.rpartition("/")[0]
                while head:
                    known = first.get(head)
                    if known is None:
                        named.setdefault(head.rpartition("/")[2], []).append(head)
                        first[head] = (came, 1)
                    else:
                        first[head] = (min(came, known[0]), known[1] + 1)
                    head = head.rpartition("/")[0]
            self._folders = (len(self.seen), named, first)
        return self._folders[1], self._folders[2]

    def folders_named(self, name: str) -> list[str]:
        """The folders git saw whose last part is ``name``, sorted."""
        return sorted(self._folder_index()[0].get(name, ()))

    def folder_size(self, folder: str) -> int:
        """How many files git ever saw below ``folder``."""
        return self._folder_index()[1].get(folder.rstrip("/"), (0.0, 0))[1]

    def folder_there_at(self, folder: str, when: float | None) -> bool:
        """Whether git had a file below ``folder`` at ``when`` (None: any time)."""
        first = self._folder_index()[1].get(folder.rstrip("/"))
        return first is not None and (when is None or first[0] <= when)

    @staticmethod
    def start(root: str, since: str | None = None) -> tuple[GitJob, GitJob]:
        """The git commands :meth:`load` reads, started: what is staged or changed in the
        work tree (a `git mv` not yet committed is a move too), then the log, with each
        file's content id (a copy made in one commit and its original deleted in a later
        one is a move too: :meth:`copied_away`)."""
        args = ["log", "-z", "--relative", "-M", "--raw", *_RAW, "--format=%x01%H %ct"]
        return (
            GitJob(
                root,
                "diff",
                "-z",
                "--relative",
                "-M",
                "--name-status",
                "--no-ext-diff",
                "--no-textconv",
                "HEAD",
            ),
            GitJob(root, *args, *([f"{since}..HEAD"] if since else [])),
        )

    @classmethod
    def load(
        cls, root: str, since: str | None = None, started: tuple[GitJob, GitJob] | None = None
    ) -> GitPast:
        past = cls()
        work_job, log_job = started or cls.start(root, since)
        try:
            work = work_job.result()
            log, renames = _log(root, log_job, since)
        except GitUnavailable as exc:
            log_job.discard()
            if isinstance(exc, GitStalled):
                past.note = f"{exc}: moved and changed paths are not reported"
            return past  # no commit yet
        fields = work.decode("utf-8", "replace").strip("\0\n").split("\0")
        past.add(WORK_TREE, time.time(), [(*e, "", "") for e in name_status(fields)])
        for block in log.decode("utf-8", "replace").split("\x01")[1:]:
            head, _, rest = block.partition("\n")
            commit, _, stamp = head.strip("\0").partition(" ")
            entries = raw_entries(rest.strip("\0\n").split("\0"))
            past.add(commit, float(stamp or 0), entries if renames else by_content(entries))
        past.copied_away()
        return past

    def add(self, commit: str, when: float, entries: list[Entry]) -> None:
        """What one commit (or the work tree) did to the files its ``entries`` list."""
        seen = self.seen
        added: list[str] = []
        gone: list[str] = []
        renames: list[tuple[str, str]] = []
        for letter, old, path, old_blob, new_blob in entries:
            seen.add(path)
            if old is not None:
                seen.add(old)
                if letter == "R":
                    self._rename(old, path, commit, when)
                    renames.append((old, path))
                    self.left.setdefault(old, []).append(when)
            if letter == "D":
                gone.append(path)
                self.left.setdefault(path, []).append(when)
                self._deleted(path, old_blob, commit, when)
            else:
                if letter == "A":
                    added.append(path)
                    self._came_with(path, new_blob, commit, when)
                self._changed(path, new_blob, when)
        if gone and added:
            self._pair_up(gone, added, renames, commit, when)

    def _deleted(self, path: str, old_blob: str, commit: str, when: float) -> None:
        """A file one commit deleted (the newest deletion is kept: the walk is newest
        first), and the content it left, for :meth:`copied_away` to find who took it."""
        self.deleted.setdefault(path, (commit, when))
        if old_blob and path not in self._left and not _EMPTY_BLOB.startswith(old_blob):
            self._left[path] = old_blob
            self._made.setdefault(old_blob, ("", 0.0))
            later = self._came.get(old_blob)
            if later is not None and later[0] != path and later[2] > when:
                self._readded[path] = later

    def _came_with(self, path: str, new_blob: str, commit: str, when: float) -> None:
        """The content a file one commit added came with (not the work tree's), for
        :meth:`_deleted` to find a file deleted whose content a later commit added back
        (one path only: content several added says nothing)."""
        if new_blob and commit != WORK_TREE:
            came = self._came
            came[new_blob] = (path, commit, when) if new_blob not in came else None

    def _changed(self, path: str, new_blob: str, when: float) -> None:
        """A file one commit added or changed: when, and whether it took the content a
        file deleted later left (one path that took it, else None)."""
        self.changes.setdefault(path, []).append(when)
        made = self._made
        if new_blob in made and self._left.get(path) != new_blob:
            # another path took the content a file deleted later left
            took = made[new_blob]
            made[new_blob] = (path, when) if took[0] in ("", path) else (None, 0.0)

    def _pair_up(
        self,
        gone: list[str],
        added: list[str],
        renames: list[tuple[str, str]],
        commit: str,
        when: float,
    ) -> None:
        """The files one commit deleted and added that git did not pair as renames: the
        same file retyped or moved by name, and the rest moved with their folder."""
        pairs = retyped(gone, added) + moved_by_name(gone, added)
        for old, new in pairs:
            self._rename(old, new, commit, when)
        paired = {old for old, _new in pairs}
        left = [p for p in gone if p not in paired]
        for old, new in moved_with_folder(renames + pairs, left, added):
            self._rename(old, new, commit, when)

    def copied_away(self) -> None:
        """The files deleted whose last content one other file took before, after the
        deleted one was made (a copy made in one commit, the original deleted in a later
        one: ``src/agent/x.ts`` copied to ``packages/agents/x.ts``, then ``src/`` cleaned
        up) as renames; an older file of that content is the original, not a copy, and a
        file deleted too is none."""
        for path, blob in self._left.items():
            other, took = self._made.get(blob, (None, 0.0))
            if not other or other in self._left or path in self.renamed:
                continue
            if took > min(self.changes.get(path) or (took,)):  # the copy came after it
                commit, when = self.deleted[path]
                self._rename(path, other, commit, when)
        for path, (other, commit, when) in self._readded.items():
            if path not in self.renamed and other not in self._left and other not in self.renamed:
                self._rename(path, other, commit, when)  # deleted, its content added later
        self._left, self._made, self._came, self._readded = {}, {}, {}, {}
        self._copied_below()

    def _copied_below(self) -> None:
        """The files deleted that no rename took, whose whole path one file took below a
        new folder while they were still there (``app/main.py`` copied to
        ``backend/app/main.py``, the copy edited, then ``app/`` deleted): a folder copied
        whole and its original cleaned up later is a move, though the contents differ."""
        for path, (commit, when) in list(self.deleted.items()):
            times = self.changes.get(path) or [when]
            if "/" not in path or path in self.renamed or max(times) > when:
                continue  # a root file's name says too little; a file made again is there
            made = min(times)
            copies = [c for c in self.ending_with(path) if made < self._arrival(c, when) <= when]
            if len(copies) == 1:
                self._rename(path, copies[0], commit, when)

    def _arrival(self, path: str, when: float) -> float:
        """When the file at ``path`` that was there at ``when`` came (inf: none was)."""
        gone = max((t for t in self.left.get(path, ()) if t <= when), default=float("-inf"))
        times = [t for t in self.changes.get(path, ()) if gone < t <= when]
        return min(times) if times and gone < when else float("inf")

    def _rename(self, old: str, new: str, commit: str, when: float) -> None:
        """A rename git saw (the newest of a path is kept: the walk is newest first, and a
        move found after it may be newer than one it saw)."""
        for table, key, value in ((self.renamed, old, new), (self.arrived, new, old)):
            if key not in table or table[key][2] < when:
                table[key] = (value, commit, when)

    def before(self, path: str, when: float) -> tuple[str, str] | None:
        """(where the file at ``path`` was at ``when``, the commit of its newest rename)
        when git saw it renamed into ``path`` since then (None: it was there, or new)."""
        commit = None
        seen = {path}
        while path in self.arrived:
            old, step, time = self.arrived[path]
            if time <= when or old in seen:
                break
            commit = commit or step
            path = old
            seen.add(path)
        return (path, commit) if commit is not None else None

    def follow(self, path: str, files: ProjectFiles) -> tuple[str, str] | None:
        """(path now, commit of the last rename) for a path git saw renamed, following
        renames to the end of the trail (each later than the one before: a file renamed
        away and then made anew at its old place is another file); when the end does not
        exist now, the first place on the trail that does; None when none does."""
        commit = None
        seen = set()
        first = None
        last = float("-inf")
        while path in self.renamed and path not in seen:
            seen.add(path)
            new, step, when = self.renamed[path]
            if when < last:
                break
            path, commit, last = new, step, when
            if first is None and files.exists(path):
                first = path, commit
        if commit is not None and path != (first or ("",))[0] and files.exists(path):
            return path, commit
        return first

    def gone_at(self, path: str) -> float | None:
        """When ``path`` stopped existing (renamed away or deleted), newest."""
        times = []
        if path in self.renamed:
            times.append(self.renamed[path][2])
        if path in self.deleted:
            times.append(self.deleted[path][1])
        return max(times) if times else None


_RAW = ("--no-ext-diff", "--no-textconv")
_EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the content id of an empty file

Entry = tuple[str, str | None, str, str, str]
"""A file a commit changed: status letter, the old path of a rename or a copy (or None),
the path, its content ids before and after ('' when not known)."""


def _log(root: str, job: GitJob, since: str | None) -> tuple[bytes, bool]:
    """The log :meth:`GitPast.start` started, and whether git detected renames in it;
    when its rename detection failed (a file's content is missing, as in a partial
    clone), the log without it: which paths existed, when they went and the renames that
    kept the content (:func:`by_content`) are still known."""
    try:
        return job.result(), True
    except GitStalled:
        raise
    except GitUnavailable:
        args = ["log", "-z", "--relative", "--no-renames", "--raw", *_RAW, "--format=%x01%H %ct"]
        return run_git(root, *args, *([f"{since}..HEAD"] if since else [])), False


def raw_entries(fields: list[str]) -> list[Entry]:
    """The entries of git's ``--raw -z`` output for one commit (``fields``: split at its
    NULs); an entry cut short ends the list."""
    out: list[Entry] = []
    append = out.append
    i, count = 0, len(fields)
    while i < count:
        parts = fields[i].split(" ") if fields[i][:1] == ":" else ()
        if len(parts) < 5:
            i += 1
            continue
        letter = parts[4][:1]
        if letter == "R" or letter == "C":
            if i + 2 >= count:
                break
            append((letter, fields[i + 1], fields[i + 2], parts[2], parts[3]))
            i += 3
        else:
            if i + 1 >= count:
                break
            before = "" if letter == "A" else parts[2]
            append((letter, None, fields[i + 1], before, "" if letter == "D" else parts[3]))
            i += 2
    return out


def by_content(entries: list[Entry]) -> list[Entry]:
    """One commit's ``entries``, read without rename detection, with a file deleted and
    one added with the same content a rename: git's own detection needs the contents,
    which a partial clone may lack; the ids it always has. Only a content that one file
    left and one took counts (an empty file does not)."""
    went: dict[str, list[str]] = {}
    came: dict[str, list[str]] = {}
    for letter, _old, path, old_blob, new_blob in entries:
        if letter == "D" and not _EMPTY_BLOB.startswith(old_blob):
            went.setdefault(old_blob, []).append(path)
        elif letter == "A" and not _EMPTY_BLOB.startswith(new_blob):
            came.setdefault(new_blob, []).append(path)
    pairs = {
        went[blob][0]: came[blob][0]
        for blob in went.keys() & came.keys()
        if len(went[blob]) == 1 and len(came[blob]) == 1
    }
    if not pairs:
        return entries
    taken = set(pairs.values())
    out: list[Entry] = []
    for entry in entries:
        letter, _old, path, old_blob, new_blob = entry
        if path in pairs:
            out.append(("R", path, pairs[path], old_blob, old_blob))
        elif not (letter == "A" and path in taken):
            out.append(entry)
    return out


def moved_with_folder(
    renames: list[tuple[str, str]], gone: list[str], added: list[str]
) -> list[tuple[str, str]]:
    """The files a commit deleted from a folder it renamed and added at the same place in
    the new folder (``crates/ichimi/src/lib.rs`` -> ``crates/vantage/src/lib.rs``, rewritten
    too much for git to pair, while the rest of ``crates/ichimi/`` went to
    ``crates/vantage/``); a folder counts only when its renamed files all went to one."""
    if not renames or not gone:
        return []
    into: dict[str, set[str]] = {}
    for old, new in renames:
        o, n = old.split("/"), new.split("/")
        same = 0
        while same < min(len(o), len(n)) - 1 and o[-1 - same] == n[-1 - same]:
            same += 1
        if same:
            into.setdefault("/".join(o[:-same]) + "/", set()).add("/".join(n[:-same]) + "/")
    folders = {old: next(iter(new)) for old, new in into.items() if len(new) == 1}
    if not folders:
        return []
    came = set(added)
    out = []
    for path in gone:
        head = path
        while "/" in head:
            head = head.rsplit("/", 1)[0]
            new_folder = folders.get(head + "/")
            if new_folder is not None:
                new = new_folder + path[len(head) + 1 :]
                if new in came:
                    out.append((path, new))
                break
    return out


def retyped(gone: list[str], added: list[str]) -> list[tuple[str, str]]:
    """The files a commit deleted and added again under the same name with another
    extension (``webpack.config.js`` -> ``webpack.config.ts``, a rewrite git's rename
    detection misses), each only when one file of that name went and one came."""
    went: dict[str, list[str]] = {}
    came: dict[str, list[str]] = {}
    for paths, into in ((gone, went), (added, came)):
        for path in paths:
            stem, dot, _ext = path.rpartition(".")
            if dot and stem and not stem.endswith("/"):
                into.setdefault(stem, []).append(path)
    return [
        (went[stem][0], came[stem][0])
        for stem in went.keys() & came.keys()
        if len(went[stem]) == 1 and len(came[stem]) == 1
    ]


def moved_by_name(gone: list[str], added: list[str]) -> list[tuple[str, str]]:
    """The files a commit deleted and added again under the same name in another folder
    (``docs/contract.md`` -> ``docs/api-contract/contract.md``: a move git's rename
    detection misses when the file changed much or its content is not at hand), each only
    when one file of that name went and one came."""
    went: dict[str, list[str]] = {}
    came: dict[str, list[str]] = {}
    for paths, into in ((gone, went), (added, came)):
        for path in paths:
            into.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    return [
        (went[name][0], came[name][0])
        for name in went.keys() & came.keys()
        if len(went[name]) == 1 and len(came[name]) == 1
    ]


def memory_times(
    files: ProjectFiles,
    past: GitPast,
    real_paths: dict[str, str],
    dirty: set[str] | None = None,
) -> dict[str, float]:
    """When each memory last changed: its last commit when the file is committed and clean,
    else its modification time (what the store's history records for it); ``dirty``:
    :func:`dirty_memories`, when asked already."""
    out: dict[str, float] = {}
    if dirty is None:
        dirty = dirty_memories(files)
    for name, real in real_paths.items():
        rel = os.path.relpath(real, files.root).replace(os.sep, "/")
        times = past.changes.get(rel) if is_inside(real, (files.root,)) else None
        if times and rel not in dirty:
            out[name] = max(t for t in times)
            continue
        try:
            out[name] = os.stat(real).st_mtime
        except OSError:
            continue
    return out


def dirty_memories(files: ProjectFiles) -> set[str]:
    """The files under ``.serena`` with changes not committed (paths from the root)."""
    dirty: set[str] = set()
    if not files.git:
        return dirty
    try:
        status = run_git(
            files.root,
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--",
            ".serena",
        )
    except GitUnavailable:
        return dirty
    # porcelain paths are relative to the top of the work tree
    for item in status.decode("utf-8", "replace").split("\0"):
        if len(item) > 3 and item[3:].startswith(files.prefix):
            dirty.add(item[3 + len(files.prefix) :])
    return dirty
