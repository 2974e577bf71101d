"""The duplicate check's findings as people read them in the check report, with what
to do about each kind: merge, rename, delete, or say which one supersedes the other."""

from __future__ import annotations

from serena_memory.core.display import counted, escape_line
from serena_memory.integrity.duplicates.findings import Conflict, DuplicateReport, NearDuplicate

ADVICE_DUPLICATES = (
    "  what to do: merge the two into one memory (edit one, then delete the other or leave "
    "in it only a `mem:` pointer), rename one if they are about different things, or write "
    "in the older one that the other supersedes it"
)
ADVICE_CONFLICTS = (
    "  what to do: fix the statement that is wrong, or write in the older memory that the "
    "other supersedes it"
)


def _name(name: str) -> str:
    return f"`{escape_line(name)}`"


def _lines(numbers: tuple[int, ...]) -> str:
    return ("line " if len(numbers) == 1 else "lines ") + ", ".join(str(n) for n in numbers)


def _span(lines: tuple[int, int]) -> str:
    return f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]}-{lines[1]}"


def _conflict(c: Conflict, indent: str) -> list[str]:
    if c.negation:
        what = "the same statement, negated in one of them"
    else:
        what = f"`{escape_line(c.first_value)}` vs `{escape_line(c.second_value)}`"
    if c.older:
        what += f"; {_name(c.older)} was changed longer ago"
    return [
        f"{indent}- {_name(c.first)} line {c.first_line}: {escape_line(c.first_text)}",
        f"{indent}  {_name(c.second)} line {c.second_line}: {escape_line(c.second_text)}",
        f"{indent}  ({what})",
    ]


def _conflicts_advice(conflicts: list[Conflict]) -> str:
    """What to do about the conflicts, naming the older memory when the store can tell
    (one conflict: by name; several: the one said under each)."""
    if len(conflicts) == 1 and conflicts[0].older:
        c = conflicts[0]
        return (
            f"  what to do: fix the statement that is wrong, or write in {_name(c.older)} "
            f"(the older memory) that {_name(c.newer)} supersedes it"
        )
    if any(c.older for c in conflicts):
        return (
            "  what to do: fix the statement that is wrong, or write in the older memory (said "
            "under each pair) that the other supersedes it"
        )
    return ADVICE_CONFLICTS


def _pair(d: NearDuplicate) -> list[str]:
    share = f"{round(d.similarity * 100)}%"
    if d.section:
        out = [
            f"  - {_name(d.first)} {_span(d.first_lines)} and {_name(d.second)} "
            f"{_span(d.second_lines)}: {share} of the lines alike"
        ]
    else:
        alike = (
            "of their words in the other, in other words" if d.restated else "of their lines alike"
        )
        out = [f"  - {_name(d.first)} and {_name(d.second)}: {share} {alike}"]
        only = [
            f"only in {_name(name)}: {_lines(lines)}"
            for name, lines in ((d.first, d.only_first), (d.second, d.only_second))
            if lines
        ]
        if only:
            out.append("    " + "; ".join(only))
    if d.conflicts:
        out.append("    where they disagree:")
        for c in d.conflicts:
            out.extend(_conflict(c, "      "))
    return out


def duplicates_text(report: DuplicateReport) -> list[str]:
    """The lines of the duplicates' part of the check report (none when clean)."""
    out: list[str] = []
    if report.identical:
        out.append(f"Memories with the same text ({len(report.identical)}):")
        for group, size in zip(report.identical, report.identical_sizes, strict=True):
            more = f" and {size - len(group)} more" if size > len(group) else ""
            out.append("  - " + ", ".join(_name(n) for n in group) + more)
    for title, pairs in (
        ("Near-duplicate memories", report.memories),
        ("Near-duplicate sections", report.sections),
    ):
        if pairs:
            out.append(f"{title} ({len(pairs)}):")
            for d in pairs:
                out.extend(_pair(d))
    if report.identical or report.memories or report.sections:
        out.append(ADVICE_DUPLICATES)
    if report.conflicts:
        out.append(f"Conflicting statements ({len(report.conflicts)}):")
        for c in report.conflicts:
            out.extend(_conflict(c, "  "))
        out.append(_conflicts_advice(report.conflicts))
    if report.left_out:
        out.append(
            f"{counted(report.left_out, 'more finding')} not shown; fix these and run the "
            "check again (`--json` lists the same ones)"
        )
    return out
