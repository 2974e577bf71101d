"""A team memory kept out for a secret comes in once the team removed it: real bare
repositories, the team's members pushing with plain git, and the real command line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_sync import Machine
from test_sync_secrets import TOKEN, history_secrets, remote_main
from test_sync_team import Team

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

PASSWORD = "Zq8vLm2xR7tKp4Wn9sHc"  # made up for the test; not a real password
DEPLOY = "# Deploy\n\nSteps:\n\nThe CI token is {}\n"
DB = "# Database\n\nDB_PASSWORD_PROD={}\n"


def _team_sync(machine: Machine, team: Team, *, check: bool = False):
    return machine.run("memories", "sync", "--team", "--remote", str(team.bare), check=check)


def _reachable(repository: Path, secret: str) -> bool:
    """Whether any ref of a history repository reaches a text holding ``secret``."""
    shown = subprocess.run(
        ["git", f"--git-dir={repository}", "log", "--all", "-p", "--format=%H"],
        capture_output=True,
        text=True,
        check=True,
    )
    return secret in shown.stdout


def _histories(machine: Machine) -> list[Path]:
    return sorted((machine.home / "history").glob("*.git"))


def test_a_team_memory_kept_out_for_a_secret_comes_in_once_the_team_removed_it(
    tmp_path: Path,
) -> None:
    team = Team(tmp_path / "team")
    team.publish({"conventions.md": "# Conventions\n\nsnake_case\n"})
    member_b = Machine(tmp_path / "b", tmp_path / "unused.git")
    assert _team_sync(member_b, team, check=True).returncode == 0
    # member A pushes with plain git: a new memory, a second one, and an update, each
    # holding a secret
    team.publish(
        {
            "ops/deploy.md": DEPLOY.format(TOKEN),
            "db.md": DB.format(PASSWORD),
            "conventions.md": f"# Conventions\n\nsnake_case\n\ntoken {TOKEN}\n",
        }
    )

    refused = _team_sync(member_b, team)
    said = refused.stdout
    assert "Kept out because the incoming text holds what looks like a secret" in said
    assert "global/team/ops/deploy (line 5: GitHub Token)" in said
    assert "global/team/db (line 3:" in said and "global/team/conventions (line 5:" in said
    assert TOKEN not in said and PASSWORD not in said
    assert not member_b.path("global/team/ops/deploy").exists()
    assert member_b.text("global/team/conventions") == "# Conventions\n\nsnake_case\n"
    again = _team_sync(member_b, team).stdout
    assert "Changed here since the last pull" not in again and "Kept out" in again

    # member A removes the secrets, then makes another edit
    team.publish(
        {
            "ops/deploy.md": DEPLOY.format("<github-token>"),
            "db.md": DB.format("<db-password>"),
            "conventions.md": "# Conventions\n\nsnake_case\n\ntoken <github-token>\n",
        }
    )
    fixed = _team_sync(member_b, team, check=True).stdout
    assert "Changed here since the last pull" not in fixed and "Kept out" not in fixed
    assert member_b.text("global/team/ops/deploy") == DEPLOY.format("<github-token>")
    assert member_b.text("global/team/db") == DB.format("<db-password>")
    assert member_b.text("global/team/conventions").endswith("token <github-token>\n")
    team.publish({"ops/deploy.md": DEPLOY.format("<github-token>") + "Rotated monthly.\n"})
    later = _team_sync(member_b, team, check=True).stdout
    assert "Changed here since the last pull" not in later and "1 changed" in later
    assert member_b.text("global/team/ops/deploy").endswith("Rotated monthly.\n")
    assert _team_sync(member_b, team, check=True).stdout.endswith("already up to date.\n")

    # member C, first syncing after the fix, gets the same
    member_c = Machine(tmp_path / "c", tmp_path / "unused.git")
    _team_sync(member_c, team, check=True)
    assert member_c.text("global/team/ops/deploy") == member_b.text("global/team/ops/deploy")


def test_a_team_memory_kept_out_twice_still_comes_in_after_the_fix(tmp_path: Path) -> None:
    """The secret stays over several pulls, and an unrelated change arrives meanwhile."""
    team = Team(tmp_path / "team")
    team.publish({"conventions.md": "# Conventions\n\nsnake_case\n"})
    member_b = Machine(tmp_path / "b", tmp_path / "unused.git")
    _team_sync(member_b, team, check=True)
    team.publish({"ops/deploy.md": DEPLOY.format(TOKEN)})
    assert "Kept out" in _team_sync(member_b, team).stdout
    team.publish({"conventions.md": "# Conventions\n\ncamelCase\n"})
    again = _team_sync(member_b, team).stdout
    assert "global/team/ops/deploy (line 5" in again and "Changed here since" not in again
    assert member_b.text("global/team/conventions") == "# Conventions\n\ncamelCase\n"
    team.publish({"ops/deploy.md": DEPLOY.format("<github-token>")})
    fixed = _team_sync(member_b, team, check=True).stdout
    assert "Changed here since the last pull" not in fixed
    assert member_b.text("global/team/ops/deploy") == DEPLOY.format("<github-token>")


def test_a_team_pull_that_keeps_a_memory_out_exits_1_and_says_what_stays(
    tmp_path: Path,
) -> None:
    team = Team(tmp_path / "team")
    team.publish({"conventions.md": "# Conventions\n\nsnake_case\n"})
    member_b = Machine(tmp_path / "b", tmp_path / "unused.git")
    _team_sync(member_b, team, check=True)
    team.publish({"ops/deploy.md": DEPLOY.format(TOKEN)})
    refused = _team_sync(member_b, team)
    # not a pull a script may take for done, as a sync that holds entries back
    assert refused.returncode == 1
    # no local text stays for a memory not here yet: the answer says it right
    assert "the local text stays" not in refused.stdout
    assert "(not written here, a memory already here keeps its text;" in refused.stdout
    as_json = member_b.run("memories", "sync", "--team", "--json", check=False)
    assert as_json.returncode == 1 and "global/team/ops/deploy" in as_json.stdout


def test_a_text_kept_out_of_a_team_pull_is_not_kept_reachable(tmp_path: Path) -> None:
    team = Team(tmp_path / "team")
    team.publish({"conventions.md": "# Conventions\n\nsnake_case\n"})
    member_b = Machine(tmp_path / "b", tmp_path / "unused.git")
    _team_sync(member_b, team, check=True)
    team.publish({"ops/deploy.md": DEPLOY.format(TOKEN), "db.md": DB.format(PASSWORD)})
    assert "Kept out" in _team_sync(member_b, team).stdout
    assert _histories(member_b)
    for repository in _histories(member_b):
        assert not _reachable(repository, TOKEN) and not _reachable(repository, PASSWORD)


def test_a_refused_remote_entry_is_not_kept_reachable_in_the_history(tmp_path: Path) -> None:
    """After a sync holds back a remote's entries for a secret, no ref of the local
    history reaches them, so `check --secrets` saying none are in the history is true."""
    remote = tmp_path / "shared" / "memories.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    workstation.sync()
    laptop.run(
        "memories", "write", "global/deploy", "--content", DEPLOY.format(TOKEN), "--allow-secret"
    )
    laptop.sync()
    assert remote_main(remote)
    result = workstation.sync(check=False)
    assert result.returncode == 1 and "Nothing was merged from" in result.stdout
    assert history_secrets(workstation) == []
    for repository in _histories(workstation):
        assert not _reachable(repository, TOKEN)
