"""A first week without surprises, third pass: messages that lead to the right action,
imports that stay idempotent, names and counts that follow a rename."""

from __future__ import annotations

import random
import string
from pathlib import Path

from click.testing import CliRunner

from serena_memory.cli import cli

# made here in GitHub's published format, never real
TOKEN = "ghp_" + "".join(random.Random(5).choices(string.ascii_letters + string.digits, k=36))


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, prog_name="serena")


def test_a_secret_pasted_in_an_editor_is_in_the_file_only_and_the_history_is_kept(
    project: Path, serena_home: Path
) -> None:
    """It said "purge the history ... (remove the history repositories below ...)" and
    listed nothing: a careful person removed every undo for nothing."""
    p = str(project)
    assert run("memories", "write", "env", p, "-c", "# Env\n").exit_code == 0
    (project / ".serena" / "memories" / "env.md").write_text(f"# Env\n\nGITHUB={TOKEN}\n")
    result = run("memories", "check", "--secrets", p)
    assert result.exit_code == 1
    assert "env:3: GitHub Token" in result.output and TOKEN not in result.output
    assert "in the memory files only" in result.output
    assert "keep the history" in result.output
    assert "purge" not in result.output and "remove" not in result.output


def test_a_secret_the_history_holds_names_its_repository_before_saying_remove(
    project: Path, serena_home: Path
) -> None:
    p = str(project)
    secret = f"# Deploy\n\nThe CI token is {TOKEN}\n"
    assert run("memories", "write", "deploy", p, "-c", secret, "--allow-secret").exit_code == 0
    assert run("memories", "write", "deploy", p, "-c", "# Deploy\n\n<token>\n").exit_code == 0
    result = run("memories", "check", "--secrets", p)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    said = next(i for i, line in enumerate(lines) if "The history holds it too" in line)
    assert "in 1 history repository: purge it" in lines[said]
    assert lines[said + 1].startswith("  ") and Path(lines[said + 1].strip()).is_dir()
    assert "in the memory" not in result.output  # the file is clean now


def test_a_time_the_shell_split_into_words_is_told_to_be_quoted(
    project: Path, serena_home: Path, monkeypatch
) -> None:
    """`history core --since last week` answered "two project folders given"."""
    assert run("memories", "write", "core", str(project), "-c", "# Core\n").exit_code == 0
    monkeypatch.chdir(project)
    for args, told in [
        (["core", "-p", ".", "--since", "last", "week"], "in a form taken"),
        (["core", "--since", "last", "week"], "--since '1 week ago'"),
        (["--since", "3", "days", "ago"], "put it in quotes: --since '3 days ago'"),
        (["--since=3", "days", "core"], "put it in quotes: --since '3 days'"),
    ]:
        result = run("memories", "history", *args)
        assert result.exit_code == 2, (args, result.output)
        assert "the shell gave --since only" in result.output and told in result.output, args
        assert "project folder" not in result.output
    # a whole time, then a memory named like a time word, is no slip
    week = run("memories", "history", "--since", "2h", "week")
    assert "memory 'week' does not exist" in week.output
    assert "Create" in run("memories", "history", "core", "--since", "3 days ago").output


def test_a_restore_time_the_shell_split_into_words_is_told_to_be_quoted(
    project: Path, serena_home: Path, monkeypatch
) -> None:
    """`restore testing/core --at 3 days ago` failed with click's "Got unexpected extra
    argument (ago)": `--at` is told as `history --since` is."""
    p = str(project)
    assert run("memories", "write", "testing/core", p, "-c", "# Core\n").exit_code == 0
    monkeypatch.chdir(project)
    for args, told in [
        (["testing/core", "--at", "3", "days", "ago"], "put it in quotes: --at '3 days ago'"),
        (["--all", "--at", "3", "days", "ago"], "put it in quotes: --at '3 days ago'"),
        (["--all", "--at=3", "days", "ago", "-p", "."], "--at '3 days ago'"),
        (["testing/core", "--at", "last", "week"], "in a form taken"),
    ]:
        result = run("memories", "restore", *args)
        assert result.exit_code == 2, (args, result.output)
        assert "the shell gave --at only '" in result.output and told in result.output, args
        assert "unexpected extra argument" not in result.output
        assert "--since" not in result.output
        assert len(result.output.strip().splitlines()[-1].split(". ")) == 1  # one sentence
    assert run("memories", "read", "testing/core", p).output.startswith("# Core")
    quoted = run("memories", "restore", "--all", "--at", "3 days ago", "-p", ".")
    assert quoted.exit_code == 0, quoted.output


def test_a_removed_history_says_it_was_started_again_and_a_restore_says_why_nothing_is_before(
    project: Path, serena_home: Path
) -> None:
    """After `rm -rf` of a history repository, `history` started over without a word and
    `restore notes` said the memory "did not exist before its latest entry"."""
    import shutil

    p = str(project)
    assert run("memories", "write", "notes", p, "-c", "# Notes\n\nv1\n").exit_code == 0
    assert run("memories", "write", "notes", p, "-c", "# Notes\n\nv2\n").exit_code == 0
    for repository in (serena_home / "history").glob("*.git"):
        shutil.rmtree(repository)
    listed = run("memories", "history", p).output
    assert "History started again with 1 memory as found" in listed
    assert "was removed, so no change before this entry can be shown or undone" in listed
    restore = run("memories", "restore", "notes", p)
    assert restore.exit_code == 1 and "did not exist" not in restore.output
    assert "its history was started again on" in restore.output
    assert "after the earlier one was removed" in restore.output
    # a history begun for the first time from memories already there says only that
    shutil.rmtree(serena_home / "history")
    restore = run("memories", "restore", "notes", p)
    assert "its history was started on" in restore.output
    assert "nothing before then is recorded" in restore.output


def test_an_empty_content_never_empties_a_memory_without_a_word(
    project: Path, serena_home: Path
) -> None:
    """`write core --content "$X"` with X unset emptied the memory, where an empty pipe
    was refused."""
    p = str(project)
    assert run("memories", "write", "core", p, "-c", "# Core\n\nThe entry point.\n").exit_code == 0
    result = run("memories", "write", "core", p, "--content", "")
    assert result.exit_code == 1
    assert "--content is empty, so memory 'core' (25 characters now) would be emptied" in (
        result.output
    )
    assert "add --empty" in result.output
    assert (
        project / ".serena" / "memories" / "core.md"
    ).read_text() == "# Core\n\nThe entry point.\n"
    assert run("memories", "write", "core", p, "--content", "", "--empty").exit_code == 0
    assert (project / ".serena" / "memories" / "core.md").read_text() == ""
    # a new memory, or one already empty: refused alike (an unset variable is the usual
    # cause), and written empty with --empty
    refused = run("memories", "write", "fresh", p, "--content", "")
    assert refused.exit_code == 1 and "add --empty" in refused.output
    assert not (project / ".serena" / "memories" / "fresh.md").exists()
    assert run("memories", "write", "fresh", p, "--content", "", "--empty").exit_code == 0


def test_an_import_after_an_export_of_the_same_file_changes_nothing(
    project: Path, serena_home: Path
) -> None:
    """Import AGENTS.md, export agents-md (its section appended after a blank line),
    import again: it would create agents-md/agents-md/testing and agents-md/core-2."""
    p = str(project)
    (project / "AGENTS.md").write_text(
        "# Project\n\nA web app.\n\n## Testing\n\nRun pytest -q.\n\n## Style\n\nUse black.\n"
    )
    assert run("memories", "import", "agents-md", "-p", p).exit_code == 0
    memories = {f: f.read_text() for f in (project / ".serena" / "memories").rglob("*.md")}
    assert run("memories", "export", "agents-md", "-p", p).exit_code == 0
    assert "serena-memory:begin" in (project / "AGENTS.md").read_text()
    again = run("memories", "import", "agents-md", "-p", p)
    assert again.exit_code == 0, again.output
    assert "Created 0 memories" in again.output and "3 already imported" in again.output
    assert {f: f.read_text() for f in (project / ".serena" / "memories").rglob("*.md")} == memories


def test_a_large_imported_file_is_split_at_its_headings_and_one_without_any_is_named(
    project: Path, serena_home: Path
) -> None:
    """A CLAUDE.md `@docs/middleware.md` of 34,969 characters became one memory nine times
    the 4,000 characters the conventions set, without a word."""
    from serena_memory.core.paths import MEMORY_SIZE_BUDGET

    p = str(project)
    (project / "docs").mkdir()
    sections = "".join(f"## Step {i}\n\n" + "Requests pass here. " * 180 + "\n\n" for i in range(9))
    (project / "docs" / "middleware.md").write_text(
        f"# Middleware\n\nHow a request flows.\n\n{sections}"
    )
    (project / "docs" / "notes.md").write_text("one long paragraph " * 300)
    (project / "CLAUDE.md").write_text("# Project\n\nSee @docs/middleware.md and @docs/notes.md.\n")
    result = run("memories", "import", "claude-md", "-p", p)
    assert result.exit_code == 0, result.output
    folder = project / ".serena" / "memories" / "claude-md" / "docs"
    entry = (folder / "middleware.md").read_text()
    assert entry.startswith("# Middleware\n\nHow a request flows.\n")
    assert "- mem:claude-md/docs/middleware/step_8\n" in entry
    parts = sorted((folder / "middleware").glob("*.md"))
    assert len(parts) == 9
    assert all(len(f.read_text()) <= MEMORY_SIZE_BUDGET for f in [folder / "middleware.md", *parts])
    assert "1 memory is longer than the 4,000 characters" in result.output
    assert "claude-md/docs/notes (5,701)" in result.output  # with its last line end
    again = run("memories", "import", "claude-md", "-p", p)
    assert "Created 0 memories" in again.output


def test_a_read_of_a_renamed_memory_names_where_it_went(project: Path, serena_home: Path) -> None:
    """Reading `http/routing` after its rename to `routing/core` said "not found", while
    the history knew the new name."""
    import anyio
    from mcp_support import in_memory, refused

    p = str(project)
    assert run("memories", "write", "http/routing", p, "-c", "# Routing\n").exit_code == 0
    assert run("memories", "rename", "http/routing", "routing/core", p).exit_code == 0
    assert run("memories", "rename", "routing/core", "routing/index", p).exit_code == 0
    result = run("memories", "read", "http/routing", p)
    assert result.exit_code == 1
    assert "memory 'http/routing' not found: it was renamed to 'routing/index' on " in (
        result.output
    )

    async def go() -> None:
        async with in_memory(project) as client:
            said = await refused(client, "read_memory", "renamed", memory_name="http/routing")
            assert "it was renamed to 'routing/index'" in said

    anyio.run(go)


def test_deleting_a_memory_others_reference_says_which_and_how_to_undo(
    project: Path, serena_home: Path
) -> None:
    import anyio
    from mcp_support import in_memory, ok

    p = str(project)
    run("memories", "write", "http/middleware", p, "-c", "# Middleware\n")
    run("memories", "write", "core", p, "-c", "# Core\n\nRead `mem:http/middleware` first.\n")
    result = run("memories", "delete", "http/middleware", p)
    assert result.exit_code == 0
    assert "1 memory still refers to it (core): `mem:http/middleware` is stale there now" in (
        result.output
    )
    assert "`serena memories restore http/middleware` brings it back" in result.output
    assert "still refers" not in run("memories", "delete", "core", p).output
    run("memories", "write", "a", p, "-c", "# A\n")
    run("memories", "write", "b", p, "-c", "See mem:a.\n")

    async def go() -> None:
        async with in_memory(project) as client:
            said = await ok(client, "delete_memory", memory_name="a")
            assert "1 memory still refers to it (b)" in said

    anyio.run(go)


def test_a_memory_moved_by_hand_is_the_candidate_of_its_stale_references(
    project: Path, serena_home: Path
) -> None:
    """`mv task_completion.md done_checklist.md`: the history recorded the move, yet
    `check` offered no candidate for `mem:task_completion`."""
    import json

    p = str(project)
    run("memories", "write", "task_completion", p, "-c", "# Done when\n\n- the tests pass\n")
    run("memories", "write", "core", p, "-c", "# Core\n\nBefore finishing: mem:task_completion\n")
    folder = project / ".serena" / "memories"
    (folder / "task_completion.md").rename(folder / "done_checklist.md")
    result = run("memories", "check", p, "--json")
    stale = json.loads(result.output)["stale_references"]
    assert [(s["target"], s["candidates"][0]) for s in stale] == [
        ("task_completion", "done_checklist")
    ]


def test_counts_are_worded_as_a_person_writes_them(project: Path, serena_home: Path) -> None:
    """ "1 global memories", "memory(ies)", "finding(s)": one word for one thing."""
    p = str(project)
    (project / "README.md").write_text("# demo\n")  # some code beside the memories
    run("memories", "write", "core", p, "-c", "# Core\n\nThe app lives in `src/app.py`.\n")
    clean = run("memories", "check", p).output
    assert "(1 memory, references checked)" in clean
    code = run("memories", "check", "--code", p).output
    assert "1 finding in 1 memory" in code and "(s)" not in code and "(ies)" not in code


def test_conflicts_says_which_project_once(tmp_path: Path) -> None:
    """`conflicts` printed its `Project:` line twice (three times with --show)."""
    import subprocess

    from test_sync import BASE, Machine

    remote = tmp_path / "shared.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/conventions", BASE)
    laptop.sync()
    workstation.sync()
    laptop.write("global/conventions", BASE.replace("three", "three, says the laptop"))
    workstation.write("global/conventions", BASE.replace("three", "three, says the other"))
    workstation.sync()
    laptop.sync()
    (laptop.project / ".serena").mkdir(exist_ok=True)  # a project: it is named
    for args in (["conflicts"], ["conflicts", "--show", "global/conventions"]):
        result = laptop.run("memories", *args)
        assert "global/conventions" in result.stdout
        # run in the project's own folder: not echoed at all, and never twice (a subfolder's
        # command names it once: tests/core/test_discovery.py)
        assert result.stderr.count("Project: ") == 0, result.stderr


def test_a_global_memory_is_never_unreachable_from_a_projects_core(
    project: Path, serena_home: Path
) -> None:
    """The Check page listed `global/style` as "Not reachable from `mem:core`" of the
    project, which is not meant to reach the memories every project shares."""
    import json

    from serena_memory.integrity.references.links import build_graph
    from serena_memory.wiring import build_store

    p = str(project)
    run("memories", "write", "core", p, "-c", "# Core\n")
    run("memories", "write", "orphan", p, "-c", "# Orphan\n")
    run("memories", "write", "global/style", p, "-c", "# Style\n")
    report = json.loads(run("memories", "check", p, "--reachability", "--json").output)
    assert report["unreachable"] == ["orphan"]
    graph = build_graph(build_store(project, home=serena_home))
    shown = graph.filtered(reach="unreachable")["nodes"]
    assert [n["name"] for n in shown] == ["orphan"]


def test_a_secret_in_a_name_says_where_the_full_name_is_shown(
    project: Path, serena_home: Path
) -> None:
    """A name made of a token is shown masked (`keys/<github-token>`), which no command
    accepts: the advice says where the name to rename is shown whole."""
    p = str(project)
    folder = project / ".serena" / "memories" / "keys"
    folder.mkdir(parents=True)
    (folder / f"{TOKEN}.md").write_text("# Key\n")
    result = run("memories", "check", "--secrets", p)
    assert TOKEN not in result.output
    assert "keys/<github-token>:name" in result.output
    assert "with the full name `serena memories list` shows" in result.output
    listed = run("memories", "list", p).output
    assert f"keys/{TOKEN}" in listed


def test_renaming_a_secret_out_of_a_name_keeps_it_out_of_the_history(
    project: Path, serena_home: Path
) -> None:
    """The advice above, followed: `rename keys/<token> keys/github` wrote "Rename
    keys/ghp_... to keys/github" into the history's entry, which `history` printed, a
    sync pushed, and `check --secrets` did not read."""
    p = str(project)
    folder = project / ".serena" / "memories" / "keys"
    folder.mkdir(parents=True)
    (folder / f"{TOKEN}.md").write_text("# Key\n")
    renamed = run("memories", "rename", f"keys/{TOKEN}", "keys/github", p)
    assert renamed.exit_code == 0, renamed.output
    assert TOKEN not in renamed.output
    shown = run("memories", "history", p)
    assert "keys/<github-token>" in shown.output
    assert TOKEN not in shown.output
    assert TOKEN not in run("memories", "history", p, "--json").output
    checked = run("memories", "check", "--secrets", p)
    assert checked.exit_code == 0, checked.output
    assert "No secrets found" in checked.output


def test_check_secrets_reads_the_history_entries_messages(project: Path, serena_home: Path) -> None:
    """A message the history keeps (one a rename wrote before names were masked, or one
    made by hand) is synced like a file: the check said the history held no secret."""
    import subprocess

    p = str(project)
    assert run("memories", "write", "core", p, "-c", "# Core\n").exit_code == 0
    (repository,) = (serena_home / "history").glob("*.git")
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a"}
    env |= {"GIT_COMMITTER_EMAIL": "a@b", "PATH": "/usr/bin:/bin"}
    tree = subprocess.run(
        ["git", "--git-dir", str(repository), "rev-parse", "HEAD^{tree}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    commit = subprocess.run(
        [
            "git",
            "--git-dir",
            str(repository),
            "commit-tree",
            tree,
            "-p",
            "HEAD",
            "-m",
            f"Rename keys/{TOKEN} to keys/github",
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    subprocess.run(["git", "--git-dir", str(repository), "update-ref", "HEAD", commit], check=True)
    checked = run("memories", "check", "--secrets", p)
    assert checked.exit_code == 1, checked.output
    assert "the message of an entry" in checked.output
    assert TOKEN not in checked.output
