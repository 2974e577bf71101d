"""The references check, always run: stale `mem:` references, and on request names
written without `mem:`, near-misses and reachability from `mem:core`. It is the pass over
the memories: the code check's mentions are collected in it, and the duplicate check's
report is shown within its report. Cached per memory by
:mod:`serena_memory.integrity.cache` (:func:`serena_memory.integrity.service.run_check`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from serena_memory.core.display import counted
from serena_memory.integrity.plugins.base import MEMORIES, Check, CheckOptions, CheckRun

if TYPE_CHECKING:
    from serena_memory.integrity.findings import CheckReport
    from serena_memory.integrity.plugins.base import Findings


class References(Check):
    name = "references"
    reads = (MEMORIES,)
    advice = (
        "point each reference above at an existing memory (a listed candidate, with "
        "`serena memories rename` or an edit) or write the memory it names; `serena "
        "memories auto-prefix-references` adds missing `mem:` prefixes and `serena "
        "dashboard` fixes references with a click"
    )

    def asked(self, options: CheckOptions) -> bool:
        return True

    def finish(self, run: CheckRun) -> Findings:
        from serena_memory.integrity.service import run_check

        options = run.options
        run.report = run_check(
            run.store,
            include_unmarked=options.include_unmarked,
            fuzzy=options.fuzzy,
            reachability=options.reachability,
            jobs=options.jobs,
            code_mentions=run.code_mentions,
        )
        return run.report

    def failing(self, findings: Findings) -> bool:
        report = cast("CheckReport", findings)
        joined = report.duplicates.problem_count if report.duplicates is not None else 0
        return report.problem_count > joined

    def shown(self, findings: Findings) -> bool:
        return not cast("CheckReport", findings).is_clean()

    def text(self, findings: Findings, quiet: bool) -> str:
        """With ``quiet`` (another check's findings follow), a clean report is one short
        line: one voice, no all-clear above them."""
        report = cast("CheckReport", findings)
        if quiet and report.is_clean():
            checked = counted(report.scanned, "memory", "memories")
            return f"References: no problems found ({checked} checked).\n"
        return report.to_text()
