"""Near-misses a person would accept, class by class (the labeled set in
benchmarks/nearmiss/ measures the same classes on realistic memory folders)."""

from __future__ import annotations

import pytest

from serena_memory.integrity.references.analysis import IntegrityAnalyzer


def near_misses(names: list[str], text: str, source: str = "notes") -> list[tuple[str, str]]:
    memories = {name: "x\n" for name in names}
    memories[source] = text
    report = IntegrityAnalyzer(memories).check(include_unmarked=True, fuzzy=True)
    return [(b.token, b.name) for b in report.near_misses]


AUDITS = ["audit/audit-issue-finder-iss-002", "audit/audit-issue-finder-iss-005",
          "audit/audit-issue-finder-iss-008", "skills-protocol-index"]  # fmt: skip


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("issue-finder-ISS-008", "audit/audit-issue-finder-iss-008"),
        ("issue-finder-ISS-005", "audit/audit-issue-finder-iss-005"),
        ("issue-finder-ISS-011", None),  # no memory has that number
        ("audit-issue-finder-iss", None),  # three memories fit: no arbitrary pick
        ("Skill-Protocol-002", None),  # an ID inside an index, not a memory
    ],
)
def test_numbers_that_tell_memories_apart_are_part_of_the_name(token, expected) -> None:
    found = near_misses(AUDITS, f"Finding {token} is open.\n")
    assert found == ([(token, expected)] if expected else [])


DATED = ["collection_flow_fixes_2025_09", "collection_flow_fixes_2025_10",
         "debug_logger_analysis_2025_08_25", "session_summary_2025_11_21"]  # fmt: skip


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("collection-flow-fixes-2025-10", "collection_flow_fixes_2025_10"),
        ("collection_flow_fixes_2025_11", None),  # a month nobody wrote
        ("collection_flow_fixes", None),  # September or October: a guess either way
        ("debug-logger-analysis-2025-08-25", "debug_logger_analysis_2025_08_25"),
        ("debug_logger_analysis", "debug_logger_analysis_2025_08_25"),  # the only one
        ("session-summary-2025-11-24", None),
    ],
)
def test_dated_names(token, expected) -> None:
    found = near_misses(DATED, f"History: {token} has the details.\n")
    assert found == ([(token, expected)] if expected else [])


def test_common_words_and_plurals_are_prose() -> None:
    names = ["conventions", "suggested_commands", "validation/validation-anti-patterns"]
    text = "Follow the commit convention: type(scope). Avoid this Anti-Pattern.\n"
    assert near_misses(names, text) == []
    assert near_misses(names, "See suggested-commands.\n") == [
        ("suggested-commands", "suggested_commands")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "New cases go into `test-cases/` first.\n",  # a folder, not test-cases-overview
        "UI/Streamlit conventions are listed below.\n",  # a phrase with a slash
        "Progress of d27-cursor-pagination is tracked here.\n",  # a folder of memories
        "Everything is under `.serena/memories/testing/`.\n",  # the memory folder itself
    ],
)
def test_folder_paths_and_slashed_phrases_are_not_memories(text) -> None:
    names = ["test-cases-overview", "ui_streamlit", "d27-cursor-pagination/progress",
             "d27-cursor-pagination/completed", "testing/testing-overview-notes"]  # fmt: skip
    assert near_misses(names, text) == []


def test_code_identifiers_are_code_unless_they_spell_the_name() -> None:
    names = ["debug_logger_analysis_2025_08_25", "archive/EXTRACTION_ERROR", "DDD_CURRENT_STATE",
             "task_completion_checklist"]  # fmt: skip
    text = (
        "Use DebugLogger and catch ExtractionError.\n"
        "```python\nwrite_memory('checkpoint', current_state)\n"
        "run(task-completion-checklist)\n```\n"
        "Call logger.debug_logger_analysis(state) when stuck.\n"
    )
    assert near_misses(names, text) == [("task-completion-checklist", "task_completion_checklist")]


def test_camel_case_token_matches_a_camel_case_name() -> None:
    names = ["ci/ImportParser", "debug_logger_analysis_2025_08_25"]
    assert near_misses(names, "The importParser notes.\n") == [("importParser", "ci/ImportParser")]
    assert near_misses(names, "The DebugLogger class.\n") == []
    two = ["ci/indexSecret", "db/indexSecret", "debug_logger_analysis_2025_08_25"]
    assert near_misses(two, "The IndexSecret notes.\n") == []  # two fit: no pick


def test_paths_to_memory_files_mean_the_memory() -> None:
    names = ["evaluator_architecture_2025", "ci/ci-flaky-test-quarantine", "style"]
    text = (
        "Design: `.serena/memories/evaluator_architecture_2025.md`.\n"
        "Flakes: .serena/memories/ci/ci-flaky-test-quarantine.md and [style](../style.md).\n"
        "See also `.serena/memories/style.md`.\n"
    )
    assert sorted(near_misses(names, text)) == [
        ("serena/memories/ci/ci-flaky-test-quarantine", "ci/ci-flaky-test-quarantine"),
        ("serena/memories/evaluator_architecture_2025", "evaluator_architecture_2025"),
        ("serena/memories/style", "style"),
    ]


def test_a_memory_file_path_to_the_source_itself_is_not_reported() -> None:
    text = "This file is .serena/memories/ci/ci-flaky-test-quarantine.md.\n"
    memories = {"ci/ci-flaky-test-quarantine": text, "other_memory_name": text}
    report = IntegrityAnalyzer(memories).check(include_unmarked=True, fuzzy=True)
    assert [(b.source, b.name) for b in report.near_misses] == [
        ("other_memory_name", "ci/ci-flaky-test-quarantine")
    ]


def test_last_segments_of_moved_memories_are_found() -> None:
    names = ["ci/ci-flaky-test-quarantine", "git/git-hooks-run-in-ci-too"]
    text = "Read ci-flaky-test-quarantine; flaky-tests-quarantine too; git-hooks-run-in-ci.\n"
    assert near_misses(names, text) == [
        ("ci-flaky-test-quarantine", "ci/ci-flaky-test-quarantine"),
        ("flaky-tests-quarantine", "ci/ci-flaky-test-quarantine"),
        ("git-hooks-run-in-ci", "git/git-hooks-run-in-ci-too"),
    ]


def test_a_line_that_already_references_the_memory_is_left_alone() -> None:
    names = ["task_completion"]
    assert near_misses(names, "For task-completion: `mem:task_completion`.\n") == []
    assert near_misses(names, "`mem:task_completion`\n\nThen task-completion again.\n") == [
        ("task-completion", "task_completion")
    ]


def test_rewrite_memory_paths_only_touches_paths_of_the_given_memories() -> None:
    from serena_memory.integrity.references.prefixing import rewrite_memory_paths

    text = (
        "See .serena/memories/ci/flaky.md, ~/.serena/memories/ci/flaky.md,\n"
        ".serena/memories/other.md and [x](.serena/memories/ci/flaky.md).\n"
    )
    new, counts = rewrite_memory_paths(text, {"ci/flaky"})
    assert counts == {"ci/flaky": 1}
    assert new == text.replace("See .serena/memories/ci/flaky.md", "See mem:ci/flaky")
    assert rewrite_memory_paths(new, {"ci/flaky"}) == (new, {})


def test_file_names_with_another_extension_are_not_memories() -> None:
    names = ["ai/ai-pr-quality-gate-notes", "ci/ci-flaky-test-quarantine"]
    text = "The workflow ai-pr-quality-gate.yml runs first; flaky-test-quarantine.md explains.\n"
    assert near_misses(names, text) == [("flaky-test-quarantine", "ci/ci-flaky-test-quarantine")]
