"""Forms met on drift-20's repositories (a Go service, a Python emulator), each checked on
a real git repository: a Go module's import path (`modernc.org/sqlite`) is no database file
of the project; a method called on a variable (`wg.Go`, `t.Run`) is no file with an
extension; a list of files a memory calls legacy (`legacy `projects.json` /
`users.json``) says they are gone, each of them."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, git, memory, repo, write

from serena_memory.integrity.code_drift.checker import CodeChecker
from serena_memory.integrity.code_drift.code_report import MISSING, MOVED, CodeReport
from serena_memory.integrity.code_drift.spans import span_fields

__all__ = ["repo"]  # the fixture, used by name


def _report(root: Path) -> CodeReport:
    """The check of every memory, each read as of its last commit."""
    texts = {p.stem: p.read_text("utf-8") for p in (root / ".serena/memories").glob("*.md")}
    written = {
        name: float(git(root, "log", "-1", "--format=%ct", "--", f".serena/memories/{name}.md"))
        for name in texts
    }
    return CodeChecker(root, changed_commits=0).check(texts, written, symbols=False)


def _told(root: Path) -> dict[tuple[int, str], str]:
    """(line, mention) -> status of every path not present."""
    findings = _report(root).findings
    return {(f.line, f.mention): f.status for f in findings if f.status in (MISSING, MOVED)}


def test_go_import_paths_and_method_calls_are_no_files(repo: Path) -> None:
    write(repo, "internal/store/db.go", "package store\n")
    memory(
        repo,
        "architecture",
        "- `modernc.org/sqlite` is the pure-Go driver, load-bearing for `CGO_ENABLED=0`.\n"
        "- `Gateway.Serve` spawns `handleClient` (`wg.Go`) per connection.\n"
        "- Storage lives in `internal/store/db.go`; the schema in `internal/store/schema.sql`.\n",
    )
    commit(repo)
    assert _told(repo) == {(3, "internal/store/schema.sql"): MISSING}


def test_files_a_memory_calls_legacy_are_not_told_missing(repo: Path) -> None:
    write(repo, "internal/app/migrate.go", "package app\n")
    memory(
        repo,
        "control_plane",
        "`internal/app/` runs one-time migrations at startup: legacy `projects.json` / "
        "`users.json` move into SQLite.\n"
        "Settings are read from `config/settings.json`.\n",
    )
    commit(repo)
    assert _told(repo) == {(2, "config/settings.json"): MISSING}


def test_an_extension_is_written_in_lower_case_or_capitals() -> None:
    written = ("wg.Go", "t.Run", "README.MD", "plot.R")
    paths = {w for w in written if any(f[1] == "path" for f in span_fields(w))}
    assert paths == {"README.MD", "plot.R"}


def test_a_tree_drawn_from_a_placeholder_is_a_pattern(repo: Path) -> None:
    """drift-21: a module's test layout drawn from `<module>/tests/`, while the project's
    own module's test folders (`admin-module/tests/unit/test_models/`) went since."""
    write(repo, "admin-module/tests/unit/test_models/test_file.py", "def test(): ...\n")
    write(repo, "admin-module/tests/unit/conftest.py", "import pytest\n")
    memory(
        repo,
        "project_structure",
        "## Testing Structure\n\n```\n<module>/tests/\n├── unit/\n│   ├── test_services/\n"
        "│   └── test_models/\n└── conftest.py\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-rq", "admin-module/tests/unit/test_models")
    git(repo, "commit", "-qm", "models tested elsewhere")
    assert _told(repo) == {}


def test_a_tree_drawn_from_the_projects_own_name_tells_its_gone_files(repo: Path) -> None:
    """drift-21: a layout drawn from the project's name (`obsidian-typst-export/`), its
    names at the root; two of them deleted since. A tree of a folder git never knew is
    a sketch of code to write, unless two names right under it are the root's."""
    write(repo, "main.ts", "export default 1\n")
    write(repo, "package.json", "{}\n")
    write(repo, ".eslintrc", "{}\n")
    write(repo, "PRD.md", "# PRD\n")
    memory(
        repo,
        "codebase_structure",
        "```\nobsidian-typst-export/\n├── main.ts        # entry\n├── package.json\n"
        "├── .eslintrc      # lint\n└── PRD.md         # requirements\n```\n\n"
        "```\nnew-service/\n├── handler.ts\n└── schema.sql\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", ".eslintrc", "PRD.md")
    git(repo, "commit", "-qm", "flat eslint config; PRD moved to the wiki")
    assert _told(repo) == {(5, ".eslintrc"): MISSING, (6, "PRD.md"): MISSING}


def test_a_note_on_what_a_drawn_file_holds_is_no_plan(repo: Path) -> None:
    """drift-21: `checklist.md  # Implementation TODO list` is a file holding a to-do
    list, drawn as it is; deleted since, it is told. `# TODO` alone still marks a plan."""
    write(repo, "Cargo.toml", "[workspace]\n")
    write(repo, "spec.md", "# Spec\n")
    write(repo, "checklist.md", "- [ ] keys\n")
    memory(
        repo,
        "project_overview",
        "```\nrssh-agent/\n├── spec.md            # specification\n"
        "├── checklist.md       # Implementation TODO list\n├── bench/  # TODO\n"
        "└── Cargo.toml         # workspace\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "checklist.md")
    git(repo, "commit", "-qm", "checklist done")
    assert _told(repo) == {(4, "checklist.md"): MISSING}
