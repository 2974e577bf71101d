"""Memories checked against the code they mention, in real git repositories built here:
the `check --code` and `fix-code-references` commands as a user runs them, the note that
ends `read_memory`, and the count in the activation message."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from cli_support import git as run_git

# a process per command: the listing of the project's files is kept a few seconds per process
from conftest import run_cli_process, write_config
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_support import text_read

from serena_memory.core.process import PROCESS
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.aliases import expand
from serena_memory.integrity.code_drift.forms import replace_path
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, extract

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """git in ``root`` by the author the findings name; its output."""
    return run_git(*args, cwd=root, env={**GIT_ENV, **(env or {})}).stdout


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def memory(root: Path, name: str, text: str) -> None:
    write(root, f".serena/memories/{name}.md", text)


_CLOCK = [1_700_000_000]


def commit(root: Path, message: str = "change") -> str:
    """Commit everything, a minute after the previous commit (git keeps whole seconds)."""
    _CLOCK[0] += 60
    date = f"@{_CLOCK[0]} +0000"
    git(root, "add", "-A")
    git(
        root,
        "commit",
        "-q",
        "-m",
        message,
        env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date},
    )
    return git(root, "rev-parse", "HEAD").strip()


def findings(root: Path, *extra: str) -> list[dict]:
    done = run_cli_process("memories", "check", str(root), "--code", "--json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["code"]


def by_mention(found: list[dict]) -> dict[str, dict]:
    return {f["mention"]: f for f in found}


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q", "-b", "main")
    write(
        project, "src/auth/login.py", "class SessionStore:\n    def refresh(self):\n        pass\n"
    )
    write(project, "src/auth/tokens.py", "def refresh_token():\n    return 1\n")
    write(project, "scripts/deploy.sh", "echo deploy\n")
    write(project, "README.md", "LegacyOnlyInDocs\n")
    return project


def test_git_mv_is_moved_with_new_path_commit_lines_anchors_and_suffix(repo: Path) -> None:
    memory(
        repo,
        "core",
        "Token refresh: `src/auth/login.py`, line `src/auth/login.py:2`,\n"
        "range `login.py#L1-L3`, folder `src/auth/`, script `./scripts/deploy.sh`.\n"
        "In prose too: src/auth/login.py:2 is where it starts.\n",
    )
    commit(repo, "start")
    (repo / "src/auth/session").mkdir()
    git(repo, "mv", "src/auth/login.py", "src/auth/session/refresh.py")
    moved_in = commit(repo, "move")
    found = findings(repo)
    moved = [f for f in found if f["status"] == "moved"]
    assert {f["mention"] for f in moved} == {
        "src/auth/login.py",
        "src/auth/login.py:2",
        "login.py#L1-L3",
    }
    for f in moved:
        assert f["new_path"] == "src/auth/session/refresh.py"
        assert f["commit"] == moved_in
        assert f["kind"] == "path" and f["memory"] == "core"
    prose = [f for f in found if f["line"] == 3]
    assert prose and prose[0]["status"] == "moved"
    # the folder and the script still exist
    assert not {"src/auth/", "./scripts/deploy.sh"} & {f["mention"] for f in found}
    strict = run_cli_process("memories", "check", str(repo), "--code", "--strict")
    assert strict.returncode == 1
    assert "moved to `src/auth/session/refresh.py`" in strict.stdout


def test_copy_then_delete_in_one_commit_is_seen_as_a_rename(repo: Path) -> None:
    memory(repo, "core", "Deploy with `scripts/deploy.sh`.\n")
    write(repo, "scripts/deploy.sh", "#!/bin/sh\nset -e\necho building\necho deploying\nexit 0\n")
    commit(repo)
    write(repo, "tools/release.sh", (repo / "scripts/deploy.sh").read_text())
    (repo / "scripts/deploy.sh").unlink()
    commit(repo, "copy and delete")
    (f,) = findings(repo)
    assert (f["status"], f["new_path"]) == ("moved", "tools/release.sh")


def test_deleted_files_and_never_existing_paths_are_missing(repo: Path) -> None:
    memory(repo, "core", "Tokens: `src/auth/tokens.py`. OAuth: `src/auth/oauth.py`.\n")
    commit(repo)
    (repo / "src/auth/tokens.py").unlink()
    commit(repo, "drop tokens")
    found = by_mention(findings(repo))
    assert found["src/auth/tokens.py"]["status"] == "missing"
    assert "deleted in commit" in found["src/auth/tokens.py"]["note"]
    assert found["src/auth/oauth.py"]["status"] == "missing"
    assert "never in the git history" in found["src/auth/oauth.py"]["note"]


def test_symbols_removed_or_renamed_are_missing_existing_ones_are_not(repo: Path) -> None:
    memory(
        repo,
        "core",
        "`SessionStore.refresh` calls `refresh_token()`; `LegacyOnlyInDocs` is old.\n"
        "Words that are no symbols: `git`, `main`, `TODO`, `GitHub`.\n",
    )
    commit(repo)
    assert findings(repo) == [
        {
            "memory": "core",
            "line": 1,
            "mention": "LegacyOnlyInDocs",  # only in a prose document, not in the code
            "kind": "symbol",
            "status": "missing",
            # nothing since the memory last changed: the whole history is asked
            "note": "never in the git history: a plan or a typo?",
        }
    ]
    write(repo, "src/auth/tokens.py", "def renew_token():\n    return 1\n")
    write(repo, "src/auth/login.py", "class SessionStore:\n    def reload(self):\n        pass\n")
    commit(repo, "rename symbols")
    found = by_mention(findings(repo))
    assert found["refresh_token()"]["status"] == "missing"
    assert found["SessionStore.refresh"]["status"] == "missing"
    assert found["refresh_token()"]["kind"] == "symbol"
    # where git saw them go: the definition renamed in place
    assert found["refresh_token()"]["new_name"] == "renew_token"
    assert found["refresh_token()"]["new_path"] == "src/auth/tokens.py"
    assert found["SessionStore.refresh"]["new_name"] == "SessionStore.reload"


def test_ignored_files_are_left_alone_and_not_indexed(repo: Path) -> None:
    write(repo, ".gitignore", "build/\n.env\n")
    write(repo, "build/out/bundle.js", "x\n")
    write(repo, ".env", "X=1\n")
    memory(repo, "core", "Local: `.env` and `build/out/bundle.js`; bundle: `out/bundle.js`.\n")
    commit(repo)
    found = by_mention(findings(repo))
    # an ignored file is never counted as the project's code: its suffix finds nothing ...
    assert found["out/bundle.js"]["status"] == "missing"
    # ... and a mention of it from the root is not flagged either
    assert "build/out/bundle.js" not in found and ".env" not in found


def test_a_project_without_git_uses_the_files_on_disk(project: Path) -> None:
    write(project, "app/main.py", "def start_server():\n    pass\n")
    memory(
        project, "core", "`app/main.py` runs `start_server()`; `app/gone.py` and `stop_server()`.\n"
    )
    found = by_mention(findings(project))
    assert set(found) == {"app/gone.py", "stop_server()"}
    assert all(f["status"] == "missing" for f in found.values())
    done = run_cli_process("memories", "check", str(project), "--code")
    assert "moved and changed need git" in done.stdout


def test_a_monorepo_subproject_resolves_from_its_own_folder(tmp_path: Path) -> None:
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q")
    write(top, "services/api/src/handler.py", "def handle_request():\n    pass\n")
    write(top, "services/web/index.ts", "export const x = 1\n")
    sub = top / "services/api"
    memory(
        sub,
        "core",
        "`src/handler.py` has `handle_request()`. From the top: `services/api/src/handler.py`.\n"
        "The web side: `services/web/index.ts` (another project). `src/old.py` holds the rest.\n",
    )
    commit(top)
    found = by_mention(findings(sub))
    assert set(found) == {"src/old.py"}


def test_outside_and_hostile_mentions_are_left_alone_and_never_read(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    fifo = outside / "pipe.py"
    os.mkfifo(fifo)  # any read of it would block the check
    (repo / "src/link.py").symlink_to(fifo)
    (repo / "src/linkdir").symlink_to(outside)
    memory(
        repo,
        "core",
        f"`{fifo}` `/etc/passwd` `~/.ssh/id_rsa` `../outside/pipe.py` `src/../../x.py`\n"
        "`src/link.py` `src/linkdir/pipe.py` `C:\\Windows\\x.py` `https://example.com/a/b.py`\n"
        "`SessionStore` is here.\n",
    )
    commit(repo)
    found = by_mention(findings(repo))
    # the link is the project's file (listed, never opened); the path through the link
    # to a folder outside names no file of the project
    assert set(found) == {"src/linkdir/pipe.py"}


def test_changed_is_a_quiet_hint_that_never_fails_strict(repo: Path) -> None:
    memory(repo, "core", "Tokens live in `src/auth/tokens.py`.\n")
    commit(repo, "memory")
    for i in range(3):
        write(repo, "src/auth/tokens.py", f"def refresh_token():\n    return {i + 2}\n")
        commit(repo, f"edit {i}")
    assert findings(repo) == []  # under the default threshold
    (f,) = findings(repo, "--changed-commits", "3")
    assert (f["status"], f["commits_since"]) == ("changed", 3)
    strict = run_cli_process(
        "memories", "check", str(repo), "--code", "--changed-commits", "3", "--strict"
    )
    assert strict.returncode == 0, strict.stdout


def test_since_head_catches_a_staged_rename_before_it_is_committed(repo: Path) -> None:
    memory(repo, "core", "Deploy: `scripts/deploy.sh`. Old: `src/never.py`.\n")
    commit(repo)
    git(repo, "mv", "scripts/deploy.sh", "scripts/ship.sh")
    found = findings(repo, "--since", "HEAD")
    assert [(f["mention"], f["status"], f["new_path"]) for f in found] == [
        ("scripts/deploy.sh", "moved", "scripts/ship.sh")
    ]
    for bad in ("--output=/tmp/x", "HEAD..main", "nosuchrev"):
        done = run_cli_process("memories", "check", str(repo), "--code", "--since", bad)
        assert done.returncode != 0
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 2


def test_fix_code_references_rewrites_moved_paths_in_one_history_entry(repo: Path) -> None:
    write_config(repo / ".serena" / "project.yml", 'read_only_memory_patterns: ["frozen/.*"]\n')
    memory(repo, "core", "See `src/auth/login.py:2` and `./scripts/deploy.sh`.\n")
    memory(repo, "auth/notes", "Login in src/auth/login.py, tokens `src/auth/tokens.py`.\n")
    memory(repo, "frozen/rules", "`src/auth/login.py`\n")
    commit(repo)
    git(repo, "mv", "src/auth/login.py", "src/auth/session.py")
    git(repo, "mv", "scripts/deploy.sh", "scripts/ship.sh")
    commit(repo, "moves")
    dry = run_cli_process("memories", "fix-code-references", str(repo), "--dry-run")
    assert dry.returncode == 0 and "Would point 3" in dry.stdout
    assert "src/auth/login.py:2" in (repo / ".serena/memories/core.md").read_text()
    done = run_cli_process("memories", "fix-code-references", str(repo))
    assert done.returncode == 0, done.stderr
    assert (repo / ".serena/memories/core.md").read_text() == (
        "See `src/auth/session.py:2` and `./scripts/ship.sh`.\n"
    )
    assert (repo / ".serena/memories/auth/notes.md").read_text() == (
        "Login in src/auth/session.py, tokens `src/auth/tokens.py`.\n"
    )
    assert (repo / ".serena/memories/frozen/rules.md").read_text() == "`src/auth/login.py`\n"
    after = run_cli_process("memories", "history", "-p", str(repo), "--json")
    entries = [e for e in json.loads(after.stdout) if e["entry_point"] == "cli"]
    assert len(entries) == 1  # the fixes of the run are one entry
    assert sorted(c["memory"] for c in entries[0]["changes"]) == ["auth/notes", "core"]
    again = run_cli_process("memories", "fix-code-references", str(repo))
    assert "No moved path or renamed symbol to fix" in again.stdout


@pytest.mark.slow  # 900 memories over worker processes
def test_a_check_split_over_worker_processes_reports_the_same_findings(
    repo: Path, store: MemoryStore
) -> None:
    import threading

    from serena_memory.integrity.code_drift.check import run_code_check

    assert threading.active_count() == 1  # else the check would not fork

    for i in range(900):  # enough memories for two workers
        memory(
            repo,
            f"topic{i % 7}/note{i:04d}",
            f"# {i}\nSee `src/auth/login.py:{i}`, `tokens.py`, `src/auth/gone{i % 5}.py`,\n"
            f"`SessionStore.refresh` and `Ghost{i % 3}Thing`.\n",
        )
    commit(repo, "notes")
    git(repo, "mv", "src/auth/login.py", "src/auth/session.py")
    commit(repo, "move")
    alone = run_code_check(store, jobs=1)
    split = run_code_check(store, jobs=2)
    assert split.to_dict() == alone.to_dict()
    # the command line finds the mentions as the plain check reads the memories
    assert findings(repo) == alone.to_dict()["code"]
    assert split.scanned == alone.scanned == 900
    statuses = {f.status for f in split.findings}
    assert statuses == {"moved", "missing"} and len(split.findings) == 900 * 3


def test_read_memory_ends_with_a_note_and_activation_counts_drift(repo: Path) -> None:
    from mcp_support import in_memory, ok

    memory(repo, "core", "Login: `src/auth/login.py`. Helpers: `src/auth/gone.py`.\n")
    memory(repo, "clean", "Tokens: `src/auth/tokens.py`.\n")
    commit(repo)
    git(repo, "mv", "src/auth/login.py", "src/auth/session.py")
    commit(repo, "move")

    async def go() -> tuple[str, str, str]:
        async with in_memory(repo) as client:
            drifted = await ok(client, "read_memory", memory_name="core")
            clean = await ok(client, "read_memory", memory_name="clean")
            activation = await ok(client, "initial_instructions")
            return drifted, clean, activation

    drifted, clean, activation = anyio.run(go)
    assert drifted.startswith("Login: `src/auth/login.py`.")
    # what has no replacement is told first, then the replacements, each once
    assert "`src/auth/gone.py` (line 1) names no file of the project now" in drifted
    assert "Its exact replacements (line 1): `src/auth/login.py` -> `src/auth/session.py`" in (
        drifted
    )
    assert drifted.count("src/auth/login.py") == 2  # in the text, and in its replacement
    assert text_read(clean) == "Tokens: `src/auth/tokens.py`.\n"
    assert clean.endswith("Its 1 mention of files and symbols still holds.")
    assert "Code changed under 1 memory: " in (activation)
    assert "edit_memory(mode='drift') applies them" in activation


@pytest.mark.slow  # a thousand memories within a time limit
def test_the_activation_count_covers_every_drifted_memory_or_says_at_least(
    repo: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # how fast the count is, is measured by benchmarks/bench_code_drift.py, not here: a
    # loaded machine must not turn a count into "at least"
    from serena_memory.integrity.code_drift import drifted_memories as drifted
    from serena_memory.integrity.code_drift.drifted_memories import drift_summary

    for i in range(1000):
        memory(repo, f"notes/n{i:04d}", f"Login: `src/auth/login.py`, gone: `src/auth/x{i}.py`.\n")
    memory(repo, "clean", "Tokens: `src/auth/tokens.py`.\n")
    write(repo, ".gitignore", "local.py\n")
    memory(repo, "local", "A local file: `local.py`.\n")  # ignored: left alone
    commit(repo)
    monkeypatch.setattr(drifted, "DRIFT_COUNT_SECONDS", 120.0)
    summary = drift_summary(store)
    assert summary.startswith("Code changed under 1000 memories: "), summary
    assert "'local'" not in summary and "'clean'" not in summary
    # out of time at once: the answer says the search stopped
    monkeypatch.setattr(drifted, "DRIFT_COUNT_SECONDS", -1.0)
    PROCESS.forget(drifted._Found)  # what an earlier search found is not kept
    assert drifted.drifted_memories(store) == ([], True)


def test_replace_path_keeps_prefix_and_location() -> None:
    text = "a `./x/y.py:3` b\nc `x/y.py#L1-L2` `zx/y.py`\n"
    new, count = replace_path(text, 1, "./x/y.py:3", "x/y.py", "z/w.py")
    assert (new.splitlines()[0], count) == ("a `./z/w.py:3` b", 1)
    new, count = replace_path(text, 2, "x/y.py#L1-L2", "x/y.py", "z/w.py")
    assert new.splitlines()[1] == "c `z/w.py#L1-L2` `zx/y.py`" and count == 1


def test_a_name_written_again_is_told_on_each_line_of_each_memory() -> None:
    first = "# A\n\nSee `src/app.py:3` and `AppConfig`.\n\nThen `src/app.py:3` again.\n"
    second = "`AppConfig` first.\n\n\nNo `src/app.py:3` here; `src/app.py:3` there.\n"
    assert [(m.line, m.kind, m.target) for m in extract(first)] == [
        (3, PATH, "src/app.py"),
        (3, SYMBOL, "AppConfig"),
        (5, PATH, "src/app.py"),
    ]
    # the same spans on other lines, one said absent: each told where it is written
    assert [(m.line, m.text) for m in extract(second)] == [
        (1, "AppConfig"),
        (4, "src/app.py:3"),
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_extraction_never_names_a_path_outside_the_project(text: str) -> None:
    for m in extract(text):
        assert m.kind in (PATH, SYMBOL)
        if m.kind == PATH:
            assert not m.target.startswith(("/", "..", "~"))
            assert "/../" not in "/" + m.target


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["`", "../", "/", "a", ".py", "~", ":", "#L", "1", " ", "\n", "```"]),
        max_size=40,
    )
)
def test_extraction_of_path_like_noise_stays_inside(parts: list[str]) -> None:
    for m in extract("".join(parts)):
        if m.kind == PATH:  # a build alias (`~/lib/x`) starts with its own `~`, never `..`
            assert not m.target.startswith(("/", "..", "~")) or m.form == "alias"
            assert {".", ".."}.isdisjoint(m.target.split("/"))


def test_an_alias_path_that_climbs_out_of_its_folder_is_no_mention() -> None:
    """`~/../` once came out as the alias path `~/..`: through an alias to `src/` it would
    have named the project's top, and `~/../../x` a file outside the project."""
    climbing = extract("See `~/../` and `@/../../etc/hosts`.")
    assert [m.target for m in climbing if m.kind == PATH] == []
    assert [m.target for m in extract("See `~/lib/x.ts`.") if m.kind == PATH] == ["~/lib/x.ts"]
    assert expand("@/../../etc/hosts", [("@/", "src/")]) is None
    assert expand("@/pages/home", [("@/", "src/")]) == "src/pages/home"


def test_a_path_from_the_root_counts_only_inside_the_project_and_naming_rules_are_no_files(
    repo: Path,
) -> None:
    memory(
        repo,
        "core",
        "Entry: `/src/auth/login.py`, gone: `/src/auth/old.py`, machine: `/etc/hosts`.\n"
        "Components are `PascalCase.tsx`, services `kebab-case.ts`, tests `.test.ts`.\n",
    )
    commit(repo)
    found = by_mention(findings(repo))
    assert set(found) == {"/src/auth/old.py"}
    assert found["/src/auth/old.py"]["status"] == "missing"


def test_naming_patterns_with_a_stand_in_are_no_symbols_nor_files(repo: Path) -> None:
    # as onboarding agents write conventions (ufo, pluggy): one capital or `name` stands for
    # any word, so nothing of the code is named and nothing can go missing
    memory(
        repo,
        "conventions",
        "Builders are `withX`/`withoutX`, checks `hasX` and `isX`; hooks `useX`.\n"
        "Private modules are `_name.py`, tests `test_name.py`; start with `refreshAll`.\n",
    )
    commit(repo)
    assert set(by_mention(findings(repo))) == {"refreshAll"}


def test_the_checker_given_memory_texts_finds_what_the_command_finds(repo: Path) -> None:
    from serena_memory.integrity.code_drift.checker import CodeChecker

    text = "See `src/auth/login.py`, `src/auth/gone.py` and `SessionStore.vanished()`.\n"
    memory(repo, "core", text)
    commit(repo, "notes")
    git(repo, "mv", "src/auth/login.py", "src/auth/session.py")
    commit(repo, "move")
    written = {"core": float(git(repo, "log", "-1", "--format=%ct", "--", ".serena").strip())}
    report = CodeChecker(repo).check({"core": text}, written)
    assert [f.to_dict() for f in report.findings] == findings(repo)
    assert [f.status for f in report.findings] == ["moved", "missing", "missing"]


def test_a_strict_code_check_speaks_with_one_voice(repo: Path) -> None:
    """`check --code --strict` with only code findings says no all-clear above them, and
    its advice is about the code, not about references it did not find."""
    memory(repo, "core", "Sessions: `src/auth/login.py`.\n")
    commit(repo, "start")
    git(repo, "mv", "src/auth/login.py", "src/auth/session.py")
    commit(repo, "move")
    strict = run_cli_process("memories", "check", str(repo), "--code", "--strict")
    assert strict.returncode == 1
    assert "No integrity problems found" not in strict.stdout
    assert strict.stdout.startswith("References: no problems found (1 memory checked).")
    assert "Code: 1 finding in" in strict.stdout
    assert "fix-code-references" in strict.stderr
    assert "point each reference" not in strict.stderr


def test_a_move_or_deletion_not_committed_yet_is_told_as_such(repo: Path) -> None:
    """A change in the work tree names no made-up commit ("commit work-tree")."""
    memory(repo, "core", "Sessions: `src/auth/login.py`. Tokens: `src/auth/tokens.py`.\n")
    commit(repo, "start")
    git(repo, "mv", "src/auth/login.py", "src/auth/session.py")  # staged, not committed
    git(repo, "rm", "-q", "src/auth/tokens.py")
    out = run_cli_process("memories", "check", str(repo), "--code").stdout
    assert "work-tree" not in out
    assert "in the work tree, not committed yet" in out
