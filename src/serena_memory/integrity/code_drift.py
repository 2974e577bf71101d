"""Memories checked against the code they describe (``check --code``, the read note):
which mentioned paths and symbols are missing now, which paths git saw move (and where
to), which files changed a lot since the memory last changed.

:class:`CodeChecker` puts together the parts, each a module of its own subject: git run
safely (:mod:`~serena_memory.integrity.code_git`), the project's files
(:mod:`~serena_memory.integrity.code_project`), what git remembers
(:mod:`~serena_memory.integrity.code_history`), the symbols of the source files
(:mod:`~serena_memory.integrity.code_symbols`) and the findings and their report
(:mod:`~serena_memory.integrity.code_findings`).

Nothing is ever read from a mentioned path: a path is looked up in the project's list of
files, never opened, so an absolute path, a ``..`` or a link out of the project can't make
a check read anything. Git runs with a configuration of this package's own, never the
repository's, so a hostile repository's configuration runs nothing and blocks nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from serena_memory.core.paths import is_inside
from serena_memory.integrity.code_findings import CHANGED, MISSING, MOVED, CodeFinding, CodeReport
from serena_memory.integrity.code_git import (
    GitJob,
    GitStalled,
    GitUnavailable,
    Repository,
    locate,
    run_git,
)
from serena_memory.integrity.code_history import GitPast
from serena_memory.integrity.code_mentions import PATH, SYMBOL, Mention, extract
from serena_memory.integrity.code_project import ProjectFiles
from serena_memory.integrity.code_symbols import (
    find_words,
    source_identifiers,
    start_identifier_scan,
)

if TYPE_CHECKING:
    from serena_memory.integrity.code_cache import IdentifierScan

DEFAULT_CHANGED_COMMITS = 10
"""A mentioned file with this many commits since the memory last changed is ``changed``."""


def _single_threaded() -> bool:
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


def _symbol_finding(
    memory: str, m: Mention, present: set[str], read_only: bool = False
) -> CodeFinding | None:
    """The finding of a symbol whose identifiers are not all in ``present`` (None: all are)."""
    words = m.words
    absent = [w for w in words if w not in present]
    if not absent:
        return None
    note = f"`{absent[0]}` is in no source file" if len(words) > 1 else ""
    return CodeFinding(
        memory, m.line, m.text, SYMBOL, MISSING, m.target, note=note, read_only=read_only
    )


class CodeChecker:
    """Resolves the mentions of many memories against one listing of the project."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        files: ProjectFiles | None = None,
        *,
        history: bool = True,
        changed_commits: int = DEFAULT_CHANGED_COMMITS,
        past: GitPast | None = None,
        cache_home: str | os.PathLike[str] | None = None,
    ) -> None:
        self.root = files.root if files is not None else os.path.realpath(root)
        self.cache_home = cache_home  # where the source files' identifiers are kept
        self._files = files
        self._want_history = history
        self.changed_commits = changed_commits
        self._past: GitPast | None = past
        self._identifiers: set[bytes] | None = None
        self._listing: tuple[GitJob, GitJob] | None = None
        self._walk: tuple[GitJob, GitJob] | None = None
        self._scan: GitJob | IdentifierScan | None = None
        self._symbols_note = ""  # why the symbols were not checked

    def prefetch(self, symbols: bool = True) -> None:
        """Start listing the files, walking the history and scanning the source files: git
        works while this process reads the memories (no thread is started, so the process
        may still fork)."""
        if self._files is None and self._listing is None:
            self._listing = ProjectFiles.start(self.root)
        if self._want_history and self._past is None and self._walk is None:
            self._walk = GitPast.start(self.root)
        if symbols and self._identifiers is None and self._scan is None:
            if self.cache_home is not None:
                from serena_memory.integrity.code_cache import IdentifierScan

                self._scan = IdentifierScan(self.root, self.cache_home, _single_threaded)
            else:
                self._scan = start_identifier_scan(self.root)

    def wait(self) -> None:
        """Take what :meth:`prefetch` started (an error of the identifier scan is raised)."""
        if self._walk is not None:
            self.past  # noqa: B018
        if self._scan is not None:
            scan, self._scan = self._scan, None
            if self.files.git:
                try:
                    self._identifiers = source_identifiers(self.files, scan)
                except GitStalled as exc:
                    self._symbols_note = f"{exc}: symbols were not checked"
            else:
                scan.discard()

    @property
    def notes(self) -> list[str]:
        """Why a part of the check went without git although this is a work tree (git
        ran out of time): one sentence each."""
        past = self._past.note if self._past is not None else ""
        return [n for n in (self.files.note, past, self._symbols_note) if n]

    @property
    def files(self) -> ProjectFiles:
        if self._files is None:
            listing, self._listing = self._listing, None
            self._files = ProjectFiles.load(self.root, listing)
        return self._files

    @property
    def history(self) -> bool:
        return self._want_history and self.files.git

    @property
    def walked(self) -> GitPast | None:
        """The history if it was walked already (None: not yet)."""
        return self._past

    @property
    def past(self) -> GitPast:
        if self._past is None:
            walk, self._walk = self._walk, None
            if self.history:
                self._past = GitPast.load(self.files.root, started=walk)
            else:
                for job in walk or ():
                    job.discard()
                self._past = GitPast()
        return self._past

    def check(
        self,
        memories: dict[str, str],
        written: dict[str, float] | None = None,
        read_only: Iterable[str] = (),
        symbols: bool = True,
    ) -> CodeReport:
        """Findings for ``memories`` (name -> text); ``written``: when each memory last
        changed (seconds since the epoch), for ``changed`` and for "dead when written"."""
        found = {name: extract(text) for name, text in memories.items()}
        return self.check_mentions(found, written, read_only, symbols)

    def check_mentions(
        self,
        extracted: dict[str, list[Mention]],
        written: dict[str, float] | None = None,
        read_only: Iterable[str] = (),
        symbols: bool = True,
    ) -> CodeReport:
        """:meth:`check` for mentions already extracted (name -> :func:`extract` of its
        text)."""
        read_only = set(read_only)
        kept = self.kept
        mentions = {name: [m for m in every if kept(m)] for name, every in extracted.items()}
        report = CodeReport(scanned=len(extracted), git=self.files.git)
        report.mentions = sum(len(found) for found in mentions.values())
        words = _symbol_words(mentions) if symbols else set()
        self.wait()
        symbols = symbols and not self._symbols_note
        try:
            present = find_words(self.files, words, self._identifiers) if symbols else set()
        except GitStalled as exc:
            self._symbols_note, symbols, present = f"{exc}: symbols were not checked", False, set()
        for name in sorted(mentions):
            report.findings += self._findings(
                name,
                mentions[name],
                (written or {}).get(name),
                name in read_only,
                present if symbols else None,
            )
        report.findings = self.without_left_alone(report.findings)
        report.notes = self.notes
        return report

    def _findings(
        self,
        memory: str,
        mentions: list[Mention],
        when: float | None,
        read_only: bool,
        present: set[str] | None,
    ) -> list[CodeFinding]:
        """The findings of one memory's mentions (``present``: the symbols found in the
        source files; None: symbols are not checked)."""
        out = []
        check_path = self.check_path
        for m in mentions:
            if m.kind != SYMBOL:
                finding = check_path(memory, m, when, read_only)
            elif present is not None:
                finding = _symbol_finding(memory, m, present, read_only)
            else:
                continue
            if finding is not None:
                out.append(finding)
        return out

    def without_left_alone(self, findings: list[CodeFinding]) -> list[CodeFinding]:
        """Drop missing paths that git ignores (a local file, a build output: not the
        project's code) and, in a subproject, paths of the work tree outside it."""
        targets = sorted({f.target for f in findings if f.kind == PATH and f.status == MISSING})
        if not targets or not self.files.git:
            return findings
        alone = {a.rstrip("/") for a in self._ignored(targets) | self._outside(targets)}
        return [
            f
            for f in findings
            if not (f.kind == PATH and f.status == MISSING and f.target.rstrip("/") in alone)
        ]

    def _ignored(self, targets: list[str]) -> set[str]:
        """The ``targets`` git ignores."""
        try:
            out = run_git(
                self.files.root,
                "check-ignore",
                "-z",
                "--no-index",
                "--stdin",
                data="\0".join(t.rstrip("/") for t in targets).encode() + b"\0",
            )
        except GitUnavailable:
            return set()  # nothing ignored
        return {p for p in out.decode("utf-8", "replace").split("\0") if p}

    def _outside(self, targets: list[str]) -> set[str]:
        """In a subproject, the ``targets`` that name files of its work tree outside it."""
        if not self.files.prefix:
            return set()
        specs = [":(top,literal)" + t.rstrip("/") for t in targets]
        try:
            out = run_git(self.files.root, "ls-files", "-z", "--full-name", "--", *specs)
        except GitUnavailable:
            return set()
        listed = set(out.decode("utf-8", "replace").split("\0"))
        return {
            t
            for t in targets
            if t.rstrip("/") in listed or any(p.startswith(t.rstrip("/") + "/") for p in listed)
        }

    def kept(self, m: Mention) -> bool:
        if m.rooted and m.target.split("/", 1)[0] not in self.files.top:
            return False
        if m.kind == PATH and m.loose:
            first = m.target.split("/", 1)[0]
            return first in self.files.top or (
                bool(self.files.prefix) and m.target.startswith(self.files.prefix)
            )
        return True

    def check_path(
        self, memory: str, m: Mention, when: float | None, read_only: bool = False
    ) -> CodeFinding | None:
        """The finding of one path mention: missing, moved or changed (None: it names a
        file of the project that did not change much since ``when``)."""
        resolved = self.files.resolve(m.target)
        if resolved is not None:
            return self._changed(memory, m, resolved, when, read_only)
        if not self.history:
            return CodeFinding(memory, m.line, m.text, PATH, MISSING, m.target, read_only=read_only)
        candidates, moves = self._moves(m.target)
        if len(moves) == 1:
            ((new, (_old, commit)),) = moves.items()
            if m.target.endswith("/") and not new.endswith("/"):
                new += "/"
            return CodeFinding(
                memory,
                m.line,
                m.text,
                PATH,
                MOVED,
                m.target,
                new_path=new,
                commit=commit,
                read_only=read_only,
            )
        note = self._missing_note(m.target, candidates, moves, when)
        return CodeFinding(
            memory, m.line, m.text, PATH, MISSING, m.target, note=note, read_only=read_only
        )

    def _changed(
        self, memory: str, m: Mention, resolved: str, when: float | None, read_only: bool
    ) -> CodeFinding | None:
        """A ``changed`` finding for a file that exists, when enough commits changed it
        since the memory last changed."""
        if not self.history or when is None or self.changed_commits <= 0 or resolved.endswith("/"):
            return None
        since = sum(1 for t in self.past.changes.get(resolved, ()) if t > when)
        if since < self.changed_commits:
            return None
        return CodeFinding(
            memory,
            m.line,
            m.text,
            PATH,
            CHANGED,
            m.target,
            commits_since=since,
            read_only=read_only,
        )

    def _moves(self, target: str) -> tuple[list[str], dict[str, tuple[str, str]]]:
        """The paths git may have known a missing ``target`` by (itself, itself below the
        subproject, and for a suffix git never saw the paths git saw ending with it), and
        where they went (path now -> (old path, commit of the rename))."""
        past, files = self.past, self.files
        bare = target.rstrip("/")
        candidates = [bare]
        if files.prefix and target.startswith(files.prefix):
            candidates.append(target[len(files.prefix) :].rstrip("/"))
        if bare not in past.renamed and bare not in past.seen:
            tail = "/" + bare
            candidates += sorted({p for p in past.seen if p.endswith(tail)})
        moves = {}
        for old in candidates:
            found = past.follow(old, files)
            if found is not None:
                moves[found[0]] = (old, found[1])
        if target.endswith("/") and not moves:
            moves = self._moved_folder(bare)
        return candidates, moves

    def _missing_note(
        self,
        target: str,
        candidates: list[str],
        moves: dict[str, tuple[str, str]],
        when: float | None,
    ) -> str:
        """What git says about a path that is missing and did not move to one place."""
        past = self.past
        gone = [t for t in (past.gone_at(c) for c in candidates) if t is not None]
        if len(moves) > 1:
            return "moved to several places: " + ", ".join(sorted(moves))
        if (
            not gone
            and not any(c in past.seen for c in candidates)
            and not self._folder_seen(target)
        ):
            return "never in the git history: a plan or a typo?"
        if gone and when is not None and max(gone) <= when:
            return "already gone when the memory last changed"
        if target.rstrip("/") in past.deleted:
            return f"deleted in commit {past.deleted[target.rstrip('/')][0][:10]}"
        return ""

    def _folder_seen(self, target: str) -> bool:
        head = target.rstrip("/") + "/"
        return any(p.startswith(head) for p in self.past.seen)

    def _moved_folder(self, folder: str) -> dict[str, tuple[str, str]]:
        """A folder whose files git saw renamed into one other folder: that folder."""
        head = folder + "/"
        targets: dict[str, str] = {}
        for old, (new, commit, _) in self.past.renamed.items():
            if old.startswith(head):
                rest = old[len(head) :]
                if new.endswith("/" + rest) and self.files.exists(new):
                    targets[new[: -len(rest)]] = commit
        if len(targets) == 1:
            new, commit = next(iter(targets.items()))
            return {new: (folder, commit)}
        return {}


def _symbol_words(mentions: dict[str, list[Mention]]) -> set[str]:
    """The identifiers of every symbol mentioned."""
    return {w for found in mentions.values() for m in found if m.kind == SYMBOL for w in m.words}


def extract_forked(
    chunks: list[list[str]],
    read: Callable[[list[str]], dict[str, str]],
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, list[Mention]]:
    """The mentions of the memories named in ``chunks`` (name -> :func:`extract` of the
    text ``read`` gives): every chunk but the first read and extracted by a forked worker
    process, the first by this one, after ``meanwhile`` (work the workers need not
    share). Only for a process that runs no threads (forking one that does is unsafe); a
    worker that fails has its chunk done again here."""

    from serena_memory.integrity.workers import forked

    def part(names: list[str]) -> dict[str, list[Mention]]:
        return {name: extract(text) for name, text in read(names).items()}

    found: dict[str, list[Mention]] = {}
    for mentions in forked(chunks, part, meanwhile):
        found.update(mentions)
    return found


def memory_times(
    files: ProjectFiles, past: GitPast, real_paths: dict[str, str]
) -> dict[str, float]:
    """When each memory last changed: its last commit when the file is committed and clean,
    else its modification time (what the store's history records for it)."""
    out: dict[str, float] = {}
    dirty: set[str] = set()
    if files.git:
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
            # porcelain paths are relative to the top of the work tree
            for item in status.decode("utf-8", "replace").split("\0"):
                if len(item) > 3 and item[3:].startswith(files.prefix):
                    dirty.add(item[3 + len(files.prefix) :])
        except GitUnavailable:
            pass
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


# -- the read note ------------------------------------------------------------------------------
@dataclass
class _Held:
    listed: float
    stamp: tuple[Any, ...]
    checker: CodeChecker
    repo: Repository | None


_CACHE: dict[str, _Held] = {}
CACHE_SECONDS = 5.0
"""How long a listing of the project's files serves the read notes (new untracked files
show up after this; a commit, a checkout or a staged change at once)."""


def _stamp(repo: Repository | None) -> tuple[Any, ...]:
    """What says git's view changed: its index, HEAD, the branch HEAD names, packed refs."""
    if repo is None:
        return ()
    out: list[Any] = []
    places = [(repo.git_dir, "index"), (repo.git_dir, "HEAD"), (repo.common_dir, "packed-refs")]
    ref = repo.head()
    if ref.startswith("ref: refs/"):
        places.append((repo.common_dir, ref[5:]))
    for folder, name in places:
        try:
            st = os.stat(os.path.join(folder, name))
            out.append((name, st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            out.append((name, None))
    return tuple(out)


def cached_checker(root: str) -> CodeChecker:
    """One checker per project and process for the read notes: the git history it walked
    is kept while git's index and refs stay the same; the list of files is taken again
    after :data:`CACHE_SECONDS`."""
    real = os.path.realpath(root)
    now = time.monotonic()
    held = _CACHE.get(real)
    if held is not None:
        stamp = _stamp(held.repo)
        if stamp == held.stamp:
            if now - held.listed < CACHE_SECONDS:
                return held.checker
            # the same commits and index: the history walked before still holds
            checker = CodeChecker(real, changed_commits=0, past=held.checker.walked)
            _CACHE[real] = _Held(now, stamp, checker, held.repo)
            return checker
    checker = CodeChecker(real, changed_commits=0)
    repo = locate(real) if checker.files.git else None
    _CACHE[real] = _Held(now, _stamp(repo), checker, repo)
    return checker


def memory_findings(root: str, name: str, text: str) -> list[CodeFinding]:
    """The missing and moved paths of one memory, in the order written (symbols are left
    to `check --code`, "changed" hints too): cheap enough for every read."""
    if "/" not in text and "." not in text:
        return []
    checker = cached_checker(root)
    paths = [m for m in extract(text) if m.kind == PATH and checker.kept(m)]
    if not paths:
        return []
    found = [f for f in (checker.check_path(name, m, None) for m in paths) if f is not None]
    return checker.without_left_alone(found) if found else []


def read_note(root: str, name: str, text: str) -> str:
    """A short note naming the missing and moved paths of one memory ('' when none):
    what an agent reading it must not act on. Symbols are left to `check --code`."""
    found = memory_findings(root, name, text)
    if not found:
        return ""
    parts = []
    for f in found[:8]:
        if f.status == MOVED:
            parts.append(f"`{f.mention}` (line {f.line}) is now `{f.new_path}`")
        else:
            parts.append(f"`{f.mention}` (line {f.line}) names no file of the project now")
    more = f" and {len(found) - 8} more" if len(found) > 8 else ""
    return (
        "\n\n---\nNote: this memory mentions code that has changed: "
        + "; ".join(parts)
        + more
        + ". Don't rely on those mentions; verify in the code (and update the memory)."
    )
