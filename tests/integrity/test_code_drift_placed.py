"""Where a name in a note stands, met in real notes, each in a git repository built the
way those projects were: a tree drawn under another project's name whose folders the
project has only in part, a bare file name the note writes out in full elsewhere, and
the names a naming rule gives as examples in Japanese; and a file name written against
Japanese words with no space between (``WORK_LOG.mdを更新``, drift-11), or an Xcode
storyboard (drift-13)."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, shared


def _told(found: list[dict]) -> dict[str, tuple[str, str | None]]:
    return {f["mention"]: (f["status"], f.get("new_path")) for f in found}


def test_a_folder_drawn_under_a_project_folder_is_not_the_roots_namesake(repo: Path) -> None:
    write(repo, "pkg/client/client.go", "package client\n")
    write(repo, "tools/gen/main.go", "package main\n")
    write(repo, "config/app.yaml", "a: 1\n")
    write(repo, "cmd/app/workspace/README.md", "x\n")
    memory(
        repo,
        "layout",
        "```\nupstream/\n├── cmd/app/\n│   └── workspace/\n│       └── AGENT.md\n"
        "├── pkg/\n│   ├── tools/\n│   │   └── registry.go\n│   └── config/\n```\n",
    )
    commit(repo)
    told = _told(findings(repo))
    # `pkg/tools/` is not the root's `tools/`, nor `pkg/config/` the root's `config/`,
    # and `AGENT.md` is drawn in `cmd/app/workspace/`, not a root `workspace/`
    assert told == {
        "tools/": ("missing", None),
        "registry.go": ("missing", None),
        "config/": ("missing", None),
        "AGENT.md": ("missing", None),
    }


def test_a_bare_file_name_is_the_path_the_note_writes_out(repo: Path) -> None:
    write(repo, "cmd/app/main.go", "package main\n")
    write(repo, "main.go", "package main\n")
    memory(
        repo,
        "progress",
        "**File:** `cmd/app/main.go`\n\n### 2. main.go wiring\n\n4. Inject the store in main.go\n",
    )
    commit(repo)
    (repo / "cmd/new").mkdir(parents=True)
    git(repo, "mv", "cmd/app/main.go", "cmd/new/main.go")
    commit(repo, "rename the command")
    told = {(f["line"], f["mention"]): (f["status"], f.get("new_path")) for f in findings(repo)}
    moved = ("moved", "cmd/new/main.go")
    # the root's own `main.go` does not keep the short name found
    assert told == {(1, "cmd/app/main.go"): moved, (3, "main.go"): moved, (5, "main.go"): moved}


def test_a_bare_name_two_written_out_paths_end_with_is_left_as_written(repo: Path) -> None:
    write(repo, "cmd/app/main.go", "package main\n")
    write(repo, "tools/gen/main.go", "package main\n")
    memory(repo, "core", "See `cmd/app/main.go` and `tools/gen/main.go`; main.go starts it.\n")
    commit(repo)
    git(repo, "rm", "-q", "cmd/app/main.go")
    commit(repo, "drop the command")
    assert _told(findings(repo)) == {"cmd/app/main.go": ("missing", None)}


def test_names_a_naming_rule_gives_as_examples_in_japanese_are_no_claim(repo: Path) -> None:
    memory(
        repo,
        "style",
        "- **ファイル名**: スネークケース（例: `agent_loop.go`, `context_test.go`）\n"
        "- 実装例: `src/auth/session.py`\n"
        "- ログは `src/auth/audit.py` に書く\n",
    )
    commit(repo)
    # never files of the project: examples; a path after no example word stays a claim
    assert _told(findings(repo)) == {"src/auth/audit.py": ("missing", None)}


def test_a_name_drawn_right_under_a_project_folder_is_missing_there(repo: Path) -> None:
    write(repo, "backend/app.py", "app = 1\n")
    write(repo, "assets/logo.txt", "x\n")
    memory(
        repo,
        "layout",
        "```\nbackend/\n├── app.py\n└── downloads/       # fetched files\n```\n\n"
        "```\nsrc/\n└── assets/          # drawn under src/, kept at the root\n```\n",
    )
    commit(repo)
    # the root's `assets/` is what a tree drawn one level off meant; `downloads/` is
    # nowhere, and `backend/` is the project's
    assert _told(findings(repo)) == {"downloads/": ("missing", None)}


def test_a_tree_under_a_stand_in_top_draws_any_project(repo: Path) -> None:
    write(repo, "framework/core.py", "x = 1\n")
    write(repo, "example/app/config.py", "x = 1\n")  # the example project's own
    memory(
        repo,
        "layout",
        "```\napp/\n├── agents/          # AI agents\n├── tools/\n└── config.py\n```\n",
    )
    commit(repo)
    # `app/` is any project using the framework, not this one under its name
    assert findings(repo) == []


def test_names_a_case_style_shows_in_parentheses_are_no_claim(repo: Path) -> None:
    memory(
        repo,
        "style",
        "- **Files**: kebab-case (`quote-calculator.ts`, `glass-type-selector.tsx`)\n"
        "- **Components**: live in `src/auth/widgets.py` (kebab-case inside)\n",
    )
    commit(repo)
    assert _told(findings(repo)) == {"src/auth/widgets.py": ("missing", None)}


def test_what_a_command_deletes_or_makes_is_no_claim(repo: Path) -> None:
    write(repo, "build/out.txt", "x\n")
    commit(repo, "a build committed by mistake")
    git(repo, "rm", "-q", "-r", "build")
    memory(
        repo,
        "commands",
        "```bash\nrm -rf dist/ build/ *.egg-info\nmkdir -p out/reports\n"
        "python -m build\nls scripts/ build/\n```\n",
    )
    commit(repo, "drop the build")
    # `ls` reads the folder it takes: a claim; `rm` and `mkdir` remove and make theirs
    assert _told(findings(repo)) == {"build/": ("missing", None)}
    assert [f["line"] for f in findings(repo)] == [5]


def test_commands_after_a_cd_run_in_that_folder(repo: Path) -> None:
    write(repo, "backend/test_fixes.py", "print(1)\n")
    write(repo, "backend/database/events.db", "x\n")
    write(repo, "test_root.py", "print(1)\n")
    memory(
        repo,
        "commands",
        "```bash\ncd backend\npython3 test_fixes.py\nsqlite3 database/events.db .tables\n```\n\n"
        "```bash\ncd tests && python -m pytest\npython test_root.py\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "backend/test_fixes.py", "backend/database/events.db", "test_root.py")
    commit(repo, "drop the old scripts and the committed database")
    told = {f["mention"]: (f["status"], f.get("note", "")[:17]) for f in findings(repo)}
    # a lone `cd` moves the lines after it; `cd x && y` only its own command: each
    # names the file git deleted there
    deleted = ("missing", "deleted in commit")
    assert told == {
        "test_fixes.py": deleted,
        "database/events.db": deleted,
        "test_root.py": deleted,
    }


def test_a_database_file_is_a_path_with_its_folder_not_alone(repo: Path) -> None:
    memory(
        repo,
        "data",
        "Events are kept in `backend/database/events.db`.\n"
        "On a schema change, delete `data.db` and recreate it.\n",
    )
    commit(repo)
    assert _told(findings(repo)) == {"backend/database/events.db": ("missing", None)}


def test_a_path_marked_still_to_be_checked_is_no_claim(repo: Path) -> None:
    memory(
        repo,
        "progress",
        "### 未変更（要対応）\n- `internal/tools/legacy_runner.go` ※要確認\n"
        "- `internal/tools/other.go` (unverified)\n- `internal/tools/runner.go`\n",
    )
    commit(repo)
    assert _told(findings(repo)) == {"internal/tools/runner.go": ("missing", None)}


def test_a_trees_name_its_comment_says_is_planned_is_no_claim(repo: Path) -> None:
    write(repo, "backend/app.py", "app = 1\n")
    memory(
        repo,
        "layout",
        "```\nbackend/\n├── app.py\n├── jobs/          # planned\n"
        "├── cache.py       # never written\n└── queue.py       # the job queue\n```\n",
    )
    commit(repo)
    assert _told(findings(repo)) == {"queue.py": ("missing", None)}


def test_a_file_name_written_against_japanese_words_is_a_claim(repo: Path) -> None:
    write(repo, "WORK_LOG.md", "# log\n")
    write(repo, "App/Main.storyboard", "<document/>\n")
    memory(
        repo,
        "session",
        "- WORK_LOG.mdを3,105行から1,882行に削減\n- WORK_LOG.md更新\n"
        "- **Storyboards**: Main.storyboard\n",
    )
    commit(repo)
    (repo / "docs").mkdir()
    git(repo, "mv", "WORK_LOG.md", "docs/WORK_LOG.md")
    git(repo, "rm", "-q", "App/Main.storyboard")
    commit(repo, "move the log, drop the storyboard")
    found = findings(repo)
    assert {(f["line"], f["mention"]): f["status"] for f in found} == {
        (1, "WORK_LOG.md"): "moved",
        (2, "WORK_LOG.md"): "moved",
        (3, "Main.storyboard"): "missing",
    }
