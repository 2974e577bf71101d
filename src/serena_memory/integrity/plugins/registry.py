"""The registered checks, and a run of the ones asked for: their findings merged into one
JSON report, their texts one after another, and what the strict check says.

Adding a check: a module beside this one with a :class:`~.base.Check` subclass, named in
:data:`CHECKS` (where its output goes) and :data:`ADVICE_ORDER` (where its strict advice
goes); its option on the `check` command (``cli/integrity.py``) fills
:class:`~.base.CheckOptions`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from serena_memory.integrity.plugins.base import (
    Check,
    CheckOptions,
    CheckRun,
    Findings,
    Joined,
)
from serena_memory.integrity.plugins.code import CodeDrift
from serena_memory.integrity.plugins.duplicates import Duplicates
from serena_memory.integrity.plugins.lifecycle import Lifecycle
from serena_memory.integrity.plugins.references import References
from serena_memory.integrity.plugins.unused import Unused

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

# in the order they finish and print: the references first (the pass over the memories)
CHECKS: tuple[Check, ...] = (References(), Duplicates(), CodeDrift(), Unused(), Lifecycle())
# the order of the strict check's advice: what to fix first
ADVICE_ORDER: tuple[str, ...] = ("duplicates", "references", "code", "lifecycle", "unused")


def registered(name: str) -> Check:
    """The check registered under ``name``."""
    return next(check for check in CHECKS if check.name == name)


@dataclass
class CheckResults:
    """The findings of each check run, in :data:`CHECKS` order."""

    found: list[tuple[Check, Findings]]

    def to_dict(self) -> dict[str, Any]:
        """One JSON object: each check's keys in turn; "clean" (the references') is false
        too when a check that joins the all-clear found something, or any check found what
        fails `--strict` (a script reads "clean" as nothing found of what it asked)."""
        data: dict[str, Any] = {}
        for _check, findings in self.found:
            data.update(findings.to_dict())
        if "clean" in data and (any(j.found for j in self._joined(0)) or self.failing()):
            data["clean"] = False
        return data

    def to_texts(self) -> list[str]:
        """Each check's part of the text report."""
        quiet = [c.quiets_all_clear and c.shown(f) for c, f in self.found]
        return [
            check.text(findings, any(quiet[i + 1 :]), self._joined(i))
            for i, (check, findings) in enumerate(self.found)
        ]

    def _joined(self, at: int) -> tuple[Joined, ...]:
        """The checks after the one at ``at`` that join its all-clear."""
        return tuple(
            Joined(check.joins_all_clear, check.shown(findings))
            for check, findings in self.found[at + 1 :]
            if check.joins_all_clear
        )

    def failing(self) -> list[Check]:
        """The checks whose findings fail `check --strict`, in :data:`ADVICE_ORDER`."""
        failed = {check.name: check for check, findings in self.found if check.failing(findings)}
        return [failed[name] for name in ADVICE_ORDER if name in failed]

    def strict_failure(self) -> str | None:
        """What the strict check says when it fails (None: it passes)."""
        failing = self.failing()
        if not failing:
            return None
        advice = "; ".join(check.advice for check in failing)
        return f"The strict check failed: {advice}. Then run the check (or the commit) again."


def run_checks(store: MemoryStore, options: CheckOptions) -> CheckResults:
    """Every check the options ask for: each begins (slow work in the background), then
    each finishes in turn, the references' pass over the memories first."""
    run = CheckRun(store, options)
    asked = [check for check in CHECKS if check.asked(options)]
    for check in asked:
        check.begin(run)
    return CheckResults([(check, check.finish(run)) for check in asked])
