"""The sync journey of two people's machines, written as a script: two $SERENA_HOMEs and
two project folders, a real bare repository as the remote, the real `serena` command line
in subprocesses. Each step checks what the person on that machine would see."""

from __future__ import annotations

import json
import shutil

import pytest
from test_sync import Machine, remote  # noqa: F401  (the fixture is used by name)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")

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
