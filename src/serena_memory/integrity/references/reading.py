"""The memories read for the references check: every one at once into an analyzer, or a
check of many split over forked workers (contiguous slices of the names, about the same
number of bytes each, analysed with indexes built once before forking, and partial
reports merged in order into the serial report)."""

from __future__ import annotations

from typing import Any

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.listing import MemoryListingReader, ReadAlong
from serena_memory.integrity.references.analysis import IntegrityAnalyzer
from serena_memory.integrity.references.check_report import CheckReport
from serena_memory.integrity.workers import chunks_by_size, forked


def analyzer_of(listing: MemoryListingReader) -> IntegrityAnalyzer:
    """An analyzer of every memory ``listing`` names, read now."""
    texts, unreadable, refused = listing.read(listing.names)
    found = IntegrityAnalyzer(texts, listing.read_only, listing.ignored, unreadable, listing.names)
    found.skipped = sorted(listing.skipped + refused, key=lambda s: s.path)
    return found


def load_analyzer(store: MemoryStore) -> IntegrityAnalyzer:
    """Read every non-ignored memory of the project and the global ones, once."""
    return analyzer_of(MemoryListingReader(store))


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
    read_along: ReadAlong | None = None,
) -> CheckReport:
    base = prepared(listing, include_unmarked, fuzzy)

    def part(names: list[str]) -> tuple[CheckReport, dict[str, Any] | None]:
        texts, unreadable, refused = listing.read(names)
        report = base.sibling(texts, unreadable).check(include_unmarked, fuzzy)
        report.skipped = refused
        return report, (read_along.find(texts) if read_along is not None else None)

    parts = forked(chunks_by_size(listing, jobs), part)
    if read_along is not None:
        for _report, found in parts:
            read_along.found.update(found or {})
    reports = [report for report, _found in parts]
    merged = reports[0]
    for report in reports[1:]:
        merged.stale += report.stale
        merged.bare_high += report.bare_high
        merged.bare_low += report.bare_low
        merged.near_misses += report.near_misses
        merged.scanned += report.scanned
        merged.not_scanned += report.not_scanned
        merged.unreadable = sorted(merged.unreadable + report.unreadable)
        merged.skipped += report.skipped
    merged.skipped = sorted(listing.skipped + merged.skipped, key=lambda s: s.path)
    return merged
