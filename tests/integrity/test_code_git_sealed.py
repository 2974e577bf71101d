"""A hostile repository's git configuration runs nothing and holds nothing up: every way
a `.git/config` can name a program (filters, signature programs, hooks, fsmonitor, pagers,
text conversion, external diffs, includes of them, a submodule's own configuration) is
tried with a program that would leave a file if it ran, through `check --code`, the
agent's `read_memory` note and activation message, and the dashboard's memory page; a
configuration or an include that is a fifo answers at once; a file git blocks on costs one
bounded wait and the rest of the answer stands. And a deep tree outside git is walked
without recursion."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest

# a process per command: git's waits and sealed repositories are remembered per process
from conftest import SERENA, run_cli_process
from test_code_drift import commit, findings, git, memory, write

from serena_memory.integrity.code_drift.git import GIT_TIMEOUT

MEMORY = "Login: `src/auth/login.py`. Tokens: `src/auth/gone.py`.\n"


def _program(tmp_path: Path, marker: Path, tail: str = "cat") -> str:
    """A program that leaves ``marker`` when it runs (then passes its input through)."""
    prog = tmp_path / f"prog-{marker.name}"
    prog.write_text(f'#!/bin/sh\ntouch "{marker}"\n{tail}\n', encoding="utf-8")
    prog.chmod(0o755)
    return str(prog)


def _signed_head(repo: Path) -> None:
    """Replace HEAD by the same commit carrying a (fake) signature header."""
    raw = git(repo, "cat-file", "commit", "HEAD")
    head, _, body = raw.partition("\n\n")
    signature = (
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    )
    lines = head.split("\n")
    signed = "\n".join([*lines, signature]) + "\n\n" + body
    done = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=signed.encode(),
        capture_output=True,
        check=True,
    )
    git(repo, "update-ref", "refs/heads/main", done.stdout.decode().strip())


def _config(repo: Path, *pairs: str) -> None:
    for key, value in zip(pairs[::2], pairs[1::2], strict=True):
        git(repo, "config", key, value)


def _filter(key: str, tail: str = "cat") -> Callable[[Path, Path, Path], None]:
    def arm(repo: Path, tmp: Path, marker: Path) -> None:
        write(repo, ".gitattributes", "* filter=x diff=x\n")
        commit(repo, "attributes")
        _config(repo, f"filter.x.{key}", _program(tmp, marker, tail))

    return arm


def _included_filter(repo: Path, tmp: Path, marker: Path) -> None:
    write(repo, ".gitattributes", "* filter=x\n")
    commit(repo, "attributes")
    hostile = repo / ".git" / "hostile.cfg"
    hostile.write_text(f'[filter "x"]\n\tclean = {_program(tmp, marker)}\n', encoding="utf-8")
    _config(repo, "includeIf.gitdir:/.path", str(hostile))


def _signature(repo: Path, tmp: Path, marker: Path) -> None:
    _signed_head(repo)
    _config(repo, "log.showSignature", "true", "gpg.program", _program(tmp, marker, "exit 1"))
    _config(repo, "gpg.ssh.program", _program(tmp, marker, "exit 1"))


def _hooks(repo: Path, tmp: Path, marker: Path) -> None:
    hooks = tmp / "hooks"
    hooks.mkdir()
    for name in ("post-index-change", "post-checkout", "reference-transaction", "pre-auto-gc"):
        os.symlink(_program(tmp, marker), hooks / name)
    _config(repo, "core.hooksPath", str(hooks))


def _programs(repo: Path, tmp: Path, marker: Path) -> None:
    """fsmonitor, pagers, text conversion, external diffs, an editor, ssh."""
    write(repo, ".gitattributes", "* diff=x\n")
    commit(repo, "attributes")
    prog = _program(tmp, marker)
    _config(
        repo,
        "core.fsmonitor",
        prog,
        "core.pager",
        prog,
        "pager.log",
        prog,
        "diff.x.textconv",
        prog,
        "diff.x.command",
        prog,
        "diff.external",
        prog,
        "core.sshCommand",
        prog,
        "core.editor",
        prog,
        "credential.helper",
        "!" + prog,
    )


def _submodule(repo: Path, tmp: Path, marker: Path) -> None:
    """A submodule whose own configuration has a clean filter, with a file touched."""
    inner = tmp / "inner"
    inner.mkdir()
    git(inner, "init", "-q", "-b", "main")
    write(inner, "lib.py", "X = 1\n")
    write(inner, ".gitattributes", "* filter=x\n")
    commit(inner, "inner")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "vendor")
    commit(repo, "submodule")
    git(repo / "vendor", "config", "filter.x.clean", _program(tmp, marker))
    os.utime(repo / "vendor" / "lib.py", (1_000_000, 1_000_000))


VECTORS: dict[str, Callable[[Path, Path, Path], None]] = {
    "filter clean": _filter("clean"),
    "filter process": _filter("process", "exit 1"),
    "filter smudge": _filter("smudge"),
    "filter by includeIf": _included_filter,
    "signature programs": _signature,
    "hooks": _hooks,
    "fsmonitor, pager, textconv, diff, ssh, credential": _programs,
    "a submodule's filter": _submodule,
}


@pytest.fixture
def moved(project: Path) -> Path:
    """A project whose memory mentions a file since moved and one that never was."""
    git(project, "init", "-q", "-b", "main")
    write(project, "src/auth/login.py", "class SessionStore:\n    pass\n")
    write(project, "src/auth/tokens.py", "def refresh_token():\n    return 1\n")
    memory(project, "core", MEMORY)
    commit(project, "start")
    git(project, "mv", "src/auth/login.py", "src/auth/session.py")
    commit(project, "move")
    return project


def _stale_stat(repo: Path) -> None:
    """Every tracked file's timestamps differ from the index (an unpacked copy, a touch)."""
    for rel in git(repo, "ls-files").split("\n"):
        if rel and (repo / rel).is_file():
            os.utime(repo / rel, (1_000_000, 1_000_000))


def _read_and_activate(repo: Path) -> tuple[str, str]:
    from mcp_support import in_memory, ok

    async def go() -> tuple[str, str]:
        async with in_memory(repo) as client:
            note = await ok(client, "read_memory", memory_name="core")
            return note, await ok(client, "initial_instructions")

    return anyio.run(go)


def _dashboard_drift(repo: Path, home: Path) -> list[str]:
    from serena_memory.dashboard.server import DashboardServer

    server = DashboardServer(repo, home=home, port=0)
    server.start()
    try:
        answer = httpx.get(
            server.base_url + "/api/memory?name=core", headers={"X-Serena-Token": server.token}
        )
    finally:
        server.stop()
    return sorted(f["mention"] for f in answer.json()["code_drift"])


def _assert_drift_found_with_git(repo: Path, home: Path) -> None:
    found = {f["mention"]: f for f in findings(repo)}
    assert found["src/auth/login.py"]["new_path"] == "src/auth/session.py"  # git answered
    assert found["src/auth/gone.py"]["status"] == "missing"
    note, activation = _read_and_activate(repo)
    assert "`src/auth/login.py` -> `src/auth/session.py`" in note
    assert "Code changed under 1 memory: " in (activation)
    assert _dashboard_drift(repo, home) == ["src/auth/gone.py", "src/auth/login.py"]


@pytest.mark.parametrize("vector", list(VECTORS))
def test_a_repositorys_configuration_runs_no_program(
    vector: str, moved: Path, tmp_path: Path, serena_home: Path
) -> None:
    marker = tmp_path / "ran"
    VECTORS[vector](moved, tmp_path, marker)
    _stale_stat(moved)
    marker.unlink(missing_ok=True)  # left by the set-up's own git commands
    symbols = run_cli_process("memories", "check", str(moved), "--code", "--json")
    assert symbols.returncode == 0, symbols.stderr
    _assert_drift_found_with_git(moved, serena_home)
    assert not marker.exists(), f"{vector}: the repository's program ran"


@pytest.mark.parametrize("where", ["an include", "the configuration itself"])
def test_a_configuration_that_is_a_fifo_holds_nothing_up(
    where: str, moved: Path, serena_home: Path
) -> None:
    _stale_stat(moved)
    config = moved / ".git" / "config"
    if where == "an include":
        os.mkfifo(moved / ".git" / "cfgfifo")  # opening it blocks until someone writes
        with config.open("a", encoding="utf-8") as out:
            out.write("[include]\n\tpath = cfgfifo\n")  # from now on any git here blocks
    else:
        config.unlink()
        os.mkfifo(config)
    # git still answers, fully: the moved path is reported with where it went
    _assert_drift_found_with_git(moved, serena_home)


@pytest.mark.slow  # waits out the time limit of git
def test_a_file_git_blocks_on_costs_one_bounded_wait_and_the_rest_stands(moved: Path) -> None:
    exclude = moved / ".git" / "info" / "exclude"
    exclude.unlink(missing_ok=True)
    os.mkfifo(exclude)  # git's listing opens it and waits for ever
    done = run_cli_process("memories", "check", str(moved), "--code")
    assert done.returncode == 0, done.stderr
    assert f"git did not answer within {int(GIT_TIMEOUT)} seconds" in done.stdout
    # the files on disk still show what is missing
    assert "core:1: missing: `src/auth/login.py`" in done.stdout
    assert "core:1: missing: `src/auth/gone.py`" in done.stdout
    note, _activation = _read_and_activate(moved)
    assert "`src/auth/gone.py` (line 1) names no file of the project now" in note
    as_json = json.loads(
        run_cli_process("memories", "check", str(moved), "--code", "--json").stdout
    )
    assert as_json["code_notes"] == [
        f"git did not answer within {int(GIT_TIMEOUT)} seconds: the files on disk were used"
    ]


def test_a_check_leaves_no_temporary_folder_behind(
    moved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    assert findings(moved)  # the check forks a worker that runs git too
    assert list((tmp_path / "tmp").iterdir()) == []  # git's own folders were removed


def test_a_caller_s_git_variables_are_not_followed(moved: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    env = {**os.environ, "GIT_DIR": str(other / ".git"), "GIT_CONFIG_GLOBAL": "/nonexistent"}
    done = subprocess.run(
        [*SERENA, "memories", "check", str(moved), "--code"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert "moved to `src/auth/session.py`" in done.stdout, done.stdout + done.stderr


def test_a_repository_of_someone_else_is_used_only_when_the_person_lists_it_safe(
    moved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    for folder, _dirs, files in os.walk(moved):
        os.chown(folder, 4242, 4242)
        for name in files:
            os.chown(os.path.join(folder, name), 4242, 4242, follow_symlinks=False)
    home = tmp_path / "person"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SUDO_UID", raising=False)
    done = run_cli_process("memories", "check", str(moved), "--code")
    assert "not a git work tree" in done.stdout  # git itself refuses such a repository
    (home / ".gitconfig").write_text(f"[safe]\n\tdirectory = {moved}\n", encoding="utf-8")
    done = run_cli_process("memories", "check", str(moved), "--code")
    assert "moved to `src/auth/session.py`" in done.stdout, done.stdout + done.stderr


def test_a_linked_work_tree_is_read_through_its_main_repository(
    moved: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(moved, "worktree", "add", "-q", str(linked))
    write(linked, "src/auth/other.py", "Y = 2\n")
    commit(linked, "other")
    memory(linked, "core", "Other: `src/auth/other.py`, `src/auth/login.py`.\n")
    (found,) = findings(linked)
    assert (found["mention"], found["new_path"]) == ("src/auth/login.py", "src/auth/session.py")


def _remove_chain(top: Path) -> None:
    """Remove a chain of nested folders deepest first (a recursive removal, as pytest's
    own clean-up of old temporary folders is, would overflow the stack)."""
    chain = [top]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for folder in reversed(chain):
        for item in folder.iterdir():
            if not item.is_dir():
                item.unlink()
        folder.rmdir()


@pytest.mark.slow  # a tree 1,300 levels deep
def test_a_deep_tree_outside_git_is_walked_without_recursion(project: Path) -> None:
    path = project / "src"
    path.mkdir()
    try:
        for _ in range(1300):
            path = path / "d"
            path.mkdir()
        (path / "leaf.py").write_text("X = 1\n", encoding="utf-8")
        leaf = path.relative_to(project).as_posix() + "/leaf.py"
        memory(project, "core", f"Deep: `{leaf}`. Tokens: `src/gone.py`.\n")
        found = {f["mention"]: f["status"] for f in findings(project)}
        assert found == {"src/gone.py": "missing"}  # the deep file is found
        note, _activation = _read_and_activate(project)
        assert "`src/gone.py` (line 1) names no file of the project now" in note
    finally:
        _remove_chain(project / "src")
