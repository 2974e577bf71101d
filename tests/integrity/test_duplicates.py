"""The duplicate check on real memory files: near-duplicate memories (copies under
another name, reordered, with lines dropped and edited), near-duplicate sections, and
statements restated with another command, port, version, path, flag or a negation; the
bounds on hostile input; and the cache, which never changes a report."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates import features_cache as DC
from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.features import features_of
from serena_memory.integrity.duplicates.findings import MAX_FINDINGS, DuplicateReport
from serena_memory.integrity.plugins.base import CheckOptions
from serena_memory.integrity.plugins.duplicates import DuplicateFindings
from serena_memory.integrity.plugins.registry import CheckResults, run_checks

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo" / ".serena" / "memories"

DEPLOY = """# Deploy

- Staging deploys on every merge to `main`; production on a `v*` tag.
- The pipeline runs `make release` and pushes the image to the registry.
- Rollback: `fly releases rollback` within 30 minutes of a bad deploy.
- Health checks hit `/healthz` on port 8080 every ten seconds.
- Secrets come from the vault, never from the repository.
- Database migrations run before the new version takes traffic.
"""


def checked(store: MemoryStore) -> CheckResults:
    """The check with ``--duplicates``, as `serena memories check --duplicates` runs it."""
    return run_checks(store, CheckOptions(duplicates=True, jobs=1))


def duplicates_of(results: CheckResults) -> DuplicateReport:
    """The duplicate check's report in ``results``."""
    return next(f.report for _c, f in results.found if isinstance(f, DuplicateFindings))


def demo_project(project: Path) -> Path:
    """The demo project's memories, copied: a real folder written by hand."""
    memories = project / ".serena" / "memories"
    shutil.copytree(DEMO, memories)
    return memories


def write(memories: Path, name: str, text: str | bytes) -> None:
    path = memories / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def pairs(report: DuplicateReport) -> set[tuple[str, str]]:
    found = {(d.first, d.second) for d in (*report.memories, *report.sections)}
    for group in report.identical:
        found |= {(a, b) for a in group for b in group if a < b}
    return found


def test_the_demo_folder_as_it_is_has_nothing_to_report(store: MemoryStore, project: Path) -> None:
    demo_project(project)
    report = duplicates_of(checked(store))
    assert report.problem_count == 0
    assert report.compared == 44


def test_a_copy_reordered_with_lines_dropped_and_edited_is_a_near_duplicate(
    store: MemoryStore, project: Path
) -> None:
    memories = demo_project(project)
    write(memories, "ops/deploy", DEPLOY)
    lines = DEPLOY.splitlines()
    edited = lines[6].replace("the vault", "the secret store")
    copy = [lines[0], "", edited, lines[2], lines[5], lines[3]]
    write(memories, "notes/deploying", "\n".join(copy) + "\n")
    report = duplicates_of(checked(store))
    assert report is not None
    [pair] = report.memories
    assert (pair.first, pair.second) == ("notes/deploying", "ops/deploy")
    assert pair.similarity >= 0.6
    assert pair.only_second == (5, 8)  # the lines the copy dropped (the edited one is alike)
    assert pair.only_first == ()
    text = "".join(checked(store).to_texts())
    assert "Near-duplicate memories (1):" in text
    assert "`notes/deploying` and `ops/deploy`" in text
    assert "merge the two into one memory" in text


def test_the_same_text_under_two_names_is_one_group(store: MemoryStore, project: Path) -> None:
    memories = demo_project(project)
    write(memories, "db/core-copy", (memories / "db" / "core.md").read_text(encoding="utf-8"))
    report = duplicates_of(checked(store))
    assert report is not None
    assert report.identical == [("db/core", "db/core-copy")]
    assert report.memories == [] and report.conflicts == []


def test_a_section_pasted_into_another_memory_is_a_near_duplicate_section(
    store: MemoryStore, project: Path
) -> None:
    memories = demo_project(project)
    write(memories, "ops/deploy", DEPLOY)
    runbook = (
        "# Runbook\n\n## Paging\n\n- Page the on-call engineer through the pager app.\n"
        "- Say in the incident channel who has the pager now.\n"
        "- Write the incident note within two working days.\n\n## Deploying\n\n"
        + "\n".join(DEPLOY.splitlines()[2:8])
        + "\n"
    )
    write(memories, "ops/runbook", runbook)
    report = duplicates_of(checked(store))
    assert report is not None
    [section] = report.sections
    assert (section.first, section.second) == ("ops/deploy", "ops/runbook")
    assert section.first_lines == (1, 8) and section.second_lines == (11, 16)


@pytest.mark.parametrize(
    ("original", "restated", "values"),
    [
        (
            "Run `npm test` before pushing any branch to the remote.",
            "Run `yarn test` before pushing any branch to the remote.",
            ("npm test", "yarn test"),
        ),
        (
            "The development server listens on port 8080 by default here.",
            "The development server listens on port 3000 by default here.",
            ("8080", "3000"),
        ),
        (
            "The project targets Python 3.11 for every service it ships.",
            "The project targets Python 3.12 for every service it ships.",
            ("3.11", "3.12"),
        ),
        (
            "Generated clients live in src/clients/generated and are committed.",
            "Generated clients live in src/api/generated and are committed.",
            ("src/clients/generated", "src/api/generated"),
        ),
        (
            "The test runner is started with --strict on the build machines.",
            "The test runner is started with --lenient on the build machines.",
            ("--strict", "--lenient"),
        ),
        (
            "Feature branches must be rebased onto main before they merge.",
            "Feature branches must not be rebased onto main before they merge.",
            ("", "not"),
        ),
        (
            "Reviewers don't approve their own pull requests in this team.",
            "Reviewers do approve their own pull requests in this team.",
            ("not", ""),
        ),
    ],
)
def test_a_statement_restated_with_one_value_changed_is_a_conflict(
    store: MemoryStore, project: Path, original: str, restated: str, values: tuple[str, str]
) -> None:
    memories = demo_project(project)
    write(memories, "testing/core", f"# Testing\n\n{original}\nMore below.\n")
    write(memories, "workflow", f"# Workflow\n\nFirst a line.\n\n{restated}\n")
    report = duplicates_of(checked(store))
    assert report is not None
    [conflict] = report.conflicts
    assert (conflict.first, conflict.first_line) == ("testing/core", 3)
    assert (conflict.second, conflict.second_line) == ("workflow", 5)
    if "" in values:
        assert conflict.negation
        assert {conflict.first_value, conflict.second_value} == {"", "not"}
    else:
        assert (conflict.first_value, conflict.second_value) == values
    text = "".join(checked(store).to_texts())
    assert "Conflicting statements (1):" in text
    assert "fix the statement that is wrong" in text


def test_statements_about_different_references_are_no_conflict(
    store: MemoryStore, project: Path
) -> None:
    memories = demo_project(project)
    write(memories, "a", "# A\n\nRead `mem:db/core` before changing the schema of any table.\n")
    write(memories, "b", "# B\n\nRead `mem:db/schema` before changing the schema of any table.\n")
    report = duplicates_of(checked(store))
    assert report is not None and report.problem_count == 0


@pytest.mark.slow  # ten thousand memories written and read
def test_ten_thousand_identical_memories_are_one_finding_quickly(
    store: MemoryStore, project: Path
) -> None:
    memories = project / ".serena" / "memories"
    for i in range(10_000):
        write(memories, f"copies/note-{i:05d}", DEPLOY)
    started = time.monotonic()
    results = checked(store)
    assert time.monotonic() - started < 60  # bounded: one group, not 50 million pairs
    dups = duplicates_of(results)
    assert len(dups.identical) == 1 and dups.identical_sizes == [10_000]
    assert "and 9988 more" in "".join(results.to_texts())


def test_thousands_of_near_copies_are_capped_and_counted() -> None:
    memories = {
        f"n{i:04d}": DEPLOY.replace("30 minutes", f"{i} minutes").replace("8080", str(9000 + i))
        for i in range(1500)
    }
    report = find_duplicates(memories)
    assert len(report.memories) == MAX_FINDINGS
    assert report.left_out > 0
    assert report.problem_count == MAX_FINDINGS + report.left_out


def test_a_huge_memory_and_one_not_utf8_are_checked_around(
    store: MemoryStore, project: Path
) -> None:
    memories = demo_project(project)
    write(memories, "huge", "word " * 400_000 + "\n" + "line of text here\n" * 50_000)
    write(memories, "latin1", "Caf\xe9 notes\n".encode("latin-1"))
    started = time.monotonic()
    results = checked(store)
    assert time.monotonic() - started < 60
    assert "latin1" in results.to_dict()["unreadable"]
    assert duplicates_of(results).compared == 45


def test_the_cached_report_equals_a_cold_one_after_edits(store: MemoryStore, project: Path) -> None:
    memories = demo_project(project)
    write(memories, "ops/deploy", DEPLOY)
    cold = DC.check_duplicates(store, cache=False).to_dict()
    assert DC.check_duplicates(store).to_dict() == cold
    assert DC.cache_path(store).is_file()
    assert DC.check_duplicates(store).to_dict() == cold  # from the kept report
    write(memories, "notes/deploying", DEPLOY.replace("8080", "3000"))
    time.sleep(0.01)
    fresh = DC.check_duplicates(store, cache=False).to_dict()
    assert fresh != cold
    assert DC.check_duplicates(store).to_dict() == fresh


def test_a_damaged_or_foreign_cache_is_rebuilt(store: MemoryStore, project: Path) -> None:
    memories = demo_project(project)
    write(memories, "ops/deploy", DEPLOY)
    write(memories, "notes/deploying", DEPLOY)
    cold = DC.check_duplicates(store, cache=False).to_dict()
    DC.check_duplicates(store)
    path = DC.cache_path(store)
    path.write_bytes(b"not a database at all" * 100)
    assert DC.check_duplicates(store).to_dict() == cold
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("UPDATE memo SET lines = X'0102', sig = X'00'")
    conn.execute("UPDATE meta SET value = 'x' WHERE key = 'report'")
    conn.commit()
    conn.close()
    assert DC.check_duplicates(store).to_dict() == cold


LINES = st.lists(
    st.text(alphabet="abc `-./08 \n#*é", min_size=0, max_size=60), min_size=0, max_size=12
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.dictionaries(st.sampled_from(["a", "b", "c/d", "e"]), LINES.map("\n".join)))
def test_any_texts_give_a_report_that_survives_its_json_form(texts: dict[str, str]) -> None:
    report = find_duplicates(texts)
    assert DuplicateReport.from_dict(report.to_dict()).to_dict() == report.to_dict()
    for d in (*report.memories, *report.sections):
        assert d.first < d.second and d.first in texts and d.second in texts
    for c in report.conflicts:
        assert c.first != c.second
        assert c.first_value != c.second_value


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=400))
def test_any_text_and_its_copy_are_one_group_of_the_same_text(text: str) -> None:
    report = find_duplicates({"a": text, "b": text, "c": "# Other\n\nNothing alike here at all.\n"})
    said_something = not features_of(text)[0].empty
    assert report.identical == ([("a", "b")] if said_something else [])
    assert report.memories == [] and report.conflicts == [] and report.sections == []


# What real folders hold and a person need not be told about (found on the 34 real
# projects of shared/realworld): each of these gave a finding before.

PROSE = [
    "The importer reads the ledger export once a night and keeps the last seven runs.",
    "Refunds are booked against the original invoice, never as a new negative invoice.",
    "The currency of an account is fixed when it is opened and cannot change later.",
]


def _memory(title: str, *parts: str) -> str:
    return f"# {title}\n\n## Notes\n\n" + "\n\n".join(parts) + "\n"


def _other_prose(topic: str) -> str:
    return "\n".join(
        f"- The {topic} {verb} happens on {day} by the {who} team."
        for verb, day, who in (
            ("review", "Monday", "platform"),
            ("rollout", "Tuesday", "mobile"),
            ("cleanup", "Friday", "data"),
        )
    )


@pytest.mark.parametrize(
    "shared",
    [
        "## Related Memories\n\n- `mem:core`\n- `mem:backend/api`\n- `mem:testing/core`\n"
        "- `mem:deployment/core`",
        "## Related\n\n- [adr-007](adr-007.md)\n- [adr-014 findings](adr-014-findings.md)\n"
        "- [adr-019 analysis](adr-019-quantitative-analysis.md)",
        "## References\n\n- PR #669: PR co-mingling retrospective\n- Issue #684: SESSION-PROTOCOL"
        " branch verification\n- Issue #681: Pre-commit hook implementation",
        "## Record\n\n**Category:** Duplication\n**Severity:** Important\n**Status:** resolved\n"
        "**Created:** 2026-01-29T10:30:00Z\n**Last validated:** 2026-01-29T10:30:00Z",
        "## Checks\n\n```bash\n# lint, test, build\nmake lint\nmake test\n\nmake docs\n"
        "make dist\n```",
    ],
    ids=["mem-references", "links", "references", "fields", "fenced-commands"],
)
def test_what_memories_repeat_by_design_is_no_finding(shared: str) -> None:
    report = find_duplicates(
        {
            "billing": _memory("Billing", "\n".join(PROSE), shared),
            "release": _memory("Release", _other_prose("release"), shared),
        }
    )
    assert report.problem_count == 0, report.to_dict()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "**UI Framework:** WinUI 3 with the Windows App SDK `1.8` for every window.",
            "**UI Framework:** WinUI 3 with the Windows App SDK `1.8.260209005` for every window.",
        ),
        (
            "Negative control: run `build_all.py` and the reverted content stays reverted.",
            "Negative control: run `build/scripts/build_all.py` and the reverted content stays"
            " reverted.",
        ),
        (
            "`gh pr view` may return stale OPEN for recently merged pull requests.",
            "`gh pr view --json state` may return stale OPEN for recently merged pull requests.",
        ),
        (
            "Issue #4553 tracks the fix for this crash.",
            "Issue #2001 tracks the fix for this crash.",
        ),
        (
            "See the optimization table of the decision record, line 81.",
            "See the optimization table of the decision record, line 84.",
        ),
        (
            "**Atomicity**: 88% **Category**: Git Operations **Source**: Parallel PR Review",
            "**Atomicity**: 93% **Category**: Git Operations **Source**: Parallel PR Review",
        ),
    ],
    ids=[
        "version-more-precise",
        "path-more-folders",
        "command-more-arguments",
        "issue-number",
        "cited-line",
        "record-header",
    ],
)
def test_statements_that_do_not_contradict_each_other_are_no_conflict(
    first: str, second: str
) -> None:
    report = find_duplicates(
        {"a": _memory("A", PROSE[0], first), "b": _memory("B", PROSE[1], second)}
    )
    assert report.problem_count == 0, report.to_dict()
