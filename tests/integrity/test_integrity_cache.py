"""The check's cache never changes a report: after any edits, renames and deletions the
cached check equals a check without it, and a cache that is truncated, foreign or planted
by a project is ignored. Real files, real SQLite files."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from conftest import damage_schema_name
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.store import Context, MemoryStore
from serena_memory.integrity.references import check_cache as C
from serena_memory.integrity.references.check import run_check
from serena_memory.wiring import build_store

NAMES = ["core", "auth/login", "auth/core", "deploy_pipeline_notes", "style", "tech_stack"]
PHRASES = [
    "see `mem:auth/login` first",
    "read mem:deploy_pipeline_notes when shipping",
    "deploy-pipeline-notes are long",
    "the tech_stack is python",
    "mem:gone/away is stale",
    "auth/login and auth/core",
    "plain prose only",
    "mem:style and mem:core",
    "mem:new/one or mem:tech-stack and new/one-notes",
    "the deploy_pipeline_note and tech_stack_notes",
]
OPTIONS = [(False, False, False), (True, False, False), (True, True, False), (True, True, True)]


def _reports(store: MemoryStore) -> None:
    for options in OPTIONS:
        cold = run_check(store, *options, cache=False).to_dict()
        assert run_check(store, *options).to_dict() == cold  # fills or updates the cache
        assert run_check(store, *options).to_dict() == cold  # served from it


def _file(store: MemoryStore, name: str) -> Path:
    return store.layout.memories_dir / f"{name}.md"


steps = st.lists(
    st.tuples(
        st.sampled_from(["write", "append", "rename", "delete", "touch"]),
        st.sampled_from(NAMES + ["new/one", "gone/away"]),
        st.sampled_from(NAMES + ["new/one", "gone/away"]),
        st.lists(st.sampled_from(PHRASES), max_size=4),
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.slow  # many generated changes
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=steps)
def test_cached_and_cold_reports_are_equal_under_random_changes(
    serena_home: Path, steps: list[tuple[str, str, str, list[str]]]
) -> None:
    project = Path(tempfile.mkdtemp(dir=serena_home.parent))
    try:
        store = build_store(project, home=serena_home, context=Context.HUMAN)
        for name in NAMES:
            store.write(name, f"# {name}\n{PHRASES[len(name) % len(PHRASES)]}\n")
        _reports(store)
        for action, name, other, phrases in steps:
            text = "\n".join(phrases) + "\n"
            exists = store.exists(name)
            if action == "write":
                store.write(name, text)
            elif action == "append" and exists:
                with open(_file(store, name), "a", encoding="utf-8") as f:  # an editor
                    f.write(text)
            elif action == "rename" and exists and not store.exists(other) and name != other:
                store.rename(name, other)
            elif action == "delete" and exists:
                store.delete(name)
            elif action == "touch" and exists:
                os.utime(_file(store, name))
            _reports(store)
    finally:
        shutil.rmtree(project)


def _filled(store: MemoryStore) -> Path:
    for name in NAMES:
        store.write(name, f"# {name}\n{' '.join(PHRASES)}\n")
    run_check(store, True, True, True)
    path = C.cache_path(store)
    assert path.is_file()
    return path


def test_a_truncated_cache_is_rebuilt_and_the_report_is_unchanged(store: MemoryStore) -> None:
    path = _filled(store)
    cold = run_check(store, True, True, True, cache=False).to_dict()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(path.read_bytes()[:700])
    assert run_check(store, True, True, True).to_dict() == cold
    assert run_check(store, True, True, True).to_dict() == cold


@pytest.mark.parametrize("table", ["meta", "memo", "answer"])
def test_a_cache_whose_schema_is_not_utf8_is_rebuilt(store: MemoryStore, table: str) -> None:
    path = _filled(store)
    cold = run_check(store, True, True, True, cache=False).to_dict()
    damage_schema_name(path, table)
    assert run_check(store, True, True, True).to_dict() == cold
    assert run_check(store, True, True, True).to_dict() == cold


def test_garbage_rows_and_a_foreign_file_never_change_the_report(store: MemoryStore) -> None:
    import sqlite3

    path = _filled(store)
    cold = run_check(store, True, True, True, cache=False).to_dict()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE memo SET found = '{\"stale\": 3}', refs = '[[1, \"x\"]]'")
    conn.commit()
    conn.close()
    assert run_check(store, True, True, True).to_dict() == cold
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 7")
    conn.commit()
    conn.close()
    assert run_check(store, True, True, True).to_dict() == cold


def test_a_cache_a_project_plants_or_links_is_never_used(
    store: MemoryStore, serena_home: Path
) -> None:
    """A link where the cache lives, pointing into the project, and a cache folder that is
    inside the project: the check runs without a cache and writes nothing there."""
    path = _filled(store)
    cold = run_check(store, True, True, True, cache=False).to_dict()
    planted = store.layout.project_root / "planted.sqlite3"
    shutil.copy(path, planted)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.symlink_to(planted)
    before = planted.read_bytes()
    assert run_check(store, True, True, True).to_dict() == cold
    assert not path.is_symlink() and planted.read_bytes() == before
    # the whole cache folder a link into the project: no cache at all
    folder = serena_home / "cache" / "check"
    shutil.rmtree(folder)
    inside = store.layout.project_root / "cache-here"
    inside.mkdir()
    folder.symlink_to(inside)
    assert run_check(store, True, True, True).to_dict() == cold
    assert list(inside.iterdir()) == []


def _edit_one(store: MemoryStore) -> None:
    """An edit of one memory after the cache holds everything: the next check answers
    its questions (a near-miss token's ranking, a stale target's candidates) from the
    cache."""
    store.write("style", " ".join(PHRASES) + "\nmem:deploy-pipeline-notes\n")


def test_kept_answers_of_the_name_indexes_are_used_and_a_tampered_one_never_is(
    store: MemoryStore,
) -> None:
    import sqlite3

    path = _filled(store)
    conn = sqlite3.connect(path)
    kinds = dict(conn.execute("SELECT kind, count(*) FROM answer GROUP BY kind").fetchall())
    assert kinds.get("near") and kinds.get("candidates")
    conn.close()
    _edit_one(store)
    cold = run_check(store, True, True, True, cache=False).to_dict()
    for value in (
        "not json",
        "[[0.99, 3]]",
        '[[1, "core"]]',
        '[[0.99, "no/such/memory"]]',
        '["no/such/memory"]',
        '{"a": 1}',
        "[[0.9]]",
        "7",
    ):
        _filled(store)
        _edit_one(store)
        conn = sqlite3.connect(path)
        conn.execute("UPDATE answer SET value = ?", (value,))
        conn.commit()
        conn.close()
        assert run_check(store, True, True, True).to_dict() == cold, value
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE answer")
    conn.commit()
    conn.close()
    _edit_one(store)
    assert run_check(store, True, True, True).to_dict() == cold
    assert run_check(store, True, True, True).to_dict() == cold


@pytest.mark.slow  # waits out the tick of the clock eight times
def test_rows_of_another_shape_are_analysed_again(store: MemoryStore) -> None:
    """Rows that decode but hold the wrong types (lines as text, a count as a list,
    escapes JSON refuses) are read again, never reported as they are."""
    import sqlite3

    path = _filled(store)
    cold = run_check(store, True, True, True, cache=False).to_dict()
    ok = '{"stale":[],"bare":[],"near":[]}'
    for column, value in (
        ("found", '{"stale":[["x","ab",["core"]]],"bare":[],"near":[]}'),
        ("found", '{"stale":[],"bare":[["core",[1],1]],"near":[]}'),
        ("found", '{"stale":[],"bare":[],"near":[["core",[2],"x"]]}'),
        ("found", '{"stale":[["\\q",[1],[]]],"bare":[],"near":[]}'),
        ("found", ok + " "),
        ("found", ok[:-1]),
        ("refs", '[["core","1"]]'),
        ("refs", '[["core",[1]]'),
    ):
        _filled(store)
        time.sleep(1.1)  # the rows are no longer taken in the tick of a change
        run_check(store, True, True, True)
        conn = sqlite3.connect(path)
        conn.execute(f"UPDATE memo SET {column} = ?", (value,))
        conn.commit()
        conn.close()
        assert run_check(store, True, True, True).to_dict() == cold, value


def test_one_row_of_another_shape_among_good_ones_is_analysed_again(store: MemoryStore) -> None:
    """The rows are decoded all at once: one that JSON refuses (a bad escape, in the
    shape the pattern allows) is read again alone, and the others are still reported."""
    import sqlite3

    path = _filled(store)
    time.sleep(1.1)  # the rows are no longer taken in the tick of a change
    run_check(store, True, True, True)
    cold = run_check(store, True, True, True, cache=False).to_dict()
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE memo SET found = ?, refs = ? WHERE name = ?",
        ('{"stale":[["\\q",[1],[]]],"bare":[],"near":[]}', '[["\\q",[1]]]', NAMES[0]),
    )
    conn.commit()
    conn.close()
    assert run_check(store, True, True, True).to_dict() == cold
    assert (
        run_check(store, True, True, False).to_dict()
        == run_check(store, True, True, False, cache=False).to_dict()
    )


def test_a_check_after_one_edit_reads_only_that_memory(store: MemoryStore) -> None:
    """Warm cache: a memory whose file can't be read any more but did not change is still
    reported from the cache, and the edited one is analysed again."""
    _filled(store)
    run_check(store, True, True)
    store.write("style", "mem:gone/away again\n")
    report = run_check(store, True, True)
    assert [s.target for s in report.stale if s.source == "style"] == ["gone/away"]
    assert report.to_dict() == run_check(store, True, True, cache=False).to_dict()


WORDS = NAMES + ["meeting notes", "plan.v2", "x", "auth", "deploy-pipeline-notes", "mem:"]


@settings(max_examples=200, deadline=None)
@given(
    names=st.lists(st.sampled_from(WORDS + ["api/v2", "core/auth/login", "ab"]), min_size=6),
    pieces=st.lists(st.sampled_from(WORDS + [" ", "\n", "/", ".", "`", "-", "é"]), max_size=30),
)
def test_one_memory_among_many_gets_the_findings_of_a_whole_check(
    names: list[str], pieces: list[str]
) -> None:
    """A check after one edit examines one text against every name, with a finder of only
    the names that text holds: its findings are those of a check of every memory."""
    from serena_memory.integrity.references.analysis import IntegrityAnalyzer

    source = "auth/source"
    texts = {n: f"{n} notes" for n in names} | {source: "".join(pieces)}
    whole = IntegrityAnalyzer(texts)
    alone = IntegrityAnalyzer({source: texts[source]}, names=texts)
    assert alone.findings(source, True, True) == whole.findings(source, True, True)


def test_a_check_without_cache_spreads_over_workers_and_fills_the_cache(
    store: MemoryStore, monkeypatch
) -> None:
    """A cold check (no cache yet, or a changed set of names) forks workers like a check
    without the cache, and what they learned serves the next check."""
    import resource

    import serena_memory.integrity.workers as workers

    for i in range(40):
        store.write(f"topic/note_{i:02}", f"mem:topic/note_{(i + 1) % 41:02} and topic/note_{i}\n")
    monkeypatch.setattr(workers, "PARALLEL_MIN_PER_JOB", 5)
    cold = run_check(store, True, True, True, cache=False).to_dict()

    def workers_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = workers_cpu()
    assert run_check(store, True, True, True, jobs=2).to_dict() == cold
    assert workers_cpu() > before, "the cold check ran in this process alone"
    store.rename("topic/note_03", "topic/note_three")  # a new set of names: cold again
    cold = run_check(store, True, True, True, cache=False).to_dict()
    before = workers_cpu()
    assert run_check(store, True, True, True, jobs=2).to_dict() == cold
    assert workers_cpu() > before
    assert run_check(store, True, True, True, jobs=2).to_dict() == cold  # from the cache
