"""History of memory changes, on real git repositories: recording with provenance, outside
changes, renames, restores, failures that never cost a write, concurrency and crashes."""

from __future__ import annotations

import getpass
import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2
import pytest
from conftest import run_cli, write_config
from helpers.memory_worker import contents

from serena_memory.core.changes import Provenance, acting_as
from serena_memory.core.errors import HistoryError, IgnoredMemoryError, ReadOnlyMemoryError
from serena_memory.core.store import Context, MemoryStore, catch_up_history
from serena_memory.history import times as T
from serena_memory.history.location import history_folders, history_root, repository_path
from serena_memory.history.notices import take_notices
from serena_memory.history.objects import walk_tree
from serena_memory.wiring import build_store

WORKER = Path(__file__).parents[1] / "helpers" / "memory_worker.py"


def _repo(store: MemoryStore, scope: str = "project") -> pygit2.Repository:
    folder = next(f for f in history_folders(store) if f.label == scope)
    return pygit2.Repository(str(repository_path(history_root(store), folder.root)))


def _git(store: MemoryStore, *args: str) -> str:
    folder = history_folders(store)[0]
    git_dir = repository_path(history_root(store), folder.root)
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True
    ).stdout


def _tree_files(repo: pygit2.Repository) -> dict[str, bytes]:
    head = repo.references["refs/heads/main"].peel(pygit2.Commit)
    return {rel: repo[oid].data for rel, oid in walk_tree(repo, head.tree, "")}


def _disk_files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }


def test_every_operation_is_one_entry_with_its_provenance(store: MemoryStore) -> None:
    store.write("notes", "one\n")
    with acting_as(Provenance("mcp", "claude-code 2.0.1", "edit_memory")):
        store.edit("notes", "one", "two")
    store.write("other", "see `mem:notes`\n")
    store.rename("notes", "topic/notes")
    store.delete("other")
    entries = store.history().entries()
    assert [e.summary for e in entries] == [
        "Delete other",
        "Rename notes to topic/notes",
        "Create other",
        "Edit notes",
        "Create notes",
    ]
    edit = entries[3]
    assert (edit.entry_point, edit.who, edit.action) == ("mcp", "claude-code 2.0.1", "edit_memory")
    assert entries[0].entry_point == "cli" and entries[0].who == getpass.getuser()
    # a rename with its reference rewrite is one entry touching both memories
    assert sorted(entries[1].changes) == [("A", "topic/notes"), ("D", "notes"), ("M", "other")]
    # a real git repository: git itself reads it
    log = _git(store, "log", "--format=%an|%s")
    assert "claude-code 2.0.1|Edit notes" in log.splitlines()
    assert len(log.splitlines()) == 5


def test_the_command_line_records_the_os_user_and_the_command(project: Path) -> None:
    assert run_cli("memories", "write", "fact", str(project), "-c", "x\n").returncode == 0
    assert run_cli("memories", "delete", "fact", str(project)).returncode == 0
    result = run_cli("memories", "history", "fact", str(project), "--json")
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout)
    assert [(e["entry_point"], e["who"], e["action"]) for e in entries] == [
        ("cli", getpass.getuser(), "delete"),
        ("cli", getpass.getuser(), "write"),
    ]


def test_outside_edits_are_recorded_before_an_overwrite(store: MemoryStore) -> None:
    store.write("fact", "written by the agent\n")
    path = store.layout.path_of("fact")
    path.write_bytes(b"fixed by hand\n")
    (store.layout.memories_dir / "new-by-hand.md").write_bytes(b"typed in an editor\n")
    store.write("fact", "overwritten\n")
    entries = store.history().entries()
    assert [e.entry_point for e in entries] == ["cli", "external", "cli"]
    external = entries[1]
    assert sorted(external.changes) == [("A", "new-by-hand"), ("M", "fact")]
    history = store.history()
    assert history.content_at("fact", external.rev)[1] == b"fixed by hand\n"
    assert history.content_at("fact", entries[0].rev)[1] == b"overwritten\n"


def test_an_edit_within_the_same_clock_tick_is_still_seen(store: MemoryStore) -> None:
    """Same size, same mtime: the racy-file check re-hashes recent files."""
    store.write("fact", "aaaa\n")
    path = store.layout.path_of("fact")
    st = path.stat()
    path.write_bytes(b"bbbb\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    store.write("other", "x\n")
    assert store.history().content_at("fact", store.history().entries()[1].rev)[1] == b"bbbb\n"


def test_history_follows_a_memory_across_renames_and_scopes(store: MemoryStore) -> None:
    store.write("draft", "v1\n")
    store.write("draft", "v2\n")
    store.rename("draft", "auth/login")
    store.write("auth/login", "v3\n")
    store.write("draft", "an unrelated memory that reuses the old name\n")
    store.rename("auth/login", "global/login")
    history = store.history()
    entries = history.entries("global/login")
    assert [e.summary for e in entries] == [
        "Rename auth/login to global/login",
        "Replace auth/login",
        "Rename draft to auth/login",
        "Replace draft",
        "Create draft",
    ]
    oldest = entries[-1]
    assert history.content_at("global/login", oldest.rev) == ("draft", b"v1\n")
    assert history.content_at("global/login", entries[0].rev) == ("global/login", b"v3\n")


def test_restore_one_memory_brings_back_exact_bytes_as_a_new_entry(store: MemoryStore) -> None:
    original = "# Deploy\r\nkeep the ünïcode, the CRLF and no final newline"
    store.write("deploy", original)
    first = store.history().entries("deploy")[0].rev
    store.write("deploy", "a consolidation that dropped the fact\n")
    result = store.history().restore("deploy", first)
    assert result.changed == {"deploy": "restored"}
    assert store.layout.path_of("deploy").read_bytes() == original.encode()
    entries = store.history().entries("deploy")
    assert len(entries) == 3 and entries[0].summary.startswith("Restore deploy to ")


def test_a_restore_names_an_entry_of_the_memory_s_own_history(project: Path) -> None:
    def run(*args: str) -> str:
        return run_cli("memories", *args, str(project), check=True).stdout

    run("write", "a", "--content", "one\n")
    run("write", "b", "--content", "bee\n")
    run("write", "a", "--content", "two\n")
    other = run("history", "b").split()[0]  # b's entry: a's state then was its creation
    told = run("restore", "a", "--at", other)
    listed = [line.split()[0] for line in run("history", "a").splitlines()]
    assert other not in told and f"entry {listed[-1]} of" in told  # 'Create a'
    run("write", "c", "--content", "cee\n")
    run("write", "a", "--content", "three\n")
    run("restore", "a")  # before its latest change: the restore above, not c's entry
    listing = run("history", "a").splitlines()
    named = listing[0].split()[-1]  # "Restore a to ID"
    assert listing[0].split()[-4:-1] == ["Restore", "a", "to"]
    assert named == listing[2].split()[0]


def test_restore_brings_back_a_deleted_memory(store: MemoryStore) -> None:
    store.write("topic/fact", "the one note that mattered\n")
    store.delete("topic/fact")
    assert not store.exists("topic/fact")
    store.history().restore("topic/fact")
    assert store.read("topic/fact") == "the one note that mattered\n"


def test_restore_all_undoes_everything_since_an_entry_or_a_time(store: MemoryStore) -> None:
    store.write("a", "a1\n")
    store.write("b", "b1\n")
    store.write("global/g", "g1\n")
    checkpoint = store.history().entries("b")[0].rev  # an entry of the project folder
    before = _disk_files(store.layout.memories_dir)
    global_before = _disk_files(store.layout.global_dir)
    time.sleep(1.1)
    moment = datetime.now(UTC)
    time.sleep(0.05)
    store.write("a", "a2\n")
    store.delete("b")
    store.write("c", "c1\n")
    store.write("global/g", "g2\n")
    result = store.history().restore_all(checkpoint)
    assert result.changed == {"a": "restored", "b": "restored", "c": "deleted"}
    assert _disk_files(store.layout.memories_dir) == before
    assert store.read("global/g") == "g2\n"  # an entry of the project folder: global untouched
    store.write("a", "a3\n")
    store.history().restore_all(moment.isoformat())
    assert _disk_files(store.layout.memories_dir) == before
    assert _disk_files(store.layout.global_dir) == global_before


def test_a_broken_history_never_fails_a_write_and_catches_up(store: MemoryStore) -> None:
    take_notices()
    store.write("fact", "v1\n")
    repo_path = repository_path(history_root(store), store.layout.memories_dir)
    objects = repo_path / "objects"
    objects.rename(repo_path / "objects.moved")
    objects.write_text("a file where the object folder should be")
    try:
        store.write("fact", "v2\n")
        store.write("fact", "v3\n")
    finally:
        objects.unlink()
        (repo_path / "objects.moved").rename(objects)
    assert store.read("fact") == "v3\n"
    notices = take_notices()
    assert len(notices) == 1 and "could not be recorded" in notices[0]
    store.write("other", "x\n")
    entries = store.history().entries()
    assert [e.entry_point for e in entries[:2]] == ["cli", "external"]
    assert store.history().content_at("fact", entries[1].rev)[1] == b"v3\n"


def test_a_history_folder_that_is_a_file_never_loses_a_text(
    store: MemoryStore, serena_home: Path
) -> None:
    take_notices()
    (serena_home / "history").write_text("in the way")
    store.write("fact", "v1\n")  # a new memory replaces nothing: written, with a notice
    assert len(take_notices()) == 1
    with pytest.raises(HistoryError, match="memory 'fact' holds a text the history hasn't"):
        store.write("fact", "v2\n")  # it would replace v1, which nothing recorded
    assert store.read("fact") == "v1\n"
    (serena_home / "history").unlink()
    store.write("fact", "v3\n")  # a missing history starts again from what is there
    entries = store.history().entries()
    assert entries[-1].summary.startswith("History started")
    assert store.history().content_at("fact", entries[-1].rev)[1] == b"v1\n"
    assert store.history().content_at("fact", entries[0].rev)[1] == b"v3\n"


def test_history_can_be_turned_off_and_located_elsewhere(
    store: MemoryStore, serena_home: Path, tmp_path: Path
) -> None:
    write_config(serena_home / "serena_config.yml", f"memory_history_dir: {tmp_path / 'h'}\n")
    store.write("fact", "v1\n")
    assert list((tmp_path / "h").glob("*.git"))
    assert not (serena_home / "history").exists()
    write_config(store.layout.project_root / ".serena" / "project.yml", "memory_history: false\n")
    store.write("fact", "v2\n")
    assert len(store.history().entries()) == 1


def test_a_project_that_turns_history_off_still_records_the_global_memories(
    project: Path, serena_home: Path
) -> None:
    """A project's file governs its own history only: the global memories, shared with
    every other project, keep theirs."""
    write_config(project / ".serena" / "project.yml", "memory_history: false\n")
    store = build_store(project, home=serena_home)
    store.write("fact", "v1\n")
    store.write("global/shared", "g1\n")
    store.write("global/shared", "g2\n")
    assert [e.summary for e in store.history().entries()] == [
        "Replace global/shared",
        "Create global/shared",
    ]
    assert store.history().entries("fact") == []
    done = run_cli("memories", "history", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "History is off for this project" in done.stdout
    assert "global/shared" in done.stdout


def test_read_only_rules_hold_for_an_agent_restore(project: Path, serena_home: Path) -> None:
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['rules']\n")
    human = build_store(project, home=serena_home)
    human.write("rules", "never push to main\n")
    first = human.history().entries()[0].rev
    human.write("rules", "push anywhere\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    with pytest.raises(ReadOnlyMemoryError):
        agent.history().restore("rules", first)
    assert human.read("rules") == "push anywhere\n"


def test_prune_keeps_the_state_at_the_cut(
    store: MemoryStore, serena_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 30 * 86400)
    store.write("old", "o1\n")
    store.write("old", "o2\n")
    monkeypatch.setattr(time, "time", real)
    store.write("new", "n1\n")
    write_config(serena_home / "serena_config.yml", "memory_history_keep_days: 7\n")
    history = store.history()
    assert history.prune() == 1
    entries = store.history().entries()
    assert [e.summary for e in entries][0] == "Create new"
    assert len(entries) == 2
    assert store.history().content_at("old", entries[1].rev)[1] == b"o2\n"
    assert _tree_files(_repo(store)) == _disk_files(store.layout.memories_dir)
    store.write("new", "n2\n")  # recording goes on after a prune
    assert len(store.history().entries()) == 3


def test_parse_when() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert T.parse_when("2h", now) == now - timedelta(hours=2)
    assert T.parse_when("3 days ago", now) == now - timedelta(days=3)
    assert T.parse_when("15 min", now) == now - timedelta(minutes=15)
    assert T.parse_when("2026-11-30T10:00+00:00", now) == datetime(2026, 11, 30, 10, tzinfo=UTC)
    with pytest.raises(HistoryError, match="can't read"):
        T.parse_when("yesterday-ish", now)


def test_cli_show_diff_restore(project: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        result = run_cli("memories", *args)
        assert result.returncode == 0, result.stderr
        return result

    cli("write", "fact", str(project), "-c", "alpha\nbeta\n")
    cli("write", "fact", str(project), "-c", "alpha\n")
    revs = [e["rev"] for e in json.loads(cli("history", "-p", str(project), "--json").stdout)]
    assert cli("show", "fact", str(project), "--at", revs[1][:10]).stdout == "alpha\nbeta\n"
    diff = cli("diff", "fact", "-p", str(project)).stdout
    assert "-beta" in diff and "+alpha" not in diff
    assert "+beta" in cli("diff", "fact", revs[0], revs[1], "-p", str(project)).stdout
    cli("delete", "fact", str(project))
    assert (
        "Restored fact as it was before its deletion in entry"
        in cli("restore", "fact", str(project)).stdout
    )
    assert cli("read", "fact", str(project)).stdout == "alpha\n"
    cli("restore", "--all", str(project), "--at", revs[1])
    assert cli("read", "fact", str(project)).stdout == "alpha\nbeta\n"
    text = cli("history", "fact", str(project)).stdout.splitlines()
    assert len(text) == 6 and "cli" in text[0] and "Restore" in text[0]
    assert text[1].split() == ["fact", "changed"]  # what "Restore every memory" touched
    bad = run_cli("memories", "show", "fact", str(project), "--at", "nope")
    assert bad.returncode == 1 and bad.stderr.startswith("Error: 'nope' is neither a history")
    assert "Traceback" not in bad.stderr


def test_restore_all_in_the_first_session_goes_back_to_the_memories_found(
    project: Path, serena_home: Path
) -> None:
    """`restore --all --at 2h` in a project's first hour: the history is younger than 2h,
    so the memories go back to the oldest state it holds (those found when it began)."""
    memories = project / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "by-hand.md").write_text("written before serena\n", encoding="utf-8")
    for name, text in (("by-hand", "the agent's rewrite\n"), ("new", "the agent's own\n")):
        done = run_cli("memories", "write", name, str(project), "--content", text)
        assert done.returncode == 0, done.stderr
    first = json.loads(run_cli("memories", "history", str(project), "--json").stdout)[-1]
    done = run_cli("memories", "restore", "--all", str(project), "--at", "2h")
    assert done.returncode == 0, done.stderr
    assert f"to entry {first['rev'][:10]}" in done.stdout, done.stdout
    assert "by-hand (restored), new (deleted)" in done.stdout
    # one sentence, in the order things happened: the history starts at its first entry,
    # later than the time asked for, so its oldest state was restored
    asked = datetime.fromisoformat(done.stdout.split("the time asked for (")[1].split(")")[0])
    note = f"The project history starts at {first['time'][:19]}"
    assert note in done.stdout and "later than the time asked for (" in done.stdout
    assert asked < datetime.fromisoformat(first["time"])
    assert done.stdout.rstrip().endswith("so the oldest state it records was restored.")
    assert "begins after" not in done.stdout and "nothing older" not in done.stdout
    assert done.stdout.split("(deleted). ")[1].count(". ") == 0  # one sentence after the list
    assert (memories / "by-hand.md").read_text(encoding="utf-8") == "written before serena\n"
    assert not (memories / "new.md").exists()
    again = run_cli("memories", "restore", "--all", str(project), "--at", "2h")
    assert again.returncode == 0 and again.stdout.startswith("Nothing to restore"), again.stderr


def test_restore_all_at_a_time_older_than_the_projects_history_alone(
    store: MemoryStore, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The global history is a month old, the project's began today: `--at 2h` brings
    the global memories to their state then and the project's to before its history."""
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 30 * 86400)
    store.write("global/style", "old\n")
    monkeypatch.setattr(time, "time", real)
    store.write("global/style", "new\n")
    store.write("notes", "today's\n")
    done = run_cli("memories", "restore", "--all", str(project), "--at", "2h")
    assert done.returncode == 0, done.stderr
    assert "global/style (restored), notes (deleted)" in done.stdout, done.stdout
    assert "the state before entry" in done.stdout and "the first of the project history" in (
        done.stdout
    )
    assert "The project history starts at " in done.stdout and "later than the time" in (
        done.stdout
    )
    assert store.read("global/style") == "old\n" and not store.exists("notes")


# -- real processes ------------------------------------------------------------------------
def _spawn(job: str, store: MemoryStore, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            str(WORKER),
            job,
            str(store.layout.project_root),
            str(store.layout.home),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


@pytest.mark.slow  # writers racing in real processes
@pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")
def test_concurrent_edits_are_each_one_entry(store: MemoryStore) -> None:
    store.write("log", "# log\n<!-- end -->\n")
    workers, edits = 8, 50
    procs = [_spawn("append-edits", store, "log", f"w{w}", str(edits)) for w in range(workers)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    body = store.read("log").splitlines()[1:-1]
    assert len(body) == len(set(body)) == workers * edits
    entries = store.history().entries("log")
    assert len([e for e in entries if e.summary == "Edit log"]) == 400
    assert all(e.entry_point != "external" for e in entries)
    assert _tree_files(_repo(store))["log.md"] == store.layout.path_of("log").read_bytes()


@pytest.mark.slow  # writers killed part way
@pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")
def test_sigkill_leaves_memories_correct_and_the_history_consistent(store: MemoryStore) -> None:
    names = ["core", "auth/login", "global/style"]
    big = 200
    for name in names:
        store.write(name, contents(name, "A", big))
    rng = random.Random(7)
    for _ in range(12):
        proc = _spawn("write-loop", store, str(big), *names)
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()  # type: ignore[union-attr]
        time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
        fresh = build_store(store.layout.project_root, home=store.layout.home)
        for name in names:
            assert fresh.read(name) in {contents(name, v, big) for v in "AB"}
        catch_up_history(fresh)  # at worst the last change is recorded now, as external
        for scope, folder in (
            ("project", fresh.layout.memories_dir),
            ("global", fresh.layout.global_dir),
        ):
            repo = _repo(fresh, scope)
            assert _tree_files(repo) == _disk_files(folder)
            for commit in repo.walk(repo.references["refs/heads/main"].target):
                assert commit.tree is not None
    assert len(store.history().entries("core")) > 2


def test_the_dashboard_records_as_the_dashboard(project: Path, serena_home: Path) -> None:
    import httpx

    from serena_memory.dashboard.server import DashboardServer

    srv = DashboardServer(project, home=serena_home, port=0)
    srv.start()
    try:
        headers = {"Origin": srv.base_url, "X-Serena-Token": srv.token}
        with httpx.Client(base_url=srv.base_url, headers=headers) as client:
            assert client.get(srv.url).status_code == 200
            response = client.post("/api/memory", json={"name": "from-ui", "content": "x\n"})
            assert response.status_code < 300, response.text
    finally:
        srv.stop()
    entry = build_store(project, home=serena_home).history().entries("from-ui")[0]
    assert (entry.entry_point, entry.who) == ("dashboard", getpass.getuser())


def test_initialize_and_auto_prefix_are_recorded(project: Path) -> None:
    assert run_cli("memories", "initialize", str(project)).returncode == 0
    history = build_store(project).history()
    entry = history.entries("memory_maintenance")[0]
    assert (entry.entry_point, entry.who, entry.action) == (
        "cli",
        getpass.getuser(),
        "initialize",
    )
    store = build_store(project)
    store.write("auth/login", "how to log in\n")
    store.write("core", "read auth/login first\n")
    result = run_cli("memories", "auto-prefix-references", str(project))
    assert result.returncode == 0, result.stderr
    assert store.read("core") == "read mem:auth/login first\n"
    entry = build_store(project).history().entries("core")[0]
    assert (entry.entry_point, entry.who, entry.action) == (
        "cli",
        getpass.getuser(),
        "auto-prefix-references",
    )


def test_ignored_memories_have_no_history_for_anyone(store: MemoryStore, project: Path) -> None:
    store.write("secret/token", "x\n")
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['secret/.*']\n")
    with pytest.raises(IgnoredMemoryError):
        store.history().entries("secret/token")
    with pytest.raises(IgnoredMemoryError):
        store.history().restore("secret/token")


def test_the_agent_sees_history_and_restores_through_mcp(project: Path, serena_home: Path) -> None:
    import anyio
    from mcp import Client
    from mcp_types import Implementation

    from serena_memory.mcp.server import create_server

    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['rules']\n")
    build_store(project, home=serena_home).write("rules", "keep\n")

    async def go() -> dict[str, str]:
        _state, server = create_server(project, (), use_default_project=False, context="desktop")
        client_info = Implementation(name="claude-code", version="2.0.1")
        async with Client(server, client_info=client_info) as client:

            async def text(tool: str, **arguments: str) -> str:
                result = await client.call_tool(tool, arguments)
                return "\n".join(getattr(b, "text", "") for b in result.content)

            answers = {"write": await text("write_memory", memory_name="fact", content="v1\n")}
            await text("edit_memory", memory_name="fact", needle="v1", repl="oops", mode="literal")
            answers["history"] = await text("memory_history", memory_name="fact")
            answers["restore"] = await text("restore_memory", memory_name="fact")
            answers["read"] = await text("read_memory", memory_name="fact")
            answers["read_only"] = await text("restore_memory", memory_name="rules")
            await text("onboarding")
            await text("write_memory", memory_name="links", content="see mem:fact\n")
            await text("rename_memory", old_name="fact", new_name="topic/fact")
            return answers

    answers = anyio.run(go)
    lines = answers["history"].splitlines()
    assert "mcp claude-code 2.0.1 (edit_memory)" in lines[0]
    assert "mcp claude-code 2.0.1 (write_memory)" in lines[1]
    read, _, told = answers["read"].partition("\n\n---\n")
    assert read == "v1\n" and told.startswith("Last written by agent claude-code 2.0.1 on ")
    assert "read-only" in answers["read_only"]
    history = build_store(project, home=serena_home).history()
    renamed, restored = history.entries("topic/fact")[:2]
    assert (restored.who, restored.action) == ("claude-code 2.0.1", "restore_memory")
    # a rename with the reference it rewrote is one entry, attributed to the client
    assert (renamed.entry_point, renamed.who, renamed.action) == (
        "mcp",
        "claude-code 2.0.1",
        "rename_memory",
    )
    assert sorted(renamed.changes) == [("A", "topic/fact"), ("D", "fact"), ("M", "links")]
    seeded = history.entries("memory_maintenance")[0]
    assert (seeded.entry_point, seeded.who, seeded.action) == (
        "mcp",
        "claude-code 2.0.1",
        "onboarding",
    )


def test_history_reads_memory_files_only_through_the_path_gate(
    store: MemoryStore, tmp_path: Path
) -> None:
    """A link leading outside the allowed folders is never read into the history; a link
    inside them is recorded with the text it leads to, as the store reads it."""
    secret = tmp_path / "outside" / "id_rsa"
    secret.parent.mkdir()
    secret.write_bytes(b"PRIVATE KEY\n")
    store.write("fact", "v1\n")
    inside = store.layout.project_root / "docs" / "notes.txt"
    inside.parent.mkdir()
    inside.write_bytes(b"kept in the project\n")
    (store.layout.memories_dir / "stolen.md").symlink_to(secret)
    (store.layout.memories_dir / "linked.md").symlink_to(inside)
    store.write("fact", "v2\n")  # the outside changes are looked for first
    repo = _repo(store)
    for commit in repo.walk(repo.references["refs/heads/main"].target):
        for _, oid in walk_tree(repo, commit.tree, ""):
            assert repo[oid].data != b"PRIVATE KEY\n"
    files = _tree_files(repo)
    assert "stolen.md" not in files
    assert files["linked.md"] == b"kept in the project\n"
    # the repository is bare and outside the project: nothing of git inside the folder
    assert repo.is_bare
    assert not any(p.name.startswith(".git") for p in store.layout.memories_dir.iterdir())


def test_no_history_is_kept_inside_the_project(store: MemoryStore, serena_home: Path) -> None:
    take_notices()
    inside = store.layout.project_root / "history-here"
    write_config(serena_home / "serena_config.yml", f"memory_history_dir: {inside}\n")
    store.write("fact", "v1\n")
    assert store.read("fact") == "v1\n"
    assert not inside.exists()
    notices = take_notices()
    assert len(notices) == 1 and "inside the project" in notices[0]


def test_a_server_sees_outside_changes_through_its_folder_watch(store: MemoryStore) -> None:
    """A long-running process watches the folder after a few recordings and then reads only
    what the kernel reports changed: in-place edits, new topic folders and their memories,
    deletions are all still recorded as external before the next change."""
    for i in range(4):
        store.write("topic/a", f"v{i}\n")
    store.write("topic/gone", "soon deleted\n")
    folder = store.layout.memories_dir
    (folder / "topic" / "a.md").write_bytes(b"v9\n")  # same size, in place
    (folder / "new-topic").mkdir()
    (folder / "new-topic" / "n.md").write_bytes(b"n1\n")
    (folder / "topic" / "gone.md").unlink()
    store.write("b", "b1\n")
    entries = store.history().entries()
    assert entries[1].entry_point == "external"
    assert sorted(entries[1].changes) == [
        ("A", "new-topic/n"),
        ("D", "topic/gone"),
        ("M", "topic/a"),
    ]
    store.write("b", "b2\n")
    for i in range(3):  # edits inside the new folder, seen by the watch now covering it
        (folder / "new-topic" / "n.md").write_bytes(f"n{i + 2}-edited\n".encode())
        store.write("b", f"b{i + 3}\n")
        external = store.history().entries()[1]
        assert (external.entry_point, external.changes) == ("external", [("M", "new-topic/n")])
        assert store.history().content_at("new-topic/n", external.rev)[1] == (
            f"n{i + 2}-edited\n".encode()
        )
    repo = _repo(store)
    assert _tree_files(repo) == _disk_files(folder)


def test_a_global_folder_the_gate_refuses_never_fails_a_project_write(
    store: MemoryStore, serena_home: Path, tmp_path: Path
) -> None:
    take_notices()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (serena_home / "memories").mkdir()
    (serena_home / "memories" / "global").symlink_to(outside)
    store.write("fact", "v1\n")
    store.write("fact", "v2\n")
    assert store.read("fact") == "v2\n"
    # a project write looks at the project's folder only: its history is kept, and the
    # global folder it never touches is no reason to warn (it used to lose both)
    assert take_notices() == []
    project = Path(os.path.realpath(store.layout.memories_dir))
    repo = pygit2.Repository(str(repository_path(history_root(store), project)))
    assert _tree_files(repo) == {"fact.md": b"v2\n"}
