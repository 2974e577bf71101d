"""Mentions that are no claim about this project's files: another project's paths ("a
fork of Node `lib/path.js`") and files the project chose to keep local (untracked and
ignored as a kind in one change), checked on real git repositories."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.ignored_then import is_kind
from serena_memory.integrity.code_drift.mentions import extract

__all__ = ["repo"]  # the fixture, used by name


def test_a_path_said_to_be_another_projects_is_no_claim(repo: Path) -> None:
    write(repo, "src/path.ts", "export const sep = '/'\n")
    memory(
        repo,
        "overview",
        "pathe is a fork of Node `lib/path.js`, normalised for Windows.\n"
        "Joining is ported from Go's `path/filepath` package.\n"
        "The tests mirror `test/parallel/test-path.js` from Node's repo.\n"
        "Our own code is in `src/path.ts` and `src/utils.ts`.\n",
    )
    commit(repo)
    assert set(by_mention(findings(repo))) == {"src/utils.ts"}


def test_only_an_owner_other_than_this_project_makes_a_path_anothers() -> None:
    said = [m.target for m in extract("In the project's `src/app.py` we start the server.\n")]
    assert said == ["src/app.py"]
    said = [m.target for m in extract("The `lib/b.js` (upstream) has the original.\n")]
    assert said == []


def test_files_untracked_and_ignored_as_a_kind_in_one_change_are_local(repo: Path) -> None:
    write(repo, "test-login.js", "console.log(1)\n")
    write(repo, "config.yaml", "a: 1\n")
    write(repo, "notes.txt", "todo\n")
    memory(
        repo,
        "scripts",
        "- Try logging in with `node test-login.js`.\n"
        "- Settings: `config.yaml`.\n- Notes: `notes.txt`.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "--cached", "test-login.js", "config.yaml")
    write(repo, ".gitignore", "test-*.js\n/config.yaml\n")
    commit(repo, "keep scratch scripts local")
    for name in ("test-login.js", "config.yaml"):
        (repo / name).unlink()
    git(repo, "rm", "-q", "notes.txt")
    commit(repo, "clean up")
    write(repo, ".gitignore", "test-*.js\n/config.yaml\nnotes.txt\n")
    commit(repo, "ignore notes")
    # a line of its own, or a clean-up that ignores it later, says it left the project
    assert set(by_mention(findings(repo))) == {"config.yaml", "notes.txt"}


def test_a_kind_of_path_is_a_glob() -> None:
    assert is_kind("test-*.js")
    assert is_kind("log?.txt")
    assert not is_kind("screenshots/")
    assert not is_kind("/config.yaml")
    assert not is_kind("notes.txt")


def test_a_tree_under_a_heading_that_names_a_folder_is_drawn_from_it(repo: Path) -> None:
    write(repo, "lumen/backend/app/main.py", "app = 1\n")
    write(repo, "lumen/backend/app/users.py", "users = 1\n")
    memory(
        repo,
        "structure",
        "## Core Application (lumen/)\n\n### Backend\n```\nbackend/\n├── app/\n"
        "│   ├── main.py\n│   └── users.py\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", "lumen")
    write(repo, "backend/app/main.py", "app = 2\nmore = 3\n")  # made again at the root
    commit(repo, "the app moves to the root")
    told = by_mention(findings(repo))
    assert told["users.py"]["status"] == "missing"
    assert "main.py" in told  # the root's `backend/app/main.py` is not the one drawn


def test_a_folder_a_command_moves_into_is_the_projects(repo: Path) -> None:
    write(repo, "web/app/package.json", "{}\n")
    memory(repo, "commands", "```bash\ncd web/app\nnpm test\ncd web/site\n```\n")
    commit(repo)
    git(repo, "rm", "-q", "-r", "web")
    write(repo, "app/package.json", "{}\n")
    commit(repo, "flatten")
    # `web/site` git never knew: perhaps made by the memory's own steps, not told
    assert set(by_mention(findings(repo))) == {"web/app"}


def test_the_module_a_server_runs_is_read_from_the_folder_the_block_moved_into(
    repo: Path,
) -> None:
    write(repo, "api/app/main.py", "app = 1\n")
    write(repo, "api/app/seed.py", "x = 1\n")
    memory(
        repo,
        "commands",
        "```bash\ncd api\nuvicorn app.main:app --reload\npython -m app.seed\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", "api")
    write(repo, "app/main.py", "app = 2\n")
    write(repo, "app/seed.py", "x = 2\n")
    commit(repo, "the api moves to the root")
    assert {"app.main:app", "app.seed"} <= set(by_mention(findings(repo)))


def test_code_removed_from_a_file_leaves_the_file_a_claim(repo: Path) -> None:
    memory(
        repo,
        "fixes",
        "- `src/todoist.js`: Removed from `sync()` and `run()`\n"
        "- `src/old.js` — removed\n- `src/gone.js` was deleted from the repo\n",
    )
    commit(repo)
    paths = {f["mention"] for f in findings(repo) if f["kind"] == "path"}
    assert paths == {"src/todoist.js"}


def test_a_tree_is_drawn_from_the_one_folder_that_held_its_top_when_written(
    repo: Path,
) -> None:
    write(repo, "site/backend/app/main.py", "app = 1\n")
    write(repo, "site/backend/app/users.py", "users = 1\n")
    memory(repo, "layout", "```\nbackend/\n├── app/\n│   ├── main.py\n│   └── users.py\n```\n")
    commit(repo)
    git(repo, "rm", "-q", "-r", "site")
    write(repo, "backend/app/main.py", "app = 2\nmore = 3\n")  # a new root backend/
    commit(repo, "a new backend at the root")
    told = by_mention(findings(repo))
    assert told["main.py"]["status"] in ("missing", "moved")  # the root one came later
    assert told["users.py"]["status"] == "missing"


def test_a_trees_top_folder_is_a_mention_too(repo: Path) -> None:
    write(repo, "old/web/index.html", "<p>hi</p>\n")
    memory(repo, "layout", "## The site (old/)\n```\nweb/\n└── index.html\n```\n")
    commit(repo)
    git(repo, "rm", "-q", "-r", "old")
    write(repo, "web/index.html", "<p>new</p>\n")
    commit(repo, "a new site at the root")
    assert {"web/", "index.html"} <= set(by_mention(findings(repo)))
