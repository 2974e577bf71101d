"""What `check` finds, as records with their JSON form: stale references, bare mentions
and near-misses, references into ignored memories, backlinks, and the report that holds
them (its text for people is :mod:`serena_memory.integrity.references.check_report_text`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from serena_memory.core.paths import SkippedFile

ENTRY_POINT = "core"


# Findings are records nothing changes once made; not frozen, because a check at 100,000
# memories makes hundreds of thousands of them and a frozen dataclass's constructor costs
# three times as much (hashable all the same).
@dataclass(unsafe_hash=True, slots=True)
class StaleReference:
    """``mem:target`` in ``source`` where no memory ``target`` exists."""

    source: str
    target: str
    candidates: tuple[str, ...]
    source_read_only: bool
    lines: tuple[int, ...]
    target_ignored: bool = False  # the memory exists but is ignored, so it can't be read

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "candidates": list(self.candidates),
            "source_read_only": self.source_read_only,
            "lines": list(self.lines),
            "target_ignored": self.target_ignored,
        }


@dataclass(unsafe_hash=True, slots=True)
class BareMention:
    """An existing name written without ``mem:`` (``token`` is None), or a near-miss of one
    (``token`` is the text actually written)."""

    source: str
    name: str
    occurrences: int
    high_confidence: bool
    source_read_only: bool
    lines: tuple[int, ...] = ()
    token: str | None = None

    @property
    def exact(self) -> bool:
        return self.token is None

    @property
    def written(self) -> str:
        return self.name if self.token is None else self.token

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": self.source,
            "name": self.name,
            "occurrences": self.occurrences,
            "high_confidence": self.high_confidence,
            "source_read_only": self.source_read_only,
        }
        if self.token is None:
            data["lines"] = list(self.lines)
        else:
            data["token"] = self.token
        return data


@dataclass(frozen=True)
class IgnoredReference:
    """``mem:target`` where ``target`` is an ignored memory: the agent can't follow it."""

    source: str
    target: str
    lines: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "lines": list(self.lines)}


@dataclass(frozen=True)
class Backlink:
    source: str
    lines: tuple[int, ...]
    source_read_only: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "lines": list(self.lines),
            "source_read_only": self.source_read_only,
        }


@dataclass
class CheckReport:
    """Everything `check` found; ``to_dict`` for JSON, ``to_text`` for people."""

    stale: list[StaleReference] = field(default_factory=list)
    bare_high: list[BareMention] = field(default_factory=list)
    bare_low: list[BareMention] = field(default_factory=list)
    near_misses: list[BareMention] = field(default_factory=list)
    unreachable: list[str] | None = None  # None: reachability not asked for
    entry_point_exists: bool = True
    ignored_references: list[IgnoredReference] | None = None
    scanned: int = 0
    # memories `list` shows that were not scanned: memory_maintenance (it holds examples)
    # and empty ones, so that the count the report tells agrees with the listing's
    not_scanned: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    # files that look like memories but were not read (broken or outside links, not regular
    # files, over the size limit), each with its reason
    skipped: list[SkippedFile] = field(default_factory=list)
    include_unmarked: bool = False
    fuzzy: bool = False
    # memories a sync left with both sides' texts until a person resolves them (core/sync)
    sync_conflicts: list[str] = field(default_factory=list)

    @property
    def problem_count(self) -> int:
        return (
            len(self.sync_conflicts)
            + len(self.stale)
            + len(self.bare_high)
            + len(self.bare_low)
            + len(self.near_misses)
            + len(self.unreachable or ())
            + len(self.ignored_references or ())
            + len(self.unreadable)
            + len(self.skipped)
        )

    def is_clean(self) -> bool:
        return self.problem_count == 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "clean": self.is_clean(),
            "scanned": self.scanned,
            "stale_references": [s.to_dict() for s in self.stale],
        }
        if self.include_unmarked:
            data["bare_mentions"] = {
                "high_confidence": [b.to_dict() for b in self.bare_high],
                "low_confidence": [b.to_dict() for b in self.bare_low],
            }
            if self.fuzzy:
                data["near_misses"] = [b.to_dict() for b in self.near_misses]
        if self.unreachable is not None:
            data["entry_point"] = ENTRY_POINT if self.entry_point_exists else None
            data["unreachable"] = list(self.unreachable)
            data["ignored_references"] = [r.to_dict() for r in self.ignored_references or ()]
        data.update(self._others_dict())
        return data

    def _others_dict(self) -> dict[str, Any]:
        """The parts of the JSON form present only when something is in them."""
        data: dict[str, Any] = {}
        if self.not_scanned:
            data["not_scanned"] = list(self.not_scanned)
        if self.unreadable:
            data["unreadable"] = list(self.unreadable)
        if self.skipped:
            data["skipped"] = [s.to_dict() for s in self.skipped]
        if self.sync_conflicts:
            data["sync_conflicts"] = list(self.sync_conflicts)
        return data

    def to_text(self, also_checked: tuple[str, ...] = ()) -> str:
        """The report for people (integrity/references/check_report_text.py writes it);
        ``also_checked``: what other checks found clean, named in the all-clear line."""
        from serena_memory.integrity.references.check_report_text import report_text

        return report_text(self, also_checked)
