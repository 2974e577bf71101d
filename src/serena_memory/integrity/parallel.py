"""A check of many memories split over forked workers: contiguous slices of the names,
about the same number of bytes each, analysed with indexes built once before forking,
and partial reports merged in order into the serial report."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from serena_memory.core import names as N
from serena_memory.integrity.analysis import IntegrityAnalyzer
from serena_memory.integrity.findings import CheckReport
from serena_memory.integrity.listing import MemoryListingReader
from serena_memory.integrity.workers import forked

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.mentions import Mention


PARALLEL_MIN_PER_JOB = 400  # below this many memories per worker, forking costs more


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


def chunks_by_size(
    listing: MemoryListingReader, jobs: int, names: list[str] | None = None
) -> list[list[str]]:
    """Contiguous slices of the sorted names (all of them, or ``names``) with about the
    same number of bytes each, so that merging the partial reports in order gives the
    serial report."""
    names = listing.names if names is None else names
    sizes = []
    for name in names:
        try:
            sizes.append(os.path.getsize(listing.paths[name]))
        except OSError:
            sizes.append(0)
    total = sum(sizes) or 1
    chunks: list[list[str]] = [[] for _ in range(jobs)]
    done = 0
    for name, size in zip(names, sizes, strict=True):
        chunks[min(jobs - 1, done * jobs // total)].append(name)
        done += size
    return [c for c in chunks if c]


def prepared(
    listing: MemoryListingReader, include_unmarked: bool, fuzzy: bool, stale: bool = True
) -> IntegrityAnalyzer:
    """An analyzer of no texts with the indexes a check needs built, for forked workers
    to share (each builds nothing again)."""
    base = IntegrityAnalyzer({}, listing.read_only, listing.ignored, (), listing.names)
    if stale:
        base.name_index  # noqa: B018
    if include_unmarked:
        base.finder  # noqa: B018
        if fuzzy:
            base.near_index  # noqa: B018
    return base


def parallel_check(
    listing: MemoryListingReader,
    include_unmarked: bool,
    fuzzy: bool,
    jobs: int,
    code_mentions: dict[str, list[Mention]] | None = None,
) -> CheckReport:
    base = prepared(listing, include_unmarked, fuzzy)

    def part(names: list[str]) -> tuple[CheckReport, dict[str, list[Mention]] | None]:
        texts, unreadable, refused = listing.read(names)
        report = base.sibling(texts, unreadable).check(include_unmarked, fuzzy)
        report.skipped = refused
        return report, (code_mentions_of(texts) if code_mentions is not None else None)

    parts = forked(chunks_by_size(listing, jobs), part)
    if code_mentions is not None:
        for _report, found in parts:
            code_mentions.update(found or {})
    reports = [report for report, _found in parts]
    merged = reports[0]
    for report in reports[1:]:
        merged.stale += report.stale
        merged.bare_high += report.bare_high
        merged.bare_low += report.bare_low
        merged.near_misses += report.near_misses
        merged.scanned += report.scanned
        merged.unreadable = sorted(merged.unreadable + report.unreadable)
        merged.skipped += report.skipped
    merged.skipped = sorted(listing.skipped + merged.skipped, key=lambda s: s.path)
    return merged


def code_mentions_of(texts: dict[str, str]) -> dict[str, list[Mention]]:
    from serena_memory.integrity.code_drift.mentions import extract

    return {name: extract(text) for name, text in texts.items() if not N.is_global(name)}
