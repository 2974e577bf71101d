"""The test coverage a project requires, said in two memories: "coverage gate 90%" /
"`pytest --cov-fail-under=80` in CI" / "need at least 70% coverage". A line about
coverage that says it is required (a gate, a threshold, a minimum, `fail-under`, "at
least", `≥`) and gives one percentage says the project's bar, however it is worded, so
two memories giving the bar of one part (the backend, the frontend, or the whole) two
values contradict each other (:mod:`.named` compares them as values of one name).

A line with two percentages or more (a bar per part, a bar and a measure) gives none:
which is the bar is not said once.
"""

from __future__ import annotations

import re

_COVERAGE = re.compile(r"coverage|cov-fail-under|カバレッジ|覆盖率|커버리지", re.IGNORECASE)
_REQUIRED = re.compile(
    r"\bgate|threshold|\bminimum|\bmin\b|at least|fail[s-]?[ -]?(?:under|below)|enforced"
    r"|required|\bmust\b|≥|>=|以上|至少|이상",
    re.IGNORECASE,
)
"""Words that make a coverage figure a bar to reach, not a measure taken."""
_SHARE = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*%|fail-under[= ](\d{1,3})\b")
_PARTS = re.compile(r"\b(frontend|backend|front-end|back-end|api|web|ui|client|server|mobile)\b")
"""Words of the part of a project a bar is of."""


def coverage_bar(said: str) -> tuple[str, str] | None:
    """The one coverage bar a line says, as (percentage, the parts of the project it is
    of, joined), or None: no coverage, no bar, or two figures."""
    if "%" not in said and "fail-under" not in said:
        return None  # no figure: the regular expressions are not run on most lines
    if _COVERAGE.search(said) is None or _REQUIRED.search(said) is None:
        return None
    figures = {a or b for a, b in _SHARE.findall(said)}
    if len(figures) != 1:
        return None
    parts = sorted({p.replace("-", "") for p in _PARTS.findall(said.casefold())})
    return figures.pop(), " ".join(parts)
