"""A command records what it changes, whatever the size of the folder: the memory it
overwrites is looked at first (a hand edit of it is recorded before the write), outside
edits elsewhere are recorded when someone looks at the history. Real commands, real
repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest

# a process per command: the stamps one process leaves for the next are what is tested
from conftest import run_cli_process

from serena_memory.core.store import Context
from serena_memory.history import stamp_log
from serena_memory.history.location import history_folders, history_root, repository_path
from serena_memory.history.objects import walk_tree
from serena_memory.wiring import build_store

pytestmark = pytest.mark.slow  # each command a process of its own


def _cli(*args: str) -> None:
    done = run_cli_process(*args)
    assert done.returncode == 0, done.stderr


def _history(project: Path, name: str | None = None) -> list[dict]:
    args = ["memories", "history", *([name] if name else []), str(project), "--json"]
    done = run_cli_process(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _repo_path(project: Path, home: Path) -> Path:
    store = build_store(project, home=home, context=Context.HUMAN)
    return repository_path(history_root(store), history_folders(store)[0].root)


def _head_files(repo_path: Path) -> dict[str, bytes]:
    repo = pygit2.Repository(str(repo_path))
    head = repo.references["refs/heads/main"].peel(pygit2.Commit)
    return {rel: repo[oid].data for rel, oid in walk_tree(repo, head.tree, "")}


def test_a_hand_edit_of_the_memory_written_is_in_the_history_before_the_write(
    project: Path, serena_home: Path
) -> None:
    _cli("memories", "write", "fact", str(project), "-c", "by the agent\n")
    _cli("memories", "write", "other", str(project), "-c", "other\n")
    folder = project / ".serena" / "memories"
    (folder / "fact.md").write_bytes(b"fixed by hand\n")
    (folder / "other.md").write_bytes(b"other, by hand\n")
    _cli("memories", "write", "fact", str(project), "-c", "overwritten\n")
    repo_path = _repo_path(project, serena_home)
    # the write looked at its own memory only: the other hand edit is not recorded yet
    assert _head_files(repo_path)["other.md"] == b"other\n"
    entries = _history(project, "fact")
    assert [(e["entry_point"], e["action"]) for e in entries] == [
        ("cli", "write"),
        ("external", ""),
        ("cli", "write"),
    ]
    store = build_store(project, home=serena_home, context=Context.HUMAN)
    assert store.history().content_at("fact", entries[1]["rev"])[1] == b"fixed by hand\n"
    # looking at the history recorded the other hand edit, as external, after the write
    everything = _history(project)
    assert everything[0]["entry_point"] == "external"
    assert [c["memory"] for c in everything[0]["changes"]] == ["other"]
    assert _head_files(repo_path) == {"fact.md": b"overwritten\n", "other.md": b"other, by hand\n"}


def test_commands_note_their_stamps_and_a_look_at_the_history_folds_them(
    project: Path, serena_home: Path
) -> None:
    """Commands append their files' stamps to the log; the next whole look replays them,
    records only the real outside edit, and folds the log into the stamps file."""
    for name in ("a", "b", "c"):
        _cli("memories", "write", name, str(project), "-c", f"{name}1\n")
    _history(project)  # a whole look: stamps saved, log folded
    repo_path = _repo_path(project, serena_home)
    assert not stamp_log.log_path(repo_path).exists()
    for i in range(3):
        _cli("memories", "write", "a", str(project), "-c", f"a{i + 2}\n")
    _cli("memories", "delete", "b", str(project))
    assert len(stamp_log.log_path(repo_path).read_text().splitlines()) == 4
    (project / ".serena" / "memories" / "c.md").write_bytes(b"c by hand\n")
    entries = _history(project)
    externals = [e for e in entries if e["entry_point"] == "external"]
    assert len(externals) == 1 and [c["memory"] for c in externals[0]["changes"]] == ["c"]
    assert entries[0] == externals[0]
    assert not stamp_log.log_path(repo_path).exists()
    assert _head_files(repo_path) == {"a.md": b"a4\n", "c.md": b"c by hand\n"}
    assert [e["entry_point"] for e in _history(project)] == [e["entry_point"] for e in entries]


def test_a_damaged_stamp_log_only_makes_the_next_look_read_more(
    project: Path, serena_home: Path
) -> None:
    _cli("memories", "write", "a", str(project), "-c", "a1\n")
    _history(project)
    _cli("memories", "write", "a", str(project), "-c", "a2\n")
    repo_path = _repo_path(project, serena_home)
    log = stamp_log.log_path(repo_path)
    log.write_bytes(b'{"from": "x", "to": 3}\nnot json\n' + log.read_bytes()[:-7])
    (project / ".serena" / "memories" / "b.md").write_bytes(b"b by hand\n")
    entries = _history(project)
    assert [c["memory"] for c in entries[0]["changes"]] == ["b"]
    assert [e["entry_point"] for e in entries] == ["external", "cli", "cli"]
    assert _head_files(repo_path) == {"a.md": b"a2\n", "b.md": b"b by hand\n"}


def test_after_a_failed_recording_the_next_command_records_what_was_missed(
    project: Path, serena_home: Path
) -> None:
    _cli("memories", "write", "fact", str(project), "-c", "v1\n")
    repo_path = _repo_path(project, serena_home)
    objects = repo_path / "objects"
    objects.rename(repo_path / "objects.moved")
    objects.write_text("a file where the object folder should be")
    try:
        done = run_cli_process("memories", "write", "fact", str(project), "-c", "v2\n")
        assert done.returncode == 0 and "could not be recorded" in done.stderr
    finally:
        objects.unlink()
        (repo_path / "objects.moved").rename(objects)
    _cli("memories", "write", "other", str(project), "-c", "x\n")
    entries = _history(project)
    assert [e["entry_point"] for e in entries] == ["cli", "external", "cli"]
    assert [c["memory"] for c in entries[1]["changes"]] == ["fact"]
