"""Search: exact phrases and identifiers, short answers of weak matches, and a start that
loads the meaning model only for a query that needs it, with the vectors made in the
background of a server, safely across processes."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import anyio
import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_support import over_stdio

from serena_memory.core.store import MemoryStore
from serena_memory.search import index as search_index
from serena_memory.search import preparing
from serena_memory.search.database import close_indexes, index_for, index_path
from serena_memory.search.hits import format_hits
from serena_memory.search.index import search_memories
from serena_memory.search.semantic import document_text, load_model

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "search_set"


def names_of(hits) -> list[str]:
    return [hit.name for hit in hits]


@pytest.fixture
def shop(store: MemoryStore) -> MemoryStore:
    shutil.copytree(SET / "shopfront", store.layout.memories_dir, dirs_exist_ok=True)
    return store


def _write(store: MemoryStore, name: str, text: str) -> None:
    path = store.layout.memories_dir / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def testing_notes(store: MemoryStore) -> MemoryStore:
    """Many memories sharing the words of a path and of an identifier, two holding each
    as written."""
    for i in range(14):
        _write(
            store,
            f"notes/n{i:02}",
            f"# Notes {i}\n\nThe tests for the docs register a db and clean up after {i}.\n"
            "Run the tests before a docs change; cleanup of the db is automatic.\n",
        )
    _write(store, "testing/docs", "# Docs tests\n\n`tests/test_docs.py` checks the commands.\n")
    _write(store, "testing/moved", "# Moved\n\nSee tests/test_docs.py (line 11) for the check.\n")
    _write(store, "testing/db", "# Db\n\nFixtures call `_register_db_for_cleanup(db)` once.\n")
    _write(store, "testing/other", "# Other\n\nself._register_db_for_cleanup(conn) in setUp.\n")
    _write(store, "testing/longer", "# Longer\n\nmy_register_db_for_cleanup_v2 is another.\n")
    return store


# -- exact phrases and identifiers -------------------------------------------------------------
def test_a_quoted_path_finds_only_the_memories_holding_it(testing_notes: MemoryStore) -> None:
    hits = search_memories(testing_notes, '"tests/test_docs.py"')
    assert sorted(names_of(hits)) == ["testing/docs", "testing/moved"]
    assert all(hit.why.startswith("exact: tests/test_docs.py") for hit in hits)
    assert all(  # the lines shown are those holding it
        [text for _, text in hit.lines] == [t for _, t in hit.lines if "tests/test_docs.py" in t]
        and hit.lines
        for hit in hits
    )
    text = format_hits(hits, '"tests/test_docs.py"')
    assert "weaker matches were left out" in text and len(text) < 600


def test_an_identifier_is_matched_as_written_not_inside_a_longer_name(
    testing_notes: MemoryStore,
) -> None:
    hits = search_memories(testing_notes, "_register_db_for_cleanup")
    assert sorted(names_of(hits)) == ["testing/db", "testing/other"]


def test_the_memories_holding_more_exact_terms_come_first(testing_notes: MemoryStore) -> None:
    _write(
        testing_notes,
        "testing/both",
        "# Both\n\n`tests/test_docs.py` uses `_register_db_for_cleanup` too.\n",
    )
    hits = search_memories(testing_notes, "tests/test_docs.py and _register_db_for_cleanup")
    assert names_of(hits)[0] == "testing/both"
    assert set(names_of(hits)) == {
        "testing/both",
        "testing/docs",
        "testing/moved",
        "testing/db",
        "testing/other",
    }


def test_a_term_no_memory_holds_is_said_and_words_answer(testing_notes: MemoryStore) -> None:
    hits = search_memories(testing_notes, '"tests/test_documentation.py"')
    assert hits.not_held == ("tests/test_documentation.py",)
    assert format_hits(hits, "q").startswith(
        "No memory holds 'tests/test_documentation.py' as written"
    )
    assert hits  # the closest by words still follow


def test_a_named_memory_still_comes_before_the_exact_ones(testing_notes: MemoryStore) -> None:
    hits = search_memories(testing_notes, "mem:notes/n03 _register_db_for_cleanup")
    assert names_of(hits)[:1] == ["notes/n03"]
    assert set(names_of(hits)[1:]) == {"testing/db", "testing/other"}


def test_prose_is_not_taken_for_code() -> None:
    from serena_memory.search.query import parse_query

    assert parse_query("e.g. a sign-in that takes 3.5 s, i.e. too long?").exact == []
    assert parse_query("run --dry-run with maxRetries in core.store").exact == [
        "--dry-run",
        "maxRetries",
        "core.store",
    ]


def test_the_cli_and_its_json_tell_what_was_left_out(testing_notes: MemoryStore) -> None:
    project = testing_notes.layout.memories_dir.parents[1]
    done = run_cli("memories", "search", "-p", str(project), "_register_db_for_cleanup", "--json")
    data = json.loads(done.stdout)
    assert sorted(hit["name"] for hit in data["hits"]) == ["testing/db", "testing/other"]
    assert data["left_out"] > 0 and data["preparing"] is False and data["not_held"] == []


def test_weak_matches_are_cut_and_counted(store: MemoryStore) -> None:
    _write(store, "billing/retries", "# Refund retries\n\nRefunds retry with a budget.\n")
    for i in range(6):
        _write(store, f"misc/m{i}", f"# Misc {i}\n\n" + "Some other text here. " * 40 + "budget\n")
    hits = search_memories(store, "refund retries budget")
    best = hits[0].score
    assert names_of(hits)[0] == "billing/retries"
    assert all(hit.score >= best * search_index.WEAK_SHARE for hit in hits)
    assert hits.left_out == 6 - (len(hits) - 1)


# -- the model only when needed, and only what it needs -----------------------------------------
def _modules_after(code: str, store: MemoryStore) -> list[str]:
    program = textwrap.dedent(
        f"""
        import sys
        from serena_memory.wiring import build_store
        from serena_memory.search.index import search_memories
        store = build_store({str(store.layout.project_root)!r}, home={str(store.layout.home)!r})
        {code}
        print(sorted(m for m in ("numpy", "tokenizers", "wordllama", "requests", "pydantic")
                     if m in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().replace("'", '"'))


def test_a_query_words_answer_loads_no_model(shop: MemoryStore) -> None:
    assert _modules_after("search_memories(store, 'feature toggles')", shop) == []
    assert _modules_after("search_memories(store, '\"flags.yaml\"')", shop) == []


def test_a_query_words_answer_reads_no_vector_the_index_keeps(shop: MemoryStore) -> None:
    assert _modules_after("search_memories(store, 'switches for unfinished work')", shop)
    assert _modules_after("search_memories(store, 'feature toggles')", shop) == []


def test_a_words_closest_words_are_the_vocabularys_closest_whole_words() -> None:
    """The closest words are found without a pass over the vocabulary; they are those
    such a pass finds: each whole word once (as its first token), by cosine."""
    import re

    import numpy as np

    model = load_model()
    embedding = model._inference.embedding
    whole = re.compile("[\u2581\u0120]?([a-z]{3,24})")
    words: dict[str, int] = {}
    for token, row in sorted(model._inference.tokenizer.get_vocab().items(), key=lambda x: x[1]):
        match = whole.fullmatch(token)
        if match and row < len(embedding):
            words.setdefault(match.group(1), row)
    names = list(words)
    matrix = embedding[list(words.values())].astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    for word in ["pictures", "photos", "release", "session", "deploy", "money", "phone"]:
        scores = matrix @ matrix[names.index(word)]
        order = [names[i] for i in np.argsort(-scores) if names[i] != word][:16]
        expected = [w for w in order if w[:4] != word[:4] and w not in word and word not in w]
        expected = [w for w in expected if scores[names.index(w)] >= 0.5][:2]
        assert [w for w, _ in model.neighbours(word, 2, 0.5)] == expected


def test_a_query_that_needs_meaning_loads_the_model_but_not_its_packages_deps(
    shop: MemoryStore,
) -> None:
    code = "assert search_memories(store, 'switches for unfinished work')"
    assert _modules_after(code, shop) == ["numpy", "tokenizers"]


def test_the_embedded_model_gives_wordllamas_own_vectors() -> None:
    import numpy as np
    import wordllama
    from wordllama import WordLlama

    theirs = WordLlama.load(
        config="l2_supercat",
        dim=256,
        cache_dir=Path(wordllama.__file__).parent,
        disable_download=True,
    )
    texts = ["when is the release frozen", "soup", "x" * 3000, "", "\U0001f600 ok", "a\nb"]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.nan_to_num(np.asarray(theirs.embed(texts, norm=True, batch_size=32)))
    assert np.array_equal(load_model().embed(texts), expected.astype(np.float32))


# -- the same answers, whenever the vectors are made ---------------------------------------------
QUERY_WORDS = [
    "feature",
    "toggles",
    "release",
    "checklist",
    "switches",
    "unfinished",
    "session",
    "lock",
    "sign",
    "payment",
    "cart",
    "money",
    "back",
    "flags.yaml",
    "`fly releases rollback`",
    "mem:config/flags",
    "photos",
    "the",
    "how",
]


def _answer(hits) -> list:
    return [(h.name, h.score, h.why, h.lines) for h in hits]


@pytest.mark.slow  # many generated queries
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(QUERY_WORDS), min_size=1, max_size=4))
def test_an_answer_is_the_same_cold_and_once_the_vectors_are_ready(
    shop: MemoryStore, words: list[str]
) -> None:
    """Cold (no index at all, as a first search) and warm (every vector made by the
    background build) give the same hits; a server's search before its vectors are ready
    gives them too unless it says it ranked by words while meaning is being prepared."""
    query = " ".join(words)
    close_indexes()
    for suffix in ("", "-wal", "-shm"):
        Path(str(index_path(shop)) + suffix).unlink(missing_ok=True)
    index = index_for(shop)
    gate = threading.Event()
    build = threading.Thread(target=gate.wait)  # a server's build, not done yet
    build.start()
    preparing._builds().by_index[index.key] = build
    try:
        early = search_memories(shop, query, max_results=5)
    finally:
        gate.set()
        build.join()
        del preparing._builds().by_index[index.key]
    close_indexes()
    for suffix in ("", "-wal", "-shm"):
        Path(str(index_path(shop)) + suffix).unlink(missing_ok=True)
    cold = search_memories(shop, query, max_results=5)
    preparing.prepare(shop)
    warm = search_memories(shop, query, max_results=5)
    assert _answer(cold) == _answer(warm)
    assert (cold.left_out, cold.not_held) == (warm.left_out, warm.not_held)
    if not early.preparing:
        assert _answer(early) == _answer(warm)
    else:
        assert "meaning-based ranking is still being prepared" in format_hits(early, query)


def test_while_the_vectors_are_made_a_query_needing_meaning_says_so(shop: MemoryStore) -> None:
    index = index_for(shop)
    gate = threading.Event()
    build = threading.Thread(target=gate.wait)
    build.start()
    preparing._builds().by_index[index.key] = build
    try:
        words = search_memories(shop, "feature toggles")
        meaning = search_memories(shop, "switches for unfinished work")
    finally:
        gate.set()
        build.join()
        del preparing._builds().by_index[index.key]
    assert not words.preparing and names_of(words)[0] == "config/flags"
    assert meaning.preparing
    assert format_hits(meaning, "q").endswith(
        "(Ranked by words only: meaning-based ranking is still being prepared.)"
    )
    assert "numpy" in sys.modules  # the model was loaded, the vectors not made here
    assert index.vectors_missing() == len(index.known)


# -- the background build, across processes ------------------------------------------------------
WORKER = r"""
import sys
from serena_memory.wiring import build_store
from serena_memory.search import preparing
store = build_store(sys.argv[1], home=sys.argv[2])
print(preparing.prepare(store))
"""


def _stored_vectors(store: MemoryStore) -> list[tuple[str, str, bytes]]:
    conn = sqlite3.connect(index_path(store))
    try:
        return conn.execute(
            "SELECT fts.name, fts.headings || char(10) || substr(fts.body, 1, 2000), v.vec "
            "FROM vectors v JOIN fts ON fts.rowid = v.id"
        ).fetchall()
    finally:
        conn.close()


@pytest.mark.slow  # two processes building at once
def test_builds_in_two_processes_while_memories_change_store_no_stale_vector(
    store: MemoryStore,
) -> None:
    import numpy as np

    for i in range(700):
        _write(store, f"bulk/m{i:03}", f"# Memory {i}\n\nabout topic {i % 37} and more {i}\n")
    search_memories(store, "topic")  # the words index exists; no vector yet
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(store.layout.project_root), str(store.layout.home)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for round_ in range(5):  # edits and searches meanwhile, in this process
        for i in range(0, 700, 50):
            _write(store, f"bulk/m{i:03}", f"# Memory {i}\n\nedited {round_} about cars\n")
        search_memories(store, "cars")
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    model = load_model()
    stored = _stored_vectors(store)
    assert stored
    texts = [
        document_text(name, rest.split("\n", 1)[0], rest.split("\n", 1)[1])
        for name, rest, _ in stored
    ]
    expected = model.embed(texts)
    for (_, _, blob), vector in zip(stored, expected, strict=True):
        assert np.allclose(np.frombuffer(blob, dtype=np.float32), vector, atol=1e-6)
    preparing.prepare(store)  # what the edits left without a vector
    close_indexes()
    index = index_for(store)
    with index.lock:
        index.refresh(store, index.current_stamps(store), None)
        assert index.vectors_missing() == 0


# -- the server ---------------------------------------------------------------------------------
@pytest.mark.slow  # a real server process
def test_a_server_makes_the_vectors_when_it_starts_and_answers_meanwhile(
    shop: MemoryStore,
) -> None:
    project = shop.layout.memories_dir.parents[1]
    meaning_query = "switches for unfinished work"
    expected = format_hits(search_memories(shop, meaning_query), meaning_query)
    close_indexes()
    for suffix in ("", "-wal", "-shm"):
        Path(str(index_path(shop)) + suffix).unlink(missing_ok=True)

    async def go() -> list[str]:
        answers = []
        async with over_stdio(["--project", str(project), "--no-dashboard"]) as client:
            for _ in range(200):
                result = await client.call_tool("search_memories", {"query": meaning_query})
                text = "\n".join(block.text for block in result.content)
                answers.append(text)
                if "still being prepared" not in text:
                    break
                await anyio.sleep(0.1)
        return answers

    answers = anyio.run(go)
    assert answers[-1] == expected
    assert all("meaning-based ranking is still being prepared" in text for text in answers[:-1])
