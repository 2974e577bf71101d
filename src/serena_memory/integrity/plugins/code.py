"""The code drift check (``--code``): the files, folders and symbols the memories mention,
checked against the project's git repository (:mod:`serena_memory.integrity.code_drift`).
Git lists the files, walks the history and scans the code while the memories are read;
the mentions are found in the same pass. Cached by
:mod:`serena_memory.integrity.code_drift.identifier_cache` (identifiers per blob, under
$SERENA_HOME)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from serena_memory.integrity.plugins.base import CODE, MEMORIES, Check, CheckOptions, CheckRun

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.code_drift.code_report import CodeReport
    from serena_memory.integrity.plugins.base import Findings


class CodeDrift(Check):
    name = "code"
    flag = "--code"
    reads = (MEMORIES, CODE)
    advice = (
        "for the mentions of code, `serena memories fix-code-references` points moved "
        "paths and renamed symbols at their new names; edit the memories that mention what "
        "is missing"
    )
    quiets_all_clear = True

    def asked(self, options: CheckOptions) -> bool:
        return options.code

    def begin(self, run: CheckRun) -> None:
        from serena_memory.integrity.code_drift.check import mentions_of, start_code_check
        from serena_memory.integrity.listing import ReadAlong

        options = run.options
        run.begun[self.name] = start_code_check(
            run.store, since=options.since, changed_commits=options.changed_commits
        )
        run.read_along = ReadAlong(mentions_of)  # the mentions, found as the memories are read

    def finish(self, run: CheckRun) -> Findings:
        found = run.read_along.found if run.read_along is not None else None
        report: CodeReport = run.begun[self.name](run.options.jobs, found)
        return report

    def failing(self, findings: Findings) -> bool:
        return bool(cast("CodeReport", findings).failing)

    def shown(self, findings: Findings) -> bool:
        return bool(cast("CodeReport", findings).findings)

    def dashboard_items(self, store: MemoryStore) -> list[dict[str, Any]] | None:
        from serena_memory.integrity.code_drift.check import run_code_check

        report = run_code_check(store)
        return [
            {**f.to_dict(), "target": f.target, "read_only": f.read_only} for f in report.findings
        ]

    def dashboard_failing(self, items: list[dict[str, Any]]) -> int | None:
        """Missing and moved fail a strict check; changed does not."""
        return sum(c["status"] in ("missing", "moved") for c in items)
