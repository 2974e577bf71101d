"""The references check run on a store: :func:`run_check`, what `serena memories check`
runs through its plug-in, with the cached check tried first, then the memories read at
once or over forked workers; a stale reference gets the memory the history saw it become,
and the report names the memories a sync left unresolved."""

from __future__ import annotations

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import MemoryStore
from serena_memory.integrity import workers
from serena_memory.integrity.listing import MemoryListingReader, ReadAlong
from serena_memory.integrity.references import reading
from serena_memory.integrity.references.check_report import CheckReport


def run_check(
    store: MemoryStore,
    include_unmarked: bool = False,
    fuzzy: bool = False,
    reachability: bool = False,
    jobs: int = 1,
    cache: bool = True,
    read_along: ReadAlong | None = None,
) -> CheckReport:
    """Stale references (always), exact bare mentions and near-misses (on request),
    memories unreachable from `mem:core` and references into ignored memories (on request).
    Never writes a memory. With ``cache``, what was learned about each memory is kept under
    $SERENA_HOME and only changed memories are analysed again
    (:mod:`serena_memory.integrity.references.check_cache`); the report is the same.

    ``jobs`` > 1 (0: one per CPU) splits a large check over forked worker processes; the
    report is the same. Only for single-threaded callers such as the command line: forking
    a process that runs threads (a web server) is unsafe, so it is refused there.

    ``read_along`` finds what another check wants of every memory read, in the same pass
    over the files (the code check's mentions); it has the check read every memory.
    """
    with workers.collector_paused():
        listing = MemoryListingReader(store)
        return _run_check(
            store, listing, include_unmarked, fuzzy, reachability, jobs, cache, read_along
        )


def _run_check(
    store: MemoryStore,
    listing: MemoryListingReader,
    include_unmarked: bool,
    fuzzy: bool,
    reachability: bool,
    jobs: int,
    cache: bool,
    read_along: ReadAlong | None,
) -> CheckReport:
    if jobs == 0:
        jobs = workers.cpu_count()
    if cache and read_along is None:  # what is read along needs every memory read
        from serena_memory.integrity.references.check_cache import cached_check

        cached = cached_check(store, listing, include_unmarked, fuzzy, reachability, jobs)
        if cached is not None:
            return with_sync_conflicts(store, with_moves(store, cached))
    jobs = min(jobs, max(1, len(listing.names) // workers.PARALLEL_MIN_PER_JOB))
    if jobs > 1 and not reachability and workers.can_fork():
        report = reading.parallel_check(listing, include_unmarked, fuzzy, jobs, read_along)
    else:
        analyzer = reading.analyzer_of(listing)
        report = analyzer.check(include_unmarked, fuzzy, reachability)
        if read_along is not None:
            read_along.found.update(read_along.find(analyzer.memories))
    return with_sync_conflicts(store, with_moves(store, report))


def with_moves(store: MemoryStore, report: CheckReport) -> CheckReport:
    """A stale reference to a memory the history saw renamed or moved by hand (``mv``)
    gets the memory it became as its first candidate."""
    if not report.stale:
        return report
    from serena_memory.history.restore import MemoryHistory

    try:
        moves = MemoryHistory(store).moved_to({s.target for s in report.stale})
    except (MemoryStoreError, OSError):
        return report
    for stale in report.stale:
        new = moves.get(stale.target)
        if new:
            rest = tuple(c for c in stale.candidates if c != new)
            stale.candidates = (new, *rest)[:3]
    return report


def with_sync_conflicts(store: MemoryStore, report: CheckReport) -> CheckReport:
    """Add the memories a sync left unresolved (both sides' texts kept) to a report."""
    from serena_memory.sync.conflicts import conflicts

    report.sync_conflicts = [c.name for c in conflicts(store)]
    return report
