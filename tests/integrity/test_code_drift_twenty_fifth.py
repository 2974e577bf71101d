"""Forms met on drift-25 to drift-27 and on a fresh-eyes walk, each checked on a real
git repository: a file named bare and with its folder on one line, where the root had no
such file, is the one with its folder; a refactoring's note that a file was split ("(801
→ 6 files)") says it went; a name shown as a case style's example ("PascalCase
(`GoalCard`)") is no symbol the code must have; the file `docker compose -f` reads is a
path of the project."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, findings, git, memory, repo, write
from test_code_drift_twentieth import _told

__all__ = ["repo"]  # the fixture, used by name


def test_a_bare_name_with_its_path_beside_it_is_that_path(repo: Path) -> None:
    # Ks-Classic/numbers-ai: "**requirements.txt**: Python依存関係（api/requirements.txt）"
    write(repo, "api/requirements.txt", "fastapi\n")
    write(repo, "api/main.py", "app = 1\n")
    memory(repo, "tech_stack", "- **requirements.txt**: Python依存関係（api/requirements.txt）\n")
    commit(repo)
    git(repo, "rm", "-q", "-r", "api")
    commit(repo, "no api server")
    write(repo, "requirements.txt", "numpy>=2\npandas>=2\nscikit-learn\n")  # another one
    commit(repo, "requirements for the notebooks")
    assert _told(repo) == {
        (1, "requirements.txt"): "missing",
        (1, "api/requirements.txt"): "missing",
    }


def test_a_file_said_split_into_others_is_no_drift(repo: Path) -> None:
    write(repo, "internal/storage/code_types.go", "package storage\n")
    write(repo, "internal/api/server.go", "package api\n")
    memory(
        repo,
        "refactor",
        "### Phase 2: internal/storage/surreal_code.go (801 → 6 files)\n"
        "- Types now in `internal/storage/code_types.go`.\n"
        "- The server: `internal/api/server.go`.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "internal/api/server.go")
    commit(repo, "no server")
    assert _told(repo) == {(3, "internal/api/server.go"): "missing"}


def test_a_name_shown_as_a_case_style_is_no_missing_symbol(repo: Path) -> None:
    memory(
        repo,
        "naming",
        "- **Components**: PascalCase (`RunFormPanel`)\n- Sessions: `LegacySessionKeeper`.\n",
    )
    commit(repo)
    assert [f["mention"] for f in findings(repo)] == ["LegacySessionKeeper"]


def test_the_file_docker_compose_reads_moves_with_the_project(repo: Path) -> None:
    write(repo, "backend/compose.yaml", "services:\n  db:\n    image: postgres\n" * 5)
    memory(repo, "commands", "- Start the database: `docker compose -f backend/compose.yaml up`\n")
    commit(repo)
    (repo / "server").mkdir()
    git(repo, "mv", "backend/compose.yaml", "server/compose.yaml")
    commit(repo, "backend is the server")
    assert _told(repo) == {(1, "backend/compose.yaml"): "moved"}


def test_a_bare_name_gone_is_its_file_then_though_the_root_ignores_the_name(
    repo: Path,
) -> None:
    # oraios/serena: `/*.yml` in .gitignore; `ide-assistant.yml` lived under config/contexts/
    write(repo, ".gitignore", "/*.yml\n")
    write(repo, "src/config/contexts/ide-assistant.yml", "name: ide\n")
    write(repo, "src/config/contexts/agent.yml", "name: agent\n")
    memory(repo, "structure", "- **`ide-assistant.yml`**: IDE context\n- **`agent.yml`**: agent\n")
    commit(repo)
    git(repo, "rm", "-q", "src/config/contexts/ide-assistant.yml")
    commit(repo, "no ide context")
    assert _told(repo) == {(1, "ide-assistant.yml"): "missing"}


def test_a_path_under_a_site_name_is_another_repository(repo: Path) -> None:
    write(repo, "src/tui/gates.ts", "export const gates = 1\n")
    memory(
        repo,
        "rule",
        "Both the web frontend (`pvp.codes/app/page.tsx`) and the TUI "
        "(`src/tui/gates.ts`) had the bug.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/tui/gates.ts")
    commit(repo, "gates gone")
    assert _told(repo) == {(1, "src/tui/gates.ts"): "missing"}


def test_names_drawn_below_a_placeholder_in_a_tree_are_no_claims(repo: Path) -> None:
    # MarkusNeusinger/pyplots (drift-27): `plots/` then `└── {spec-id}/` and its files
    write(repo, "plots/scatter/specification.md", "# scatter\n")
    write(repo, "app/main.py", "app = 1\n")
    write(repo, "app/util.py", "x = 1\n")
    memory(
        repo,
        "overview",
        "```\n.\n├── plots/                  # specifications\n│   └── {spec-id}/\n"
        "│       ├── specification.md      # description\n"
        "│       └── specification.yaml    # tags\n└── app/\n    └── main.py\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "app/main.py")
    commit(repo, "no main")
    assert _told(repo) == {(8, "main.py"): "missing"}
