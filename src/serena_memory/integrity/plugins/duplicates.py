"""The duplicate check (``--duplicates``): near-duplicate memories and sections, and
statements that contradict each other. Its report is shown within the references'
report (``CheckReport.duplicates``: its JSON key and its text section, the all-clear
naming it), so its own part of the output is empty. Cached per memory's features by
:mod:`serena_memory.integrity.duplicates_cache`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from serena_memory.integrity.plugins.base import MEMORIES, Check, CheckOptions, CheckRun

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.duplicates.findings import DuplicateReport
    from serena_memory.integrity.plugins.base import Findings


@dataclass(frozen=True)
class JoinedDuplicates:
    """The duplicate report, printed by the references' report it joined."""

    report: DuplicateReport

    def to_dict(self) -> dict[str, Any]:
        return {}

    def to_text(self) -> str:
        return ""


class Duplicates(Check):
    name = "duplicates"
    flag = "--duplicates"
    reads = (MEMORIES,)
    advice = (
        "for duplicates, merge the two memories (or rename or delete one) and for "
        "conflicts fix the statement that is wrong, or write which memory supersedes the "
        "other"
    )

    def asked(self, options: CheckOptions) -> bool:
        return options.duplicates

    def finish(self, run: CheckRun) -> Findings:
        from serena_memory.integrity import parallel
        from serena_memory.integrity.duplicates_cache import check_duplicates
        from serena_memory.integrity.listing import MemoryListingReader
        from serena_memory.integrity.service import collector_paused

        jobs = parallel.cpu_count() if run.options.jobs == 0 else run.options.jobs
        with collector_paused():
            report = check_duplicates(
                run.store, MemoryListingReader(run.store), jobs, True, run.options.progress
            )
        if run.report is not None:
            run.report.duplicates = report
        return JoinedDuplicates(report)

    def failing(self, findings: Findings) -> bool:
        return cast(JoinedDuplicates, findings).report.problem_count > 0

    def shown(self, findings: Findings) -> bool:
        return self.failing(findings)

    def dashboard_items(self, store: MemoryStore) -> list[dict[str, Any]] | None:
        from serena_memory.integrity.service import duplicate_findings

        return duplicate_findings(store)

    def dashboard_unclean(self, items: list[dict[str, Any]]) -> bool:
        return bool(items)
