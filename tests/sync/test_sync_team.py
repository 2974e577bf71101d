"""Team memories: a second remote pulled, never pushed, into global/team/, read-only for
the agent and the person unless configured otherwise. Real git, the real command line, and
a team repository the member can't write to."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from cli_support import git, run_cli
from conftest import write_config

from serena_memory.core.errors import ReadOnlyMemoryError
from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]


class Team:
    """The team's repository, kept by its lead in a working copy of their own."""

    def __init__(self, root: Path) -> None:
        self.bare = root / "team.git"
        self.work = root / "lead"
        git("init", "--quiet", "--bare", "--initial-branch=main", str(self.bare))
        git("clone", "--quiet", str(self.bare), str(self.work))
        git("checkout", "--quiet", "-b", "main", cwd=self.work)

    def publish(self, files: dict[str, str | None], message: str = "update") -> None:
        for rel, text in files.items():
            path = self.work / rel
            if text is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        git("add", "--all", cwd=self.work)
        git("commit", "--quiet", "-m", message, cwd=self.work)
        git("push", "--quiet", "origin", "main", cwd=self.work)

    def freeze(self) -> None:
        """Read-only for everyone (as a member's access to a shared drive would be)."""
        for path in [self.bare, *self.bare.rglob("*")]:
            mode = path.stat().st_mode
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))

    def refs(self) -> str:
        return git(f"--git-dir={self.bare}", "for-each-ref").stdout


@pytest.fixture
def team(tmp_path: Path) -> Team:
    team = Team(tmp_path / "team")
    team.publish(
        {"conventions.md": "# Conventions\n\nsnake_case\n", "review/checklist.md": "- tests\n"}
    )
    return team


def test_team_memories_are_pulled_read_only_and_follow_the_team(
    team: Team, project: Path, serena_home: Path, store: MemoryStore, agent_store: MemoryStore
) -> None:
    team.freeze()
    before = team.refs()
    first = run_cli(
        "memories", "sync", "--team", "--remote", str(team.bare), cwd=project, check=True
    )
    assert "Pulled the team memories" in first.stdout and "2 created" in first.stdout
    assert "memory_sync_team_remote" in (serena_home / "serena_config.yml").read_text()
    assert team.refs() == before
    assert store.read("global/team/conventions") == "# Conventions\n\nsnake_case\n"
    assert store.read("global/team/review/checklist") == "- tests\n"
    # read-only for the person and for the agent
    refused = run_cli("memories", "write", "global/team/conventions", "-c", "x", cwd=project)
    assert refused.returncode == 1 and "comes from the team's repository" in refused.stderr
    with pytest.raises(ReadOnlyMemoryError):
        agent_store.delete("global/team/conventions")
    with pytest.raises(ReadOnlyMemoryError):
        store.rename("global/team/conventions", "global/mine")
    assert "global/team/conventions" in store.list().read_only_memories
    # the team changes one memory and drops another; a plain `sync` pulls the team too
    team_root = team.bare.parent
    for path in [team.bare, *team.bare.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    team.publish(
        {"conventions.md": "# Conventions\n\ncamelCase now\n", "review/checklist.md": None}
    )
    team.freeze()
    before = team.refs()
    again = run_cli("memories", "sync", cwd=project, check=True)
    assert "1 changed, 1 deleted" in again.stdout
    assert store.read("global/team/conventions") == "# Conventions\n\ncamelCase now\n"
    assert not store.exists("global/team/review/checklist")
    assert team.refs() == before  # nothing was ever pushed to the team
    assert team_root.is_dir()


def test_the_personal_sync_never_carries_team_memories(
    team: Team, tmp_path: Path, project: Path, store: MemoryStore
) -> None:
    personal = tmp_path / "personal.git"
    git("init", "--quiet", "--bare", str(personal))
    run_cli("memories", "sync", "--team", "--remote", str(team.bare), cwd=project, check=True)
    store.write("global/mine", "my own\n")
    run_cli("memories", "sync", "--remote", str(personal), cwd=project, check=True)
    files = git(f"--git-dir={personal}", "ls-tree", "-r", "--name-only", "main").stdout.split()
    assert files == ["mine.md"]
    # history: the personal memories' history has no entry for the team's
    changed = {c for e in store.history().entries() for _, c in e.changes}
    assert "global/mine" in changed and not any(c.startswith("global/team/") for c in changed)


def test_a_writable_team_topic_keeps_local_edits_at_the_next_pull(
    team: Team, project: Path, serena_home: Path, store: MemoryStore
) -> None:
    write_config(
        serena_home / "serena_config.yml",
        f"memory_sync_team_remote: {team.bare}\nmemory_sync_team_writable: true\n",
    )
    run_cli("memories", "sync", cwd=project, check=True)
    store.write("global/team/conventions", "my local version\n")
    team.publish(
        {"conventions.md": "# Conventions\n\nteam's new text\n", "review/checklist.md": "- docs\n"}
    )
    result = run_cli("memories", "sync", cwd=project, check=True)
    assert "Changed here since the last pull, so kept: global/team/conventions" in result.stdout
    assert store.read("global/team/conventions") == "my local version\n"
    assert store.read("global/team/review/checklist") == "- docs\n"


def test_an_unreachable_team_remote_is_one_sentence(
    tmp_path: Path, project: Path, serena_home: Path
) -> None:
    gone = tmp_path / "nowhere.git"
    write_config(serena_home / "serena_config.yml", f"memory_sync_team_remote: {gone}\n")
    result = run_cli("memories", "sync", cwd=project)
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .startswith(f"Error: the team remote {gone} can't be reached")
    )


def test_agent_store_lists_team_memories_as_read_only(
    team: Team, project: Path, serena_home: Path
) -> None:
    run_cli("memories", "sync", "--team", "--remote", str(team.bare), cwd=project, check=True)
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    listing = agent.list()
    assert set(listing.read_only_memories) == {
        "global/team/conventions",
        "global/team/review/checklist",
    }
