"""Moves and renames met in the histories of real projects, each in a git repository built
here the way those projects changed: a tree drawn under the project's old name, a folder
renamed with a file rewritten in it, a log whose rename detection fails for a missing
content, a copy made before its original was deleted, a folder moved where most of its
files went, Kotlin packages, folders written with folders left out, and what is no
drift: a sketch of code still to be written, a plan's list, deprecations said in Chinese,
the memories' own folder, and paths the .gitignore ignored when the memory was written."""

from __future__ import annotations

import os
from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.history import by_content, raw_entries
from serena_memory.integrity.code_drift.ignored_then import ignored_by
from serena_memory.integrity.code_drift.mentions import PATH, extract

__all__ = ["repo"]  # the fixture, shared


def mv(repo: Path, old: str, new: str) -> None:
    """``git mv``, its new folder made first."""
    (repo / new).parent.mkdir(parents=True, exist_ok=True)
    git(repo, "mv", old, new)


def _told(found: list[dict]) -> dict[str, tuple[str, str | None]]:
    return {f["mention"]: (f["status"], f.get("new_path")) for f in found}


def test_a_tree_under_the_projects_old_name_is_read_from_the_root(repo: Path) -> None:
    write(repo, "src/lib.rs", "pub fn serve() {}\n")
    write(repo, "src/web/server.rs", "fn main() {}\n")
    write(repo, "ui/src/main.ts", "export {}\n")
    memory(
        repo,
        "layout",
        "```\nichimi-server/\n├── src/\n│   ├── lib.rs          # the server\n"
        "│   └── web/\n│       └── server.rs\n└── ui/\n```\n",
    )
    commit(repo)
    mv(repo, "src", "crates/ichimi/src")
    commit(repo, "a workspace of crates")
    told = _told(findings(repo))
    # `src/` is the project's top folder, gone, not the `ui/src/` found as a suffix
    assert told["src/"] == ("moved", "crates/ichimi/src/")
    assert told["lib.rs"] == ("moved", "crates/ichimi/src/lib.rs")
    assert told["web/"] == ("moved", "crates/ichimi/src/web/")
    assert "ui/" not in told


def test_a_file_rewritten_in_a_renamed_folder_moved_with_it(repo: Path) -> None:
    for name in ("a", "b", "c"):
        write(repo, f"crates/ichimi/src/{name}.rs", f"pub fn {name}() {{}}\n" * 5)
    write(repo, "crates/ichimi/src/lib.rs", "mod a;\nmod b;\nmod c;\n")
    memory(repo, "core", "The crate's root is `crates/ichimi/src/lib.rs`.\n")
    commit(repo)
    mv(repo, "crates/ichimi", "crates/vantage")
    write(repo, "crates/vantage/src/lib.rs", "//! vantage\npub use a::*;\n")
    commit(repo, "rename the project")
    found = by_mention(findings(repo))["crates/ichimi/src/lib.rs"]
    assert (found["status"], found["new_path"]) == ("moved", "crates/vantage/src/lib.rs")


def test_renames_are_kept_when_a_missing_content_stops_rename_detection(repo: Path) -> None:
    write(repo, "pkg/old/keep.py", "KEEP = 1\n" * 10)
    write(repo, "pkg/old/big.py", "x = 1\n" * 40)
    memory(repo, "core", "- `pkg/old/keep.py`\n- `pkg/old/big.py`\n")
    commit(repo)
    lost = git(repo, "rev-parse", "HEAD:pkg/old/big.py").strip()
    mv(repo, "pkg/old", "pkg/new")
    write(repo, "pkg/new/big.py", "y = 2\n" * 40)
    commit(repo, "rename the package and rewrite big.py")
    # the old content of big.py is gone from the object store (as in a partial clone):
    # git's own rename detection of the log fails on it
    os.remove(repo / ".git" / "objects" / lost[:2] / lost[2:])
    told = _told(findings(repo))
    assert told["pkg/old/keep.py"] == ("moved", "pkg/new/keep.py")  # the same content
    assert told["pkg/old/big.py"] == ("moved", "pkg/new/big.py")  # with its folder


def test_the_content_ids_of_a_log_without_renames_pair_a_move() -> None:
    zero = "0" * 7
    fields = [
        f":100644 000000 abc1234 {zero} D",
        "src/a.ts",
        f":000000 100644 {zero} abc1234 A",
        "packages/a.ts",
        f":000000 100644 {zero} e69de29 A",
        "packages/empty.ts",
        f":100644 000000 e69de29 {zero} D",
        "src/empty.ts",
    ]
    entries = by_content(raw_entries(fields))
    assert ("R", "src/a.ts", "packages/a.ts", "abc1234", "abc1234") in entries
    assert {e[2] for e in entries if e[0] != "R"} == {"packages/empty.ts", "src/empty.ts"}


def test_a_copy_made_before_its_original_was_deleted_is_a_move(repo: Path) -> None:
    write(repo, "src/agent/runtime/runStream.ts", "export function run() { return 1 }\n")
    write(repo, "tools/ce/core.py", "def core():\n    return 1\n")
    memory(
        repo,
        "core",
        "- `src/agent/runtime/runStream.ts` runs the stream.\n- `runStream.ts` again.\n"
        "- `ce/core.py` is the core.\n",
    )
    commit(repo)
    write(repo, "packages/agents/runtime/runStream.ts", "export function run() { return 1 }\n")
    write(repo, "vendor/ce/core.py", "def core():\n    return 1\n")  # a later duplicate
    commit(repo, "copy the runtime into a package")
    git(repo, "rm", "-q", "-r", "src", "vendor")
    commit(repo, "clean up src")
    told = _told(findings(repo))
    assert told["src/agent/runtime/runStream.ts"] == (
        "moved",
        "packages/agents/runtime/runStream.ts",
    )
    assert told["runStream.ts"] == ("moved", "packages/agents/runtime/runStream.ts")
    # the duplicate deleted was a copy of `tools/ce/core.py`, which did not move
    assert "ce/core.py" not in told


def test_a_folder_moved_where_most_of_its_files_went(repo: Path) -> None:
    for name in ("a", "b", "c", "d"):
        write(repo, f"crates/ichimi/src/{name}.rs", f"pub fn {name}() {{}}\n" * 5)
    memory(repo, "layout", "The server crate is `crates/ichimi/`.\n")
    commit(repo)
    mv(repo, "crates/ichimi", "crates/vantage-atom")
    mv(repo, "crates/vantage-atom/src/d.rs", "crates/vantage-mcp/src/main.rs")
    commit(repo, "split the crate")
    found = by_mention(findings(repo))["crates/ichimi/"]
    assert (found["status"], found["new_path"]) == ("moved", "crates/vantage-atom/")


KOTLIN = "project-server/module-core-domain/src/main/kotlin/com/{org}/domain/repository/{name}"


def _kotlin(repo: Path, org: str) -> None:
    for name in ("quality", "workflow"):
        for kind in ("Jpa", "Dsl"):
            cls = f"{name.title()}Repository{kind}"
            write(repo, f"{KOTLIN.format(org=org, name=name)}/{cls}.kt", f"interface {cls}\n")
    write(repo, "project-server/module-core-domain/build.gradle.kts", "plugins {}\n")


def test_kotlin_packages_and_folders_written_with_folders_left_out_moved(repo: Path) -> None:
    _kotlin(repo, "github/lambda")
    memory(
        repo,
        "patterns",
        "## Repositories (module-core-domain/repository/quality/)\n\n"
        "```kotlin\npackage com.github.lambda.domain.repository.quality\n"
        "import com.github.lambda.domain.repository.workflow.WorkflowRepositoryJpa\n```\n\n"
        "```\nmodule-core-domain/repository/\n├── quality/   # QualityRepository*\n"
        "│            # and their specs\n└── workflow/  # WorkflowRepository*\n```\n",
    )
    commit(repo)
    old = "project-server/module-core-domain/src/main/kotlin/com/github"
    mv(repo, old, "project-server/module-core-domain/src/main/kotlin/com/dataops")
    commit(repo, "the organisation's package")
    told = _told(findings(repo))
    new = KOTLIN.format(org="dataops/lambda", name="{}")
    assert told["module-core-domain/repository/quality/"] == ("moved", new.format("quality") + "/")
    assert told["com.github.lambda.domain.repository.quality"] == (
        "moved",
        new.format("quality") + "/",
    )
    assert told["com.github.lambda.domain.repository.workflow.WorkflowRepositoryJpa"] == (
        "moved",
        new.format("workflow") + "/WorkflowRepositoryJpa.kt",
    )
    assert told["workflow/"] == ("moved", new.format("workflow") + "/")  # after a comment
    assert told["module-core-domain/repository/"][0] == "moved"


def test_a_folder_written_with_folders_left_out_that_is_there_is_no_drift(repo: Path) -> None:
    _kotlin(repo, "acme")
    memory(repo, "patterns", "Repositories live in module-core-domain/repository/quality/ now.\n")
    commit(repo)
    assert findings(repo) == []


def test_a_tree_that_sketches_code_still_to_be_written_is_no_claim(repo: Path) -> None:
    write(repo, "packages/agents/runStream.ts", "export {}\n")
    write(repo, "src/agent/runtime/run.ts", "export {}\n")
    memory(
        repo,
        "roadmap",
        "### 1. AI Runtime Package (`packages/ai-runtime/`)\n\n```\npackages/ai-runtime/\n"
        "├── claude/\n│   ├── runStream.ts\n│   └── types.ts\n└── package.json\n```\n\n"
        "- `src/agent/runtime/` → `packages/ai-runtime/claude/`\n"
        "- **File**: `packages/ai-runtime/claude/runStream.ts`\n",
    )
    commit(repo)
    assert findings(repo) == []


def test_a_trees_name_under_a_known_folder_git_never_knew_there_is_missing(repo: Path) -> None:
    write(repo, "internal/auth/ssh.go", "package auth\n")
    write(repo, "internal/webadmin/webadmin.go", "package webadmin\n")
    write(repo, "api/handlers.go", "package api\n")
    write(repo, "web/tests/e2e.ts", "export {}\n")
    memory(
        repo,
        "layout",
        "```\ngateway/\n├── internal/\n│   ├── auth/\n│   │   ├── ssh.go\n"
        "│   │   ├── webauthn.go\n│   │   └── webadmin.go\n│   └── tests/\n└── api/\n```\n",
    )
    commit(repo)
    told = _told(findings(repo))
    # a file of that name elsewhere, or a folder `web/tests/`, is not the one drawn here
    assert told == {
        "webauthn.go": ("missing", None),
        "webadmin.go": ("missing", None),
        "tests/": ("missing", None),
    }


def test_a_flow_diagrams_steps_and_a_command_span_name_files(repo: Path) -> None:
    write(repo, "ui.tsx", "export {}\n")
    memory(
        repo,
        "flow",
        "```\nui.tsx (React)\n  ↓\nrunStream() or Driver.handler()\n```\n\n"
        "- `tsx ui.tsx -- <args>` runs the CLI.\n- `python never_here.py --help` too.\n",
    )
    commit(repo)
    mv(repo, "ui.tsx", "packages/cli/main.tsx")
    commit(repo, "the cli package")
    lines = {(f["line"], f["mention"]): f.get("new_path") for f in findings(repo)}
    assert lines == {(2, "ui.tsx"): "packages/cli/main.tsx", (7, "ui.tsx"): "packages/cli/main.tsx"}


def test_lists_of_files_to_make_or_said_deprecated_are_no_claims(repo: Path) -> None:
    write(repo, "src/flows/baseFlow.ts", "export {}\n")
    memory(
        repo,
        "notes",
        "The previous edit went to the wrong file. Need to create new files for:\n\n"
        "1. WorkflowRepositoryJpa.kt\n2. WorkflowRepositoryDsl.kt\n\n"
        "- `src/flows/baseFlow.ts` - UI 流程封装（旧架构，重构后废弃）\n\n"
        "### 废弃部分\n❌ `src/flows/oldFlow.ts` - 被 MessageAdapter 替代\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/flows/baseFlow.ts")
    commit(repo, "drop the old flow")
    assert findings(repo) == []
    mentions = [m.text for m in extract("Need to create new files for:\n1. `a/b.kt`\n")]
    assert mentions == []


def test_the_memories_own_folder_and_what_was_ignored_then_are_local(repo: Path) -> None:
    write(repo, ".gitignore", ".ichimi\ndata/\n")
    write(repo, ".serena/cache/state.json", "{}\n")
    write(repo, "data/seed.sql", "select 1;\n")
    git(repo, "add", "-f", "data/seed.sql")
    memory(
        repo,
        "local",
        "- Runtime state: `.ichimi/processes.kdl`\n- The database: `data/ichimi.db`\n"
        "- Seeds: `data/seed.sql`\n- Serena's cache: `.serena/cache/state.json`\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "--cached", ".serena/cache/state.json")
    git(repo, "rm", "-q", "data/seed.sql")
    write(repo, ".gitignore", ".vantage\n.serena/cache/\n")
    commit(repo, "rename the runtime folder")
    (repo / ".serena" / "cache" / "state.json").unlink()
    # tracked when the memory was written: a file of the project, now deleted
    assert set(_told(findings(repo))) == {"data/seed.sql"}


def test_a_pattern_the_gitignore_dropped_matches_like_git() -> None:
    assert ignored_by(".ichimi", ".ichimi/processes.kdl")
    assert ignored_by(".ichimi", ".ichimi/")
    assert ignored_by("data/", "data/ichimi.db")
    assert not ignored_by("data/", "data")  # a folder pattern: not a file
    assert ignored_by("/build", "build/out.js")
    assert not ignored_by("/build", "src/build/out.js")
    assert ignored_by("*.log", "logs/debug.log")
    assert ignored_by("docs/**/*.tmp", "docs/a/b/c.tmp")
    assert not ignored_by("*.log", "debug.logs")
    assert ignored_by("[ab]x", "src/bx")
    assert ignored_by("a" * 150 + "*" * 40, "a" * 150)  # long patterns cost their length


def test_a_root_folder_gone_is_not_found_in_one_made_later(repo: Path) -> None:
    write(repo, "src/hooks/useQueue.ts", "export {}\n")
    memory(repo, "layout", "- `src/hooks/` — reusable hooks.\n")
    commit(repo)
    mv(repo, "src/hooks", "packages/cli/hooks")
    commit(repo, "hooks into the cli package")
    write(repo, "packages/cli/src/hooks/useKeys.ts", "export {}\n")
    commit(repo, "a new hooks folder")
    found = by_mention(findings(repo))["src/hooks/"]
    assert (found["status"], found["new_path"]) == ("moved", "packages/cli/hooks/")


def test_a_file_renamed_away_and_made_again_is_followed_to_the_end(repo: Path) -> None:
    write(repo, "crates/ichimi/src/lib.rs", "pub fn all() {}\n" * 5)
    write(repo, "crates/ichimi/src/web.rs", "pub fn web() {}\n" * 5)
    memory(repo, "core", "- `crates/ichimi/src/lib.rs`\n")
    commit(repo)
    mv(repo, "crates/ichimi", "crates/vantage")
    commit(repo, "rename")
    mv(repo, "crates/vantage", "crates/vantage-atom")
    commit(repo, "rename again")
    write(repo, "crates/vantage/src/lib.rs", "pub use vantage_atom::*;\n")
    commit(repo, "a thin crate under the old name")
    found = by_mention(findings(repo))["crates/ichimi/src/lib.rs"]
    assert found["new_path"] == "crates/vantage-atom/src/lib.rs"


def test_a_folder_in_prose_and_a_jvm_import_in_a_fence_are_mentions() -> None:
    found = extract(
        "### Domain (module-core/repository/)\n"
        "```kotlin\nimport com.acme.repo.UserRepo\npackage com.acme.repo\n```\n"
    )
    paths = {(m.text, m.target, m.weak) for m in found if m.kind == PATH}
    assert paths == {
        ("module-core/repository/", "module-core/repository/", True),
        ("com.acme.repo.UserRepo", "com/acme/repo", True),
        ("com.acme.repo", "com/acme/repo", True),
    }


def test_a_folder_moved_where_more_of_its_files_went_than_anywhere_else(repo: Path) -> None:
    for name in ("pipeline", "types", "registry"):
        write(repo, f"src/drivers/{name}.ts", f"export const {name} = 1\n" * 3)
    for name in ("a", "b"):
        write(repo, f"src/drivers/glossary/{name}.agent.md", f"# agent {name}\n" * 3)
    memory(repo, "layout", "- `src/drivers/` — agent graphs.\n- The drivers: `src/drivers`.\n")
    commit(repo)
    for name in ("pipeline", "types", "registry"):
        mv(repo, f"src/drivers/{name}.ts", f"packages/cli/drivers/{name}.ts")
    for name in ("a", "b"):
        mv(repo, f"src/drivers/glossary/{name}.agent.md", f"packages/agents/{name}.agent.md")
    commit(repo, "split into packages")
    told = _told(findings(repo))
    # not `packages/`, the only folder they all share
    assert told["src/drivers/"] == ("moved", "packages/cli/drivers/")
    assert told["src/drivers"] == ("moved", "packages/cli/drivers/")  # a folder all the same


def test_a_name_in_a_tables_example_column_is_a_file_only_when_git_knew_it(repo: Path) -> None:
    write(repo, "src/use-auth.ts", "export {}\n")
    memory(
        repo,
        "naming",
        "| Type | Pattern | Example |\n|------|---------|---------|\n"
        "| Files | kebab-case | `user-profile.tsx` |\n| Hooks | `use*` | `use-auth.ts` |\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/use-auth.ts")
    commit(repo, "drop the hook")
    # a made-up example is no drift; one that was a real file and is gone is
    assert set(_told(findings(repo))) == {"use-auth.ts"}


def test_code_under_a_comment_that_says_it_is_wrong_is_no_claim(repo: Path) -> None:
    base = "project-server/module-core-domain/src/main/kotlin/com/github/lambda/domain"
    write(repo, f"{base}/repository/QualityRepositoryJpa.kt", "interface QualityRepositoryJpa\n")
    commit(repo)
    mv(
        repo,
        f"{base}/repository/QualityRepositoryJpa.kt",
        f"{base}/repository/quality/QualityRepositoryJpa.kt",
    )
    memory(
        repo,
        "imports",
        "```kotlin\n// ✅ CORRECT\n"
        "import com.github.lambda.domain.repository.quality.QualityRepositoryJpa\n"
        "\n// ❌ WRONG: Old flat package imports\n"
        "import com.github.lambda.domain.repository.QualityRepositoryJpa\n```\n",
    )
    commit(repo, "a package per domain")
    old = "project-server/module-core-domain/src/main/kotlin/com/github"
    mv(repo, old, "project-server/module-core-domain/src/main/kotlin/com/dataops")
    commit(repo, "the organisation's package")
    told = {f["line"] for f in findings(repo)}
    assert told == {3}


def test_a_folder_copied_below_a_new_one_edited_and_its_original_deleted_later(
    repo: Path,
) -> None:
    files = {"app/main.py": "app = 1\n", "app/core/a.py": "A = 1\n", "app/core/b.py": "B = 1\n"}
    for path, text in files.items():
        write(repo, "server/" + path, text)
    write(repo, "lib/util.py", "U = 1\n")
    commit(repo)
    mv(repo, "server", "backend")  # the copies' places were reached by a rename once
    commit(repo, "rename the server")
    mv(repo, "backend/app", "app")  # the backend goes up, and later back down
    memory(
        repo,
        "layout",
        "- `app/main.py` serves.\n- `app/core/`: `a.py` and `b.py`.\n- `lib/util.py` helps.\n",
    )
    commit(repo, "flatten")
    for path, text in files.items():
        write(repo, "backend/" + path, text + "EDITED = True\n")  # a copy, then edited
    commit(repo, "copy the app below backend")
    git(repo, "rm", "-q", "-r", "app", "lib")
    commit(repo, "clean up")
    told = _told(findings(repo))
    assert told["app/main.py"] == ("moved", "backend/app/main.py")
    assert told["app/core/"] == ("moved", "backend/app/core/")
    assert told["a.py"] == ("moved", "backend/app/core/a.py")
    assert told["lib/util.py"] == ("missing", None)  # nothing took its path
