"""The command line in-process: `serena_memory.cli.cli` is whole once imported, and runs
under click's CliRunner exactly as the console script does (same output, same errors)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from serena_memory.cli import cli


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, prog_name="serena")


def test_every_command_is_registered_at_import() -> None:
    assert set(cli.commands) >= {"memories", "start-mcp-server", "dashboard", "setup"}
    memories = cli.commands["memories"]
    assert set(memories.commands) >= {  # type: ignore[attr-defined]
        "initialize",
        "list",
        "read",
        "write",
        "edit",
        "rename",
        "delete",
        "check",
        "auto-prefix-references",
        "backlinks",
        "graph",
    }
    assert "check" in run("memories", "--help").output


def test_memories_round_trip_in_process(project: Path) -> None:
    p = str(project)
    assert run("memories", "write", "auth/login", p, "-c", "See `mem:core`.").exit_code == 0
    assert run("memories", "write", "core", p, input="Start here.\n").exit_code == 0
    listing = run("memories", "list", p, "--json")
    assert json.loads(listing.output) == {
        "project": str(project.resolve()),
        "memories": ["auth/login", "core"],
        "read_only_memories": [],
    }
    read = run("memories", "read", "auth/login.md", p, "--json")
    assert json.loads(read.output)["name"] == "auth/login"
    check = run("memories", "check", p, "--json")
    assert check.exit_code == 0, check.output
    assert json.loads(check.output)["stale_references"] == []
    deleted = run("memories", "delete", "core.md", p)
    assert deleted.output.startswith("Deleted memory 'core'.\n")
    assert "1 memory still refers to it (auth/login)" in deleted.output  # on stderr


def test_failures_are_one_error_line_with_status_1_in_process(project: Path) -> None:
    p = str(project)
    missing = run("memories", "read", "nope", p)
    assert missing.exit_code == 1
    assert missing.stderr.startswith(f"Error: memory 'nope' not found in {project}")
    run("memories", "write", "core", p, "-c", "hello")
    deep = "(" * 3000 + ")" * 3000
    nested = run("memories", "edit", "core", p, "--mode", "regex", "--needle", deep, "-r", "x")
    assert nested.exit_code == 1
    assert nested.stderr.count("\n") == 1
    assert nested.stderr.startswith("Error: the regex needle: '((((")
    not_utf8 = CliRunner().invoke(cli, ["memories", "write", "x", p], input=b"caf\xe9")
    assert not_utf8.exit_code == 1
    assert not_utf8.stderr.startswith("Error: the input is not valid UTF-8")
