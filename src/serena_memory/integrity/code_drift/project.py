"""The project's files as the code checks see them, listed once per check: git's own list
(``git ls-files --cached --others --exclude-standard``: ignored files are not the
project's code) or, outside a git work tree, the files on disk. A mentioned path is looked
up in this list, never opened, so an absolute path, a ``..`` or a link out of the project
can't make a check read anything.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from serena_memory.integrity.code_drift.git import GitJob, GitStalled, GitUnavailable

NO_GIT_SKIPPED_FOLDERS = frozenset(
    {".git", ".serena", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"}
)
"""Folders not listed when the project is not a git work tree (no .gitignore to ask)."""
NO_GIT_MAX_FILES = 200_000


@dataclass
class ProjectFiles:
    """The files of a project, as paths relative to its root (``/``-separated)."""

    root: str
    git: bool
    files: frozenset[str]
    prefix: str = ""  # the project's folder inside its git work tree ('' at the top)
    note: str = ""  # why git's list was not used although this is a work tree
    dirs: frozenset[str] = field(default_factory=frozenset)
    by_name: dict[str, list[str]] = field(default_factory=dict)
    _folded: dict[str, list[str]] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        dirs: set[str] = set()
        by_name: dict[str, list[str]] = {}
        for path in sorted(self.files):  # the first file of a name is always the same one
            head, _, name = path.rpartition("/")
            by_name.setdefault(name, []).append(path)
            while head and head not in dirs:
                dirs.add(head)
                parent, _, dname = head.rpartition("/")
                by_name.setdefault(dname + "/", []).append(head + "/")
                head = parent
        self.dirs = frozenset(dirs)
        self.by_name = by_name
        self.top = frozenset(p.split("/", 1)[0] for p in self.files)

    @staticmethod
    def start(root: str) -> tuple[GitJob, GitJob]:
        """The git commands :meth:`load` reads, started."""
        return (
            GitJob(root, "rev-parse", "--show-prefix"),
            GitJob(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"),
        )

    @classmethod
    def load(
        cls, root: str | os.PathLike[str], started: tuple[GitJob, GitJob] | None = None
    ) -> ProjectFiles:
        """The project's files (``started``: the commands of :meth:`start`, run for the
        real path of ``root``)."""
        real = os.path.realpath(root)
        prefix_job, listed_job = started or cls.start(real)
        try:
            prefix = prefix_job.result().decode("utf-8", "replace")
            listed = listed_job.result()
        except GitUnavailable as exc:
            listed_job.discard()
            note = f"{exc}: the files on disk were used" if isinstance(exc, GitStalled) else ""
            return cls(real, False, frozenset(_walk(real)), note=note)
        files = {p for p in listed.decode("utf-8", "replace").split("\0") if p}
        return cls(real, True, frozenset(files), prefix.strip())

    def exists(self, target: str) -> bool:
        if target.endswith("/"):
            return target.rstrip("/") in self.dirs
        return target in self.files or target in self.dirs

    def suffix_matches(self, target: str) -> list[str]:
        """Tracked files (or folders, for ``x/``) whose path ends with ``/target``."""
        name = target.rstrip("/").rsplit("/", 1)[-1] + ("/" if target.endswith("/") else "")
        tail = "/" + target
        same_name = self.by_name.get(name, ())
        if name == target:  # a bare name: every path of that name ends with it
            found = list(same_name)
        else:
            found = [p for p in same_name if p.endswith(tail) or p == target]
        if not target.endswith("/"):
            found += [p + "/" for p in self.by_name.get(name + "/", ()) if ("/" + p).endswith(tail)]
        return found

    def resolve(self, target: str) -> str | None:
        """The project path a mention names: itself from the root, else the unique
        file ending with it (None: not found; an ambiguous suffix counts as found)."""
        if self.exists(target):
            return target
        if (
            self.prefix
            and target.startswith(self.prefix)
            and self.exists(target[len(self.prefix) :])
        ):
            return target[len(self.prefix) :]
        name = target.rsplit("/", 1)[-1]
        if name == target:  # a bare file name: the first file of that name, if any
            same = self.by_name.get(name)
            if same:
                return same[0]
        found = self.suffix_matches(target)
        return found[0] if found else None

    def in_other_case(self, target: str) -> str | None:
        """The one project path ``target`` names when case is ignored (``tests/App.API/``
        for ``tests/App.Api/``): git and Linux tell case apart, so the path as written
        names nothing, but the file it meant is plain. A bare name is looked up by name
        (a file's, or a folder's with its ``/``). None: no such path, or several."""
        if self._folded is None:
            folded: dict[str, list[str]] = {}
            for path in self.files:
                folded.setdefault(path.casefold(), []).append(path)
            for folder in self.dirs:
                folded.setdefault(folder.casefold() + "/", []).append(folder + "/")
            for name, paths in self.by_name.items():
                folded.setdefault("\0" + name.casefold(), []).extend(paths)
            self._folded = folded
        key = target.casefold()
        if "/" not in target.rstrip("/"):
            found = self._folded.get("\0" + key, [])
        elif target.endswith("/"):
            found = self._folded.get(key, [])
        else:
            found = self._folded.get(key, []) + self._folded.get(key + "/", [])
        return found[0] if len(found) == 1 and found[0] != target else None


def _walk(root: str) -> Iterable[str]:
    """The files below ``root`` (links to files are listed, none is followed), folder by
    folder from a list of folders still to read, not by recursion: a tree nested thousands
    deep costs no stack."""
    count = 0
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError:
            continue
        folders = []
        for entry in entries:
            path = f"{rel}/{entry.name}" if rel else entry.name
            try:
                is_folder = entry.is_dir()
                is_link = is_folder and entry.is_symlink()
            except OSError:
                continue
            if not is_folder:
                count += 1
                if count > NO_GIT_MAX_FILES:
                    return
                yield path
            elif not is_link and entry.name not in NO_GIT_SKIPPED_FOLDERS:
                folders.append(path)  # a link to a folder is neither listed nor entered
        pending.extend(reversed(folders))  # the first folder is read next, as os.walk does
