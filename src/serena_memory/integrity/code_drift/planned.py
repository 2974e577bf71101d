"""Sections of a memory that lay out work still to do: a heading that says so ("## Target
Architecture", "## Implementation Plan" with its "### Phase 3" subsections, "## Next
Steps", "## Remaining work", "## Recommended Organization", "### Raster (5 new files)",
"## 残作業", "## 実装計画") opens one, down to the next
heading of its level or above. The files such a section names are a plan: a path git
never knew is what the plan means to make, not drift; one git knew (a file the plan
moves or deletes) is still a claim
(:meth:`~serena_memory.integrity.code_drift.path_checks.PathChecks.check_path`).

A heading that says the work is done ("Phase 1 Complete", "✅") opens no plan. The
patterns are anchored word tests with no nested quantifiers.
"""

from __future__ import annotations

import re

_PLAN = re.compile(
    r"\b(?:plans?|planned|planning|proposed|proposals?|roadmap|future|todo|to-do|next steps"
    r"|target\s+\w+|remaining\s+(?:work|tasks?|items?)|to\s+(?:be\s+)?(?:create|build|add|implement)\w*"
    r"|recommended|recommendations?|new\s+files?|nouveaux\s+fichiers"
    r"|neue\s+dateien|nuevos\s+archivos)\b"
    r"|計画|予定|提案|残作業|未実装|计划|规划|待实现|待办|新規ファイル|新增文件",
    re.IGNORECASE,
)
"""What a heading says when its section is work still to do."""
_DONE = re.compile(
    r"\b(?:complete|completed|done|finished|implemented|shipped|merged)\b|✅|完了|完成|済",
    re.IGNORECASE,
)
"""What a heading says when that work is done: its files are claims again."""


_SOURCES = re.compile(
    r"^[\W\d]*(?:references?|(?:research\s+|external\s+)?sources|bibliography"
    r"|further\s+reading|external\s+(?:links|resources)|参考(?:文献|资料|資料)?)[\W]*$",
    re.IGNORECASE,
)
"""A heading whose section cites sources outside the project ("## References", "## Research
Sources"): a path there git never knew is another project's (an SDK's
``src/openai/types/completion_usage.py``), no claim, as in a plan."""


def says_planned(heading: str) -> bool:
    """Whether a heading's text says its section is work still to do, or cites sources
    outside the project (its paths git never knew are no claims either)."""
    if _SOURCES.match(heading.strip()):
        return True
    return _PLAN.search(heading) is not None and _DONE.search(heading) is None


_PLANNED_NOTE = re.compile(
    r"(?:#|//|←|<-|\().{0,60}?(?:\bto\s+be\s+(?:created|added|written|built)\b|\bnot\s+yet"
    r"\s+(?:created|added|implemented)\b|\bplanned\b|\btodo\b(?!\s+(?:lists?|items?|files?))"
    r"|\bcoming\s+soon\b"
    r"|作成予定|追加予定|実装予定|未作成|未実装|待创建|待实现|计划中|생성\s*예정)",
    re.IGNORECASE,
)
"""A tree entry's note that says it is still to be made: ``├── mobile/  # React Native
app (TO BE CREATED)``; what the tree draws under it is planned too. A note on what a file
holds is none (``checklist.md  # Implementation TODO list``)."""


def planned_folders(drawn: list[tuple[int, str, str]], lines: dict[int, str]) -> list[str]:
    """The places of a drawn tree whose entry says it is still to be made."""
    return [path for number, written, path in drawn if _planned_entry(lines[number], written)]


def _planned_entry(line: str, written: str) -> bool:
    at = line.find(written)
    return at >= 0 and _PLANNED_NOTE.search(line, at + len(written)) is not None


def under_any(path: str, folders: list[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or lies below one of them."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)
