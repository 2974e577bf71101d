"""Where a name in a note stands, met in real notes, each in a git repository built the
way those projects were: a tree drawn under another project's name whose folders the
project has only in part, a bare file name the note writes out in full elsewhere, and
the names a naming rule gives as examples in Japanese."""

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
