"""The duplicate check (``--duplicates``): near-duplicate memories and sections, and
statements that contradict each other, under the JSON key ``duplicates``. It joins the
references' all-clear ("duplicates and conflicts" checked) and its findings count in the
report's "clean". Cached per memory's features by
:mod:`serena_memory.integrity.duplicates.features_cache`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from serena_memory.integrity.plugins.base import MEMORIES, Check, CheckOptions, CheckRun

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.duplicates.findings import DuplicateReport
    from serena_memory.integrity.plugins.base import Findings

SIDE_BY_SIDE_LINES = 60
"""Lines of each side a near-duplicate shows at most, side by side (the dashboard)."""


@dataclass(frozen=True)
class DuplicateFindings:
    """The duplicate report as the check report shows it."""

    report: DuplicateReport

    def to_dict(self) -> dict[str, Any]:
        return {"duplicates": self.report.to_dict()}

    def to_text(self) -> str:
        from serena_memory.integrity.duplicates.findings_text import duplicates_text

        return "".join(line + "\n" for line in duplicates_text(self.report))


class Duplicates(Check):
    name = "duplicates"
    flag = "--duplicates"
    reads = (MEMORIES,)
    joins_all_clear = "duplicates and conflicts"
    advice = (
        "for duplicates, merge the two memories (or rename or delete one) and for "
        "conflicts fix the statement that is wrong, or write which memory supersedes the "
        "other"
    )

    def asked(self, options: CheckOptions) -> bool:
        return options.duplicates

    def finish(self, run: CheckRun) -> Findings:
        from serena_memory.integrity import workers
        from serena_memory.integrity.duplicates.features_cache import check_duplicates
        from serena_memory.integrity.listing import MemoryListingReader

        jobs = workers.cpu_count() if run.options.jobs == 0 else run.options.jobs
        with workers.collector_paused():
            report = check_duplicates(
                run.store, MemoryListingReader(run.store), jobs, True, run.options.progress
            )
        return DuplicateFindings(report)

    def failing(self, findings: Findings) -> bool:
        return cast(DuplicateFindings, findings).report.problem_count > 0

    def shown(self, findings: Findings) -> bool:
        return self.failing(findings)

    def dashboard_items(self, store: MemoryStore) -> list[dict[str, Any]] | None:
        """The findings as JSON, each with ``finding`` (identical, memories, sections,
        conflicts; the last, left_out, counts those not listed) and, for near-duplicates,
        the lines of both sides (``first_text``, ``second_text``, at most
        :data:`SIDE_BY_SIDE_LINES` each), so that a person compares them side by side."""
        from serena_memory.integrity.duplicates.features_cache import check_duplicates
        from serena_memory.integrity.listing import MemoryListingReader

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

    def dashboard_unclean(self, items: list[dict[str, Any]]) -> bool:
        return bool(items)
