"""A memory that names another memory in backticks (`suggested_commands`,
`task_completion`) makes no claim about the code: the name is never told as a missing
symbol, whether that memory is still in the folder or was renamed or deleted since.
Real git repositories and files."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, write

from serena_memory.integrity.code_drift.read_note import read_note

ONBOARDING = (
    "# Onboarding\n"
    "- Read `suggested_commands` first, then `task_completion` and `old_style_notes`.\n"
    "- The entry point is `start_server`.\n"
)


def test_names_of_memories_now_or_before_are_no_missing_symbols(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    write(project, "app/main.py", "def start_server():\n    return 1\n")
    memory(project, "suggested_commands", "# Commands\n- `make test`\n")
    memory(project, "old_style_notes", "# Style\n- tabs\n")
    memory(project, "onboarding", ONBOARDING)
    commit(project, "start")
    git(project, "mv", ".serena/memories/old_style_notes.md", ".serena/memories/style.md")
    write(project, "app/main.py", "def serve():\n    return 1\n")  # a real rename of code
    commit(project, "style notes renamed; start_server is serve")
    found = by_mention(findings(project))
    # the code's name, and a name no memory ever had; no memory's name, now or before
    assert set(found) == {"start_server", "task_completion"}
    note = read_note(str(project), "onboarding", ONBOARDING)
    assert "start_server" in note
    assert "suggested_commands" not in note and "old_style_notes" not in note


def test_a_memory_file_archived_or_never_made_is_no_missing_file(project: Path) -> None:
    """`refactoring_plan.md` (a memory's file), gone from the folder since, and a path
    into the memories folder are the memories' own files, not code; a document of the
    project deleted since is still told."""
    git(project, "init", "-q", "-b", "main")
    write(project, "app/main.py", "def serve():\n    return 1\n")
    write(project, "GUIDE.md", "# Guide\n")
    memory(project, "refactoring_plan", "# Plan\n- split `app/main.py`\n")
    text = (
        "# Guidelines\n"
        "- Follow `refactoring_plan.md` and `GUIDE.md`.\n"
        "- Notes go to `.serena/memories/scratch.md`.\n"
    )
    memory(project, "guidelines", text)
    commit(project, "start")
    git(project, "rm", "-q", ".serena/memories/refactoring_plan.md", "GUIDE.md")
    commit(project, "plan done; guide dropped")
    assert set(by_mention(findings(project))) == {"GUIDE.md"}
    written = str(project / ".serena/memories/guidelines.md")
    note = read_note(str(project), "guidelines", text, written=written)
    assert "GUIDE.md" in note and "refactoring_plan" not in note and "scratch" not in note
