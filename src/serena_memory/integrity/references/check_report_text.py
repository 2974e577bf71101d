"""The integrity report as people read it: one section per kind of problem, in the order
serena-agent's report uses (stale references, exact bare mentions, near-misses), then
what this project adds (reachability, unreadable and skipped files, sync conflicts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from serena_memory.core.display import counted
from serena_memory.integrity.references.check_report import ENTRY_POINT

if TYPE_CHECKING:
    from serena_memory.integrity.references.check_report import CheckReport


def report_text(report: CheckReport, also_checked: tuple[str, ...] = ()) -> str:
    """The whole report: a one-line all-clear (naming ``also_checked``, what other checks
    found clean), or its sections separated by blank lines."""
    if report.is_clean():
        what = "references" if not report.include_unmarked else "references and mentions"
        what = ", ".join((what, *also_checked))
        return f"No integrity problems found ({checked_count(report, f', {what} checked')}).\n"
    out: list[str] = []
    for section in SECTIONS:
        out.extend(section(report))
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def checked_count(report: CheckReport, checked: str = " checked") -> str:
    """How many memories were checked, out of those `list` shows when some were not, and
    why those were not: "3 of 5 memories checked; left out: memory_maintenance (it
    holds examples), 1 empty memory"."""
    from serena_memory.integrity.listing import MAINTENANCE_NAMES

    if not report.not_scanned:
        return counted(report.scanned, "memory", "memories") + checked
    listed = report.scanned + len(report.not_scanned)
    examples = [n for n in report.not_scanned if n in MAINTENANCE_NAMES]
    why = [f"{name} (it holds examples)" for name in examples]
    empty = len(report.not_scanned) - len(examples)
    if empty:
        why.append(counted(empty, "empty memory", "empty memories"))
    return f"{report.scanned} of {listed} memories{checked}; left out: {', '.join(why)}"


def _read_only(flag: bool) -> str:
    return " [read-only source]" if flag else ""


def _times(n: int) -> str:
    return f"{n} occurrence" + ("" if n == 1 else "s")


def _stale(report: CheckReport) -> list[str]:
    if not report.stale:
        return []
    out = [f"Stale references ({len(report.stale)}):"]
    for s in report.stale:
        where = ", ".join(str(n) for n in s.lines)
        out.append(
            f"  - `mem:{s.target}` in `{s.source}`{_read_only(s.source_read_only)}"
            f" (line{'s' if len(s.lines) > 1 else ''} {where})"
        )
        if s.target_ignored:
            out.append("    note: that memory exists but is ignored")
        if s.candidates:
            out.append("    candidates: " + ", ".join(f"`mem:{c}`" for c in s.candidates))
        else:
            out.append("    candidates: (nothing close enough)")
    return [*out, ""]


def _bare_mentions(report: CheckReport) -> list[str]:
    if not (report.bare_high or report.bare_low):
        return []
    out = [
        "Names written without `mem:` (exact matches):",
        "  (prose may use a name on purpose; these are suggestions)",
    ]
    for label, group in (
        ("high confidence", report.bare_high),
        ("low confidence", report.bare_low),
    ):
        if not group:
            continue
        out.append(f"  {label} ({len(group)}):")
        out.extend(
            f"    - {_times(b.occurrences)} of `{b.name}` in `{b.source}`"
            f"{_read_only(b.source_read_only)} (suggested: `mem:{b.name}`)"
            for b in group
        )
    return [*out, ""]


def _near_misses(report: CheckReport) -> list[str]:
    if not report.near_misses:
        return []
    out = [f"Near-misses of existing names ({len(report.near_misses)}):"]
    out.extend(
        f"  - {_times(b.occurrences)} of `{b.token}` in `{b.source}`"
        f"{_read_only(b.source_read_only)} — near-miss (suggested: `mem:{b.name}`)"
        for b in report.near_misses
    )
    return [*out, ""]


def _reachability(report: CheckReport) -> list[str]:
    if report.unreachable is None:
        return []
    out: list[str] = []
    if not report.entry_point_exists:
        out.append(f"No `{ENTRY_POINT}` memory: there is no entry point to reach from.")
    if report.unreachable:
        out.append(f"Not reachable from `mem:{ENTRY_POINT}` ({len(report.unreachable)}):")
        out.extend(f"  - `{name}`" for name in report.unreachable)
    out.append("")
    if report.ignored_references:
        out.append(f"References into ignored memories ({len(report.ignored_references)}):")
        for r in report.ignored_references:
            lines = ", ".join(str(n) for n in r.lines)
            out.append(f"  - `mem:{r.target}` in `{r.source}` (line {lines})")
        out.append("")
    return out


def _unreadable(report: CheckReport) -> list[str]:
    if not report.unreadable:
        return []
    out = [f"Not valid UTF-8, not checked ({len(report.unreadable)}):"]
    out.extend(f"  - `{name}`" for name in report.unreadable)
    if report.unreachable is not None:
        out.append("  (their references can't be read, so nothing is reached through them)")
    return [*out, "  re-save each as UTF-8 to check it", ""]


def _skipped(report: CheckReport) -> list[str]:
    if not report.skipped:
        return []
    out = [f"Skipped, not read ({len(report.skipped)}):"]
    out.extend(f"  - {s.describe()}" for s in report.skipped)
    return [*out, ""]


def _sync_conflicts(report: CheckReport) -> list[str]:
    if not report.sync_conflicts:
        return []
    out = [f"Unresolved sync conflicts ({len(report.sync_conflicts)}):"]
    out.extend(f"  - `{name}`" for name in report.sync_conflicts)
    out.append(
        "  both sides changed the same lines; compare with `serena memories conflicts "
        "--show NAME`, then `serena memories resolve NAME --keep memory|set-aside`"
    )
    return [*out, ""]


SECTIONS: tuple[Callable[[CheckReport], list[str]], ...] = (
    _stale,
    _bare_mentions,
    _near_misses,
    _reachability,
    _unreadable,
    _skipped,
    _sync_conflicts,
)
