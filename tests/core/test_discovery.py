"""Projects are found from any folder inside them, the way git finds a repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import git, run_cli, run_cli_process

from serena_memory.core.discovery import discover_project
from serena_memory.core.errors import MemoryStoreError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with memories and a nested source folder."""
    root = tmp_path / "repo"
    (root / "src" / "auth").mkdir(parents=True)
    (root / ".serena" / "memories").mkdir(parents=True)
    (root / ".serena" / "memories" / "core.md").write_text("# core\n", encoding="utf-8")
    git("init", "-q", cwd=root)
    return root


def test_nearest_serena_folder_upward_wins(repo: Path, serena_home: Path) -> None:
    choice = discover_project(repo / "src" / "auth", serena_home)
    assert choice.root == repo.resolve() and choice.found_by == ".serena"


def test_top_of_git_work_tree_without_serena_folder(tmp_path: Path, serena_home: Path) -> None:
    root = tmp_path / "plain"
    (root / "a" / "b").mkdir(parents=True)
    git("init", "-q", cwd=root)
    choice = discover_project(root / "a" / "b", serena_home)
    assert choice.root == root.resolve() and choice.found_by == "git"


def test_a_worktree_is_its_own_project(repo: Path, tmp_path: Path, serena_home: Path) -> None:
    (repo / "README").write_text("x", encoding="utf-8")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "init", cwd=repo)
    tree = repo / "worktrees" / "feature"  # inside the main checkout's folder
    git("worktree", "add", "-q", str(tree), "-b", "feature", cwd=repo)
    (tree / "src").mkdir(exist_ok=True)
    choice = discover_project(tree / "src", serena_home)
    assert choice.root == tree.resolve()  # its own .serena/ (checked out), never repo's
    assert choice.found_by == ".serena"


def test_outside_any_project_is_the_current_folder(tmp_path: Path, serena_home: Path) -> None:
    lone = tmp_path / "lone" / "deep"
    lone.mkdir(parents=True)
    choice = discover_project(lone, serena_home)
    assert choice.root == lone.resolve() and choice.found_by == "current folder"


def test_serena_home_never_marks_a_project(tmp_path: Path) -> None:
    """The global memories live in HOME/.serena: that never makes HOME or a parent one."""
    home = tmp_path / "person"
    (home / ".serena").mkdir(parents=True)
    work = home / "notes"
    work.mkdir()
    choice = discover_project(work, home / ".serena")
    assert choice.root == work.resolve() and choice.found_by == "current folder"


def test_an_explicit_project_is_used_as_given(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    done = run_cli("memories", "list", str(other), cwd=repo / "src")
    assert done.returncode == 0, done.stderr
    assert "core" not in done.stdout


def test_home_folder_is_refused_even_when_found(tmp_path: Path) -> None:
    home = tmp_path / "person"
    home.mkdir()
    done = run_cli("memories", "list", str(home), cwd=tmp_path, env={"HOME": str(home)})
    assert done.returncode == 1
    assert "home folder" in done.stderr and "Traceback" not in done.stderr


def test_discovery_errors_are_sentences(tmp_path: Path, serena_home: Path) -> None:
    with pytest.raises(MemoryStoreError):
        discover_project(tmp_path / "missing", serena_home)


@pytest.mark.slow  # a real server process
@pytest.mark.parametrize("flag", [[], ["--project-from-cwd"]])
def test_mcp_server_started_in_a_subfolder_serves_the_project(repo: Path, flag: list[str]) -> None:
    import anyio
    from mcp_support import over_stdio

    async def go() -> None:
        async with over_stdio([*flag, "--no-dashboard"], cwd=repo / "src" / "auth") as client:
            answer = await client.call_tool("read_memory", {"memory_name": "core"})
            assert answer.content[0].text == "# core\n"
            listed = await client.call_tool("list_memories", {})
            assert "core" in listed.content[0].text

    anyio.run(go)
    assert not (repo / "src" / "auth" / ".serena").exists()


def test_project_and_project_from_cwd_together_is_a_usage_error(repo: Path) -> None:
    done = run_cli(
        "start-mcp-server", "--project", str(repo), "--project-from-cwd", "--no-dashboard",
        cwd=repo,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--project-from-cwd" in done.stderr and "Traceback" not in done.stderr


def test_list_from_a_subfolder_names_the_project(repo: Path) -> None:
    done = run_cli("memories", "list", cwd=repo / "src" / "auth")
    assert done.returncode == 0, done.stderr
    assert "core" in done.stdout
    assert f"Project: {repo.resolve()}" in done.stderr
    as_json = run_cli("memories", "list", "--json", cwd=repo / "src" / "auth")
    assert json.loads(as_json.stdout)["project"] == str(repo.resolve())


def test_initialize_from_a_subfolder_creates_no_stray_folder(repo: Path) -> None:
    done = run_cli("memories", "initialize", cwd=repo / "src")
    assert done.returncode == 0, done.stderr
    assert not (repo / "src" / ".serena").exists()
    assert (repo / ".serena" / "memories" / "memory_maintenance.md").is_file()


def test_a_server_started_on_its_project_does_not_echo_it(repo: Path) -> None:
    """Every start of the MCP server (each session of the agent's host) said
    "Project: ... (as given)", the folder its configuration names, which tells nothing."""
    serve = ("start-mcp-server", "--no-dashboard")
    given = run_cli_process(*serve, "--project", str(repo), input="")
    assert given.returncode == 0, given.stderr
    assert "Project:" not in given.stderr
    # said when it tells something: a project found from the current folder...
    found = run_cli_process(*serve, "--project-from-cwd", cwd=repo / "src" / "auth", input="")
    assert f"Project: {repo.resolve()} (" in found.stderr
    # ... or a folder given inside a project, which is a project of its own
    inside = run_cli_process(*serve, "--project", str(repo / "src"), input="")
    assert f"give -p {repo.resolve()} to use that one" in inside.stderr


def test_the_project_is_named_from_a_subfolder_and_not_from_its_own_folder(
    tmp_path: Path, serena_home: Path
) -> None:
    """A newcomer read "Project: ... (the nearest folder holding .serena/)" on every
    command run in the project's own folder; it tells something only from a subfolder."""
    from cli_support import run_cli

    project = tmp_path / "app"
    (project / ".serena" / "memories").mkdir(parents=True)
    (project / ".serena" / "memories" / "core.md").write_text("# Core\n")
    (project / "src").mkdir()
    here = run_cli("memories", "list", cwd=project, check=True)
    assert "Project: " not in here.stderr and "core" in here.stdout
    below = run_cli("memories", "list", cwd=project / "src", check=True)
    assert below.stderr.count("Project: ") == 1 and str(project) in below.stderr
