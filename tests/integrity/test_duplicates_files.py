"""One file said to be in two folders (:mod:`serena_memory.integrity.duplicates.files`):
written as real memory folders through a real store and checked, as `serena memories
check --duplicates` does."""

from __future__ import annotations

from pathlib import Path

import pytest
from duplicates_support import checked, memory
from hypothesis import given
from hypothesis import strategies as st

from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.files import paths


def test_a_script_two_memories_put_in_two_folders_is_a_conflict(tmp_path: Path) -> None:
    """A real folder's smoke test moved to `scripts/`; one memory kept the old folder."""
    release = memory(
        "Release", "```bash", "cargo build --release", "./scripts/test_mcp_e2e.sh", "```"
    )
    done = memory("Done", "5. **Smoke Test:** Run `./tests/test_mcp_e2e.sh`.")
    found = checked(tmp_path, {"release": release, "done": done}).conflicts
    assert [(c.first, c.second, c.first_value, c.second_value) for c in found] == [
        ("done", "release", "tests/test_mcp_e2e.sh", "scripts/test_mcp_e2e.sh")
    ]


# two lines naming one file name in two folders that do not disagree
NOT_ONE_FILE_MOVED = [
    # a move told: the line names both
    (
        "Moved `tests/test_mcp_e2e.sh` to `scripts/test_mcp_e2e.sh`.",
        "Run `scripts/test_mcp_e2e.sh` after a build.",
    ),
    # one folder inside the other: said more precisely
    ("Run `scripts/release_notes.py`.", "Run `tools/scripts/release_notes.py`."),
    # a common file name (one per package): no distinctive name
    ("Config in `apps/web/vite.config.ts`.", "Config in `apps/admin/vite.config.ts`."),
    ("See `src/api/index.ts`.", "See `src/web/index.ts`."),
    # a URL's path is no file of the project
    (
        "Docs: https://example.com/guides/release_notes.md",
        "Write `docs/release_notes.md` for each release.",
    ),
]


@pytest.mark.parametrize(("first", "second"), NOT_ONE_FILE_MOVED)
def test_lines_that_do_not_move_one_file_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()


@given(st.text(max_size=120))
def test_every_path_read_has_a_distinctive_file_name(line: str) -> None:
    for folder, name in paths(line):
        assert folder and "/" not in name and "." in name


def test_a_value_is_shown_as_its_line_writes_it() -> None:
    """The check compares casefolded words without a folder's leading dot; the finding
    shows `.claude/skills/Fix-Fences.ps1` as written, so a reader can search for it."""
    first = memory("Skills", "Run `pwsh .claude/skills/fences/Fix-Fences.ps1` on each file.")
    second = memory("Tools", "Run `pwsh .agents/utilities/fences/Fix-Fences.ps1` on each file.")
    found = find_duplicates({"skills": first, "tools": second}).conflicts
    assert found
    for c in found:
        assert c.first_value in c.first_text and c.second_value in c.second_text
        assert ".claude/skills/fences/Fix-Fences.ps1" in c.first_value + c.second_value
