"""Memories checked against the code they describe: which mentioned paths and symbols are
missing now, which paths git saw move (and where to), which files changed a lot since the
memory last changed.

The project's files are git's own list (``git ls-files --cached --others
--exclude-standard``: ignored files are not the project's code), or, outside a git work
tree, the files on disk. Nothing is ever read from a mentioned path: a path is looked up
in the list, never opened, so an absolute path, a ``..`` or a link out of the project
can't make a check read anything. Symbols are searched as whole words in the project's
tracked source files by one ``git grep`` (or, without git, by reading the regular files
below the project through the path gate). Git runs with its command hooks turned off
(no fsmonitor, no external diff, no text conversion), so a hostile repository's
configuration runs nothing.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.paths import is_inside, read_regular_file
from serena_memory.integrity.code_mentions import PATH, SYMBOL, Mention, extract

if TYPE_CHECKING:
    from serena_memory.integrity.code_cache import IdentifierScan

MISSING = "missing"
WORK_TREE = "work-tree"  # the "commit" of a change not committed yet
MOVED = "moved"
CHANGED = "changed"

GIT_TIMEOUT = 60.0
DEFAULT_CHANGED_COMMITS = 10
"""A mentioned file with this many commits since the memory last changed is ``changed``."""

MEMORIES_FOLDER = ".serena/memories/"
DOC_EXTENSIONS = ("md", "mdx", "rst", "txt", "adoc")
"""Not searched for symbols: prose that mentions a symbol is not its definition."""

NO_GIT_SKIPPED_FOLDERS = frozenset(
    {".git", ".serena", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"}
)
"""Folders not listed when the project is not a git work tree (no .gitignore to ask)."""
NO_GIT_MAX_FILES = 200_000
NO_GIT_MAX_SOURCE_BYTES = 1024 * 1024

_SAFE_GIT = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "diff.external=",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
)


class GitUnavailable(Exception):
    """git is not installed, the folder is no work tree, or git refused it."""


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"  # a read never takes the index lock
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EXTERNAL_DIFF"):
        env.pop(key, None)
    return env


def run_git(
    root: str, *args: str, timeout: float = GIT_TIMEOUT, data: bytes | None = None
) -> bytes:
    """git's output for ``args`` run in ``root``; GitUnavailable when it fails."""
    try:
        result = subprocess.run(
            ["git", *_SAFE_GIT, *args],
            cwd=root,
            env=_git_env(),
            input=data,
            capture_output=True,
            timeout=timeout,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise GitUnavailable(f"git did not finish within {int(timeout)} seconds") from None
    except (FileNotFoundError, OSError) as exc:
        raise GitUnavailable(str(exc)) from None
    if result.returncode != 0:
        raise GitUnavailable(result.stderr.decode("utf-8", "replace").strip())
    return result.stdout


class GitJob:
    """A git command started now whose output is read later (:meth:`result`): it runs
    while this process reads the memories. Its output goes to an unnamed temporary file,
    not a pipe, so git never waits for a reader, and no thread is needed, so the process
    may still fork workers while it runs."""

    def __init__(self, root: str, *args: str, timeout: float = GIT_TIMEOUT) -> None:
        self._timeout = timeout
        self._started = time.monotonic()
        self._done: bytes | GitUnavailable | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _finish
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _finish
        try:
            self._proc = subprocess.Popen(
                ["git", *_SAFE_GIT, *args],
                cwd=root,
                env=_git_env(),
                stdin=subprocess.DEVNULL,
                stdout=self._out,
                stderr=self._err,
            )
        except (FileNotFoundError, OSError) as exc:
            self._finish(GitUnavailable(str(exc)))

    def _finish(self, done: bytes | GitUnavailable) -> None:
        self._done = done
        self._out.close()
        self._err.close()

    def result(self) -> bytes:
        """git's output; GitUnavailable when it failed or did not finish in time."""
        if self._done is None:
            assert self._proc is not None
            left = max(0.0, self._timeout - (time.monotonic() - self._started))
            try:
                status = self._proc.wait(timeout=left)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
                self._finish(
                    GitUnavailable(f"git did not finish within {int(self._timeout)} seconds")
                )
            else:
                self._out.seek(0)
                self._err.seek(0)
                if status != 0:
                    message = self._err.read().decode("utf-8", "replace").strip()
                    self._finish(GitUnavailable(message))
                else:
                    self._finish(self._out.read())
        if isinstance(self._done, GitUnavailable):
            raise self._done
        assert self._done is not None
        return self._done

    def discard(self) -> None:
        """Stop waiting for the output: git is ended if it still runs."""
        if self._done is None and self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            self._finish(b"")


# -- the project's files ----------------------------------------------------------------------
@dataclass
class ProjectFiles:
    """The files of a project, as paths relative to its root (``/``-separated)."""

    root: str
    git: bool
    files: frozenset[str]
    prefix: str = ""  # the project's folder inside its git work tree ('' at the top)
    dirs: frozenset[str] = field(default_factory=frozenset)
    by_name: dict[str, list[str]] = field(default_factory=dict)

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
        except GitUnavailable:
            listed_job.discard()
            return cls(real, False, frozenset(_walk(real)))
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


def _walk(root: str) -> Iterable[str]:
    """The files below ``root`` (links are listed, never followed)."""
    count = 0
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in NO_GIT_SKIPPED_FOLDERS)
        rel = os.path.relpath(folder, root)
        for name in filenames:
            count += 1
            if count > NO_GIT_MAX_FILES:
                return
            yield name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}"


# -- what git remembers ------------------------------------------------------------------------
@dataclass
class GitPast:
    """From one walk of the history (newest first): where renamed paths went, when paths
    were deleted, when files and memories last changed, which paths ever existed."""

    renamed: dict[str, tuple[str, str, float]] = field(default_factory=dict)  # old -> new, commit
    deleted: dict[str, tuple[str, float]] = field(default_factory=dict)  # path -> commit, time
    changes: dict[str, list[float]] = field(default_factory=dict)  # path -> commit times
    seen: set[str] = field(default_factory=set)

    @staticmethod
    def start(root: str, since: str | None = None) -> tuple[GitJob, GitJob]:
        """The git commands :meth:`load` reads, started: what is staged or changed in the
        work tree (a `git mv` not yet committed is a move too), then the log."""
        args = ["log", "-z", "--relative", "-M", "--name-status", "--format=%x01%H %ct"]
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
            out = b"\x01" + WORK_TREE.encode() + b" " + str(time.time()).encode() + b"\0\n" + work
            out += log_job.result()
        except GitUnavailable:
            log_job.discard()
            return past  # no commit yet
        for block in out.decode("utf-8", "replace").split("\x01")[1:]:
            head, _, rest = block.partition("\n")
            commit, _, stamp = head.strip("\0").partition(" ")
            when = float(stamp or 0)
            fields = rest.strip("\0\n").split("\0")
            i = 0
            while i < len(fields):
                status = fields[i].strip()
                if not status:
                    i += 1
                    continue
                if status[0] in "RC":
                    if i + 2 >= len(fields):
                        break
                    old, new = fields[i + 1], fields[i + 2]
                    i += 3
                    past.seen.update((old, new))
                    if status[0] == "R":
                        past.renamed.setdefault(old, (new, commit, when))
                    past.changes.setdefault(new, []).append(when)
                    continue
                if i + 1 >= len(fields):
                    break
                path = fields[i + 1]
                i += 2
                past.seen.add(path)
                if status[0] == "D":
                    past.deleted.setdefault(path, (commit, when))
                else:
                    past.changes.setdefault(path, []).append(when)
        return past

    def follow(self, path: str, files: ProjectFiles) -> tuple[str, str] | None:
        """(path now, commit of the last rename) for a path git saw renamed, following
        renames until one exists now; None when the trail ends nowhere."""
        commit = None
        seen = set()
        while path in self.renamed and path not in seen:
            seen.add(path)
            path, commit, _ = self.renamed[path]
            if files.exists(path):
                return path, commit
        return None

    def gone_at(self, path: str) -> float | None:
        """When ``path`` stopped existing (renamed away or deleted), newest."""
        times = []
        if path in self.renamed:
            times.append(self.renamed[path][2])
        if path in self.deleted:
            times.append(self.deleted[path][1])
        return max(times) if times else None


# -- symbols -----------------------------------------------------------------------------------
def find_words(
    files: ProjectFiles, words: Iterable[str], identifiers: set[bytes] | None = None
) -> set[str]:
    """Which of ``words`` occur as whole words in the project's source files (memories and
    prose documents excluded): one ``git grep`` for all of them."""
    wanted = sorted(set(words))
    if not wanted:
        return set()
    if files.git:
        present = identifiers if identifiers is not None else source_identifiers(files)
        return {w for w in wanted if w.encode() in present}
    return _find_words_on_disk(files, wanted)


def start_identifier_scan(root: str) -> GitJob:
    """The ``git grep`` of :func:`source_identifiers`, started: every identifier of the
    source files, once, whatever the number of symbols asked (a fixed-string search for
    thousands of words at once is slow)."""
    excludes = [f":(exclude,glob)**/*.{ext}" for ext in DOC_EXTENSIONS]
    return GitJob(
        root,
        "grep",
        "-I",
        "-h",
        "-o",
        "-E",
        "--untracked",
        "--no-color",
        "--no-textconv",
        "-e",
        "[A-Za-z_][A-Za-z0-9_]*",
        "--",
        ".",
        ":(exclude).serena",
        *excludes,
    )


def source_identifiers(
    files: ProjectFiles, started: GitJob | IdentifierScan | None = None
) -> set[bytes]:
    """Every identifier in the tracked and untracked (not ignored) source files
    (``started``: :func:`start_identifier_scan` run in the project's root, or the kept
    scan of :mod:`serena_memory.integrity.code_cache`)."""
    if files.git:
        try:
            out = (started or start_identifier_scan(files.root)).result()
            if isinstance(out, set):
                return out
        except GitUnavailable as exc:
            if not str(exc):  # status 1 with no message: nothing matched
                return set()
            raise MemoryStoreError(
                f"the project's source files could not be searched for symbols ({exc}); "
                "run the check again, or leave symbols out"
            ) from None
        return set(out.split(b"\n"))
    return set()


def _single_threaded() -> bool:
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


def _find_words_on_disk(files: ProjectFiles, wanted: Sequence[str]) -> set[str]:
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in wanted) + r")\b")
    found: set[str] = set()
    allowed = (files.root,)
    for rel in files.files:
        if rel.startswith(".serena/") or rel.rsplit(".", 1)[-1].lower() in DOC_EXTENSIONS:
            continue
        path = os.path.join(files.root, rel)
        try:
            if os.path.islink(path) or os.path.getsize(path) > NO_GIT_MAX_SOURCE_BYTES:
                continue
            data = read_regular_file(path, allowed, f"file {rel}", NO_GIT_MAX_SOURCE_BYTES)
        except (OSError, MemoryStoreError):
            continue
        if b"\0" in data[:8000]:
            continue
        found.update(pattern.findall(data.decode("utf-8", "replace")))
        if len(found) == len(wanted):
            break
    return found


# -- findings ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CodeFinding:
    memory: str
    line: int
    mention: str
    kind: str
    status: str
    target: str = ""
    new_path: str | None = None
    commit: str | None = None
    commits_since: int | None = None
    note: str = ""
    read_only: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "memory": self.memory,
            "line": self.line,
            "mention": self.mention,
            "kind": self.kind,
            "status": self.status,
        }
        if self.status == MOVED:
            data["new_path"] = self.new_path
        if self.commit:
            data["commit"] = self.commit
        if self.status == CHANGED:
            data["commits_since"] = self.commits_since
        if self.note:
            data["note"] = self.note
        return data

    def describe(self) -> str:
        if self.status == MOVED:
            return f"`{self.mention}` moved to `{self.new_path}` (commit {str(self.commit)[:10]})"
        if self.status == CHANGED:
            return f"`{self.mention}` changed in {self.commits_since} commits since"
        what = "file or folder" if self.kind == PATH else "symbol"
        return f"`{self.mention}`: no such {what} now" + (f" ({self.note})" if self.note else "")


@dataclass
class CodeReport:
    findings: list[CodeFinding] = field(default_factory=list)
    scanned: int = 0
    mentions: int = 0
    git: bool = False
    since: str | None = None

    @property
    def failing(self) -> list[CodeFinding]:
        return [f for f in self.findings if f.status in (MISSING, MOVED)]

    def drifted(self) -> list[str]:
        return sorted({f.memory for f in self.failing})

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": [f.to_dict() for f in self.findings],
            "code_mentions": self.mentions,
            "code_git": self.git,
        }

    def to_text(self) -> str:
        from serena_memory.core.display import escape_line

        if not self.findings:
            where = "git's list of files" if self.git else "the files on disk"
            return (
                f"Code: {self.mentions} mention(s) of code in {self.scanned} memory(ies) "
                f"checked against {where}; none drifted.\n"
            )
        memories = len({f.memory for f in self.findings})
        out = [f"Code: {len(self.findings)} finding(s) in {memories} memory(ies):"]
        for f in self.findings:
            out.append(
                f"  {escape_line(f.memory)}:{f.line}: {f.status}: {escape_line(f.describe())}"
            )
        if not self.git:
            out.append("  (not a git work tree: moved and changed need git)")
        if any(f.status == MOVED for f in self.findings):
            out.append("Fix moved paths with `serena memories fix-code-references`.")
        return "\n".join(out) + "\n"


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
                self._identifiers = source_identifiers(self.files, scan)
            else:
                scan.discard()

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
        report = CodeReport(scanned=len(extracted), git=self.files.git)
        mentions: dict[str, list[Mention]] = {}
        words: set[str] = set()
        kept = self.kept
        for name, every in extracted.items():
            found = [m for m in every if kept(m)]
            mentions[name] = found
            report.mentions += len(found)
            if symbols:
                words.update(w for m in found if m.kind == SYMBOL for w in m.words)
        self.wait()
        present = find_words(self.files, words, self._identifiers) if symbols and words else set()
        for name in sorted(mentions):
            when = (written or {}).get(name)
            for m in mentions[name]:
                if m.kind == SYMBOL:
                    if not symbols:
                        continue
                    absent = [w for w in m.words if w not in present]
                    if absent:
                        report.findings.append(
                            CodeFinding(
                                name,
                                m.line,
                                m.text,
                                SYMBOL,
                                MISSING,
                                m.target,
                                note=f"`{absent[0]}` is in no source file"
                                if len(m.words) > 1
                                else "",
                                read_only=name in read_only,
                            )
                        )
                    continue
                finding = self.check_path(name, m, when, name in read_only)
                if finding is not None:
                    report.findings.append(finding)
        report.findings = self.without_left_alone(report.findings)
        return report

    def without_left_alone(self, findings: list[CodeFinding]) -> list[CodeFinding]:
        """Drop missing paths that git ignores (a local file, a build output: not the
        project's code) and, in a subproject, paths of the work tree outside it."""
        targets = sorted({f.target for f in findings if f.kind == PATH and f.status == MISSING})
        if not targets or not self.files.git:
            return findings
        alone: set[str] = set()
        try:
            out = run_git(
                self.files.root,
                "check-ignore",
                "-z",
                "--no-index",
                "--stdin",
                data="\0".join(t.rstrip("/") for t in targets).encode() + b"\0",
            )
            alone.update(p for p in out.decode("utf-8", "replace").split("\0") if p)
        except GitUnavailable:
            pass  # nothing ignored
        if self.files.prefix:
            specs = [":(top,literal)" + t.rstrip("/") for t in targets]
            try:
                out = run_git(self.files.root, "ls-files", "-z", "--full-name", "--", *specs)
                listed = set(out.decode("utf-8", "replace").split("\0"))
                alone.update(
                    t
                    for t in targets
                    if t.rstrip("/") in listed
                    or any(p.startswith(t.rstrip("/") + "/") for p in listed)
                )
            except GitUnavailable:
                pass
        alone = {a.rstrip("/") for a in alone}
        return [
            f
            for f in findings
            if not (f.kind == PATH and f.status == MISSING and f.target.rstrip("/") in alone)
        ]

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
        target = m.target
        resolved = self.files.resolve(target)
        if resolved is not None:
            if (
                not self.history
                or when is None
                or self.changed_commits <= 0
                or resolved.endswith("/")
            ):
                return None
            since = sum(1 for t in self.past.changes.get(resolved, ()) if t > when)
            if since >= self.changed_commits:
                return CodeFinding(
                    memory,
                    m.line,
                    m.text,
                    PATH,
                    CHANGED,
                    target,
                    commits_since=since,
                    read_only=read_only,
                )
            return None
        if not self.history:
            return CodeFinding(memory, m.line, m.text, PATH, MISSING, target, read_only=read_only)
        past = self.past
        candidates = [target.rstrip("/")]
        if self.files.prefix and target.startswith(self.files.prefix):
            candidates.append(target[len(self.files.prefix) :].rstrip("/"))
        if target.rstrip("/") not in past.renamed and target.rstrip("/") not in past.seen:
            tail = "/" + target.rstrip("/")
            olds = sorted({p for p in past.seen if p.endswith(tail)})
            candidates += olds
        moves = {}
        for old in candidates:
            found = past.follow(old, self.files)
            if found is not None:
                moves[found[0]] = (old, found[1])
        if target.endswith("/") and not moves:
            moves = self._moved_folder(target.rstrip("/"))
        if len(moves) == 1:
            ((new, (old, commit)),) = moves.items()
            if target.endswith("/") and not new.endswith("/"):
                new += "/"
            return CodeFinding(
                memory,
                m.line,
                m.text,
                PATH,
                MOVED,
                target,
                new_path=new,
                commit=commit,
                read_only=read_only,
            )
        note = ""
        gone = [t for t in (past.gone_at(c) for c in candidates) if t is not None]
        if len(moves) > 1:
            note = "moved to several places: " + ", ".join(sorted(moves))
        elif (
            not gone
            and not any(c in past.seen for c in candidates)
            and not self._folder_seen(target)
        ):
            note = "never in the git history: a plan or a typo?"
        elif gone and when is not None and max(gone) <= when:
            note = "already gone when the memory last changed"
        elif target.rstrip("/") in past.deleted:
            note = f"deleted in commit {past.deleted[target.rstrip('/')][0][:10]}"
        return CodeFinding(
            memory, m.line, m.text, PATH, MISSING, target, note=note, read_only=read_only
        )

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


_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/~^@{}-]*$")


@dataclass
class Window:
    """What changed since a revision: the paths deleted or renamed, the words on removed
    lines, the memories changed."""

    gone: set[str]
    removed_words: set[str]
    memories: set[str]

    def keep(self, findings: list[CodeFinding]) -> list[CodeFinding]:
        kept = []
        for f in findings:
            if f.memory in self.memories:
                kept.append(f)
            elif f.kind == PATH and f.status in (MISSING, MOVED):
                target = f.target.rstrip("/")
                if any(
                    g == target or g.endswith("/" + target) or g.startswith(target + "/")
                    for g in self.gone
                ):
                    kept.append(f)
            elif f.kind == SYMBOL and any(
                w in self.removed_words for w in re.findall(r"\w+", f.target)
            ):
                kept.append(f)
        return kept


def changes_since(files: ProjectFiles, rev: str) -> Window:
    """The :class:`Window` since ``rev`` (a commit; refused unless git knows it as one)."""
    if not files.git:
        raise MemoryStoreError("--since needs a git work tree; this project is not one")
    if not _REVISION.match(rev) or ".." in rev:
        raise MemoryStoreError(f"{rev!r} is not a revision; give a commit such as HEAD or main~3")
    try:
        commit = (
            run_git(
                files.root,
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                rev + "^{commit}",
            )
            .decode()
            .strip()
        )
    except GitUnavailable:
        raise MemoryStoreError(
            f"git knows no commit {rev!r}; give one such as HEAD or main~3"
        ) from None
    diff = ("--no-ext-diff", "--no-textconv", "--relative")
    names = run_git(files.root, "diff", "-z", "-M", "--name-status", *diff, commit)
    fields = names.decode("utf-8", "replace").split("\0")
    gone: set[str] = set()
    touched: set[str] = set()
    i = 0
    while i < len(fields):
        status = fields[i]
        if not status:
            i += 1
            continue
        if status[0] in "RC" and i + 2 < len(fields):
            if status[0] == "R":
                gone.add(fields[i + 1])
            touched.update((fields[i + 1], fields[i + 2]))
            i += 3
            continue
        if i + 1 < len(fields):
            if status[0] == "D":
                gone.add(fields[i + 1])
            touched.add(fields[i + 1])
        i += 2
    text = run_git(files.root, "diff", "-U0", *diff, commit, "--", ".", ":(exclude).serena")
    words: set[str] = set()
    for line in text.decode("utf-8", "replace").splitlines():
        if line.startswith("-") and not line.startswith("---"):
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", line))
    untracked = run_git(
        files.root, "ls-files", "-z", "--others", "--exclude-standard", "--", ".serena"
    )
    touched.update(untracked.decode("utf-8", "replace").split("\0"))
    memories = {
        p[len(MEMORIES_FOLDER) : -3]
        for p in touched
        if p.startswith(MEMORIES_FOLDER) and p.endswith(".md")
    }
    return Window(gone, words, memories)


# -- the read note ------------------------------------------------------------------------------
@dataclass
class _Held:
    listed: float
    stamp: tuple[Any, ...]
    checker: CodeChecker
    git_dir: str | None


_CACHE: dict[str, _Held] = {}
CACHE_SECONDS = 5.0
"""How long a listing of the project's files serves the read notes (new untracked files
show up after this; a commit, a checkout or a staged change at once)."""


def _stamp(git_dir: str | None) -> tuple[Any, ...]:
    """What says git's view changed: its index, HEAD, the branch HEAD names, packed refs."""
    if git_dir is None:
        return ()
    out: list[Any] = []
    names = ["index", "HEAD", "packed-refs"]
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8", errors="replace") as head:
            ref = head.read(512).strip()
        if ref.startswith("ref: refs/"):
            names.append(ref[5:])
    except OSError:
        pass
    for name in names:
        try:
            st = os.stat(os.path.join(git_dir, name))
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
        stamp = _stamp(held.git_dir)
        if stamp == held.stamp:
            if now - held.listed < CACHE_SECONDS:
                return held.checker
            # the same commits and index: the history walked before still holds
            checker = CodeChecker(real, changed_commits=0, past=held.checker.walked)
            _CACHE[real] = _Held(now, stamp, checker, held.git_dir)
            return checker
    checker = CodeChecker(real, changed_commits=0)
    git_dir = None
    if checker.files.git:
        try:
            git_dir = run_git(real, "rev-parse", "--absolute-git-dir").decode().strip() or None
        except GitUnavailable:
            git_dir = None
    _CACHE[real] = _Held(now, _stamp(git_dir), checker, git_dir)
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
