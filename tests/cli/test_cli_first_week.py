"""What a person meets in a first week, in process: reads that create nothing, a project
folder that is named when it is not the one meant, and one-line answers to small slips."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from serena_memory.cli import cli


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, prog_name="serena")


READS = [
    ["list"],
    ["read", "global/style"],
    ["search", "style"],
    ["check"],
    ["check", "--code"],
    ["check", "--secrets"],
    ["graph"],
    ["backlinks", "global/style"],
    ["history"],
    ["history", "global/style"],
    ["conflicts"],
    ["review"],
    ["diff", "global/style"],
]


def test_no_read_makes_a_folder_a_project(
    project: Path, serena_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serena memories history` in a folder without memories once created
    .serena/memories there, and from then on the folder was a project."""
    assert run("memories", "write", "global/style", "-c", "# Style\n").exit_code == 0
    monkeypatch.chdir(project)
    for args in READS:
        result = run("memories", *args)
        assert "Traceback" not in result.output, args
        assert list(project.iterdir()) == [], f"{args} created {list(project.iterdir())}"


def test_a_subfolder_given_as_the_project_is_named_with_the_project_above(
    project: Path, serena_home: Path
) -> None:
    """`-p SUBFOLDER` inside a project is a project of its own, as given: the person is told
    which folder was looked in and that a project lies above."""
    assert run("memories", "write", "core", str(project), "-c", "# Core\n").exit_code == 0
    sub = project / "src"
    sub.mkdir()
    result = run("memories", "read", "core", "-p", str(sub))
    assert result.exit_code == 1
    assert f"not found in {sub / '.serena' / 'memories'}" in result.output
    assert f"{project} above it is a project: give -p {project}" in result.output
    assert not (sub / ".serena").exists()
    result = run("memories", "read", "core", "-p", str(project))
    assert result.exit_code == 0 and "above it" not in result.output
