"""The code drift check run on a store: :func:`run_code_check`, or
:func:`start_code_check` to begin it (git's work in the background) and finish it later,
with the mentions the references check found in its pass if it ran."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from serena_memory.core import names as N
from serena_memory.core.store import MemoryStore
from serena_memory.integrity import workers
from serena_memory.integrity.listing import MemoryListingReader

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.code_report import CodeReport
    from serena_memory.integrity.code_drift.mentions import Mention


def run_code_check(
    store: MemoryStore,
    since: str | None = None,
    changed_commits: int | None = None,
    symbols: bool = True,
    jobs: int = 1,
) -> CodeReport:
    """The project memories' mentions of code checked against the project's files now
    (:mod:`serena_memory.integrity.code_drift.checker`). With ``since`` (a git revision) only what
    changed since it: the mentions of paths deleted or renamed since, of symbols on
    removed lines, and every mention of the memories changed since. Never writes.

    ``jobs`` > 1 (0: one per CPU) has forked worker processes read the memories and find
    their mentions; the report is the same. Only for single-threaded callers such as the
    command line (elsewhere it is one job)."""
    return start_code_check(store, since, changed_commits, symbols)(jobs)


def start_code_check(
    store: MemoryStore,
    since: str | None = None,
    changed_commits: int | None = None,
    symbols: bool = True,
) -> Callable[..., CodeReport]:
    """:func:`run_code_check` begun: git lists the project's files, walks its history and
    scans its source files in the background (processes, no thread, so the caller may
    still fork) while the caller does other work; the function returned, given ``jobs``
    (and the mentions the references check found, if it ran just before: then the
    memories are not read again), gives the report. A wrong ``since`` is refused here."""
    from serena_memory.integrity.code_drift.checker import (
        DEFAULT_CHANGED_COMMITS,
        CodeChecker,
        extract_forked,
    )
    from serena_memory.integrity.code_drift.history import memory_times
    from serena_memory.integrity.code_drift.since import changes_since

    checker = CodeChecker(
        store.layout.project_root,
        changed_commits=DEFAULT_CHANGED_COMMITS if changed_commits is None else changed_commits,
        cache_home=store.layout.home,
    )
    window = changes_since(checker.files, since) if since is not None else None
    checker.prefetch(symbols)

    def finish(jobs: int, mentions: dict[str, list[Mention]] | None = None) -> CodeReport:
        listing = MemoryListingReader(store)
        names = [n for n in listing.names if not N.is_global(n)]
        if jobs == 0:
            jobs = workers.cpu_count()
        jobs = min(jobs, max(1, len(names) // workers.PARALLEL_MIN_PER_JOB))
        if mentions is not None:  # found by the check that read the memories just before
            found = {n: m for n, m in mentions.items() if n in listing.paths}
        elif jobs > 1 and workers.can_fork():
            chunks = [
                names[i * len(names) // jobs : (i + 1) * len(names) // jobs] for i in range(jobs)
            ]
            # while the workers read, this process takes the list of files and the history
            found = extract_forked(chunks, lambda part: listing.read(part)[0], lambda: checker.past)
        else:
            found = mentions_of(listing.read(names)[0])
        checker.wait()
        written = (
            memory_times(checker.files, checker.past, {n: listing.paths[n] for n in found})
            if checker.history
            else None
        )
        report = checker.check_mentions(found, written, listing.read_only, symbols=symbols)
        if window is not None:
            report.findings = window.keep(report.findings)
            report.since = since
        return report

    return finish


def mentions_of(texts: dict[str, str]) -> dict[str, list[Mention]]:
    """The mentions of code of the project memories among ``texts`` (global ones have
    none: they are not about one project's code)."""
    from serena_memory.integrity.code_drift.mentions import extract

    return {name: extract(text) for name, text in texts.items() if not N.is_global(name)}
