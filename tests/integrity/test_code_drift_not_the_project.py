"""Mentions an agent met as drift in an evaluation on validator.js (docs/agent-evaluation.md,
sixth pair) that name nothing of the project: a naming pattern with one capital for any
name (`src/lib/isX.js`), a commit title's form (`feat(isX): ...`), the language's own
objects (`String.prototype.replaceAll`, `Object.fromEntries`) and a word that is a file's
name (`clientSide` of `test/clientSide.test.js`). A real rename beside them is still told."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, shared


def test_patterns_commit_titles_and_the_languages_own_names_are_not_drift(repo: Path) -> None:
    write(repo, "src/lib/isEmail.js", "export default function isEmail(str) { return true; }\n")
    write(repo, "src/lib/util/assertString.js", "export default function assertString(s) {}\n")
    write(repo, "test/clientSide.test.js", "it('loads', () => {});\n")
    memory(
        repo,
        "conventions",
        "# Conventions\n"
        "- One validator per file: `src/lib/isX.js`, tested in `test/validators/isX.test.js`.\n"
        "- Commit titles: `feat(isX): ...`, `fix(isX): ...`.\n"
        "- Avoid `String.prototype.replaceAll`, `Array.prototype.flat` and "
        "`Object.fromEntries` (Node 8).\n"
        "- The browser build is tested by `clientSide`.\n"
        "- Every validator calls `assertString` first.\n",
    )
    commit(repo)
    git(repo, "mv", "src/lib/util/assertString.js", "src/lib/util/checkString.js")
    write(repo, "src/lib/util/checkString.js", "export default function checkString(s) {}\n")
    commit(repo, "rename assertString to checkString")
    found = by_mention(findings(repo))
    assert set(found) == {"assertString"}, found
    assert found["assertString"]["status"] in {"renamed", "missing"}


def test_a_one_capital_name_that_git_knew_is_still_a_file(repo: Path) -> None:
    """The pattern rule is for names git never knew: a real `getX.js` that went is told."""
    write(repo, "src/geometry/getX.js", "export const getX = (p) => p.x;\n")
    memory(repo, "geometry", "Points: `src/geometry/getX.js` reads the x coordinate.\n")
    commit(repo)
    git(repo, "rm", "-q", "src/geometry/getX.js")
    commit(repo, "drop getX")
    assert "src/geometry/getX.js" in by_mention(findings(repo))


def test_a_folder_holding_only_memories_is_not_checked_against_nothing(project: Path) -> None:
    """A copy of a project's `.serena/` alone (as ../shared/realworld holds them) told every
    mention of 46 memories missing, 667 findings without a word of why."""
    import json

    from conftest import run_cli_process

    memory(project, "core", "The app starts in `src/app.py`, config in `settings.toml`.\n")
    write(project, ".source", "https://example.invalid/repo\n")
    done = run_cli_process("memories", "check", str(project), "--code", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["code"] == [] and "nothing but its memories" in data["code_notes"][0]
    text = run_cli_process("memories", "check", str(project), "--code", "--strict")
    assert text.returncode == 0 and "Code: not checked" in text.stdout, text.stdout
    write(project, "src/app.py", "print('hi')\n")  # with code beside them, it is checked
    done = run_cli_process("memories", "check", str(project), "--code", "--json")
    assert [f["mention"] for f in json.loads(done.stdout)["code"]] == ["settings.toml"]


def test_a_folder_holding_only_memories_tells_no_drift_on_read_or_at_start(project: Path) -> None:
    """A fresh `git init` (or a copy of `.serena/` alone) told the agent at start "Code
    changed under 1 memory" and on read that `src/auth.py` names no file, while `check
    --code` said there was no code to check: every way in now follows the check."""
    from conftest import run_cli_process

    from serena_memory.integrity.code_drift.drifted_memories import drift_summary
    from serena_memory.integrity.code_drift.read_note import memory_findings
    from serena_memory.wiring import build_store

    git(project, "init", "-q")
    text = "Login lives in `src/auth.py`; research in `adr-007-research.md`.\n"
    memory(project, "auth", text)
    memory(project, "adr-007-research", "# Research\n")
    assert memory_findings(str(project), "auth", text) == []
    assert drift_summary(build_store(project, home=project / "home")) == ""
    done = run_cli_process("memories", "read", "auth", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert "src/auth.py" in done.stdout and "no file" not in done.stderr + done.stdout
    # once the project holds code, the same mention is told
    write(project, "app.py", "print('hi')\n")
    commit(project, "the first code")
    assert [f.target for f in memory_findings(str(project), "auth", text)] == ["src/auth.py"]
