"""Ranked memory search: ranking, freshness, rules, a cache that is never trusted, and
queries that can't break it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import damage_schema_name, run_cli, write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import MemoryStore
from serena_memory.search.database import index_path
from serena_memory.search.hits import format_hits
from serena_memory.search.index import search_memories
from serena_memory.search.query import parse_query
from serena_memory.wiring import build_store


def names_of(hits) -> list[str]:
    return [hit.name for hit in hits]


def put(store: MemoryStore, name: str, text: str) -> None:
    store.write(name, text)


def touch_later(path: Path) -> None:
    """Make sure an edit gets a new stamp even on a file system with coarse times."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def test_a_name_match_beats_a_passing_mention(store: MemoryStore) -> None:
    put(store, "billing/refunds", "# Billing notes\nHow money flows back to customers.\n")
    for i in range(5):
        put(store, f"notes/other_{i}", f"# Other {i}\nUnrelated text; refunds are elsewhere.\n")
    hits = search_memories(store, "refunds")
    assert hits[0].name == "billing/refunds"
    assert len(hits) == 6


def test_a_heading_beats_body_text(store: MemoryStore) -> None:
    filler = "Some words about the build and the tests.\n" * 3
    put(store, "alpha", f"# Overview\n{filler}The retry policy is mentioned here.\n{filler}")
    put(store, "beta", f"# Overview\n{filler}## Retry policy\nWhat we do.\n{filler}")
    assert names_of(search_memories(store, "retry policy"))[0] == "beta"


def test_hits_carry_numbered_matching_lines_and_read_only_marks(
    store: MemoryStore, project: Path
) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['frozen/.*']\n")
    put(store, "frozen/ledger", "# Ledger\nline two\nThe ledger is append-only.\n")
    put(store, "ledger_notes", "# Notes\nnothing here\n\nledger entries are immutable\n")
    hits = {hit.name: hit for hit in search_memories(store, "ledger")}
    assert hits["frozen/ledger"].read_only and not hits["ledger_notes"].read_only
    assert (3, "The ledger is append-only.") in hits["frozen/ledger"].lines
    assert hits["ledger_notes"].lines == [(4, "ledger entries are immutable")]
    text = format_hits(list(hits.values()), "ledger")
    assert "frozen/ledger (read-only)" in text and "4: ledger entries are immutable" in text


def test_words_are_stemmed_and_names_split(store: MemoryStore) -> None:
    put(store, "payments/refundPolicy", "# Policy\nWe give money back within 30 days.\n")
    put(store, "other", "# Other\nNothing relevant.\n")
    assert names_of(search_memories(store, "how do we handle refunds?")) == [
        "payments/refundPolicy"
    ]
    assert names_of(search_memories(store, "policies")) == ["payments/refundPolicy"]


def test_mem_references_in_the_query_come_first(store: MemoryStore) -> None:
    put(store, "deploy/core", "# Deploy\nShip it.\n")
    put(store, "cache", "# Cache\nThe cache is warmed after a deploy, then the cache rules.\n")
    hits = search_memories(store, "cache warmup, see mem:deploy/core")
    assert names_of(hits)[:2] == ["deploy/core", "cache"]
    # a reference to a missing memory is simply not a hit
    assert names_of(search_memories(store, "mem:nowhere cache")) == ["cache"]


def test_topic_and_scope_filters(store: MemoryStore) -> None:
    put(store, "auth/tokens", "token rotation\n")
    put(store, "auth/sessions/core", "token in sessions\n")
    put(store, "authz", "token for authz\n")
    put(store, "global/tokens", "token shared across projects\n")
    assert sorted(names_of(search_memories(store, "token", topic="auth"))) == [
        "auth/sessions/core",
        "auth/tokens",
    ]
    assert names_of(search_memories(store, "token", scope="global")) == ["global/tokens"]
    assert "global/tokens" not in names_of(search_memories(store, "token", scope="project"))
    assert len(search_memories(store, "token", max_results=2)) == 2
    with pytest.raises(MemoryStoreError, match="scope"):
        search_memories(store, "token", scope="everything")


def test_an_external_edit_is_found_at_the_next_query(store: MemoryStore) -> None:
    put(store, "notes", "# Notes\nnothing yet\n")
    assert search_memories(store, "kubernetes") == []
    path = store.layout.path_of("notes")
    with open(path, "a", encoding="utf-8") as handle:  # in place, as many editors save
        handle.write("We deploy on kubernetes.\n")
    touch_later(path)
    hits = search_memories(store, "kubernetes")
    assert names_of(hits) == ["notes"] and hits[0].lines == [(3, "We deploy on kubernetes.")]
    # (about something else entirely: a note on another scheduler would be found by meaning)
    path.write_text("# Notes\nnow about the lunch menu\n", encoding="utf-8")
    touch_later(path)
    assert search_memories(store, "kubernetes") == []
    assert names_of(search_memories(store, "lunch")) == ["notes"]


def test_renamed_and_deleted_memories_follow_at_once(store: MemoryStore, project: Path) -> None:
    put(store, "old_name", "# Queue\nconsumers ack after processing\n")
    put(store, "gone", "# Gone\nconsumers of the past\n")
    assert sorted(names_of(search_memories(store, "consumers"))) == ["gone", "old_name"]
    store.rename("old_name", "queue/consumers")
    (project / ".serena" / "memories" / "gone.md").unlink()  # deleted behind our back
    assert names_of(search_memories(store, "consumers")) == ["queue/consumers"]
    (project / ".serena" / "memories" / "dropped.md").write_text("consumers again\n")
    assert sorted(names_of(search_memories(store, "consumers"))) == [
        "dropped",
        "queue/consumers",
    ]


def test_ignored_memories_are_never_found(store: MemoryStore, project: Path) -> None:
    put(store, "secret/keys", "# Keys\nthe vault password rotation\n")
    put(store, "public", "# Public\nrotation schedule\n")
    assert "secret/keys" in names_of(search_memories(store, "rotation"))
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['secret/.*']\n")
    assert names_of(search_memories(store, "rotation vault")) == ["public"]
    assert search_memories(store, "mem:secret/keys") == []
    # and a fresh index never indexes them in the first place
    index_path(store).unlink()
    assert names_of(search_memories(store, "vault rotation")) == ["public"]


def test_a_broken_or_foreign_cache_is_rebuilt(store: MemoryStore) -> None:
    put(store, "core", "# Core\nthe entry point\n")
    assert names_of(search_memories(store, "entry")) == ["core"]
    path = index_path(store)
    samples = [
        b"not a database at all" * 100,
        b"",
    ]
    for data in samples:
        _drop_cached_connections()
        for suffix in ("-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        path.write_bytes(data)
        assert names_of(search_memories(store, "entry")) == ["core"]
    # a foreign SQLite file at the same place: not ours, so not trusted
    _drop_cached_connections()
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    foreign = sqlite3.connect(path)
    foreign.execute("CREATE TABLE docs (name TEXT)")
    foreign.execute("INSERT INTO docs VALUES ('core')")
    foreign.commit()
    foreign.close()
    assert names_of(search_memories(store, "entry")) == ["core"]
    # an index of ours claiming stale content is corrected by the stamps
    put(store, "core", "# Core\nrewritten\n")
    assert search_memories(store, "entry") == []


def test_a_cache_damaged_while_open_is_rebuilt(store: MemoryStore) -> None:
    for i in range(30):
        put(store, f"topic/m{i}", f"# M{i}\nword{i} common text " * 20 + "\n")
    assert len(search_memories(store, "common", max_results=50)) == 30
    path = index_path(store)
    with open(path, "r+b") as handle:  # garbage over every page but the header
        handle.seek(100)
        handle.write(os.urandom(max(0, path.stat().st_size - 100)))
    hits = search_memories(store, "word7")
    assert names_of(hits)[0] == "topic/m7"


@pytest.mark.parametrize("table", ["docs", "meta", "fts", "vectors"])
def test_an_index_whose_schema_is_not_utf8_is_rebuilt(
    project: Path, serena_home: Path, table: str
) -> None:
    assert (
        run_cli("memories", "write", "core", "--content", "the entry point", cwd=project).returncode
        == 0
    )
    assert "core" in run_cli("memories", "search", "entry", cwd=project).stdout
    store = build_store(project, home=serena_home)
    damage_schema_name(index_path(store), table)
    for _ in range(2):  # rebuilt by the first search, and still fine for the next
        found = run_cli("memories", "search", "entry", cwd=project)
        assert found.returncode == 0, found.stderr
        assert found.stdout.startswith("1. core ")


def test_a_truncated_index_is_rebuilt(store: MemoryStore) -> None:
    for i in range(30):
        put(store, f"topic/m{i}", f"# M{i}\nword{i} common text " * 20 + "\n")
    assert len(search_memories(store, "common", max_results=50)) == 30
    _drop_cached_connections()
    path = index_path(store)
    size = path.stat().st_size
    for keep in (size // 2, 4096 + 10, 100, 16):
        with open(path, "r+b") as handle:
            handle.truncate(keep)
        assert names_of(search_memories(store, "word7"))[0] == "topic/m7"
        _drop_cached_connections()


@pytest.mark.slow  # many generated inputs
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(0, 1 << 16), st.binary(min_size=1, max_size=8)),
        min_size=1,
        max_size=6,
    )
)
def test_random_damage_to_the_index_never_fails_a_search(
    store: MemoryStore, damage: list[tuple[int, bytes]]
) -> None:
    put(store, "core", "# Core\nthe entry point\n")
    put(store, "notes/other", "# Other\nnothing to see\n")
    search_memories(store, "entry")
    _drop_cached_connections()
    path = index_path(store)
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        for offset, data in damage:
            handle.seek(offset % size)
            handle.write(data)
    hits = names_of(search_memories(store, "entry"))
    assert set(hits) <= {"core"}
    _drop_cached_connections()


def _drop_cached_connections() -> None:
    """A new process would open the file afresh; so does this (the module keeps one
    connection per index file per process)."""
    from serena_memory.search.database import close_indexes

    close_indexes()


HOSTILE = [
    '"',
    '""',
    "'",
    "*",
    "a*",
    "NEAR(a b",
    "AND",
    "OR NOT AND",
    "body:token",
    "^start",
    "-minus +plus",
    "(((",
    "a\x00b",
    "\x00",
    "\ud800 lone surrogate",
    "mem:",
    "mem:../../etc/passwd",
    "mem:" + "a" * 5000,
    "x" * 1_000_000,
    "word " * 100_000,
    "  ",
    "",
    "{col1 col2}: x",
    "émigré naïve façade",
    "日本語のメモ",
]


@pytest.mark.parametrize("query", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_queries_never_error(store: MemoryStore, query: str) -> None:
    put(store, "core", "# Core\nstart here; word a b token émigré 日本語\n")
    hits = search_memories(store, query)
    assert all(hit.name == "core" for hit in hits)


@pytest.mark.slow  # many generated inputs
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(query=st.text(max_size=200))
def test_any_text_is_a_valid_query(tmp_path_factory, query: str) -> None:
    root = tmp_path_factory.mktemp("p")
    store = build_store(root, home=root / "home")
    put(store, "core", "# Core\nsome words and tokens\n")
    search_memories(store, query)
    assert parse_query(query).match.count('"') % 2 == 0


def test_ten_hits_stay_under_two_thousand_tokens(store: MemoryStore) -> None:
    long_line = "needle " + "verylongwordwithoutspaces" * 40
    for i in range(12):
        body = "\n".join(f"{long_line} line {j} needle needle" for j in range(50))
        put(store, f"some/deep/topic/with/a/rather_long_memory_name_number_{i}", body)
    hits = search_memories(store, "needle line")  # words every memory holds
    assert len(hits) == 10
    text = format_hits(hits, "needle")
    as_json = json.dumps([hit.to_dict() for hit in hits])
    assert len(text) / 4 < 2000 and len(as_json) / 4 < 2000
    assert all(1 <= len(hit.lines) <= 3 for hit in hits)


@pytest.mark.slow  # processes searching and writing at once
def test_concurrent_processes_search_and_write(project: Path, serena_home: Path) -> None:
    """Real processes writing and searching the same memories and index at once."""
    script = (
        "import sys\n"
        "from serena_memory.wiring import build_store\n"
        "from serena_memory.search.index import search_memories\n"
        "project, home, me = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
        "store = build_store(project, home=home)\n"
        "for i in range(15):\n"
        "    store.write(f'w{me}/note_{i}', f'# Note {i}\\nshared marker w{me}x{i}\\n')\n"
        "    hits = search_memories(store, f'w{me}x{i} marker', max_results=100)\n"
        "    assert hits and hits[0].name == f'w{me}/note_{i}', (i, hits[:2])\n"
        "print('ok')\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(project), str(serena_home), str(me)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me in range(4)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and out.strip() == "ok", err[-3000:]
    store = build_store(project, home=serena_home)
    assert len(search_memories(store, "marker", max_results=100)) == 60


def test_cli_search_text_and_json(project: Path) -> None:
    memories = project / ".serena" / "memories"
    (memories / "billing").mkdir(parents=True)
    (memories / "billing" / "refunds.md").write_text("# Refunds\nMoney goes back in 30 days.\n")
    (memories / "core.md").write_text("# Core\nStart here.\n")
    done = run_cli("memories", "search", "refunds money", "-p", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1. billing/refunds")
    assert "2: Money goes back in 30 days." in done.stdout
    done = run_cli(
        "memories", "search", "start", "-p", str(project), "--json", "--topic", "billing"
    )
    assert json.loads(done.stdout) == {
        "query": "start",
        "hits": [],
        "left_out": 0,
        "more": 0,
        "not_held": [],
        "renamed": [],
        "not_named": [],
        "empty_topic": "",
        "preparing": False,
        "specific": True,
    }
    done = run_cli("memories", "search", '"unbalanced AND (', "-p", str(project))
    assert done.returncode == 0 and "No memory matches" in done.stdout
    done = run_cli("memories", "search", " ", "-p", str(project))
    assert done.returncode == 0 and done.stdout == (
        "Nothing was searched: the query is empty; give the words to look for.\n"
    )
    done = run_cli("memories", "search", "x", "-p", str(project), "--scope", "nowhere")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_a_python_without_sqlite_gets_one_clear_sentence(project: Path) -> None:
    (project / ".serena" / "memories").mkdir(parents=True)
    code = (
        "import sys\n"
        "sys.modules['sqlite3'] = None  # as in a Python built without it\n"
        "from serena_memory.cli import main\n"
        "main(['memories', 'search', 'x', '-p', sys.argv[1]])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(project)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert (
        done.stderr.strip().splitlines()
        == [
            done.stderr.strip(),
        ]
        and "sqlite3" in done.stderr
        and "Traceback" not in done.stderr
    )


def test_a_process_that_searches_again_and_again_still_sees_every_change(
    store: MemoryStore, project: Path
) -> None:
    """After a few queries a process watches the folders instead of re-reading every
    stamp; edits in place, new folders, deletions, moves and configuration changes must
    still show at the very next query."""
    from serena_memory.search import database as search

    search.close_indexes()
    put(store, "notes", "# Notes\nnothing yet\n")
    for _ in range(4):
        search_memories(store, "warm")
    index = search.index_for(store)
    assert index.watch is not None or not sys.platform.startswith("linux")
    memories = project / ".serena" / "memories"
    with open(memories / "notes.md", "a", encoding="utf-8") as handle:  # in place
        handle.write("zanzibar\n")
    assert names_of(search_memories(store, "zanzibar")) == ["notes"]
    (memories / "deep" / "er").mkdir(parents=True)
    assert search_memories(store, "quokka") == []
    (memories / "deep" / "er" / "animal.md").write_text("a quokka\n")  # in a brand-new folder
    assert names_of(search_memories(store, "quokka")) == ["deep/er/animal"]
    (memories / "deep").rename(memories / "moved")
    assert names_of(search_memories(store, "quokka")) == ["moved/er/animal"]
    (memories / "moved" / "er" / "animal.md").write_text("a wombat now\n")
    assert names_of(search_memories(store, "wombat")) == ["moved/er/animal"]
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['moved/.*']\n")
    assert search_memories(store, "wombat") == []
    (memories / "notes.md").unlink()
    assert search_memories(store, "zanzibar") == []
    # and when nothing changed, nothing is swept
    sweeps = index.sweeps
    for _ in range(3):
        search_memories(store, "anything")
    assert index.sweeps <= sweeps + 1


def test_hits_say_where_the_words_matched_in_the_name_and_the_lines(store: MemoryStore) -> None:
    long_line = "x" * 300 + " refunded " + "y" * 300
    put(store, "billing/refundPolicy_v2", f"# Refunds 😀 policy\n{long_line}\n")
    [hit] = search_memories(store, "refund policies")
    cut = lambda text, spans: [text[a:b] for a, b in spans]  # noqa: E731
    assert cut(hit.name, hit.name_marks) == ["refund", "Policy"]
    by_line = {
        line[0]: (line, spans) for line, spans in zip(hit.lines, hit.line_marks, strict=True)
    }
    (_, heading), spans = by_line[1]
    assert cut(heading, spans) == ["Refunds", "policy"]  # counted in characters, emoji too
    (_, long_cut), spans = by_line[2]
    assert len(long_cut) <= 120 and long_cut.startswith("…") and long_cut.endswith("…")
    assert cut(long_cut, spans) == ["refunded"]
    assert hit.to_dict()["lines"][0] == {"line": 1, "text": heading, "marks": [[2, 9], [12, 18]]}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the folder watch is Linux's")
def test_an_edit_in_place_is_stamped_again_without_reading_every_stamp(
    store: MemoryStore, project: Path
) -> None:
    """A process that searches again and again learns from the folder watch which memory
    changed and stamps only that one; a file made, removed, or two names for one file
    still make it look at every file, and every change shows at the next query."""
    from serena_memory.search import database as search

    search.close_indexes()
    for i in range(5):
        put(store, f"topic/note{i}", f"# Note {i}\nnothing yet\n")
    for _ in range(4):
        search_memories(store, "warm")
    index = search.index_for(store)
    assert index.watch is not None
    search_memories(store, "warm")
    memories = project / ".serena" / "memories"
    sweeps = index.sweeps
    with open(memories / "topic" / "note1.md", "a", encoding="utf-8") as handle:
        handle.write("zanzibar\n")
    assert names_of(search_memories(store, "zanzibar")) == ["topic/note1"]
    for i in (2, 3):
        (memories / "topic" / f"note{i}.md").write_text(f"# Note {i}\na quokka\n")
    assert sorted(names_of(search_memories(store, "quokka"))) == ["topic/note2", "topic/note3"]
    assert index.sweeps == sweeps  # only the edited ones were stamped
    (memories / "topic" / "note4.md").unlink()
    (memories / "fresh.md").write_text("a wombat\n")
    assert names_of(search_memories(store, "wombat")) == ["fresh"]
    assert "topic/note4" not in names_of(search_memories(store, "note 4"))
    assert index.sweeps == sweeps + 1
    # two names for one file: an edit through one shows under both
    (memories / "alias.md").symlink_to(memories / "fresh.md")
    search_memories(store, "warm")
    with open(memories / "fresh.md", "a", encoding="utf-8") as handle:
        handle.write("platypus\n")
    assert sorted(names_of(search_memories(store, "platypus"))) == ["alias", "fresh"]
