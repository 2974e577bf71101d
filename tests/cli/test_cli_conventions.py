"""One argument convention for every command, and global memories that need no project:
the real `serena` command line, run as a subprocess from the folders a person works in."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from conftest import run_cli

from serena_memory.cli import cli


def ok(result) -> str:
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result.stdout


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own for the subprocess (HOME), empty, which is never a project."""
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize("where", ["home folder", "folder that is no project"])
def test_global_memories_need_no_project(where: str, user_home: Path, tmp_path: Path) -> None:
    """Every command on a global memory works from the home folder or a plain folder and
    leaves that folder as it was."""
    cwd = user_home if where == "home folder" else tmp_path / "downloads"
    cwd.mkdir(exist_ok=True)
    before = tree(cwd)
    out = ok(run_cli("memories", "write", "global/conventions", "-c", "Tabs.\n", cwd=cwd))
    assert "Created memory 'global/conventions'" in out
    assert ok(run_cli("memories", "read", "global/conventions", cwd=cwd)) == "Tabs.\n"
    ok(run_cli("memories", "edit", "global/conventions", "-n", "Tabs", "-r", "Spaces", cwd=cwd))
    ok(run_cli("memories", "rename", "global/conventions", "global/style", cwd=cwd))
    assert "global/style" in ok(run_cli("memories", "list", "--topic", "global", cwd=cwd))
    hits = ok(run_cli("memories", "search", "--scope", "global", "spaces", cwd=cwd))
    assert "global/style" in hits
    history = ok(run_cli("memories", "history", "global/style", cwd=cwd))
    assert "Rename global/conventions to global/style" in history
    ok(run_cli("memories", "delete", "global/style", cwd=cwd))
    ok(run_cli("memories", "restore", "global/style", cwd=cwd))  # back from its deletion
    assert ok(run_cli("memories", "read", "global/style", cwd=cwd)) == "Spaces.\n"
    ok(run_cli("memories", "delete", "global/style", cwd=cwd))
    assert tree(cwd) == before


def test_search_takes_the_rest_of_the_line_as_query(project: Path, tmp_path: Path) -> None:
    ok(run_cli("memories", "write", "auth/tokens", str(project), "-c", "How token refresh works."))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = ok(run_cli("memories", "search", "token", "refresh", "-p", str(project), cwd=elsewhere))
    assert "auth/tokens" in out
    out = ok(run_cli("memories", "search", "token", "refresh", cwd=project))
    assert "auth/tokens" in out and "'token refresh'" not in out


def test_history_of_a_project_folder_given_alone(project: Path, tmp_path: Path) -> None:
    """`history DIR` is that project's history, not the history of a memory named DIR."""
    ok(run_cli("memories", "write", "notes", str(project), "-c", "x"))
    out = ok(run_cli("memories", "history", str(project), cwd=tmp_path))
    assert "Create notes" in out
    out = ok(run_cli("memories", "history", "-p", str(project), cwd=tmp_path))
    assert "Create notes" in out


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["check"],
        ["graph"],
        ["read", "notes"],
        ["backlinks", "notes"],
        ["conflicts"],
        ["history"],
        ["diff", "notes"],
        ["show", "notes", "--at", "2099-01-01"],
        ["search", "hello"],
    ],
)
def test_every_command_accepts_dash_p(command: list[str], project: Path, tmp_path: Path) -> None:
    ok(run_cli("memories", "write", "notes", str(project), "-c", "hello\n"))
    stray = tmp_path / "stray"
    stray.mkdir()
    result = run_cli("memories", *command, "-p", str(project), cwd=stray)
    assert result.returncode == 0, result.stderr
    assert tree(stray) == []  # nothing was made in the current folder


def test_two_different_project_folders_are_a_usage_error(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    result = run_cli("memories", "list", str(project), "-p", str(other))
    assert result.returncode == 2
    assert "give it once" in result.stderr


def test_project_means_the_same_in_every_command() -> None:
    """`--project` always names a folder and `-p` is the same option, in every command that
    has one (in `sync`, naming the project syncs its memories; the folder may be left out)."""
    seen = []

    def walk(command: click.Command, path: str) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}")
            return
        options = [p for p in command.params if "--project" in getattr(p, "opts", [])]
        for option in options:
            assert isinstance(option, click.Option)
            assert set(option.opts) == {"--project", "-p"}, path
            assert not option.is_flag, path  # takes DIR: never a switch
            seen.append(path)

    walk(cli, "")
    assert len(seen) >= 20


def test_sync_project_scope_and_contradictions(project: Path) -> None:
    result = run_cli("memories", "sync", "--global", "--project")
    assert result.returncode == 2 and "contradict each other" in result.stderr
    result = run_cli("memories", "sync", "-p", str(project))
    assert result.returncode == 1
    assert "project memories" in result.stderr  # the project's scope: no remote for it yet


def test_a_memory_not_found_names_the_closest_ones(project: Path) -> None:
    p = str(project)
    ok(run_cli("memories", "write", "core", p, "-c", "Start here.\n"))
    ok(run_cli("memories", "write", "auth/logins", p, "-c", "x\n"))
    result = run_cli("memories", "read", "cor", p)
    assert result.returncode == 1
    assert "memory 'cor' not found; did you mean 'core'?" in result.stderr
    result = run_cli("memories", "delete", "auth/login", p)  # a plural left out
    assert "did you mean 'auth/logins'?" in result.stderr
    result = run_cli("memories", "rename", "zzzz", "y", p)
    assert "not found in " in result.stderr
    assert "; `serena memories list` shows the memories there are" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_counts_and_empty_lists_read_as_a_person_writes_them(project: Path) -> None:
    p = str(project)
    out = ok(run_cli("memories", "list", p))
    assert out.startswith("No memories yet: write one with `serena memories write NAME`")
    assert "(1 character)" in ok(run_cli("memories", "write", "a", p, "-c", "x"))
    ok(run_cli("memories", "write", "core", p, "-c", "See `mem:a`.\n"))
    assert "1 replacement." in ok(run_cli("memories", "edit", "a", p, "-n", "x", "-r", "y"))
    out = ok(run_cli("memories", "rename", "a", "b", p))
    assert "rewrote 1 reference in 1 memory." in out
    out = ok(run_cli("memories", "backlinks", "b", p))
    assert out.startswith("1 memory references `mem:b`")
    assert "(ies)" not in out and "(s)" not in out
