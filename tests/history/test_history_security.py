"""What a person, an agent or a sync remote gives the history is untrusted: revisions and
times typed at any entry point, and entries a remote wrote. Real stores, real git
repositories, the real command line, MCP server and dashboard."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import httpx
import pygit2
import pytest
from conftest import run_cli, write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_support import call, in_memory, over_stdio

from serena_memory.core.errors import HistoryError
from serena_memory.core.store import Context, MemoryStore
from serena_memory.history import times as T
from serena_memory.history.location import history_folders, history_root, repository_path
from serena_memory.history.notices import take_notices
from serena_memory.wiring import build_store

SLOW_REGEX = ":/(a|aa)+(b|c)*$"  # backtracks over every message when git runs it
GIT_FORMS = [":/fact", SLOW_REGEX, "main", "HEAD", "main~1", "HEAD^", "@{0}", "main^{tree}"]
ODD_TIMES = [
    "99999999999999999999 days",
    "0001-01-01",
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "1969-12-31",
    "2026-02-30",
]
FAST = 5.0  # seconds a refusal may take, a process start included


def _one_sentence(text: str) -> None:
    """An error a person reads: one line, no traceback, no Python exception name."""
    text = text.strip()
    assert "Traceback" not in text, text
    assert "\n" not in text, text
    assert "unexpected" not in text, text
    assert text, "no message"


def _cli_error(*args: str, cwd: Path | None = None) -> str:
    started = time.monotonic()
    done = run_cli("memories", *args, cwd=cwd)
    assert time.monotonic() - started < FAST + 5, args
    assert done.returncode == 1, (args, done.stdout, done.stderr)
    _one_sentence(done.stderr)
    assert done.stderr.startswith("Error: "), done.stderr
    return done.stderr


def _history_repo(store: MemoryStore, scope: str = "project") -> pygit2.Repository:
    folder = next(f for f in history_folders(store) if f.label == scope)
    return pygit2.Repository(str(repository_path(history_root(store), folder.root)))


def _files(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


# -- revisions -----------------------------------------------------------------------------------
@pytest.mark.slow  # hundreds of entries, and a real server process
def test_a_git_revision_expression_is_refused_quickly(
    store: MemoryStore, project: Path, serena_home: Path
) -> None:
    for i in range(300):
        store.write("fact", "a" * 40 + f" {i}\n")
    history = store.history()
    for form in GIT_FORMS:
        started = time.monotonic()
        with pytest.raises(HistoryError) as refused:
            history.restore("fact", form)
        assert time.monotonic() - started < 1.0, form
        _one_sentence(str(refused.value))
        with pytest.raises(HistoryError):
            history.content_at("fact", form)
        with pytest.raises(HistoryError):
            history.restore_all(form)
    assert store.read("fact").endswith(" 299\n")  # nothing was restored

    async def over_mcp() -> None:
        async with in_memory(project) as client:
            started = time.monotonic()
            answer = await call(client, "restore_memory", memory_name="fact", revision=SLOW_REGEX)
            assert time.monotonic() - started < 1.0
            assert answer.error and "neither a history entry nor a time" in answer.text

    anyio.run(over_mcp)
    for args in (
        ["show", "fact", str(project), "--at", SLOW_REGEX],
        ["diff", "fact", SLOW_REGEX, "-p", str(project)],
        ["restore", "fact", str(project), "--at", SLOW_REGEX],
        ["restore", "--all", str(project), "--at", SLOW_REGEX],
    ):
        assert "neither a history entry nor a time" in _cli_error(*args)


def test_an_entry_id_is_whole_or_a_unique_prefix_of_four_characters(store: MemoryStore) -> None:
    store.write("fact", "one\n")
    store.write("fact", "two\n")
    store.write("fact", "three\n")
    history = store.history()
    entries = history.entries("fact")
    first = entries[-1].rev
    assert history.content_at("fact", first)[1] == b"one\n"
    assert history.content_at("fact", first[:4])[1] == b"one\n"
    assert history.content_at("fact", first.upper()[:12])[1] == b"one\n"
    with pytest.raises(HistoryError, match="at least its first 4 characters"):
        history.content_at("fact", first[:3])
    with pytest.raises(HistoryError, match="no history entry"):
        history.content_at("fact", "0" * 40 if not first.startswith("0000") else "f" * 40)
    # three characters that also read as a time ("20d": 20 days ago) still say how long an id is
    with pytest.raises(
        HistoryError, match="read as a time; an entry id needs at least its first 4"
    ):
        history.content_at("fact", "20d")
    # a blob's id is no entry, even though git's revision parser would take it
    blob = str(pygit2.hash(b"two\n"))
    with pytest.raises(HistoryError, match="no history entry"):
        history.content_at("fact", blob)


def test_an_ambiguous_prefix_is_a_clear_error(store: MemoryStore) -> None:
    store.write("fact", "one\n")
    repo = _history_repo(store)
    head = repo.references["refs/heads/main"].peel(pygit2.Commit)
    sig = pygit2.Signature("someone", "someone@example.org")
    seen: dict[str, str] = {str(head.id)[:4]: str(head.id)}
    parent = head.id
    shared = None
    for i in range(20000):  # entries until two ids share their first four characters
        parent = repo.create_commit(None, sig, sig, f"entry {i}\n", head.tree.id, [parent])
        prefix = str(parent)[:4]
        if prefix in seen:
            shared = prefix
            break
        seen[prefix] = str(parent)
    assert shared is not None
    repo.references.create("refs/heads/main", parent, force=True)
    with pytest.raises(HistoryError, match="ambiguous: 2 entries start with it") as refused:
        store.history().content_at("fact", shared)
    _one_sentence(str(refused.value))
    longer = seen[shared][:12]
    assert store.history().content_at("fact", longer)[1] == b"one\n"


def test_a_time_is_a_revision_everywhere(store: MemoryStore, project: Path) -> None:
    store.write("fact", "old\n")
    time.sleep(1.1)
    middle = datetime.now(UTC).isoformat()
    time.sleep(0.1)
    store.write("fact", "new\n")
    assert store.history().content_at("fact", middle)[1] == b"old\n"
    done = run_cli("memories", "show", "fact", str(project), "--at", middle)
    assert done.returncode == 0 and done.stdout == "old\n", done.stderr
    assert store.history().restore("fact", middle).changed == {"fact": "restored"}
    assert store.read("fact") == "old\n"
    with pytest.raises(HistoryError, match="nothing as old as"):
        store.history().content_at("fact", "2000-01-01")


def test_the_dashboard_refuses_a_git_expression_in_one_sentence(
    store: MemoryStore, project: Path, serena_home: Path
) -> None:
    from serena_memory.dashboard.server import DashboardServer

    store.write("fact", "one\n")
    srv = DashboardServer(project, home=serena_home, port=0)
    srv.start()
    try:
        headers = {"Origin": srv.base_url, "X-Serena-Token": srv.token}
        with httpx.Client(base_url=srv.base_url, headers=headers) as client:
            assert client.get(srv.url).status_code == 200
            for rev in (SLOW_REGEX, "main~1", "0001-01-01T00:00:00+14:00"):
                shown = client.get("/api/history/change", params={"name": "fact", "rev": rev})
                assert 400 <= shown.status_code < 500, shown.text
                _one_sentence(shown.json()["error"])
                done = client.post("/api/restore", json={"name": "fact", "rev": rev})
                assert 400 <= done.status_code < 500, done.text
                _one_sentence(done.json()["error"])
    finally:
        srv.stop()
    assert store.read("fact") == "one\n"


# -- times ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ODD_TIMES)
def test_parse_when_out_of_range_is_one_sentence(text: str) -> None:
    with pytest.raises(HistoryError) as refused:
        T.parse_when(text)
    assert "out of range" in str(refused.value)
    _one_sentence(str(refused.value))


def test_odd_times_are_one_sentence_on_the_command_line(store: MemoryStore, project: Path) -> None:
    store.write("fact", "one\n")
    for text in ODD_TIMES:
        assert "out of range" in _cli_error("restore", "--all", str(project), "--at", text)
        assert "out of range" in _cli_error("history", "-p", str(project), "--since", text)
        assert "out of range" in _cli_error("show", "fact", str(project), "--at", text)
    assert "can't read" in _cli_error("history", "-p", str(project), "--since", ":/x")


@pytest.mark.slow  # a real server process
def test_odd_times_are_one_sentence_over_mcp_stdio(store: MemoryStore, project: Path) -> None:
    store.write("fact", "one\n")

    async def main() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            for text in ODD_TIMES:
                answer = await call(client, "memory_history", memory_name="fact", since=text)
                assert answer.error and "out of range" in answer.text, answer.text
                _one_sentence(answer.text)
                answer = await call(client, "restore_memory", memory_name="fact", revision=text)
                assert answer.error and "out of range" in answer.text, answer.text
            answer = await call(client, "restore_memory", memory_name="fact", revision=SLOW_REGEX)
            assert answer.error and "neither a history entry nor a time" in answer.text

    anyio.run(main)
    assert store.read("fact") == "one\n"


TYPED = st.one_of(
    st.text(max_size=60),
    st.sampled_from(GIT_FORMS + ODD_TIMES),
    st.builds(
        lambda n, unit, ago: f"{n}{unit}{ago}",
        st.integers(min_value=0, max_value=10**30),
        st.sampled_from(["s", " min", "h", " days", "w", "y", ""]),
        st.sampled_from(["", " ago"]),
    ),
    st.builds(
        lambda y, m, d, rest: f"{y:04d}-{m:02d}-{d:02d}{rest}",
        st.integers(0, 9999),
        st.integers(0, 13),
        st.integers(0, 32),
        st.sampled_from(["", "T00:00", "T23:59:59+14:00", "T00:00:00-14:00", "Z"]),
    ),
    st.text(alphabet="0123456789abcdefABCDEF", min_size=1, max_size=41),
)


@pytest.mark.slow  # many generated texts through every entry point
@settings(max_examples=300, deadline=None)
@given(TYPED)
def test_the_parsers_answer_every_text_in_one_sentence(text: str) -> None:
    for parse in (T.parse_when, T.parse_revision):
        started = time.monotonic()
        try:
            parse(text)
        except HistoryError as exc:
            _one_sentence(str(exc))
        assert time.monotonic() - started < 0.5


@pytest.mark.slow  # many generated texts through every entry point
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(TYPED)
def test_every_entry_point_answers_a_typed_revision_or_time_in_one_sentence(
    fuzz_store: tuple[MemoryStore, Path], text: str
) -> None:
    """The library's entry points, the CLI commands (in-process) and the MCP tools."""
    from click.testing import CliRunner

    from serena_memory.cli import cli

    store, project = fuzz_store
    before = store.read("fact")
    history = store.history()
    for action in (
        lambda: history.content_at("fact", text),
        lambda: history.before("fact", text),
        lambda: history.entries("fact", T.parse_when(text)),
    ):
        started = time.monotonic()
        try:
            action()
        except HistoryError as exc:
            _one_sentence(str(exc))
        assert time.monotonic() - started < 1.0
    runner = CliRunner()
    for args in (
        ["show", "fact", str(project), f"--at={text}"],
        ["diff", "fact", "-p", str(project), "--", text],
        ["history", "-p", str(project), f"--since={text}"],
    ):
        started = time.monotonic()
        done = runner.invoke(cli, ["memories", *args], prog_name="serena")
        assert time.monotonic() - started < 2.0
        assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
        if done.exit_code:
            _one_sentence(done.output.splitlines()[-1])

    async def over_mcp() -> None:
        async with in_memory(project) as client:
            for tool, field in (("memory_history", "since"), ("restore_memory", "revision")):
                started = time.monotonic()
                answer = await call(client, tool, memory_name="fact", **{field: text})
                assert time.monotonic() - started < 2.0
                if answer.error:
                    _one_sentence(answer.text)

    anyio.run(over_mcp)
    # a restore to some entry or time of the fact's own history is fine; nothing else changed
    assert store.read("fact") in {before, "one\n", "two\n"}
    store.write("fact", before)


@pytest.fixture
def fuzz_store(store: MemoryStore, project: Path) -> tuple[MemoryStore, Path]:
    store.write("fact", "one\n")
    store.write("fact", "two\n")
    return store, project


# -- entries a sync remote wrote -------------------------------------------------------------
BLOB, TREE = 0o100644, 0o040000


def _raw_tree(repo: pygit2.Repository, entries: list[tuple[int, bytes, pygit2.Oid]]) -> pygit2.Oid:
    """A tree object written byte by byte: no name check, as any remote can send."""
    entries = sorted(entries, key=lambda e: e[1] + (b"/" if e[0] == TREE else b""))
    data = b"".join(b"%o %s\x00" % (mode, name) + oid.raw for mode, name, oid in entries)
    return repo.odb.write(pygit2.GIT_OBJECT_TREE, data)


def _nested(
    repo: pygit2.Repository, path: bytes, blob: pygit2.Oid
) -> tuple[int, bytes, pygit2.Oid]:
    """The top entry of a tree holding ``path`` (parts split on '/') -> blob."""
    parts = path.split(b"/")
    entry = (BLOB, parts[-1], blob)
    for part in reversed(parts[:-1]):
        entry = (TREE, part, _raw_tree(repo, [entry]))
    return entry


def _forged_commit(
    repo: pygit2.Repository, tree: pygit2.Oid, when: int, at: str, parents: list[pygit2.Oid]
) -> pygit2.Oid:
    """A commit object written byte by byte: any date, any message."""
    lines = [f"tree {tree}"] + [f"parent {p}" for p in parents]
    lines += [f"author Evil <evil@example.org> {when} +0000"]
    lines += [f"committer Evil <evil@example.org> {when} +0000", ""]
    message = f"Write notes\n\nEntry-point: mcp\nWho: evil\nOperation: 00\nAt: {at}\n"
    data = ("\n".join(lines) + "\n" + message).encode()
    return repo.odb.write(pygit2.GIT_OBJECT_COMMIT, data)


def _hostile_remote(path: Path, files: dict[bytes, bytes], dates: list[tuple[int, str]]) -> Path:
    repo = pygit2.init_repository(str(path), bare=True, initial_head="main")
    entries: dict[bytes, tuple[int, bytes, pygit2.Oid]] = {}
    grouped: dict[bytes, list[tuple[bytes, pygit2.Oid]]] = {}
    for rel, data in files.items():
        top, _, rest = rel.partition(b"/")
        blob = repo.create_blob(data)
        if rest:
            grouped.setdefault(top, []).append((rest, blob))
        else:
            entries[top] = (BLOB, top, blob)
    for top, inner in grouped.items():
        subtree = _raw_tree(repo, [_nested(repo, rest, blob) for rest, blob in inner])
        entries[top] = (TREE, top, subtree)
    tree = _raw_tree(repo, list(entries.values()))
    parent: list[pygit2.Oid] = []
    for when, at in dates:
        parent = [_forged_commit(repo, tree, when, at, parent)]
    repo.references.create("refs/heads/main", parent[0], force=True)
    return path


def _sync_project(project: Path, remote: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("memories", "sync", "--project", str(project), "--remote", str(remote))


FIFTY_YEARS = int(time.time()) + 50 * 365 * 86400


@pytest.mark.slow  # syncs from a forged remote
@pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")
def test_restore_all_at_a_time_never_takes_a_remotes_forged_entry(
    tmp_path: Path, store: MemoryStore, project: Path, serena_home: Path
) -> None:
    store.write("keep", "mine\n")
    store.write("also", "mine too\n")
    store.write("global/style", "global\n")
    time.sleep(1.1)
    before_sync = datetime.now(UTC).isoformat()
    remote = _hostile_remote(
        tmp_path / "remote.git",
        {b"global/evil.md": b"evil\n", b"remote-note.md": b"from afar\n"},
        [(FIFTY_YEARS, "1.0"), (FIFTY_YEARS + 1, "0.5")],
    )
    done = _sync_project(project, remote)
    assert done.returncode == 0, done.stderr
    memories = project / ".serena" / "memories"
    global_folder = serena_home / "memories" / "global"
    global_before = _files(global_folder)
    assert (memories / "remote-note.md").read_bytes() == b"from afar\n"
    for at in ("2100-01-01", datetime.now(UTC).isoformat()):
        done = run_cli("memories", "restore", "--all", str(project), "--at", at)
        assert done.returncode == 0, done.stderr
        assert "Nothing to restore" in done.stdout, (at, done.stdout)
        assert _files(global_folder) == global_before, at
    # before the sync, by this machine's own record: the synced memory goes, nothing else
    done = run_cli("memories", "restore", "--all", str(project), "--at", before_sync)
    assert done.returncode == 0, done.stderr
    assert "remote-note (deleted)" in done.stdout, done.stdout
    assert _files(global_folder) == global_before
    assert (memories / "keep.md").read_bytes() == b"mine\n"
    assert (memories / "also.md").read_bytes() == b"mine too\n"
    assert not (memories / "remote-note.md").exists()
    # the forged entry itself, named by its id: still only this folder's memories
    forged = str(pygit2.Repository(str(remote)).references["refs/heads/main"].target)
    build_store(project, home=serena_home).history().restore_all(forged)
    assert _files(global_folder) == global_before
    assert not (global_folder / "evil.md").exists()


REMOTE_NAMES = st.sampled_from(
    [
        b"global/evil.md",
        b"global/style.md",
        b"../x.md",
        b"frozen/rule.md",
        b"_archive/old.md",
        b"keep.md",
        b"fine.md",
        b"topic/deep.md",
        b".hidden.md",
        b"notes.txt",
        b"Bad Name.md",
        b"a//b.md",
    ]
)
FORGED_DATES = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=2**40),
        st.one_of(
            st.floats(min_value=0, max_value=1e15, allow_nan=False).map(lambda f: f"{f:.6f}"),
            st.sampled_from(["0", "1.2.3", "9" * 30, "-1", "nan", ""]),
        ),
    ),
    min_size=1,
    max_size=3,
)
TIMES = st.one_of(
    st.sampled_from(["1s", "1h", "2100-01-01", "1970-01-02"]),
    st.builds(lambda s: (datetime.now(UTC) - timedelta(seconds=s)).isoformat(), st.integers(0, 10)),
)


# what a restore may write outside the memories: the project, the history and the caches of
# the home folder (the settings a command read, usage.md's read counts)
_WRITTEN_OUTSIDE = ("project/", "home/history", "home/cache", "home/usage")


@pytest.mark.slow  # syncs from a forged remote
@pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    files=st.dictionaries(REMOTE_NAMES, st.binary(max_size=20), min_size=1, max_size=6),
    dates=FORGED_DATES,
    at=TIMES,
)
def test_restore_all_after_any_remote_writes_only_what_the_folder_allows(
    tmp_path_factory: pytest.TempPathFactory,
    files: dict[bytes, bytes],
    dates: list[tuple[int, str]],
    at: str,
) -> None:
    base = tmp_path_factory.mktemp("hostile")
    home, project = base / "home", base / "project"
    project.mkdir()
    write_config(
        project / ".serena" / "project.yml",
        'read_only_memory_patterns: ["frozen/.*"]\nignored_memory_patterns: ["_archive/.*"]\n',
    )
    previous = os.environ.get("SERENA_HOME")
    os.environ["SERENA_HOME"] = str(home)
    try:
        human = build_store(project, home=home, context=Context.HUMAN)
        human.write("keep", "mine\n")
        kept_at = time.time()  # a time at or after this is one keep.md was there
        human.write("frozen/rule", "fixed\n")
        human.write("global/style", "global\n")
        (project / ".serena" / "memories" / "_archive").mkdir()
        (project / ".serena" / "memories" / "_archive" / "old.md").write_text("hidden\n")
        remote = _hostile_remote(base / "remote.git", files, dates)
        _sync_project(project, remote)
        memories = project / ".serena" / "memories"
        outside = {p: _files(p) for p in (home / "memories", base)}
        outside_files = {
            p: {k: v for k, v in found.items() if not k.startswith(_WRITTEN_OUTSIDE)}
            for p, found in outside.items()
        }
        synced = _files(memories)
        agent = build_store(project, home=home, context=Context.AGENT)
        when = T.parse_revision(at).when  # before the restore reads it: never later
        try:
            agent.history().restore_all(at)
        except HistoryError as exc:
            _one_sentence(str(exc))
        after = _files(memories)
        assert after.get("frozen/rule.md") == synced.get("frozen/rule.md")
        assert after.get("_archive/old.md") == b"hidden\n"
        for rel in set(after) - set(synced):
            assert rel in {"keep.md"} or rel.endswith(".md"), rel
            assert not rel.startswith(("global/", ".")), rel
        # the global memories: nothing written; the one written here goes only when the
        # time is older than the global history (the state before its first entry)
        global_after, global_before = _files(home / "memories"), outside[home / "memories"]
        assert all(global_before.get(k) == v for k, v in global_after.items())
        assert set(global_before) - set(global_after) <= {"global/style.md"}
        gone = {f"home/memories/{k}" for k in set(global_before) - set(global_after)}
        assert {k: v for k, v in _files(base).items() if not k.startswith(_WRITTEN_OUTSIDE)} == {
            k: v for k, v in outside_files[base].items() if k not in gone
        }
        assert not (base / "x.md").exists() and not (project / ".serena" / "x.md").exists()
        # the memories written locally before the sync are back, or never left; an
        # older time goes back to before the history began, when there was no keep.md
        if when is not None and when.timestamp() >= kept_at:
            assert after.get("keep.md") in {b"mine\n", synced.get("keep.md")}
    finally:
        if previous is None:
            os.environ.pop("SERENA_HOME", None)
        else:
            os.environ["SERENA_HOME"] = previous


# -- settings --------------------------------------------------------------------------------------
def test_a_projects_keep_days_prunes_only_the_projects_history(
    store: MemoryStore, project: Path, serena_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 30 * 86400)
    store.write("old", "o1\n")
    store.write("old", "o2\n")
    store.write("global/g", "g1\n")
    store.write("global/g", "g2\n")
    monkeypatch.setattr(time, "time", real)
    store.write("new", "n1\n")
    store.write("global/g", "g3\n")
    write_config(project / ".serena" / "project.yml", "memory_history_keep_days: 7\n")
    global_before = len(list(store.history().folders[1].records()))
    done = run_cli("memories", "history", "--prune", "-p", str(project))
    assert done.returncode == 0, done.stderr
    assert "project's history 7 days" in done.stdout and "global" not in done.stdout
    history = build_store(project, home=serena_home).history()
    assert len(list(history.folders[1].records())) == global_before  # untouched
    assert len(list(history.folders[0].records())) == 2  # the cut and "Write new"
    # the global file alone prunes the global history
    write_config(serena_home / "serena_config.yml", "memory_history_keep_days: 7\n")
    write_config(project / ".serena" / "project.yml", "memory_history_keep_days: 0\n")
    done = run_cli("memories", "history", "--prune", "-p", str(project))
    assert done.returncode == 0, done.stderr
    history = build_store(project, home=serena_home).history()
    assert len(list(history.folders[1].records())) == 2
    assert len(list(history.folders[0].records())) == 2


# -- deep folders ----------------------------------------------------------------------------------
def _deep_file(folder: Path, depth: int, text: bytes) -> None:
    """folder/d/d/.../deep.md, ``depth`` folders down, made one folder at a time (as a
    clone makes it; os.makedirs itself recurses)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        out = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, text)
        os.close(out)
    finally:
        os.close(fd)


@pytest.mark.slow  # a folder 1,500 levels deep
def test_a_memory_deeper_than_any_name_leaves_the_history_on(
    project: Path, serena_home: Path, request: pytest.FixtureRequest
) -> None:
    memories = project / ".serena" / "memories"
    _deep_file(memories, 1500, b"down here\n")
    # pytest's own clean-up of old temporary folders recurses: take the tree down here
    request.addfinalizer(lambda: subprocess.run(["rm", "-rf", str(memories / "d")], check=True))
    done = run_cli("memories", "write", "first", str(project), "-c", "one\n")
    assert done.returncode == 0, done.stderr
    assert "RecursionError" not in done.stderr and "catch up" not in done.stderr
    assert "leaves out" in done.stderr and "d/d/d" in done.stderr
    for i in range(2):
        done = run_cli("memories", "write", "second", str(project), "-c", f"two {i}\n")
        assert done.returncode == 0 and "catch up" not in done.stderr, done.stderr
    shown = run_cli("memories", "history", "-p", str(project), "--json")
    assert shown.returncode == 0, shown.stderr
    import json

    entries = json.loads(shown.stdout)
    touched = {c["memory"] for e in entries for c in e["changes"]}
    assert {"first", "second"} <= touched
    assert len([e for e in entries if e["summary"] in ("Create second", "Replace second")]) == 2


def test_a_deep_memory_that_fits_a_name_is_recorded_without_recursion(
    store: MemoryStore, project: Path
) -> None:
    memories = project / ".serena" / "memories"
    depth = 400  # "d/" * 400 + "deep": within the length of a memory name
    _deep_file(memories, depth, b"down here\n")
    store.write("first", "one\n")
    name = "d/" * depth + "deep"
    assert name in {c for e in store.history().entries() for _, c in e.changes}
    assert store.history().content_at(name, store.history().entries()[0].rev)[1] == (b"down here\n")
    assert take_notices() == [] or all("leaves out" not in n for n in take_notices())
