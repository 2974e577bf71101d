"""Kinds of code drift met in the memories of real projects, each in a git repository built
here the way those projects changed: a file name ignored only inside an ignored folder,
a bare name that named one file when it was written, a move git's rename detection
misses, a move the memory tells itself, paths without an extension, the end of file
names, an alias's own folder, the scripts a fenced command runs, globs and brace
patterns."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, shared


def test_a_file_name_ignored_only_inside_an_ignored_folder_is_still_told(repo: Path) -> None:
    write(repo, ".gitignore", "node_modules/\n")
    write(repo, "src/claude/memory.md", "# the memory agent\n")
    write(repo, "tests/fixtures/node_modules/keep.js", "x\n")
    git(repo, "add", "-f", "tests/fixtures/node_modules/keep.js")
    memory(repo, "agents", "Agents:\n\n- memory.md, the memory agent\n")
    commit(repo)
    git(repo, "rm", "-q", "src/claude/memory.md")
    commit(repo, "drop the memory agent")
    assert by_mention(findings(repo))["memory.md"]["status"] == "missing"


def test_a_bare_name_is_the_file_of_that_name_when_the_memory_was_written(repo: Path) -> None:
    write(repo, "src/claude/planner.md", "# planner\n" + "plan the work step by step\n" * 5)
    memory(repo, "agents", "Agents: `planner.md` plans milestones.\n")
    commit(repo)
    write(repo, ".claude/agents/planner.md", "# planner copy\n" + "another planner text\n" * 5)
    commit(repo, "a second planner, later")
    git(repo, "mv", "src/claude/planner.md", ".claude/agents/milestone-planner.md")
    git(repo, "mv", ".claude/agents/planner.md", "src/claude/milestone-planner.md")
    commit(repo, "rename both planners")
    found = by_mention(findings(repo))["planner.md"]
    assert (found["status"], found["new_path"]) == ("moved", ".claude/agents/milestone-planner.md")


def test_a_bare_name_whose_file_went_is_missing_though_a_new_one_came(repo: Path) -> None:
    write(repo, "copilot-instructions.md", "# instructions\n")
    memory(repo, "layout", "| File | Purpose |\n|---|---|\n| `copilot-instructions.md` | rules |\n")
    commit(repo)
    git(repo, "rm", "-q", "copilot-instructions.md")
    commit(repo, "drop the root instructions")
    write(repo, ".github/copilot-instructions.md", "# other instructions, written anew\n")
    commit(repo, "instructions where GitHub reads them")
    assert by_mention(findings(repo))["copilot-instructions.md"]["status"] == "missing"


def test_a_file_deleted_and_added_in_another_folder_in_one_commit_moved(repo: Path) -> None:
    write(repo, "docs/contract.md", "# API contract\n- GET /health\n")
    memory(repo, "core", "The API summary is `docs/contract.md`.\n")
    commit(repo)
    git(repo, "rm", "-q", "docs/contract.md")
    write(repo, "docs/api-contract/contract.md", "# Contract v2\n" + "- POST /items\n" * 8)
    commit(repo, "api contract in its own folder, rewritten")
    found = by_mention(findings(repo))["docs/contract.md"]
    assert (found["status"], found["new_path"]) == ("moved", "docs/api-contract/contract.md")


def test_a_move_the_memory_tells_on_its_line_is_no_drift(repo: Path) -> None:
    write(repo, "ml/train.py", "def train():\n    pass\n")
    commit(repo)
    git(repo, "mv", "ml", "ai-dl")
    commit(repo, "rename the folder")
    memory(
        repo,
        "ai",
        "- 과거 `ml/` 폴더명이었으나 `ai-dl/`로 리네임됨 — 옛 경로는 stale.\n"
        "- Training starts in `ml/train.py`.\n",
    )
    commit(repo, "memory")
    found = by_mention(findings(repo))
    assert "ml/" not in found
    assert found["ml/train.py"]["new_path"] == "ai-dl/train.py"


def test_a_path_without_extension_is_told_when_git_knew_it(repo: Path) -> None:
    write(repo, ".githooks/pre-commit", "#!/bin/sh\nexit 0\n")
    write(repo, "frontend/index.ts", "export {}\n")
    memory(
        repo,
        "hooks",
        "- **Location**: `.githooks/pre-commit`\n"
        "- Branches are named like `frontend/28-map-view`.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", ".githooks")
    commit(repo, "hooks by lefthook now")
    assert set(by_mention(findings(repo))) == {".githooks/pre-commit"}


def test_the_end_of_file_names_and_an_alias_folder_are_no_files(repo: Path) -> None:
    write(repo, "src/copilot-cli/orchestrator.agent.md", "# orchestrator\n")
    write(repo, "tsconfig.json", '{"compilerOptions": {"paths": {"@/*": ["./resources/js/*"]}}}\n')
    write(repo, "resources/js/app.ts", "export {}\n")
    memory(
        repo,
        "layout",
        "- The same agents with the `.agent.md` suffix.\n- Vue: `@/` imports.\n",
    )
    commit(repo)
    assert findings(repo) == []


def test_the_scripts_a_fenced_command_runs_are_checked(repo: Path) -> None:
    write(repo, "tools/fences/fix_fences.py", "print('fix')\n")
    write(repo, "tools/fences/fix_fences.ps1", "Write-Host fix\n")
    write(repo, "build/scripts/Invoke-Tests.ps1", "param()\n")
    write(repo, "scripts/tests/Install.Tests.ps1", "Describe 'x' {}\n")
    memory(
        repo,
        "commands",
        "```bash\npython tools/fences/fix_fences.py\npwsh tools/fences/fix_fences.ps1\n"
        "python examples/never_here.py --dry-run\n```\n\n"
        "```yaml\n- name: Test\n  run: ./build/scripts/Invoke-Tests.ps1 -CI\n```\n\n"
        '```powershell\n[string]$TestPath = "./scripts/tests",\n```\n',
    )
    commit(repo)
    (repo / "skills").mkdir()
    git(repo, "mv", "tools/fences", "skills/fences")
    commit(repo, "fences as a skill")
    git(repo, "rm", "-q", "skills/fences/fix_fences.ps1", "build/scripts/Invoke-Tests.ps1")
    git(repo, "rm", "-q", "-r", "scripts/tests")
    commit(repo, "skills, and no Pester")
    found = by_mention(findings(repo))
    assert found["tools/fences/fix_fences.py"]["new_path"] == "skills/fences/fix_fences.py"
    assert found["tools/fences/fix_fences.ps1"]["status"] == "missing"
    assert found["./build/scripts/Invoke-Tests.ps1"]["status"] == "missing"
    assert found["./scripts/tests"]["status"] == "missing"
    assert "examples/never_here.py" not in found  # a made-up example git never knew


def test_a_glob_names_its_folder_and_a_brace_pattern_its_files(repo: Path) -> None:
    write(repo, ".githooks/pre-commit", "#!/bin/sh\n")
    write(repo, "scripts/tests/Install.Tests.ps1", "Describe 'x' {}\n")
    write(repo, "scripts/tests/helpers.psm1", "function X {}\n")
    write(repo, "docs/conventions/AI_guide.md", "# AI\n")
    memory(
        repo,
        "review",
        "- Full review for `.githooks/**` and `src/**/*.py`.\n"
        "- Test files: `scripts/tests/*.Tests.ps1`.\n"
        "- Examples only: `directory/**/*.md`.\n"
        "- Each module follows `docs/conventions/{React,AI}_guide.md`.\n"
        "```yaml\npath_instructions:\n  - path: '.githooks/*'\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", ".githooks", "scripts/tests/Install.Tests.ps1")
    commit(repo, "no hooks, no Pester")
    found = {(f["line"], f["mention"]): f for f in findings(repo)}
    assert set(found) == {
        (1, ".githooks/**"),
        (2, "scripts/tests/*.Tests.ps1"),
        (4, "docs/conventions/{React,AI}_guide.md"),
        (7, ".githooks/*"),
    }
    assert found[(4, "docs/conventions/{React,AI}_guide.md")]["status"] == "missing"


def test_a_heading_that_names_a_folder_places_the_files_its_list_names(repo: Path) -> None:
    write(repo, "src/claude/memory.md", "# memory agent\n")
    write(repo, "src/claude/planner.md", "# planner agent\n")
    write(repo, "docs/memory.md", "# how memory works\n")
    memory(
        repo,
        "layout",
        "## Agents\n\n### src/claude/\n\nClaude agent definitions:\n\n"
        "- memory.md, planner.md\n\n## Docs\n\n- memory.md - how memory works\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/claude/memory.md")
    commit(repo, "no memory agent")
    found = {(f["line"], f["mention"]): f["status"] for f in findings(repo)}
    assert found == {(7, "memory.md"): "missing"}
