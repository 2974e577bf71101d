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
        from serena_memory.integrity.service import collector_paused

        jobs = workers.cpu_count() if run.options.jobs == 0 else run.options.jobs
        with collector_paused():
            report = check_duplicates(
                run.store, MemoryListingReader(run.store), jobs, True, run.options.progress
            )
        return DuplicateFindings(report)

    def failing(self, findings: Findings) -> bool:
        return cast(DuplicateFindings, findings).report.problem_count > 0

    def shown(self, findings: Findings) -> bool:
        return self.failing(findings)

    def dashboard_items(self, store: MemoryStore) -> list[dict[str, Any]] | None:
        from serena_memory.integrity.service import duplicate_findings

        return duplicate_findings(store)

    def dashboard_unclean(self, items: list[dict[str, Any]]) -> bool:
        return bool(items)
