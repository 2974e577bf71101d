"""A rate limit or a coverage bar said in two memories (:mod:`.rates`, :mod:`.coverage`)
and a minimum version said as a bound (:mod:`serena_memory.integrity.duplicates.named`):
written as real memory folders through a real store and checked with the cache, as
`serena memories check --duplicates` does."""

from __future__ import annotations

from pathlib import Path

import pytest
from duplicates_support import checked, memory

from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.coverage import coverage_bar
from serena_memory.integrity.duplicates.rates import rate_limit

# one memory's line, another's giving the same limit or bound another value in its words
TWO_VALUES = [
    (
        "Middleware stack: cors → requestId → rateLimit(100/min) → cache → routes.",
        "The `rateLimit` middleware allows `60` requests per minute per IP.",
    ),
    (
        "- Global middleware `rateLimit` allows 300 requests/min per IP.",
        "Rate limiting: 100 req/min for each client, counted in Redis.",
    ),
    ("- Coverage ≥ 90% (backend)", "The backend coverage gate is 80%: `--cov-fail-under=80`."),
    (
        "- **Tests:** pytest + pytest-xdist (`-n auto`); coverage gate 90%",
        "- Coverage gate is 85% on `apps` (`--cov-fail-under=85`); CI fails below it.",
    ),
    ("- 80% minimum coverage for services", "Services need at least 70% coverage; DAOs are not."),
    ("- **Language**: Go 1.21+", "| Go | 1.23 minimum | range over func is used |"),
    ("- **プラットフォーム**: macOS 15.5以上", "- 最小デプロイメントターゲット: macOS 14.0"),
]


@pytest.mark.parametrize(("first", "second"), TWO_VALUES)
def test_one_limit_given_two_values_is_a_conflict(tmp_path: Path, first: str, second: str) -> None:
    report = checked(tmp_path, {"stack": memory("Stack", first), "notes": memory("Notes", second)})
    assert {(c.first, c.second) for c in report.conflicts} == {("notes", "stack")}


# lines that give no rate limit, or the same one, or one per span
NOT_TWO_LIMITS = [
    ("Rate limit: 100/min.", "The rate limit is 100 requests per minute."),
    ("Rate limit: 100/min.", "The rate limit is 5000 requests per hour."),
    ("Uploads run at 100/min in CI.", "Downloads run at 60/min in CI."),
    ("- Backend coverage ≥ 90%.", "- Frontend coverage ≥ 70%."),
    ("- Coverage gate: 80%.", "- Coverage is 87% today, above the gate of 80%."),
    ("- Coverage was 62% last sprint.", "- Coverage reached 75% this sprint."),
    ("Rate limits: 10/s burst, 100/min sustained.", "Rate limit: 60/min."),
    # thousands written with a comma: one rate, not `000/hour` (a large real folder's noise)
    ("**Rate limit**: 5,000/hour (authenticated)", "GraphQL has separate limit (5000/hour)."),
]


@pytest.mark.parametrize(("first", "second"), NOT_TWO_LIMITS)
def test_lines_that_are_no_two_values_of_one_limit_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()


def test_a_coverage_bar_is_read_with_its_part() -> None:
    assert coverage_bar("Frontend coverage must stay ≥ 70%") == ("70", "frontend")
    assert coverage_bar("`pytest --cov-fail-under=85` in CI") == ("85", "")
    assert coverage_bar("Coverage is 87% today") is None  # a measure, no bar


def test_a_rate_is_read_with_its_span() -> None:
    assert rate_limit("rateLimit(100/min)") == ("100", "minute")
    assert rate_limit("throttled to 5 calls per second") == ("5", "second")
    assert rate_limit("Rate limit: 5,000/hour") == ("5000", "hour")
    assert rate_limit("100/min everywhere") is None  # no rate limit named
    assert rate_limit("rate limit: 10/s, then 100/min") is None  # two rates
