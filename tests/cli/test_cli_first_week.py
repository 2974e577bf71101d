"""What a person meets in a first week, in process: reads that create nothing, a project
folder that is named when it is not the one meant, and one-line answers to small slips."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from proposing import propose_write

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


def test_an_empty_pipe_writes_nothing_and_says_so(project: Path, serena_home: Path) -> None:
    p = str(project)
    result = run("memories", "write", "newmem", p, input="")
    assert result.exit_code == 1
    assert "standard input is empty" in result.output and "--content ''" in result.output
    assert run("memories", "read", "newmem", p).exit_code == 1
    assert run("memories", "write", "newmem", p, "--content", "").exit_code == 1  # a slip too
    assert run("memories", "write", "newmem", p, "--content", "", "--empty").exit_code == 0


def test_small_slips_get_one_line_that_says_what_is_taken(project: Path, serena_home: Path) -> None:
    p = str(project)
    port = run("dashboard", p, "--port", "abc")
    assert port.exit_code == 2
    assert "'abc' is not a whole number; give one from 0 to 65535" in port.output
    client = run("setup", "claude", "--print")
    assert client.exit_code == 2
    assert "did you mean 'claude-code' or 'claude-desktop'?" in client.output
    assert "Invalid value for 'CLIENT'" in client.output
    assert run("memories", "write", "a", p, "-c", "x x").exit_code == 0
    edit = run("memories", "edit", "a", p, "-n", "x", "-r", "y")
    assert edit.exit_code == 1 and "`--allow-multiple-occurrences`" in edit.output
    since = run("memories", "history", p, "--since", "last week")
    assert since.exit_code == 1 and "today or yesterday" in since.output
    assert run("memories", "history", p, "--since", "yesterday").exit_code == 0
    assert "Create a" in run("memories", "history", p, "--since", "today").output


def test_a_proposal_is_taken_by_a_unique_prefix_as_history_entries_are(
    project: Path, serena_home: Path
) -> None:
    from serena_memory.core.store import Context
    from serena_memory.wiring import build_store

    (serena_home / "serena_config.yml").write_text("memory_agent_writes: propose\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    first = propose_write(agent, "ideas", "# Ideas\n")
    propose_write(agent, "notes", "# Notes\n")
    p = str(project)
    shown = run("memories", "review", "show", first.id[:4].upper(), "-p", p)
    assert shown.exit_code == 0, shown.output
    assert "ideas" in shown.output
    bad = run("memories", "review", "show", "xyz", "-p", p)
    assert bad.exit_code == 1 and "the first 4 or more of them" in bad.output
    assert run("memories", "review", "accept", first.id[:6], "-p", p).exit_code == 0
    assert (project / ".serena" / "memories" / "ideas.md").read_text() == "# Ideas\n"


def test_the_history_names_the_one_memory_an_import_touched(
    project: Path, serena_home: Path
) -> None:
    (project / "AGENTS.md").write_text("# Build\n\nRun tox before a commit.\n")
    assert run("memories", "import", "agents-md", "-p", str(project)).exit_code == 0
    listed = run("memories", "history", "-p", str(project)).output.splitlines()
    entry = next(i for i, line in enumerate(listed) if "Import agents-md" in line)
    assert "created" in listed[entry + 1]
    assert run("memories", "write", "core", "-p", str(project), "-c", "# Core\n").exit_code == 0
    listed = run("memories", "history", "-p", str(project)).output.splitlines()
    assert "Replace core" in listed[0] and "changed" not in listed[1]  # named once


def test_every_number_and_choice_of_the_command_line_is_worded_for_a_person() -> None:
    import click

    from serena_memory.cli.common import OneOf, WholeNumber

    def walk(command: click.Command):
        yield from command.params
        for sub in getattr(command, "commands", {}).values():
            yield from walk(sub)

    plain = [
        p.name
        for p in walk(cli)
        if (isinstance(p.type, click.IntRange) and not isinstance(p.type, WholeNumber))
        or (isinstance(p.type, click.Choice) and not isinstance(p.type, OneOf))
    ]
    assert plain == []


def test_import_bundle_without_a_file_says_a_bundle_file_is_needed(
    project: Path, serena_home: Path
) -> None:
    result = run("memories", "import", "bundle", "-p", str(project))
    assert result.exit_code == 2
    assert "import bundle reads one bundle file: give it as PATH" in result.output


def test_what_export_wrote_is_not_imported_back_as_the_persons_own(
    project: Path, serena_home: Path
) -> None:
    p = str(project)
    assert run("memories", "write", "core", "-p", p, "-c", "# Core\n").exit_code == 0
    assert run("memories", "write", "task_completion", "-p", p, "-c", "# Done\n").exit_code == 0
    (project / "AGENTS.md").write_text("# Agents\n\nOur own words.\n")
    assert run("memories", "export", "agents-md", "-p", p).exit_code == 0
    assert "serena-memory:begin" in (project / "AGENTS.md").read_text()
    result = run("memories", "import", "agents-md", "-p", p)
    assert result.exit_code == 0, result.output
    assert "the section `serena memories export` wrote is left out" in result.output
    imported = (project / ".serena" / "memories" / "agents-md" / "core.md").read_text()
    assert "Our own words." in imported and "Project memory" not in imported
    assert not (project / ".serena" / "memories" / "agents-md" / "project_memory.md").exists()


def test_import_auto_dry_run_says_what_it_would_create_and_one_undo_takes_it_all_back(
    project: Path, serena_home: Path
) -> None:
    import shlex
    import subprocess

    p = str(project)
    assert run("memories", "write", "core", "-p", p, "-c", "# Core\n").exit_code == 0
    (project / "CLAUDE.md").write_text("# Claude\n\nUse tox.\n")
    (project / "AGENTS.md").write_text("# Agents\n\nRun make lint.\n")
    dry = run("memories", "import", "auto", "-p", p, "--dry-run")
    assert dry.exit_code == 0 and dry.output.count("Would create") == 2
    assert list((project / ".serena" / "memories").iterdir()) == [
        project / ".serena" / "memories" / "core.md"
    ]
    done = run("memories", "import", "auto", "-p", p, "--yes")
    assert done.exit_code == 0 and done.output.count("Undo it with:") == 1
    command = done.output.split("Undo it with:\n", 1)[1].strip().splitlines()[0].strip()
    from conftest import SERENA

    assert command.startswith("serena ")
    undo = subprocess.run(
        [*SERENA, *shlex.split(command)[1:]], capture_output=True, text=True, timeout=60
    )
    assert undo.returncode == 0, undo.stderr
    assert sorted(p.name for p in (project / ".serena" / "memories").rglob("*.md")) == ["core.md"]
    assert (project / ".serena" / "memories" / "core.md").read_text() == "# Core\n"
