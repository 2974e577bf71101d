"""The front matter check, always run: memories without a ``summary:`` where others of their
folder have one (a listing shows each summary after the name, so a missing one makes the
memory harder to pick). With ``--stale``, also the deprecated memories, those past their
``stale_after`` date, and the ``superseded_by`` that names no memory
(:mod:`serena_memory.core.lifecycle`). Nothing cached: one read of each memory's top."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from serena_memory.core.display import counted, escape_line
from serena_memory.integrity.plugins.base import MEMORIES, Check, CheckOptions, CheckRun

if TYPE_CHECKING:
    from serena_memory.core.lifecycle import Survey
    from serena_memory.integrity.plugins.base import Findings

SHOWN = 20  # names a text report lists per finding; the rest are counted


@dataclass
class LifecycleFindings:
    survey: Survey
    stale_asked: bool

    def to_dict(self) -> dict[str, Any]:
        found = self.survey
        data: dict[str, Any] = {}
        if found.missing_summary:
            data["missing_summaries"] = found.missing_summary
        if self.stale_asked:
            data["lifecycle"] = {
                "deprecated": [{"name": n, "superseded_by": s} for n, s in found.deprecated],
                "stale": [{"name": n, "stale_after": d} for n, d in found.stale],
                "unknown_successors": [
                    {"name": n, "superseded_by": s} for n, s in found.unknown_successors
                ],
            }
        return data

    def to_text(self) -> str:
        found = self.survey
        lines = []
        if found.missing_summary:
            lines.append(
                "Summaries: no `summary:` front matter, while others in the folder have one, in "
                f"{_names(found.missing_summary)}; add a one-line summary to each."
            )
        if self.stale_asked:
            lines.extend(self._lifecycle_lines())
        return "".join(line + "\n" for line in lines)

    def _lifecycle_lines(self) -> list[str]:
        found = self.survey
        if not (found.deprecated or found.stale or found.unknown_successors):
            checked = counted(found.scanned, "memory", "memories")
            return [f"Lifecycle: no deprecated or stale memory ({checked} checked)."]
        lines = []
        if found.deprecated:
            told = [f"{n} (superseded by {s})" if s else n for n, s in found.deprecated]
            lines.append(f"Deprecated: {_names(told, 'memory', 'memories')}.")
        if found.stale:
            told = [f"{n} (stale after {d})" for n, d in found.stale]
            lines.append(
                f"Stale: {_names(told, 'memory', 'memories')}; verify each and update it "
                "and its stale_after date."
            )
        if found.unknown_successors:
            told = [f"{n} -> {s}" for n, s in found.unknown_successors]
            lines.append(
                f"Successors that name no memory: {_names(told, 'memory', 'memories')}; "
                "point superseded_by at an existing memory."
            )
        return lines

    @property
    def failing(self) -> bool:
        return self.stale_asked and bool(self.survey.stale or self.survey.unknown_successors)


def _names(names: list[str], one: str = "memory", many: str = "memories") -> str:
    shown = ", ".join(escape_line(n) for n in names[:SHOWN])
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return f"{counted(len(names), one, many)}: {shown}{more}"


class Lifecycle(Check):
    name = "lifecycle"
    flag = ""  # always run; --stale adds the deprecated and stale memories
    reads = (MEMORIES,)
    quiets_all_clear = True
    advice = (
        "verify the stale memories and move their stale_after dates on, and point each "
        "superseded_by at an existing memory"
    )

    def asked(self, options: CheckOptions) -> bool:
        return True

    def finish(self, run: CheckRun) -> Findings:
        from serena_memory.core.lifecycle import survey

        return LifecycleFindings(survey(run.store), run.options.stale)

    def failing(self, findings: Findings) -> bool:
        return cast("LifecycleFindings", findings).failing

    def shown(self, findings: Findings) -> bool:
        return bool(findings.to_text())
