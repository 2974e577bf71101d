"""What the duplicate check finds, as records with their JSON form: memories with the
same text, near-duplicate memories and sections, and statements that contradict each
other. Each names both memories, their lines and what differs."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

MAX_FINDINGS = 200
"""Findings kept in one report; the others are counted (``left_out``)."""
MAX_LINES_LISTED = 12
APART_NS = 60 * 10**9
"""Two memories changed closer together than this (a clone or a checkout writes every
file within moments) are not told apart as older and newer."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two statements alike but for one value (``first_value`` vs ``second_value``) or
    a negation (the value of the negated side is ``"not"``, the other's ``""``)."""

    first: str
    first_line: int
    first_text: str
    second: str
    second_line: int
    second_text: str
    first_value: str
    second_value: str
    older: str = ""  # the one of the two changed longer ago ("" when the store can't tell)

    @property
    def negation(self) -> bool:
        return "" in (self.first_value, self.second_value)

    @property
    def newer(self) -> str:
        return "" if not self.older else self.second if self.older == self.first else self.first

    def to_dict(self) -> dict[str, Any]:
        return {
            "first": {"memory": self.first, "line": self.first_line, "text": self.first_text},
            "second": {"memory": self.second, "line": self.second_line, "text": self.second_text},
            "kind": "negation" if self.negation else "value",
            "first_value": self.first_value,
            "second_value": self.second_value,
            "older": self.older or None,
        }


def as_written(value: str, line: str) -> str:
    """``value`` spelled as ``line`` writes it: the check compares values casefolded and
    without a leading dot (`--json headsha`, `claude/skills/x.ps1`), a reader looks for
    `--json headSha` and `.claude/skills/x.ps1`."""
    if value in ("", "not") or len(value.lower()) != len(value):
        return value
    at = line.lower().find(value.lower())
    if at < 0:
        return value
    if at and line[at - 1] == "." and (at == 1 or line[at - 2] in " `'\"(["):
        at -= 1  # a dotted folder's dot, left out of the compared word
    return line[at : at + len(value) + (line[at] == "." and value[0] != ".")]


@dataclass(frozen=True, slots=True)
class NearDuplicate:
    """Two memories (``section`` false) or two parts of them (their line ranges) that say
    mostly the same; ``similarity`` is the share of shingles they have in common."""

    first: str
    first_lines: tuple[int, int]
    second: str
    second_lines: tuple[int, int]
    similarity: float
    section: bool
    only_first: tuple[int, ...] = ()  # lines of the first the second has nothing like
    only_second: tuple[int, ...] = ()
    conflicts: tuple[Conflict, ...] = ()  # where the two disagree
    restated: bool = False  # in other words: ``similarity`` is a share of words, not lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "first": {"memory": self.first, "lines": list(self.first_lines)},
            "second": {"memory": self.second, "lines": list(self.second_lines)},
            "similarity": round(self.similarity, 3),
            "only_in_first": list(self.only_first),
            "only_in_second": list(self.only_second),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "restated": self.restated,
        }


@dataclass
class DuplicateReport:
    """Everything the duplicate check found; ``left_out`` findings over the cap."""

    identical: list[tuple[str, ...]] = field(default_factory=list)  # groups, names sorted
    identical_sizes: list[int] = field(default_factory=list)  # memories in each group
    memories: list[NearDuplicate] = field(default_factory=list)
    sections: list[NearDuplicate] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    left_out: int = 0
    compared: int = 0

    @property
    def problem_count(self) -> int:
        found = len(self.identical) + len(self.memories) + len(self.sections)
        return found + len(self.conflicts) + self.left_out

    def to_dict(self) -> dict[str, Any]:
        return {
            "compared": self.compared,
            "identical": [
                {"memories": list(group), "count": size}
                for group, size in zip(self.identical, self.identical_sizes, strict=True)
            ],
            "near_duplicate_memories": [d.to_dict() for d in self.memories],
            "near_duplicate_sections": [d.to_dict() for d in self.sections],
            "conflicts": [c.to_dict() for c in self.conflicts],
            "left_out": self.left_out,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DuplicateReport:
        """The report :meth:`to_dict` gave (what the cache keeps); KeyError or
        TypeError or ValueError on anything else."""
        report = cls(left_out=int(data["left_out"]), compared=int(data["compared"]))
        for group in data["identical"]:
            report.identical.append(tuple(str(n) for n in group["memories"]))
            report.identical_sizes.append(int(group["count"]))
        report.memories = [_pair(d, False) for d in data["near_duplicate_memories"]]
        report.sections = [_pair(d, True) for d in data["near_duplicate_sections"]]
        report.conflicts = [_conflict(c) for c in data["conflicts"]]
        return report


def _conflict(data: dict[str, Any]) -> Conflict:
    a, b = data["first"], data["second"]
    return Conflict(
        str(a["memory"]),
        int(a["line"]),
        str(a["text"]),
        str(b["memory"]),
        int(b["line"]),
        str(b["text"]),
        str(data["first_value"]),
        str(data["second_value"]),
        str(data.get("older") or ""),
    )


def dated(report: DuplicateReport, changed: dict[str, int]) -> DuplicateReport:
    """``report`` with each conflict naming the memory changed longer ago, from
    ``changed`` ({name: modification time in ns}, what the listing stamps), when the two
    were changed at least :data:`APART_NS` apart."""

    def date(c: Conflict) -> Conflict:
        a, b = changed.get(c.first), changed.get(c.second)
        if a is None or b is None or abs(a - b) < APART_NS or c.first == c.second:
            return replace(c, older="")
        return replace(c, older=c.first if a < b else c.second)

    report.conflicts = [date(c) for c in report.conflicts]
    for pairs in (report.memories, report.sections):
        pairs[:] = [replace(d, conflicts=tuple(date(c) for c in d.conflicts)) for d in pairs]
    return report


def _pair(data: dict[str, Any], section: bool) -> NearDuplicate:
    a, b = data["first"], data["second"]
    first_lines = (int(a["lines"][0]), int(a["lines"][1]))
    second_lines = (int(b["lines"][0]), int(b["lines"][1]))
    return NearDuplicate(
        str(a["memory"]),
        first_lines,
        str(b["memory"]),
        second_lines,
        float(data["similarity"]),
        section,
        tuple(int(n) for n in data["only_in_first"]),
        tuple(int(n) for n in data["only_in_second"]),
        tuple(_conflict(c) for c in data["conflicts"]),
        bool(data.get("restated", False)),
    )
