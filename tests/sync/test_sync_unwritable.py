"""A sync that can't write one memory loses no change: the rest is applied, the one left
out is said and brought again by the next sync, and nothing is pushed meanwhile. Real git
remotes, the real command line in processes of its own; the write that fails is refused
by the system (a file size limit, RLIMIT_FSIZE, on the process), not by a stand-in."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import GIT_IDENTITY, git
from conftest import SERENA

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="RLIMIT_FSIZE is set in the child"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

BIG = "x" * 200_000  # written only by a process that may write files of any size
LIMIT = 100_000
LONG = "n" * 252  # the longest name the gate accepts (failed with 'File name too long')


class Machine:
    """One person's machine: its own $SERENA_HOME and project folder."""

    def __init__(self, root: Path) -> None:
        self.home, self.project = root / "home", root / "project"
        self.home.mkdir(parents=True)
        self.project.mkdir(parents=True)

    def run(self, *args: str, limited: bool = False) -> subprocess.CompletedProcess[str]:
        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))

        done = subprocess.run(
            [*SERENA, *args],
            cwd=self.project,
            env={**os.environ, **GIT_IDENTITY, "SERENA_HOME": str(self.home)},
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=limit if limited else None,
        )
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done

    def path(self, name: str) -> Path:
        return self.home / "memories" / (name + ".md")

    def names(self) -> set[str]:
        folder = self.home / "memories" / "global"
        return {p.relative_to(folder).as_posix()[:-3] for p in folder.rglob("*.md")}


def test_a_team_pull_that_cant_write_one_memory_brings_it_at_the_next_pull(
    tmp_path: Path,
) -> None:
    """The team's branch moved on even when a memory of the pull could not be written, so
    the next pull said "already up to date" and that change (or deletion) was lost."""
    bare, work = tmp_path / "team.git", tmp_path / "lead"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    git("clone", "--quiet", str(bare), str(work))
    git("checkout", "--quiet", "-b", "main", cwd=work)

    def publish(files: dict[str, str | None]) -> None:
        for rel, text in files.items():
            if text is None:
                (work / rel).unlink()
            else:
                (work / rel).write_text(text, encoding="utf-8")
        git("add", "--all", cwd=work)
        git("commit", "--quiet", "-m", "update", cwd=work)
        git("push", "--quiet", "origin", "main", cwd=work)

    member = Machine(tmp_path / "member")
    publish({"a.md": "one\n", "gone.md": "old\n"})
    member.run("memories", "sync", "--team", "--remote", str(bare))
    publish({"a.md": "two\n", "big.md": BIG, f"{LONG}.md": "long\n", "gone.md": None})

    first = member.run("memories", "sync", "--team", limited=True)
    assert "Not written here, so the next sync brings them again" in first.stdout
    assert "global/team/big (File too large)" in first.stdout
    assert member.names() == {"team/a", f"team/{LONG}"}  # the rest is applied
    assert member.path("global/team/a").read_text() == "two\n"

    second = member.run("memories", "sync", "--team")
    assert "1 created" in second.stdout and "up to date" not in second.stdout
    assert member.path("global/team/big").read_text() == BIG
    assert member.names() == {"team/a", "team/big", f"team/{LONG}"}
    assert "already up to date" in member.run("memories", "sync", "--team").stdout


def test_a_sync_that_cant_write_one_memory_loses_no_change_on_either_side(
    tmp_path: Path,
) -> None:
    remote = tmp_path / "memories.git"
    git("init", "--quiet", "--bare", str(remote))
    laptop, desk = Machine(tmp_path / "laptop"), Machine(tmp_path / "desk")
    laptop.run("memories", "write", "global/a", "-c", "one\n")
    laptop.run("memories", "write", "global/gone", "-c", "old\n")
    laptop.run("memories", "sync", "--remote", str(remote))
    desk.run("memories", "sync", "--remote", str(remote))
    laptop.run("memories", "write", "global/a", "-c", "two\n")
    (tmp_path / "big.txt").write_text(BIG, encoding="utf-8")
    laptop.run("memories", "write", "global/big", "-f", str(tmp_path / "big.txt"))
    laptop.run("memories", "write", f"global/{LONG}", "-c", "long\n")
    laptop.run("memories", "delete", "global/gone")
    laptop.run("memories", "sync")
    desk.run("memories", "write", "global/mine", "-c", "desk\n")

    first = desk.run("memories", "sync", limited=True)
    assert "global/big (File too large)" in first.stdout
    assert "nothing is pushed until then" in first.stdout and "pushed." not in first.stdout
    assert desk.names() == {"a", "mine", LONG}
    assert desk.path("global/a").read_text() == "two\n"

    second = desk.run("memories", "sync")
    assert "up to date" not in second.stdout and "pushed" in second.stdout
    assert desk.path("global/big").read_text() == BIG
    laptop.run("memories", "sync")
    assert laptop.names() == desk.names() == {"a", "big", "mine", LONG}
    assert laptop.path("global/mine").read_text() == "desk\n"
    assert "already up to date" in desk.run("memories", "sync").stdout
