"""The unused memories (``--unused DAYS``): the memories nobody read on this machine for
that many days (:mod:`serena_memory.usage`). Nothing cached: the counts are one small file
per project, folded as they are read. On the dashboard's Check page, each unused memory with
its reads and what its name costs the agent's listing, and what counting has seen so far (a
fresh machine's "never read" is no advice to delete)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from serena_memory.integrity.plugins.base import (
    USAGE,
    Check,
    CheckOptions,
    CheckRun,
    DashboardSection,
)

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.plugins.base import Findings
    from serena_memory.usage.unused import UnusedReport


class Unused(Check):
    name = "unused"
    flag = "--unused"
    reads = (USAGE,)
    advice = "delete, merge or refer to the memories nobody reads (or check with a longer --unused)"

    def asked(self, options: CheckOptions) -> bool:
        return options.unused_days is not None

    def finish(self, run: CheckRun) -> Findings:
        from serena_memory.usage.unused import unused_memories

        assert run.options.unused_days is not None
        return unused_memories(run.store, run.options.unused_days)

    def failing(self, findings: Findings) -> bool:
        return bool(cast("UnusedReport", findings).found)

    def shown(self, findings: Findings) -> bool:
        return self.failing(findings)

    def dashboard_section(
        self, store: MemoryStore, options: CheckOptions
    ) -> DashboardSection | None:
        """The unused memories for the days asked for, with since when reads are counted
        and what to know before deleting any (``usage_note``); a usage folder that can't
        be read now leaves the list empty and says so, and the rest of the page stands."""
        from serena_memory.usage.report import iso
        from serena_memory.usage.unused import UNUSED_ADVICE, unused_memories

        days = options.unused_days
        if days is None:
            return None
        try:
            report = unused_memories(store, days)
        except OSError as exc:
            note = (
                f"The reads counted on this machine can't be read now ({exc.strerror or exc}), "
                "so no memory is listed: check again in a moment."
            )
            return DashboardSection([], {"unused_days": days, "usage_note": note})
        about: dict[str, Any] = {
            "unused_days": days,
            "usage_counted_since": iso(report.since),
            "usage_counted_days": report.counted_days,
            "usage_note": report.counting_note(),
            "unused_advice": UNUSED_ADVICE,
        }
        return DashboardSection(report.listed(), about)

    def dashboard_unclean(self, items: list[dict[str, Any]]) -> bool:
        return bool(items)
