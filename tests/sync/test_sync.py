"""Sync end to end: two machines (two $SERENA_HOMEs), a local bare repository, the real
`serena` command line in subprocesses and real git."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SERENA, run_cli

GIT = shutil.which("git")
pytestmark = [
    pytest.mark.skipif(GIT is None, reason="sync needs the git command line"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

WORKER = Path(__file__).parents[1] / "helpers" / "sync_worker.py"
BASE = "# Conventions\n\none\ntwo\nthree\nfour\nfive\n"


class Machine:
    """One person's machine: its own $SERENA_HOME and a project folder."""

    def __init__(self, root: Path, remote: Path) -> None:
        self.home = root / "home"
        self.project = root / "project"
        self.home.mkdir(parents=True)
        self.project.mkdir(parents=True)
        self.remote = remote
        self.prefix: list[str] = []  # what each command runs under (a host name of its own)
        self.own_process = False  # each command in a process of its own, not in this one

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["SERENA_HOME"] = str(self.home)
        return env

    def run(self, *args: str, check: bool = True, env: dict[str, str] | None = None):
        """The command line on this machine: in this process, or in a process of its own
        when asked, when it runs under a prefix (a host name of its own) or in an
        environment given whole."""
        if self.own_process or self.prefix or env is not None:
            result = subprocess.run(
                [*self.prefix, *SERENA, *args],
                cwd=self.project,
                env=env or self.env,
                capture_output=True,
                text=True,
                timeout=120,
            )
        else:
            result = run_cli(*args, cwd=self.project, env={"SERENA_HOME": str(self.home)})
        if check:
            assert result.returncode == 0, result.stderr + result.stdout
        assert "Traceback" not in result.stderr
        return result

    def sync(self, *args: str, check: bool = True):
        return self.run("memories", "sync", "--remote", str(self.remote), *args, check=check)

    def write(self, name: str, text: str) -> None:
        self.run("memories", "write", name, "--content", text)

    def path(self, name: str) -> Path:
        if name.startswith("global/"):
            return self.home / "memories" / "global" / (name[len("global/") :] + ".md")
        return self.project / ".serena" / "memories" / (name + ".md")

    def text(self, name: str) -> str:
        return self.path(name).read_text(encoding="utf-8")

    def names(self) -> set[str]:
        folder = self.home / "memories" / "global"
        return {"global/" + p.relative_to(folder).as_posix()[:-3] for p in folder.rglob("*.md")}


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "shared" / "memories.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    return path


@pytest.fixture
def laptop(tmp_path: Path, remote: Path) -> Machine:
    return Machine(tmp_path / "laptop", remote)


@pytest.fixture
def workstation(tmp_path: Path, remote: Path) -> Machine:
    return Machine(tmp_path / "workstation", remote)


def _both_have(a: Machine, b: Machine, name: str, text: str) -> None:
    assert a.text(name) == text
    assert b.text(name) == text


def _shared(a: Machine, b: Machine, name: str = "global/conventions") -> None:
    """Both machines start from the same synced memory."""
    a.write(name, BASE)
    a.sync()
    b.sync()
    assert b.text(name) == BASE


def test_different_memories_meet_on_both_machines(laptop: Machine, workstation: Machine) -> None:
    laptop.write("global/style", "tabs\n")
    workstation.write("global/deploy", "blue-green\n")
    first = laptop.sync()
    assert "pushed" in first.stdout
    second = workstation.sync()
    assert "1 created" in second.stdout
    laptop.sync()
    assert laptop.names() == workstation.names() == {"global/style", "global/deploy"}
    _both_have(laptop, workstation, "global/deploy", "blue-green\n")
    # the remote was remembered: a plain `sync` works from now on
    assert "memory_sync_remote" in (laptop.home / "serena_config.yml").read_text()
    assert laptop.run("memories", "sync").returncode == 0


def test_same_memory_different_lines_merge_silently(laptop: Machine, workstation: Machine) -> None:
    _shared(laptop, workstation)
    laptop.write("global/conventions", BASE.replace("one", "ONE (laptop)"))
    workstation.write("global/conventions", BASE.replace("five", "FIVE (workstation)"))
    laptop.sync()
    result = workstation.sync()
    assert "conflict" not in result.stdout.lower()
    laptop.sync()
    merged = BASE.replace("one", "ONE (laptop)").replace("five", "FIVE (workstation)")
    _both_have(laptop, workstation, "global/conventions", merged)
    assert "No sync conflicts" in workstation.run("memories", "conflicts").stdout


def test_same_lines_keep_local_text_and_the_other_for_review(
    laptop: Machine, workstation: Machine
) -> None:
    _shared(laptop, workstation)
    theirs = BASE.replace("three", "three, says the laptop").replace("one", "one!")
    ours = BASE.replace("three", "three, says the workstation")
    laptop.write("global/conventions", theirs)
    workstation.write("global/conventions", ours)
    laptop.sync()
    result = workstation.sync()
    assert "same lines of global/conventions" in result.stdout
    # the local text stays in place; the other side's non-clashing change is merged in
    assert workstation.text("global/conventions") == ours.replace("one", "one!")
    listed = workstation.run("memories", "conflicts")
    assert "global/conventions" in listed.stdout
    shown = workstation.run("memories", "conflicts", "--show", "global/conventions")
    assert "+three, says the laptop\n" in shown.stdout  # nothing lost, shown as a diff
    assert "-three, says the workstation\n" in shown.stdout
    assert shown.stdout.startswith("--- global/conventions @ in the memory: this machine")
    # the person takes the other side's text: a new entry, and the conflict is gone
    workstation.run("memories", "resolve", "global/conventions", "--keep", "remote")
    assert workstation.text("global/conventions") == theirs
    assert "No sync conflicts" in workstation.run("memories", "conflicts").stdout
    workstation.sync()
    laptop.sync()
    _both_have(laptop, workstation, "global/conventions", theirs)


def test_resolving_by_keeping_the_local_text(laptop: Machine, workstation: Machine) -> None:
    _shared(laptop, workstation)
    laptop.write("global/conventions", BASE.replace("two", "2 (laptop)"))
    workstation.write("global/conventions", BASE.replace("two", "2 (workstation)"))
    laptop.sync()
    workstation.sync()
    combined = BASE.replace("two", "2 (both)")
    workstation.write("global/conventions", combined)
    out = workstation.run("memories", "resolve", "global/conventions", "--keep", "local")
    assert "Kept the text in memory" in out.stdout
    assert workstation.text("global/conventions") == combined
    assert workstation.run("memories", "conflicts", "--json").stdout.strip() == "[]"
    missing = workstation.run(
        "memories", "resolve", "global/conventions", "--keep", "local", check=False
    )
    assert missing.returncode == 1 and "no sync conflict" in missing.stderr


@pytest.mark.parametrize("deleting_first", [True, False])
def test_delete_against_edit_keeps_the_edit(
    laptop: Machine, workstation: Machine, deleting_first: bool
) -> None:
    _shared(laptop, workstation)
    edited = BASE + "six\n"
    laptop.run("memories", "delete", "global/conventions")
    workstation.write("global/conventions", edited)
    order = [laptop, workstation] if deleting_first else [workstation, laptop]
    for machine in [*order, *order]:
        machine.sync()
    _both_have(laptop, workstation, "global/conventions", edited)


def test_rename_against_edit_applies_the_edit_under_the_new_name(
    laptop: Machine, workstation: Machine
) -> None:
    long_text = "".join(f"line {i} of the conventions\n" for i in range(30))
    _shared(laptop, workstation)
    laptop.write("global/conventions", long_text)
    laptop.sync()
    workstation.sync()
    laptop.run("memories", "rename", "global/conventions", "global/style/conventions")
    edited = long_text.replace("line 7 of", "line 7 (edited) of")
    workstation.write("global/conventions", edited)
    laptop.sync()
    workstation.sync()
    laptop.sync()
    for machine in (laptop, workstation):
        assert machine.names() == {"global/style/conventions"}
        assert machine.text("global/style/conventions") == edited


def test_rename_that_can_not_be_recognised_against_edit_keeps_both(
    laptop: Machine, workstation: Machine
) -> None:
    """The laptop renames and rewrites the memory (git can't tell it was a rename); the
    workstation edits the old one: both texts survive, under both names."""
    _shared(laptop, workstation)
    laptop.run("memories", "rename", "global/conventions", "global/style")
    rewritten = "Everything here was written again from scratch.\n"
    laptop.write("global/style", rewritten)
    edited = BASE.replace("four", "four, edited")
    workstation.write("global/conventions", edited)
    laptop.sync()
    workstation.sync()
    laptop.sync()
    for machine in (laptop, workstation):
        assert machine.names() == {"global/style", "global/conventions"}
        assert machine.text("global/style") == rewritten
        assert machine.text("global/conventions") == edited


def test_a_sync_is_one_history_entry_that_restore_undoes(
    laptop: Machine, workstation: Machine
) -> None:
    laptop.write("global/mine", "kept\n")
    laptop.sync()
    workstation.write("global/theirs", "one\n")
    workstation.write("global/theirs2", "two\n")
    workstation.sync()
    before = laptop.run("memories", "history", "--json").stdout
    import json

    top = json.loads(before)[0]["rev"]
    laptop.sync()
    entries = json.loads(laptop.run("memories", "history", "--json").stdout)
    syncs = [e for e in entries if e["entry_point"] == "sync"]
    assert syncs and syncs[0]["rev"] != top
    assert {c["memory"] for c in syncs[0]["changes"]} == {"global/theirs", "global/theirs2"}
    laptop.run("memories", "restore", "--all", "--at", top)
    assert laptop.names() == {"global/mine"}


def test_project_memories_sync_and_their_remote_is_kept_out_of_the_project(
    laptop: Machine, workstation: Machine, tmp_path: Path
) -> None:
    other = tmp_path / "shared" / "project.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(other)], check=True)
    laptop.write("architecture", "layers\n")
    laptop.run("memories", "sync", "--project", "--remote", str(other))
    config = (laptop.home / "serena_config.yml").read_text()
    assert "memory_sync_project_remotes" in config and str(laptop.project.resolve()) in config
    assert not (laptop.project / ".serena" / "project.yml").exists()
    workstation.run("memories", "sync", "--project", "--remote", str(other))
    assert workstation.text("architecture") == "layers\n"
    # the global memories were not touched by the project's sync
    assert workstation.names() == set()


def test_a_project_file_can_not_choose_where_memories_are_pushed(
    laptop: Machine, tmp_path: Path
) -> None:
    stranger = tmp_path / "stranger.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(stranger)], check=True)
    laptop.write("global/private", "secret plans\n")
    laptop.write("notes", "x\n")
    (laptop.project / ".serena" / "project.yml").write_text(
        f"memory_sync_remote: {stranger}\nmemory_sync_project_remotes:\n  .: {stranger}\n"
    )
    for scope in ("--global", "--project"):
        result = laptop.run("memories", "sync", scope, check=False)
        assert result.returncode == 1
        # the key is told to belong to the person's own file, never followed
        assert "read from serena_config.yml (in $SERENA_HOME) only" in result.stderr
    refs = subprocess.run(
        ["git", f"--git-dir={stranger}", "for-each-ref"], capture_output=True, text=True
    )
    assert refs.stdout == ""


def test_unreachable_or_missing_remote_and_missing_git_are_one_sentence(
    laptop: Machine, tmp_path: Path
) -> None:
    laptop.write("global/style", "tabs\n")
    nothing = laptop.run("memories", "sync", check=False)
    assert nothing.returncode == 1
    assert nothing.stderr.strip().splitlines()[-1].startswith("Error: no sync remote")
    gone = tmp_path / "unplugged-drive" / "memories.git"
    result = laptop.run("memories", "sync", "--remote", str(gone), check=False)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"Error: the sync remote {gone} can't be reached")
    assert "memories are unchanged" in last
    assert laptop.text("global/style") == "tabs\n"
    # a URL with a password in it is never shown back
    secret = laptop.run(
        "memories", "sync", "--remote", "http://me:hunter2@127.0.0.1:9/m.git", check=False
    )
    assert secret.returncode == 1 and "hunter2" not in secret.stderr
    # no git on PATH
    bare_bin = tmp_path / "bin"
    bare_bin.mkdir()
    env = {**laptop.env, "PATH": str(bare_bin)}
    nogit = laptop.run("memories", "sync", "--remote", str(laptop.remote), check=False, env=env)
    assert nogit.returncode == 1
    assert "needs the git command line" in nogit.stderr.strip().splitlines()[-1]


def test_two_machines_syncing_at_once_lose_nothing(laptop: Machine, workstation: Machine) -> None:
    """Real processes on both machines write and sync at the same time; a push that loses
    the race fetches, merges and pushes again."""
    laptop.sync()
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), label, str(m.remote), "4"],
            cwd=m.project,
            env=m.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for label, m in (("laptop", laptop), ("workstation", workstation))
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    laptop.sync()
    workstation.sync()
    expected = {f"global/{label}-{i}" for label in ("laptop", "workstation") for i in range(4)}
    assert laptop.names() == workstation.names() == expected
    for name in expected:
        label, i = name[len("global/") :].split("-")
        _both_have(laptop, workstation, name, f"{label} {i}\n")


def test_setting_the_remote_keeps_the_rest_of_the_configuration(laptop: Machine) -> None:
    config = laptop.home / "serena_config.yml"
    config.write_text(
        "# my settings\nread_only_memory_patterns:\n  - global/frozen.*  # kept\n"
        "memory_sync_remote: /old/place.git\nmemory_history: true\n"
    )
    laptop.sync()
    text = config.read_text()
    assert text == (
        "# my settings\nread_only_memory_patterns:\n  - global/frozen.*  # kept\n"
        f"memory_sync_remote: {laptop.remote}\nmemory_history: true\n"
    )


def test_syncs_settle_instead_of_making_entries_forever(
    laptop: Machine, workstation: Machine
) -> None:
    import json

    laptop.write("global/a", "a\n")
    workstation.write("global/b", "b\n")
    for machine in (laptop, workstation, laptop, workstation):
        machine.sync()
    counts = [
        len(json.loads(m.run("memories", "history", "--json").stdout))
        for m in (laptop, workstation)
    ]
    for machine in (laptop, workstation, laptop):
        assert "already up to date" in machine.sync().stdout
    after = [
        len(json.loads(m.run("memories", "history", "--json").stdout))
        for m in (laptop, workstation)
    ]
    assert after == counts


def test_renamed_differently_on_both_sides_keeps_both_names(
    laptop: Machine, workstation: Machine
) -> None:
    _shared(laptop, workstation)
    laptop.run("memories", "rename", "global/conventions", "global/style")
    workstation.run("memories", "rename", "global/conventions", "global/rules")
    for machine in (laptop, workstation, laptop):
        machine.sync()
    for machine in (laptop, workstation):
        assert machine.names() == {"global/style", "global/rules"}
        assert machine.text("global/style") == machine.text("global/rules") == BASE


def test_the_same_new_name_on_both_sides_is_a_conflict(
    laptop: Machine, workstation: Machine
) -> None:
    laptop.write("global/new", "from the laptop\n")
    workstation.write("global/new", "from the workstation\n")
    laptop.sync()
    workstation.sync()
    assert workstation.text("global/new") == "from the workstation\n"
    shown = workstation.run("memories", "conflicts", "--show", "global/new", "--json")
    assert json.loads(shown.stdout)["remote_text"] == "from the laptop\n"
