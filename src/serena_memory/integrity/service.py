"""Integrity checks and fixes on a :class:`MemoryStore`: what the CLI, the MCP server and the
dashboard call. The analysis itself is :mod:`serena_memory.integrity.references.analysis`
(pure); this module loads memories from a store and writes fixes back through it (atomic,
locked).

Stable API (keep it; the dashboard and the MCP server depend on it), beside
``references.reading.load_analyzer(store) -> IntegrityAnalyzer`` (every non-ignored
memory, read once) and ``references.prefixing.auto_prefix(...)`` (add ``mem:`` to exact
bare mentions):

- ``run_check(store, include_unmarked=False, fuzzy=False, reachability=False)
  -> CheckReport`` (the references check) (``.to_dict()``, ``.to_text()``, ``.is_clean()``).
- ``backlinks(store, name) -> list[Backlink]``: memories with a ``mem:name`` reference,
  with line numbers (works for missing names too).
- ``build_graph(store) -> MemoryGraph`` (:mod:`serena_memory.integrity.references.graph`;
  ``.to_dict()`` and the mermaid/dot/graphml/json exports).
- ``fix_reference(store, source, old, new) -> int``: rewrite ``mem:old`` to ``mem:new``
  in one memory (a stale reference's candidate chosen by a person); returns the count.
- ``closest_names(store, name) -> tuple[str, ...]``: the existing names ``name`` most
  likely meant (the candidate ranking of stale references, then names it begins).
- ``load_snapshot(store, previous=None) -> Snapshot``: memories read once with their
  graph, backlinks and check reports, refreshed by reading only changed files.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from serena_memory.core import names as N
from serena_memory.core.display import counted
from serena_memory.core.errors import MemoryNotFoundError, MemoryStoreError
from serena_memory.core.references import rewrite_references
from serena_memory.core.store import MemoryStore
from serena_memory.integrity import workers
from serena_memory.integrity.code_drift.drifted_memories import (
    drift_summary as drift_summary,  # the stable API
)
from serena_memory.integrity.code_drift.drifted_memories import drifted_memories as drifted_memories
from serena_memory.integrity.listing import MemoryListingReader
from serena_memory.integrity.references import reading
from serena_memory.integrity.references.analysis import IntegrityAnalyzer
from serena_memory.integrity.references.check_report import Backlink, CheckReport
from serena_memory.integrity.references.reading import load_analyzer

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.code_report import CodeFinding, CodeReport
    from serena_memory.integrity.code_drift.fixes import Replacement
    from serena_memory.integrity.code_drift.mentions import Mention
    from serena_memory.integrity.references.graph import MemoryGraph


def run_check(
    store: MemoryStore,
    include_unmarked: bool = False,
    fuzzy: bool = False,
    reachability: bool = False,
    jobs: int = 1,
    cache: bool = True,
    code_mentions: dict[str, list[Mention]] | None = None,
) -> CheckReport:
    """Stale references (always), exact bare mentions and near-misses (on request),
    memories unreachable from `mem:core` and references into ignored memories (on request).
    Never writes a memory. With ``cache``, what was learned about each memory is kept under
    $SERENA_HOME and only changed memories are analysed again
    (:mod:`serena_memory.integrity.references.check_cache`); the report is the same.

    ``jobs`` > 1 (0: one per CPU) splits a large check over forked worker processes; the
    report is the same. Only for single-threaded callers such as the command line: forking
    a process that runs threads (a web server) is unsafe, so it is refused there.

    ``code_mentions`` (a dict) is filled with the mentions of code of every project memory
    read, found in the same pass over the files, for :func:`start_code_check`.
    """
    with collector_paused():
        listing = MemoryListingReader(store)
        return _run_check(
            store, listing, include_unmarked, fuzzy, reachability, jobs, cache, code_mentions
        )


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a check runs: the check makes no reference
    cycles, and its many small objects (one per finding and reference) would otherwise
    have the collector walk every live object again and again (a fifth of a cold check)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _run_check(
    store: MemoryStore,
    listing: MemoryListingReader,
    include_unmarked: bool,
    fuzzy: bool,
    reachability: bool,
    jobs: int,
    cache: bool,
    code_mentions: dict[str, list[Mention]] | None,
) -> CheckReport:
    if jobs == 0:
        jobs = workers.cpu_count()
    if cache and code_mentions is None:  # the code check needs every memory read
        from serena_memory.integrity.references.check_cache import cached_check

        cached = cached_check(store, listing, include_unmarked, fuzzy, reachability, jobs)
        if cached is not None:
            return with_sync_conflicts(store, with_moves(store, cached))
    jobs = min(jobs, max(1, len(listing.names) // workers.PARALLEL_MIN_PER_JOB))
    if jobs > 1 and not reachability and workers.can_fork():
        report = reading.parallel_check(listing, include_unmarked, fuzzy, jobs, code_mentions)
    else:
        analyzer = reading.analyzer_of(listing)
        report = analyzer.check(include_unmarked, fuzzy, reachability)
        if code_mentions is not None:
            code_mentions.update(reading.code_mentions_of(analyzer.memories))
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


class Snapshot:
    """Every memory of a store read once, with its graph, for a long-running reader (the
    dashboard) that asks many questions and wants the answers to follow the files.

    :meth:`refresh` gives a snapshot of the store as it is now: the same object when no
    file, name or pattern changed, else a new one that reads again only the files whose
    time or size changed and reuses the references already found in the others.
    """

    def __init__(
        self,
        listing: MemoryListingReader,
        previous: Snapshot | None = None,
        stamps: dict[str, tuple[int, int, int]] | None = None,
    ) -> None:
        self.stamps = listing.stamps() if stamps is None else stamps
        self.key = self._key(listing, self.stamps)
        self.analyzer: IntegrityAnalyzer
        same = set()
        texts: dict[str, str] = {}
        if previous is not None:
            same = {n for n, st in self.stamps.items() if previous.stamps.get(n) == st}
            texts = {
                n: previous.analyzer.memories[n] for n in same if n in previous.analyzer.memories
            }
            same -= set(previous.analyzer.unreadable) - set(texts)
        fresh, unreadable, refused = listing.read(n for n in listing.names if n not in texts)
        if previous is not None:
            unreadable += [n for n in previous.analyzer.unreadable if n in same]
        texts.update(fresh)
        self.analyzer = IntegrityAnalyzer(
            texts, listing.read_only, listing.ignored, unreadable, listing.names
        )
        self.analyzer.skipped = sorted(listing.skipped + refused, key=lambda f: f.path)
        if previous is not None:
            self.analyzer.reuse_references(previous.analyzer, same)
        self._graph: MemoryGraph | None = None
        self._reports: dict[tuple[bool, bool, bool], CheckReport] = {}

    @classmethod
    def refresh(cls, store: MemoryStore, previous: Snapshot | None = None) -> Snapshot:
        listing = MemoryListingReader(store)
        stamps = listing.stamps()
        if previous is not None and cls._key(listing, stamps) == previous.key:
            return previous
        return cls(listing, previous, stamps)

    @staticmethod
    def _key(listing: MemoryListingReader, stamps: dict[str, tuple[int, int, int]]) -> tuple:
        return (
            tuple(sorted(stamps.items())),
            frozenset(listing.read_only),
            frozenset(listing.ignored),
        )

    @property
    def graph(self) -> MemoryGraph:
        from serena_memory.integrity.references.graph import MemoryGraph

        if self._graph is None:
            self._graph = MemoryGraph.from_analyzer(self.analyzer)
        return self._graph

    def backlinks(self, name: str) -> list[Backlink]:
        """Like :func:`backlinks`, looking only at the sources the graph names."""
        return self.analyzer.backlinks(name, among=self.graph.sources_of(name))

    def check(
        self, include_unmarked: bool = False, fuzzy: bool = False, reachability: bool = False
    ) -> CheckReport:
        """The check report, computed once per snapshot and set of options."""
        options = (include_unmarked, fuzzy, reachability)
        if options not in self._reports:
            self._reports[options] = self.analyzer.check(*options)
        return self._reports[options]


def load_snapshot(store: MemoryStore, previous: Snapshot | None = None) -> Snapshot:
    """A :class:`Snapshot` of the store now (``previous`` when nothing changed)."""
    return Snapshot.refresh(store, previous)


def backlinks(store: MemoryStore, name: str) -> list[Backlink]:
    return load_analyzer(store).backlinks(N.normalize_name(name))


def referrers_note(store: MemoryStore, name: str) -> str:
    """What a delete of ``name`` is told of the memories that still reference it (their
    references are stale from now on); '' when none does."""
    try:
        sources = sorted({b.source for b in backlinks(store, name) if b.source != name})
    except (MemoryStoreError, OSError):
        return ""
    if not sources:
        return ""
    shown = ", ".join(sources[:5]) + (f" and {len(sources) - 5} more" if len(sources) > 5 else "")
    who = counted(len(sources), "memory still refers", "memories still refer")
    return f"{who} to it ({shown}): `mem:{N.normalize_name(name)}` is stale there now"


def build_graph(store: MemoryStore):
    from serena_memory.integrity.references.graph import MemoryGraph

    return MemoryGraph.from_analyzer(load_analyzer(store))


def fix_reference(store: MemoryStore, source: str, old: str, new: str) -> int:
    """Point the ``mem:old`` references of one memory at ``new`` (an existing memory).

    ``old`` is taken as written (a stale target such as ``Tech_Stack`` or ``auth/`` is not
    a valid name); ``new`` is normalized and must exist.
    """
    source = N.normalize_name(source)
    new = N.normalize_name(new)
    old = old[len(N.MEM_PREFIX) :] if old.startswith(N.MEM_PREFIX) else old
    if not store.exists(new) or store.access().is_ignored(new):
        raise MemoryNotFoundError(f"memory '{new}' not found; a reference must point to one")
    rewritten = [0]

    def transform(text: str) -> str:
        new_text, rewritten[0] = rewrite_references(text, old, new, f"memory '{source}'")
        return new_text

    store.update({source: transform})
    if rewritten[0] == 0:
        raise MemoryStoreError(f"memory '{source}' has no reference `mem:{old}`; nothing changed")
    return rewritten[0]


# -- code drift -----------------------------------------------------------------------------


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
    (and the mentions :func:`run_check` found, if it ran just before: then the memories
    are not read again), gives the report. A wrong ``since`` is refused here."""
    from serena_memory.integrity.code_drift.checker import (
        DEFAULT_CHANGED_COMMITS,
        CodeChecker,
        extract_forked,
    )
    from serena_memory.integrity.code_drift.history import memory_times
    from serena_memory.integrity.code_drift.mentions import extract
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
            found = {n: extract(t) for n, t in listing.read(names)[0].items()}
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


def fix_code_references(
    store: MemoryStore,
    dry_run: bool = False,
    only: Iterable[tuple[str, int, str]] | None = None,
) -> list[CodeFinding]:
    """The findings :func:`fix_code_replacements` settles (the dashboard's button)."""
    return [f for r in fix_code_replacements(store, dry_run, only) for f in r.findings]


def fix_code_replacements(
    store: MemoryStore,
    dry_run: bool = False,
    only: Iterable[tuple[str, int, str]] | None = None,
) -> list[Replacement]:
    """Rewrite the moved paths and the renamed symbols of writable project memories to
    what git saw them become (all of them, or only the ``(memory, line, mention)``
    given); the fixes of one run are one history entry. Returns the replacements made
    (to be made, with ``dry_run``)."""
    from serena_memory.integrity.code_drift import fixes

    wanted = None if only is None else set(only)
    found = [
        f
        for f in run_code_check(store, changed_commits=0).findings
        if wanted is None or (f.memory, f.line, f.mention) in wanted
    ]
    planned = fixes.replacements(found)
    if dry_run or not planned:
        return planned
    by_memory: dict[str, list[Replacement]] = {}
    for r in planned:
        by_memory.setdefault(r.memory, []).append(r)
    done: list[Replacement] = []

    def fixer(items: list[Replacement]) -> Callable[[str], str]:
        def transform(text: str) -> str:
            text, made = fixes.apply(text, items)
            done.extend(made)
            return text

        return transform

    changes = {name: fixer(items) for name, items in sorted(by_memory.items())}
    store.update(changes, f"Bring {counted(len(planned), 'mention')} of code up to date")
    return done


def fix_memory_drift(store: MemoryStore, name: str) -> tuple[list[Replacement], int, str]:
    """Apply, as the agent's edit of one memory, every replacement its read note offers:
    under review mode a proposal, else an edit (size bounds and the secret gate as for any
    edit). Returns the replacements, how many places changed and the proposal's wording
    ('' when applied directly); no replacement: nothing written."""
    from serena_memory.core import verbs
    from serena_memory.integrity.code_drift import fixes
    from serena_memory.integrity.code_drift.read_note import offered_replacements

    canonical = N.normalize_name(name)
    text = store.read(canonical)
    planned: list[Replacement] = []
    if not N.is_global(canonical):
        planned = offered_replacements(
            str(store.layout.project_root),
            canonical,
            text,
            cache_home=str(store.layout.home),
            written=str(store.real_path_of(canonical)),
        )
    if not planned:
        return [], 0, ""

    def edit(current: str) -> tuple[str, int]:
        new, made = fixes.apply(current, planned)
        return new, len(made)

    outcome = verbs.edit(store, canonical, edit)
    if isinstance(outcome, verbs.Applied):
        return planned, outcome.change.replacements, ""
    told = outcome.proposal.told() if outcome.proposal is not None else ""
    return planned, outcome.replacements, told


def drift_note(store: MemoryStore, name: str, text: str, applying: str = "") -> str:
    """The note that ends a project memory's text when `check --code` finds something in
    it ('' when none), ``applying`` saying how the reader applies its exact replacements:
    :func:`serena_memory.integrity.code_drift.read_note.drift_note`."""
    from serena_memory.integrity.code_drift.read_note import drift_note as note

    return note(store, name, text, applying)


def drift_findings(store: MemoryStore, name: str, text: str) -> list[CodeFinding]:
    """The paths of a project memory that are missing or moved now, for marks next to
    them (none for a global memory, and none whenever the check itself fails)."""
    from serena_memory.integrity.code_drift.read_note import memory_findings

    try:
        canonical = N.normalize_name(name)
        if N.is_global(canonical):
            return []
        return memory_findings(str(store.layout.project_root), canonical, text)
    except Exception:
        return []


def renamed_note(store: MemoryStore, name: str) -> str:
    """What a read of a name that is gone is told when the history saw it renamed:
    ``it was renamed to 'routing/core' on 2026-12-04 (entry ...)``;
    '' when it was not (or the history can't say)."""
    from serena_memory.history.restore import MemoryHistory

    try:
        found = MemoryHistory(store).renamed_to(N.normalize_name(name))
    except (MemoryStoreError, OSError):
        return ""
    if found is None:
        return ""
    new, entry = found
    day = entry.time.astimezone().strftime("%Y-%m-%d")
    gone = "" if store.exists(new) else ", which is gone too"
    return f"it was renamed to '{new}' on {day} (entry {entry.short}){gone}"


def closest_names(store: MemoryStore, name: str, limit: int = 3) -> tuple[str, ...]:
    """The existing memories a mistyped or shortened ``name`` most likely meant, best
    first: the ranking that proposes the target of a stale reference, else the names that
    begin with ``name`` (`cor` for `core`), so a person is never left to guess."""
    from serena_memory.integrity.references.similarity import NameIndex

    try:
        wanted = N.normalize_name(name)
    except MemoryStoreError:
        wanted = name.strip()
    existing = [n for n in store.scan().files if n != wanted]
    found = NameIndex(existing).candidates(wanted, limit)
    if found or len(wanted) < 2:
        return found
    folded = wanted.casefold()
    starting = sorted(n for n in existing if n.casefold().startswith(folded))
    return tuple(starting[:limit])


SIDE_BY_SIDE_LINES = 60
"""Lines of each side a near-duplicate shows at most, side by side."""


def duplicate_findings(store: MemoryStore) -> list[dict[str, Any]]:
    """The duplicate check's findings as JSON, each with ``finding`` (identical, memories,
    sections, conflicts; the last, left_out, counts those not listed) and, for
    near-duplicates, the lines of both sides (``first_text``, ``second_text``, at most
    :data:`SIDE_BY_SIDE_LINES` each), so that a person compares them side by side."""
    from serena_memory.integrity.duplicates.features_cache import check_duplicates

    listing = MemoryListingReader(store)
    report = check_duplicates(store, listing)
    texts: dict[str, list[str]] = {}

    def lines(name: str, span: tuple[int, int]) -> str:
        if name not in texts:
            texts[name] = listing.read([name])[0].get(name, "").split("\n")
        first, last = span
        last = min(last, first + SIDE_BY_SIDE_LINES - 1)
        return "\n".join(texts[name][first - 1 : last])

    items: list[dict[str, Any]] = []
    for group, size in zip(report.identical, report.identical_sizes, strict=True):
        items.append({"finding": "identical", "memories": list(group), "count": size})
    for kind, pairs in (("memories", report.memories), ("sections", report.sections)):
        for d in pairs:
            item = {"finding": kind, **d.to_dict()}
            item["first_text"] = lines(d.first, d.first_lines)
            item["second_text"] = lines(d.second, d.second_lines)
            items.append(item)
    items += [{"finding": "conflicts", **c.to_dict()} for c in report.conflicts]
    if report.left_out:
        items.append({"finding": "left_out", "count": report.left_out})
    return items
