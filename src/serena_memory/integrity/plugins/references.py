"""The references check, always run: stale `mem:` references, and on request names
written without `mem:`, near-misses and reachability from `mem:core`. It is the pass over
the memories: the code check's mentions are collected in it, and its all-clear line names
the checks that join it (the duplicate check) when they found nothing too. Cached per memory
by :mod:`serena_memory.integrity.references.check_cache`
(:func:`serena_memory.integrity.references.check.run_check`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from serena_memory.integrity.plugins.base import MEMORIES, Check, CheckOptions, CheckRun, Joined
from serena_memory.integrity.references.check_report_text import checked_count

if TYPE_CHECKING:
    from serena_memory.integrity.plugins.base import Findings
    from serena_memory.integrity.references.check_report import CheckReport


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
        from serena_memory.integrity.references.check import run_check

        options = run.options
        run.report = run_check(
            run.store,
            include_unmarked=options.include_unmarked,
            fuzzy=options.fuzzy,
            reachability=options.reachability,
            jobs=options.jobs,
            read_along=run.read_along,
        )
        return run.report

    def failing(self, findings: Findings) -> bool:
        return not cast("CheckReport", findings).is_clean()

    def shown(self, findings: Findings) -> bool:
        return self.failing(findings)

    def text(self, findings: Findings, quiet: bool, joined: tuple[Joined, ...] = ()) -> str:
        """With ``quiet`` (another check's findings follow), a clean report is one short
        line: one voice, no all-clear above them. A joined check's findings replace the
        all-clear, and follow the report's own after a blank line."""
        report = cast("CheckReport", findings)
        found_after = any(j.found for j in joined)
        if report.is_clean():
            if found_after:
                return ""
            if quiet:
                return f"References: no problems found ({checked_count(report)}).\n"
            return report.to_text(tuple(j.words for j in joined))
        return report.to_text() + ("\n" if found_after else "")
