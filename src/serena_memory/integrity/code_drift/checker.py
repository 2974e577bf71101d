"""Memories checked against the code they describe (``check --code``; the read note of
:mod:`~serena_memory.integrity.code_drift.read_note` uses the same checker):
which mentioned paths and symbols are missing now, which paths git saw move (and where
to), which files changed a lot since the memory last changed.

:class:`CodeChecker` puts together the parts, each a module of its own subject: git run
safely (:mod:`~serena_memory.integrity.code_drift.git`), the project's files
(:mod:`~serena_memory.integrity.code_drift.project`), what git remembers
(:mod:`~serena_memory.integrity.code_drift.history`), the symbols of the source files
(:mod:`~serena_memory.integrity.code_drift.symbols`), where missing paths went
(:mod:`~serena_memory.integrity.code_drift.moves`), which missing paths are not the
project's code (:mod:`~serena_memory.integrity.code_drift.left_alone`), where missing
symbols went (:mod:`~serena_memory.integrity.code_drift.symbol_history`) and the
findings and their report (:mod:`~serena_memory.integrity.code_drift.code_report`).

Nothing is ever read from a mentioned path: a path is looked up in the project's list of
files, never opened, so an absolute path, a ``..`` or a link out of the project can't make
a check read anything. Git runs with a configuration of this package's own, never the
repository's, so a hostile repository's configuration runs nothing and blocks nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from serena_memory.integrity.code_drift.aliases import Aliases
from serena_memory.integrity.code_drift.code_report import (
    MISSING,
    MOVED,
    NO_CODE,
    CodeFinding,
    CodeReport,
)
from serena_memory.integrity.code_drift.drawn_tops import placed_tops
from serena_memory.integrity.code_drift.forms import (
    ALIAS,
)
from serena_memory.integrity.code_drift.git import GitJob, GitStalled, GitUnavailable, run_git
from serena_memory.integrity.code_drift.history import GitPast, dirty_memories, memory_times
from serena_memory.integrity.code_drift.ignored_then import (
    IgnoreChanges,
    ignore_changes,
    ignored_by,
    is_kind,
)
from serena_memory.integrity.code_drift.left_alone import LeftAlone
from serena_memory.integrity.code_drift.memory_names import memory_names, names_a_memory
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, Mention, extract
from serena_memory.integrity.code_drift.moves import still_there_at, there_at, unsaid_moves
from serena_memory.integrity.code_drift.path_checks import PathChecks
from serena_memory.integrity.code_drift.project import ProjectFiles
from serena_memory.integrity.code_drift.symbol_history import SymbolTrail, trail
from serena_memory.integrity.code_drift.symbols import (
    files_with_word,
    find_words,
    source_identifiers,
    start_identifier_scan,
)
from serena_memory.integrity.code_drift.trails import (
    absent_words,
    earliest,
    paths_by_line,
    with_trails,
)
from serena_memory.integrity.code_drift.within_statements import told_once
from serena_memory.integrity.code_drift.written_out import all_written_out
from serena_memory.integrity.code_drift.written_then import (
    gone_at,
    gone_since,
)

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.identifier_cache import IdentifierScan

SERENA_FOLDER = ".serena/"
"""The memories' own folder: on disk wherever a check runs, so a file below it that git
ignores now is local even when git tracked it once (``.serena/project.yml``)."""
DEFAULT_CHANGED_COMMITS = 10
"""A mentioned file with this many commits since the memory last changed is ``changed``."""
TRAIL_SECONDS = 2.0
"""How long one check may ask git's history where missing symbols went."""
MAX_TRAILS = 50
"""At most this many missing symbols' trails are asked per check."""
TRAIL_SECONDS_ON_READ = 0.5
"""How long reading one memory may ask git's history where its missing symbols went (an
answer git gave is kept: the next read has it)."""


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


class CodeChecker(PathChecks):
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
        self._dirty: set[str] | None = None  # the memories with changes not committed
        self._head: str | None = None
        self._head_time = 0.0  # when HEAD was committed
        self._symbols_note = ""  # why the symbols were not checked
        self._left_alone: LeftAlone | None = None
        self._file_stems: frozenset[str] | None = None
        self._memory_names: tuple[frozenset[str], frozenset[str] | None] | None = None
        self._aliases: Aliases | None = None
        self._ignore: tuple[float, IgnoreChanges] | None = None  # since, .gitignore lines

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
                from serena_memory.integrity.code_drift.identifier_cache import IdentifierScan

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
    def holds_code(self) -> bool:
        """Whether the project folder holds anything beside its memories (hidden files
        at most): without it every mention would be told missing, so no check, no read
        note and no start note tells drift there."""
        return any(not path.startswith(".") for path in self.files.files)

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
        mentions = {
            name: self.without_sketches([m for m in every if kept(m)])
            for name, every in extracted.items()
        }
        report = CodeReport(scanned=len(extracted), git=self.files.git)
        report.mentions = sum(len(found) for found in mentions.values())
        if not self.holds_code:
            report.notes = [NO_CODE]
            return report
        words = _symbol_words(mentions) if symbols else set()
        self.wait()
        mentions = all_written_out(mentions, self._at_root_then(written or {}))
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
        report.findings = self.without_left_alone(report.findings, written)
        near = paths_by_line(mentions)
        report.findings = unsaid_moves(report.findings, near)
        if symbols:
            report.findings = self.traced(report.findings, present, written=written, near=near)
            report.findings = told_once(report.findings, mentions)
        report.notes = self.notes
        return report

    def _at_root_then(self, written: dict[str, float]) -> Callable[[str, str], bool]:
        """Whether the project had a file of a name at its root when a memory was last
        written; never, without the history to tell."""
        past = self.past if self.history else None
        return lambda memory, name: bool(
            past and memory in written and still_there_at(past, name, written[memory])
        )

    def present_words(self, words: set[str], cache_home: str | None = None) -> set[str]:
        """Which of ``words`` occur in the project's source files now (their identifiers
        scanned once per checker; ``cache_home``: where the kept scan is)."""
        if not words:
            return set()
        if self.files.git and self._identifiers is None:
            from serena_memory.integrity.code_drift.identifier_cache import scan

            self._identifiers = scan(self.root, cache_home)
        return find_words(self.files, words, self._identifiers)

    def symbol_findings(
        self,
        memory: str,
        mentions: list[Mention],
        cache_home: str | None = None,
        when: float | None = None,
        near: dict[tuple[str, int], list[str]] | None = None,
        seconds: float = TRAIL_SECONDS_ON_READ,
    ) -> list[CodeFinding]:
        """The findings of one memory's symbols (``when``: the memory last changed), with
        where git saw the missing ones go, asked for ``seconds`` at most (``near``: the
        paths on each line, :func:`paths_by_line`)."""
        present = self.present_words({w for m in mentions for w in m.words}, cache_home)
        found = [f for f in (self.check_symbol(memory, m, present) for m in mentions) if f]
        written = {memory: when} if when is not None else None
        return self.traced(found, present, 8, written, seconds, near)

    def check_symbol(
        self, memory: str, m: Mention, present: set[str], read_only: bool = False
    ) -> CodeFinding | None:
        """The finding of one symbol: missing from the code, or not in the file it is
        written after (None: it is there)."""
        finding = _symbol_finding(memory, m, present, read_only)
        if finding is not None and "." not in m.target and m.target in self._file_stem_set():
            return None  # `clientSide` of `test/clientSide.test.js`: the file's name
        if finding is not None and self._is_memory_name(m.target):
            return None  # `suggested_commands`: another memory's name, no code's
        if finding is None and m.where:
            finding = self._elsewhere(memory, m, read_only)
        return finding

    def _is_memory_name(self, name: str) -> bool:
        """Whether the memories folder has or had a memory of that name (:mod:`~serena_memory.
        integrity.code_drift.memory_names`): its files now first, git's history only then."""
        if self._memory_names is None:
            self._memory_names = (memory_names(self.files, None), None)
        now, before = self._memory_names
        if name in now or not self.history:
            return name in now
        if before is None:
            before = memory_names(self.files, self.past)
            self._memory_names = (now, before)
        return name in before

    def _file_stem_set(self) -> frozenset[str]:
        """The names of the project's files before their first dot, made once."""
        if self._file_stems is None:
            names = (name for name in self.files.by_name if not name.endswith("/"))
            self._file_stems = frozenset(name.split(".", 1)[0] for name in names)
        return self._file_stems

    def _elsewhere(self, memory: str, m: Mention, read_only: bool) -> CodeFinding | None:
        """For a symbol written after its file (``tests/a.py::test_x``) that the file no
        longer holds while other source files do: where it is now."""
        file = self.files.resolve(m.where)
        if file is None or file.endswith("/"):
            return None  # the path's own finding tells
        holders = files_with_word(self.files, m.words[-1])
        if not holders or file in holders:
            return None
        elsewhere = "" if len(holders) == 1 else "; in " + ", ".join(holders[:3])
        note = f"not in `{file}` now{elsewhere}"
        return CodeFinding(
            memory,
            m.line,
            m.text,
            SYMBOL,
            MISSING,
            m.target,
            new_path=holders[0] if len(holders) == 1 else None,
            note=note,
            read_only=read_only,
        )

    def traced(
        self,
        findings: list[CodeFinding],
        present: set[str],
        limit: int = MAX_TRAILS,
        written: dict[str, float] | None = None,
        seconds: float = TRAIL_SECONDS,
        near: dict[tuple[str, int], list[str]] | None = None,
    ) -> list[CodeFinding]:
        """``findings`` with each missing symbol told where git saw its missing
        identifiers go: renamed (its new name and file; a qualified name with every part
        renamed), removed in a commit, or never in the history (asked since the earliest
        time a memory mentioning it last changed, ``written``); at most ``limit`` names and
        ``seconds`` of asking. ``near``: the paths written on each (memory, line), to place
        a name renamed in several files (the C function beside its Python twin)."""
        if not self.history or not self.head or not any(f.kind == SYMBOL for f in findings):
            return findings
        until = time.monotonic() + seconds
        words = {f: absent_words(f, present) for f in findings}
        since = earliest(words, written or {})
        trails: dict[str, SymbolTrail | None] = {}
        out = []
        for f in findings:
            for word in words[f]:
                if word not in trails and len(trails) < limit:
                    trails[word] = self._trail(word, since.get(word), until)
            found = [(word, trails.get(word)) for word in words[f]]
            out.append(with_trails(f, found, (near or {}).get((f.memory, f.line), [])))
        return out

    def _trail(self, word: str, when: float | None, until: float) -> SymbolTrail | None:
        """Where git saw ``word`` go since ``when`` (the memory last changed; no commit
        since it: the whole history is asked)."""
        if when is not None and when >= self._head_time:
            when = None
        return trail(self.root, self.head, word, self._exists, until, when)

    def memory_time(self, real: str) -> float | None:
        """When the memory whose file is ``real`` last changed (git asked once per
        checker about memories with changes not committed)."""
        if not self.history:
            return None
        if self._dirty is None:
            self._dirty = dirty_memories(self.files)
        return memory_times(self.files, self.past, {"": real}, self._dirty).get("")

    @property
    def head(self) -> str:
        """The commit HEAD names ('' without one), asked once per checker."""
        if self._head is None:
            try:
                out = run_git(self.root, "log", "-1", "--format=%H %ct", "HEAD").decode()
                self._head, _, stamp = out.strip().partition(" ")
                self._head_time = float(stamp or 0)
            except (GitUnavailable, ValueError):
                self._head = ""
        return self._head

    def _exists(self, word: str) -> bool:
        if self._identifiers is not None:
            return word.encode() in self._identifiers
        return bool(find_words(self.files, [word]))

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
        if self.history:
            mentions = placed_tops(mentions, self.past, self.files, when)
        for m in mentions:
            if m.kind != SYMBOL:
                finding = check_path(memory, m, when, read_only)
            elif present is not None:
                finding = self.check_symbol(memory, m, present, read_only)
            else:
                continue
            if finding is not None:
                out.append(finding)
        return out

    def without_left_alone(
        self, findings: list[CodeFinding], written: dict[str, float] | None = None
    ) -> list[CodeFinding]:
        """Drop missing paths that are not the project's code
        (:mod:`~serena_memory.integrity.code_drift.left_alone`), but those git deleted
        since their memory was written (``written``: when each memory last changed)."""
        if self._left_alone is None:
            self._left_alone = LeftAlone(self.files)
        if not written or not self.history:
            return self._left_alone.without(findings)
        past, root = self.past, self.files.root
        kept = self._left_alone.without(
            findings,
            lambda f: (
                not f.target.startswith(SERENA_FOLDER)
                and gone_since(past, root, f.target, written.get(f.memory))
                and not self._made_local(f, written)
            ),
        )
        return self._not_ignored_then(kept, written)

    def _ignore_changes(
        self, findings: list[CodeFinding], written: dict[str, float]
    ) -> IgnoreChanges:
        """The ``.gitignore`` lines lost and gained since the earliest memory of the
        missing paths of ``findings`` was written (git asked once for the earliest)."""
        times = [
            written[f.memory]
            for f in findings
            if f.kind == PATH and f.status == MISSING and f.memory in written
        ]
        if not times:
            return IgnoreChanges([], [])
        since = min(times)
        if self._ignore is None or since < self._ignore[0]:
            self._ignore = (since, ignore_changes(self.files.root, self.past, since))
        return self._ignore[1]

    def _made_local(self, f: CodeFinding, written: dict[str, float]) -> bool:
        """Whether the change that deleted the path since ``f``'s memory was written also
        made the ``.gitignore`` ignore a kind of file it is (a glob, ``test-*.js``): the
        project chose to keep such files on its writers' disks, so the file is local, not
        gone. A line of its own (``/config.yaml``, ``email/``), or a later clean-up that
        ignores it, says only that this file or folder left the project."""
        when = written.get(f.memory)
        gone = gone_at(self.past, f.target.rstrip("/"), when)
        if when is None or gone is None:
            return False
        added = self._ignore_changes([f], written).added
        return any(
            t == gone and t > when and is_kind(p) and ignored_by(p, f.target) for t, p in added
        )

    def _not_ignored_then(
        self, findings: list[CodeFinding], written: dict[str, float]
    ) -> list[CodeFinding]:
        """``findings`` without the missing paths a pattern the ``.gitignore`` dropped
        since their memory was written ignored then (:mod:`~serena_memory.integrity.
        code_drift.ignored_then`); a file git tracked then was not ignored."""
        dropped = self._ignore_changes(findings, written).dropped
        if not dropped:
            return findings

        def then(f: CodeFinding) -> bool:
            when = written.get(f.memory)
            return (
                when is not None
                and f.kind == PATH
                and f.status == MISSING
                and not self._tracked_at(f.target, when)
                and any(t > when and ignored_by(p, f.target) for t, p in dropped)
            )

        return [f for f in findings if not then(f)]

    def _tracked_at(self, path: str, when: float) -> bool:
        """Whether git tracked the file ``path`` at ``when``."""
        past = self.past
        gone = past.gone_at(path)
        return path in past.seen and there_at(past, path, when) and (gone is None or gone > when)

    def check_path(
        self, memory: str, m: Mention, when: float | None, read_only: bool = False
    ) -> CodeFinding | None:
        """:meth:`PathChecks.check_path`, but a file named inside a statement (``git mv
        a.py b.py``, ``require('./lib/x')``) is told only when it was there when the memory
        was written: one gone before is what the statement itself did or an old example."""
        found = super().check_path(memory, m, when, read_only)
        past = self.past if found is not None and self.history else None
        # a memory's own file, archived or renamed, is no code (a link to it that broke is)
        if found is not None and not m.linked and names_a_memory(m, found, self.files, past):
            return None
        if found is None or not m.inner or when is None or not self.history:
            return found
        return found if self._went_since(found, when) else None

    def _went_since(self, found: CodeFinding, when: float) -> bool:
        """Whether the file a finding names went after ``when``: moved to its new place
        by a rename since then, or deleted since while it was there then."""
        if found.status == MOVED and found.new_path:
            return self.past.before(found.new_path.rstrip("/"), when) is not None
        path = found.target
        if path.endswith("/"):
            return self.past.folder_there_at(path.rstrip("/"), when)
        return self._there_then(path, when)

    def kept(self, m: Mention) -> bool:
        if m.form == ALIAS:
            return True
        if m.rooted and m.target.split("/", 1)[0] not in self.files.top:
            return False
        if m.kind == PATH and m.loose:  # elsewhere only a path git knew (check_path)
            return self.files.git or self.under_top(m)
        return True


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
