"""Names that are no claim about the project's files as they are: the files a section
laying out work still to do means to make, and names a naming rule builds from a
stand-in (`copy-X.test.js`, `nameSync` beside `name`), checked on real git repositories."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.mentions import extract
from serena_memory.integrity.code_drift.planned import says_planned

__all__ = ["repo"]  # the fixture, used by name


def test_a_plans_files_git_never_knew_are_no_drift(repo: Path) -> None:
    write(repo, "pkg/markets/registry.py", "REGISTRY = {}\n")
    write(repo, "pkg/services/austin_service.py", "x = 1\n")
    write(repo, "pkg/services/__init__.py", "")
    commit(repo)
    memory(
        repo,
        "expansion",
        "# Market expansion\n\n## Current state\n"
        "- `pkg/services/austin_service.py` holds Austin's data\n"
        "- `pkg/services/houston_service.py` holds Houston's\n\n"
        "## Target Architecture\n\n```\npkg/\n├── markets/\n│   ├── registry.py\n"
        "│   └── config_loader.py\n└── services/\n    └── market_service.py\n```\n\n"
        "### Phase 2: Service\n**File**: `pkg/services/market_service.py`\n"
        "Retire `pkg/services/austin_service.py` once it is merged.\n\n"
        "## Notes\n- `pkg/markets/validators.py` checks the configs\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "pkg/services/austin_service.py")
    commit(repo, "merge the services")
    told = set(by_mention(findings(repo)))
    # the plan's new files are none; what it names that git knew, and claims outside it, are
    assert told == {
        "pkg/services/austin_service.py",
        "pkg/services/houston_service.py",
        "pkg/markets/validators.py",
    }


def test_a_heading_that_says_the_work_is_done_opens_no_plan() -> None:
    assert says_planned("Implementation Plan")
    assert says_planned("🔜 Next Steps (remaining stories)")
    assert says_planned("残作業 ⏸️")
    assert not says_planned("Phase 4.2: progress")
    assert not says_planned("Phase 1 Plan — Completed ✅")
    assert not says_planned("Build targets")


def test_a_plans_files_are_marked_only_under_its_heading() -> None:
    text = "## Roadmap\n- `src/new.py`\n### Step 1\n- `src/step.py`\n## Layout\n- `src/old.py`\n"
    planned = {m.target: m.planned for m in extract(text)}
    assert planned == {"src/new.py": True, "src/step.py": True, "src/old.py": False}


def test_one_capital_or_a_word_in_capitals_for_a_part_is_a_pattern(repo: Path) -> None:
    write(repo, "test/copy.test.js", "test()\n")
    memory(
        repo,
        "tests",
        "Each test is `copy-X.test.js` or `copy-sync-X.test.js` in `test/`.\n"
        "Specs go in `docs/N-spec.md`, fixtures in `test/fixtures/copy-NAME.json`.\n"
        "The copy tests live in `test/copy.test.js`, the move tests in `test/move.test.js`.\n",
    )
    commit(repo)
    assert set(by_mention(findings(repo))) == {"test/move.test.js"}


def test_a_name_built_from_a_stand_in_word_on_its_line_is_a_pattern(repo: Path) -> None:
    write(repo, "lib/copy.js", "function copy() {}\nfunction copySync() {}\n")
    memory(
        repo,
        "api",
        "Every method `name` has a `nameSync` twin, and a `getName` getter per field.\n"
        "So `copy` has `copySync`; `moveSync` went away.\n"
        "The `nameSync` helper formats names.\n",
    )
    commit(repo)
    # on a line without the stand-in alone, `nameSync` is a symbol again
    assert sorted((f["mention"], f["line"]) for f in findings(repo)) == [
        ("moveSync", 2),
        ("nameSync", 3),
    ]


def test_a_name_right_after_a_naming_label_shows_the_rule(repo: Path) -> None:
    write(repo, "tests/test_login.py", "def test_login():\n    pass\n")
    memory(
        repo,
        "testing",
        "- **Test Naming**: `test_feature_functionality.py`\n"
        "- Login is tested in `tests/test_login.py` and `tests/test_logout.py`.\n",
    )
    commit(repo)
    assert set(by_mention(findings(repo))) == {"tests/test_logout.py"}


def test_paths_git_never_knew_under_a_references_heading_are_another_projects(
    repo: Path,
) -> None:
    write(repo, "src/cache.py", "CACHE = {}\n" * 3)
    write(repo, "src/old_usage.py", "USAGE = 0\n" * 3)
    commit(repo)
    memory(
        repo,
        "caching",
        "# Prompt caching\n\n## Files\n- `src/cache.py` - the cache\n"
        "- `src/usage_tracker.py` - counts tokens\n\n"
        "## References\n\n- **Example Notebook**: examples/Prompt_Caching101.ipynb\n"
        "- **API Types**:\n  - `src/openai/types/completion_usage.py` (Chat Completions)\n"
        "  - `src/old_usage.py` (ours, before the SDK's)\n\n"
        "## Research Sources\n- `examples/basic/tools.py` from openai-agents-python\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/old_usage.py")
    commit(repo, "use the SDK's usage")
    told = set(by_mention(findings(repo)))
    # cited sources git never knew are no claims; a file of the project cited there is
    assert told == {"src/usage_tracker.py", "src/old_usage.py"}
    assert says_planned("📚 References")
    assert not says_planned("Reference Implementation")
    assert not says_planned("Sources of truth")
