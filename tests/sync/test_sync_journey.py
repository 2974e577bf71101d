"""The sync journey of two people's machines, written as a script: two $SERENA_HOMEs and
two project folders, a real bare repository as the remote, the real `serena` command line
in subprocesses. Each step checks what the person on that machine would see."""

from __future__ import annotations

import json
import shutil

import pytest
from test_sync import Machine, remote  # noqa: F401  (the fixture is used by name)

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

STYLE = "# Style\n\nindent: 4\nquotes: double\nline: 100\n"
A_TEXT = STYLE.replace("quotes: double", "quotes: single (A's version)")
B_TEXT = STYLE.replace("quotes: double", "quotes: backticks (B's version)")


@pytest.fixture
def a(tmp_path, remote):  # noqa: F811
    return Machine(tmp_path / "a", remote)


@pytest.fixture
def b(tmp_path, remote):  # noqa: F811
    return Machine(tmp_path / "b", remote)


def _conflict_on_b(a: Machine, b: Machine) -> None:
    """A and B start from the same memory, then both change the same line; A syncs
    first, so B's sync records the conflict and keeps B's text."""
    a.write("global/style", STYLE)
    a.sync()
    b.sync()
    a.write("global/style", A_TEXT)
    b.write("global/style", B_TEXT)
    a.sync()
    assert "same lines of global/style" in b.sync().stdout


def test_the_machine_whose_text_lost_is_told_and_keeps_it(a: Machine, b: Machine) -> None:
    _conflict_on_b(a, b)
    synced = a.sync()
    # A's file now holds B's text: A's sync says so, and A's text is still there to take
    assert a.text("global/style") == B_TEXT
    assert "global/style" in synced.stdout and "conflict" in synced.stdout
    listed = a.run("memories", "conflicts")
    assert "global/style" in listed.stdout and "No sync conflicts" not in listed.stdout
    shown = json.loads(a.run("memories", "conflicts", "--json").stdout)
    assert [c["name"] for c in shown] == ["global/style"]
    assert {shown[0]["remote_text"], shown[0]["local_text"]} == {A_TEXT, B_TEXT}
    strict = a.run("memories", "check", str(a.project), "--strict", check=False)
    assert strict.returncode == 1 and "global/style" in strict.stdout
    assert "Unresolved sync conflicts (1" in a.run("memories", "list").stdout


def test_a_resolution_on_one_machine_travels_to_the_other(a: Machine, b: Machine) -> None:
    _conflict_on_b(a, b)
    a.sync()
    # the person on A takes back A's text: the memory and the resolution both travel
    a.run("memories", "resolve", "global/style", "--keep", "remote")
    assert a.text("global/style") == A_TEXT
    a.sync()
    b.sync()
    assert b.text("global/style") == A_TEXT
    assert json.loads(b.run("memories", "conflicts", "--json").stdout) == []
    assert "No sync conflicts" in b.run("memories", "conflicts").stdout
    # and nothing brings it back
    for machine in (a, b, a):
        machine.sync()
    assert json.loads(a.run("memories", "conflicts", "--json").stdout) == []


def test_a_mistyped_remote_replaces_nothing(a: Machine, tmp_path) -> None:
    a.write("global/style", STYLE)
    first = a.sync()
    assert first.stdout.count("\n") == 1 and "remembered for the next syncs" in first.stdout
    config = (a.home / "serena_config.yml").read_text()
    wrong = a.run("memories", "sync", "--remote", str(tmp_path / "typo.git"), check=False)
    assert wrong.returncode == 1 and "can't be reached" in wrong.stderr
    assert "emembered" not in wrong.stdout + wrong.stderr
    assert (a.home / "serena_config.yml").read_text() == config
    assert a.run("memories", "sync").returncode == 0  # the working remote is still there


def test_syncs_that_change_nothing_say_so_and_record_nothing(a: Machine, b: Machine) -> None:
    a.write("global/x", "from a\n")
    b.write("global/y", "from b\n")
    a.sync()
    b.sync()
    third = a.sync()  # brings y here; the remote already has every memory of this machine
    assert "here 1 created; nothing to push" in third.stdout
    counts = [len(json.loads(m.run("memories", "history", "--json").stdout)) for m in (a, b)]
    for machine in (b, a, b, a):
        assert "already up to date" in machine.sync().stdout
    after = [len(json.loads(m.run("memories", "history", "--json").stdout)) for m in (a, b)]
    assert after == counts


def test_contradictory_scopes_are_a_usage_error(a: Machine) -> None:
    both = a.run("memories", "sync", "--global", "--project", check=False)
    assert both.returncode == 2 and "--global and --project contradict" in both.stderr


def test_every_entry_names_the_machine_that_made_it(a: Machine) -> None:
    import socket

    a.write("global/x", "from a\n")
    a.sync()
    entries = json.loads(a.run("memories", "history", "--json").stdout)
    assert {e["machine"] for e in entries} == {socket.gethostname()}
    assert f"on {socket.gethostname()}" in a.run("memories", "history").stdout


# -- recovery, as the person on one machine goes through it ---------------------------------
def test_a_restore_by_time_names_the_entry_and_its_full_time(a: Machine) -> None:
    import time

    a.write("global/x", "one\n")
    time.sleep(1.1)
    a.write("global/x", "two\n")
    entries = json.loads(a.run("memories", "history", "--json").stdout)
    first = entries[-1]
    from datetime import datetime, timedelta

    at = datetime.fromisoformat(first["time"]).replace(microsecond=0) + timedelta(seconds=1)
    done = a.run("memories", "restore", "--all", "--at", at.isoformat()[:19])
    assert f"entry {first['rev'][:10]} of {first['time'][:19]}" in done.stdout
    assert a.text("global/x") == "one\n"


def test_a_restore_older_than_the_history_goes_back_to_its_oldest_state(a: Machine) -> None:
    a.write("global/x", "one\n")
    oldest = json.loads(a.run("memories", "history", "--json").stdout)[-1]
    done = a.run("memories", "restore", "--all", "--at", "1h")
    assert f"to the state before entry {oldest['rev'][:10]}" in done.stdout, done.stdout
    assert "global/x (deleted)" in done.stdout
    assert "history starts at" in done.stdout and "oldest state it records was restored" in (
        done.stdout
    )
    assert not a.path("global/x").exists()


def test_restoring_a_deleted_memory_names_its_deletion(a: Machine) -> None:
    a.write("global/x", "kept\n")
    a.write("global/other", "unrelated\n")
    a.run("memories", "delete", "global/x")
    deletion = json.loads(a.run("memories", "history", "--json").stdout)[0]
    done = a.run("memories", "restore", "global/x")
    assert f"as it was before its deletion in entry {deletion['rev'][:10]}" in done.stdout
    assert a.text("global/x") == "kept\n"


def test_show_ends_with_a_newline_and_entries_say_created_or_replaced(a: Machine) -> None:
    a.write("global/x", "no newline")
    a.write("global/x", "still none")
    entries = json.loads(a.run("memories", "history", "--json").stdout)
    assert [e["summary"] for e in entries] == ["Replace global/x", "Create global/x"]
    shown = a.run("memories", "show", "global/x", "--at", entries[-1]["rev"][:10])
    assert shown.stdout == "no newline\n"
