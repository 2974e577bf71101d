"""What real memories say is gone or still to come, in the forms the tenth drift round met
on four public repositories (drift-11 and drift-12 in benchmarks/data): a "deleted files"
heading in Japanese with a count after it, over subheadings and drawn trees; a list item
ticked done whose file is "削除" (deleted); a struck-out file marked ❌ 削除 or 不要; a
tree entry noted "(TO BE CREATED)" and what is drawn under it; and the files right under
a tree's top that is the project's own name (a folder it once had), at the root. Each
checked on a real git repository."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli_process
from test_code_drift import by_mention, commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, used by name


def test_a_deleted_files_heading_covers_its_subheadings_and_trees(repo: Path) -> None:
    for name in ("audio-engine.ts", "simple-player.ts", "engine/context.ts", "kept.ts", "sc.ts"):
        write(repo, f"src/audio/{name}", "export {}\n")
    commit(repo)
    memory(
        repo,
        "unification",
        "# 一本化 - 完了報告\n\n## 実施結果\n\n"
        "### 削除されたファイル（3ファイル、約400行）\n\n"
        "#### Phase 5-1でリファクタリングしたファイル群（240行）\n"
        "```\nsrc/audio/\n├── audio-engine.ts (240行)\n└── engine/\n    └── context.ts\n```\n\n"
        "#### その他の未使用ファイル\n"
        "```\nsrc/audio/\n└── simple-player.ts (196行)\n```\n\n"
        "## 残ったファイル\n- `src/audio/kept.ts`\n",
    )
    commit(repo)
    for name in ("audio-engine.ts", "simple-player.ts", "engine/context.ts", "kept.ts"):
        git(repo, "rm", "-q", f"src/audio/{name}")
    commit(repo, "unify")
    # what the memory says was deleted is no drift; the file it says stayed is
    assert set(by_mention(findings(repo))) == {"src/audio/kept.ts"}


def test_items_said_deleted_are_no_drift_and_a_done_one_is(repo: Path) -> None:
    for name in ("loop-scheduler.ts", "timing.ts", "player.ts", "parser.ts"):
        write(repo, f"src/{name}", "export {}\n")
    commit(repo)
    memory(
        repo,
        "refactoring",
        "# Refactoring\n\n"
        "1. ~~**player.ts** (196行)~~ ❌ **削除** (不要)\n"
        "2. ~~**parser.ts** (768行)~~ ✅ **完了** (PR #21)\n\n"
        "**Phase 7-1: 未使用コード削除**\n"
        "- ✅ `src/loop-scheduler.ts` 削除（重複）\n"
        "- ✅ `src/timing.ts` 修正\n",
    )
    commit(repo)
    for name in ("loop-scheduler.ts", "timing.ts", "player.ts", "parser.ts"):
        git(repo, "rm", "-q", f"src/{name}")
    commit(repo, "clean up")
    # struck out and done is no removal: parser.ts was refactored, then deleted later
    assert set(by_mention(findings(repo))) == {"parser.ts", "src/timing.ts"}


def test_a_gone_heading_after_a_block_left_open_is_read_as_prose(repo: Path) -> None:
    """A tree's block left open, then a heading and a ```bash block: the headings after
    it are prose, as the check reads the blocks, and say what is missing."""
    write(repo, "web/app.vue", "<template/>\n")
    write(repo, "docs/guide/index.md", "# Guide\n")
    write(repo, "web/gone.vue", "<template/>\n")
    write(repo, "pages/expenses.vue", "<template/>\n")
    commit(repo)
    memory(
        repo,
        "status",
        "# Status\n\n```\ndocs/\n├── guide/\n\n## Implementation\n\n```bash\nnpm test\n```\n\n"
        "### Frontend\n#### Missing (Critical):\n- `pages/expenses.vue` ❌\n\n"
        "### Present\n- `web/app.vue`\n- `web/gone.vue`\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "web/gone.vue", "pages/expenses.vue")
    commit(repo, "drop two pages")
    assert set(by_mention(findings(repo))) == {"web/gone.vue"}


def test_a_tree_entry_to_be_created_and_what_is_under_it_are_planned(repo: Path) -> None:
    write(repo, "docs/spec.md", "# Spec\n")
    commit(repo)
    memory(
        repo,
        "structure",
        "# Structure\n\n```\nproject/\n├── mobile/   # React Native app (TO BE CREATED)\n"
        "│   ├── src/\n│   │   └── screens/     # Route screens\n│   └── ios/\n"
        "├── docs/\n│   ├── spec.md\n│   └── plan.md\n```\n",
    )
    commit(repo)
    # the planned app is no drift; a file drawn in a folder that exists is
    assert set(by_mention(findings(repo))) == {"plan.md"}


def test_a_file_right_under_the_projects_own_name_is_the_one_at_the_root(repo: Path) -> None:
    write(repo, "docker-compose.yml", "services: {}\n")
    write(repo, "src/main.py", "print()\n")
    write(repo, "project/README.md", "# chart\n")  # a folder of that name, once
    commit(repo)
    git(repo, "rm", "-q", "-r", "project")
    commit(repo, "move the chart")
    memory(
        repo,
        "structure",
        "# Layout\n\n```\nproject/\n├── src/\n│   └── main.py\n├── docker-compose.yml\n"
        "└── pytest.ini\n```\n",
    )
    commit(repo)
    assert set(by_mention(findings(repo))) == {"pytest.ini"}


def test_the_json_report_is_not_clean_when_code_drifted(repo: Path) -> None:
    """`check --code --json` said `"clean": true` beside its findings: a script that reads
    "clean" as docs/integrity.md says (nothing found) missed the drift."""
    write(repo, "src/old.py", "x = 1\n")
    commit(repo)
    memory(repo, "core", "# Core\n\nThe entry point is `src/old.py`.\n")
    commit(repo)
    git(repo, "rm", "-q", "src/old.py")
    commit(repo, "drop it")
    done = run_cli_process("memories", "check", str(repo), "--code", "--json")
    data = json.loads(done.stdout)
    assert [f["mention"] for f in data["code"]] == ["src/old.py"]
    assert data["clean"] is False


def test_a_deleted_files_commit_is_still_told_after_the_memory_changed(repo: Path) -> None:
    """After `fix-code-references` rewrote a memory's other mentions, a file deleted
    before that edit was told only "already gone when the memory last changed": the
    commit that deleted it, told before the fix, was lost."""
    write(repo, "src/gone.py", "x = 1\n")
    commit(repo)
    memory(repo, "core", "# Core\n\nSee `src/gone.py`.\n")
    commit(repo)
    git(repo, "rm", "-q", "src/gone.py")
    deleting = commit(repo, "drop it")
    memory(repo, "core", "# Core\n\nSee `src/gone.py`, the entry point.\n")
    commit(repo, "edit the memory")
    note = by_mention(findings(repo))["src/gone.py"]["note"]
    assert note.startswith("already gone when the memory last changed (deleted in commit ")
    assert deleting[:10] in note


def test_a_folder_not_currently_present_consolidated_or_a_patterns_end_is_no_drift(
    repo: Path,
) -> None:
    write(repo, "src_julia/main.jl", "main() = 1\n")
    write(repo, "lib/plan/plan.go", "package plan\n")
    commit(repo)
    git(repo, "rm", "-q", "-r", "src_julia")
    write(repo, "core/run.jl", "run() = 2\n")  # rewritten, no rename
    memory(
        repo,
        "guidelines",
        "- Keep experimental work in `experiments/` (not currently present here).\n"
        "- Previous structure (`src_julia/`) has been consolidated into `core/`.\n"
        "- Unit tests alongside code (*_test.go), like *plan_test.go*.\n"
        "- The plan code: `lib/plan/plan.go`.\n1. **plan.go確認**\n",
    )
    commit(repo, "one core")
    git(repo, "rm", "-q", "-r", "lib")
    commit(repo, "no plan")
    # only the files the memory says are there; a name in passing (*plan_test.go*, which
    # git never knew here) is an example
    assert set(by_mention(findings(repo))) == {"lib/plan/plan.go", "plan.go"}


def test_a_glob_the_gitignore_lists_now_names_local_files(repo: Path) -> None:
    write(repo, "models/vae_best.bson", "weights\n")
    write(repo, "models/.gitkeep", "")
    write(repo, "data/runs.csv", "a,b\n")
    memory(repo, "models", "### Checkpoints (`models/*.bson`)\n- Runs in `data/*.csv`.\n")
    commit(repo)
    git(repo, "rm", "-q", "models/vae_best.bson", "data/runs.csv")
    write(repo, ".gitignore", "models/*.bson\n")
    commit(repo, "keep checkpoints local")
    # the checkpoints are kept on disk now; the runs are gone
    assert set(by_mention(findings(repo))) == {"data/*.csv"}
