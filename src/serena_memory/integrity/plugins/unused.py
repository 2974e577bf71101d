"""The unused memories (``--unused DAYS``): the memories nobody read on this machine for
that many days (:mod:`serena_memory.usage`). Nothing cached: the counts are one small file
per project, folded as they are read."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from serena_memory.integrity.plugins.base import USAGE, Check, CheckOptions, CheckRun

if TYPE_CHECKING:
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
