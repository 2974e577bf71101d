"""A role filled by two tools of one kind (:mod:`serena_memory.integrity.duplicates.tools`):
written as real memory folders through a real store and checked with the cache, as
`serena memories check --duplicates` does."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest
from conftest import REPO_ROOT, load_script
from duplicates_support import checked, memory

from serena_memory.integrity.duplicates import find_duplicates

# one memory's line, another's naming another tool of that kind for the same role
TWO_TOOLS_ONE_ROLE = [
    (
        "2. `uv run poe type-check` runs ty on `src/`.",
        "- `uv run poe type-check` runs mypy over `src/`.",
    ),
    ("| Unit tests | Jest |", "Unit tests run with Vitest and jsdom."),
    (
        "- Use `slog` (stdlib structured logging), no third-party loggers.",
        "- All packages log through `zerolog`.",
    ),
    (
        "Snapshot tests use syrupy.",
        "Long outputs are snapshot tests, with the `pytest-snapshot` plugin.",
    ),
    ("- Lint: `flake8 src tests`", "- Lint with ruff before each commit."),
    # more kinds a project picks one of
    ("- TypeScript 5.9; ESM package.", "- The package is CommonJS; modules load via require."),
    ("## Docstrings (Google Style)", "## Docstrings use NumPy style"),
    ("- **Image Loading**: Glide", "## Image loading: Coil"),
    # a tool's name joined to how it is followed; a diagram tool
    ("| Docstrings | Google style, brief |", "Public functions use NumPy-style docstrings:"),
    ("- **All diagrams use PlantUML** (no ASCII art)", "## Diagrams: Mermaid"),
    # a table keyed in Chinese: the key is the role
    ("- **代码检查**: flake8 (配置文件: `.flake8`)", "| 代码检查 | ruff (`pyproject.toml`) |"),
    # a line that rules the other one out names its own choice only
    (
        "- Unit tests use **Swift Testing** (`import Testing`), NOT XCTest.",
        "| Unit tests | XCTest |",
    ),
]


@pytest.mark.parametrize(("first", "second"), TWO_TOOLS_ONE_ROLE)
def test_two_tools_of_one_kind_for_one_role_are_a_conflict(
    tmp_path: Path, first: str, second: str
) -> None:
    report = checked(tmp_path, {"stack": memory("Stack", first), "notes": memory("Notes", second)})
    found = [(c.first, c.second) for c in report.conflicts]
    assert found == [("notes", "stack")], report.to_dict()


# two tools of one kind that are no two answers to one question
NOT_ONE_ROLE = [
    # a line naming both: a choice or a move
    ("- Use ruff for linting, not flake8.", "- Lint with ruff before each commit."),
    # one role word in common by chance, in long lines about other things
    (
        "- Per-file pyright checks all block on a failure in the release workflow here.",
        "- The pre-push hook runs mypy and blocks on errors in any Python file changed.",
    ),
    # one tool for packages, the other beside tests
    (
        "- Browser tests need a fresh `pnpm run build` of the page component first.",
        "- Release notes are drafted by hand, then `npm publish` ships the package.",
    ),
]


@pytest.mark.parametrize(("first", "second"), NOT_ONE_ROLE)
def test_two_tools_not_for_one_role_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()


def test_a_line_that_rules_a_tool_out_agrees_with_its_choice() -> None:
    first = memory("Tests", "- Unit tests use **Swift Testing**, NOT XCTest.")
    second = memory("Notes", "| Unit tests | Swift Testing |")
    assert find_duplicates({"a": first, "b": second}).conflicts == []


def test_a_memory_that_names_both_tools_is_no_conflict() -> None:
    first = memory("Lint", "- Lint: `flake8 src tests`")
    second = memory(
        "Gate", "- Lint with ruff before each commit.", "- ruff replaced flake8 in 2024."
    )
    assert find_duplicates({"a": first, "b": second}).conflicts == []


TAR = REPO_ROOT.parent / "shared" / "realworld" / "serena-projects.tar.gz"
SEEDS = REPO_ROOT / "benchmarks" / "data" / "duplicates-seeds-8.jsonl"
# notes written on the topic of a long memory, sharing its names, no part of it
ON_THE_TOPIC = ["testing/vitest_scope", "database_timeline_focus", "deployment/nlp_sidecar"]


@pytest.mark.skipif(not TAR.is_file(), reason="../shared/realworld/ is not beside the repository")
@pytest.mark.parametrize("note", ON_THE_TOPIC)
def test_a_note_on_the_topic_of_a_long_memory_is_no_rewritten_part(
    tmp_path: Path, note: str
) -> None:
    """A real folder with a note added on the topic of one of its long memories (it keeps
    60 to 63% of its words' weight there): no finding names the note."""
    row = next(
        r
        for r in map(json.loads, SEEDS.read_text(encoding="utf-8").splitlines())
        if r["new_name"] == note and r["kind"] == "harmless"
    )
    with tarfile.open(TAR) as tar:
        tar.extractall(tmp_path, filter="data")
    bench = load_script("benchmarks/duplicates_quality.py")
    folder = tmp_path / "serena-projects" / row["folder"] / ".serena" / "memories"
    memories = {**bench.load(folder), note: row["new_text"]}
    assert note not in bench.names_of(find_duplicates(memories))
