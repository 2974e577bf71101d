"""Search that says no: a query of common words that no memory of a small folder is
specific to is answered so, with the two closest names only, and the same yes or no
whether the meaning side is ready or still being prepared."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from serena_memory.core.store import MemoryStore
from serena_memory.search import preparing
from serena_memory.search.database import close_indexes, index_for, index_path
from serena_memory.search.hits import format_hits
from serena_memory.search.index import SearchResults, search_memories

SIX = {
    "core": "# Core\nA command-line tool that converts CSV files to Parquet. Entry point "
    "`src/conv/cli.py`;\nthe reader streams each file in chunks, the writer batches rows "
    "by column.\nSee `mem:conventions` for style and `mem:task_completion` for what to run "
    "before a commit.\n",
    "conventions": "# Conventions\n- Type hints everywhere; docstrings say why, not what.\n"
    "- One module per concept; a test module next to each in `tests/`.\n"
    "- Errors are one sentence that says what to do.\n",
    "task_completion": "# When a task is done\n1. `ruff check . && ruff format .`\n"
    "2. `mypy src`\n3. Run the whole test suite: `pytest`. It must pass before a commit.\n",
    "architecture": "# Architecture\n`reader` streams a CSV file in chunks of 64k rows; "
    "`schema` infers column types from the\nfirst chunk; `writer` writes Parquet row "
    "groups. The CLI wires them together.\n",
    "decisions": "# Decisions\n- Parquet via pyarrow, not fastparquet: better type "
    "coverage.\n- No pandas: memory use on large files was ten times the file size.\n",
    "release": "# Release\nBump the version in `pyproject.toml`, tag `vX.Y.Z`, and CI "
    "publishes to PyPI once the\ntest matrix is green.\n",
}


ANSWERED = (
    ("why not pandas", "decisions"),
    ("how are column types inferred", "architecture"),
    ("publish a new version", "release"),
)


@pytest.fixture
def six(store: MemoryStore) -> MemoryStore:
    store.layout.memories_dir.mkdir(parents=True, exist_ok=True)
    for name, text in SIX.items():
        (store.layout.memories_dir / f"{name}.md").write_text(text, encoding="utf-8")
    return store


def _words_then_hybrid(store: MemoryStore, query: str) -> tuple[SearchResults, SearchResults]:
    """The answer of a server whose vectors are still being made, then once they are."""
    close_indexes()
    for suffix in ("", "-wal", "-shm"):
        Path(str(index_path(store)) + suffix).unlink(missing_ok=True)
    index = index_for(store)
    gate = threading.Event()
    build = threading.Thread(target=gate.wait)  # a server's build, not done yet
    build.start()
    preparing._builds().by_index[index.key] = build
    try:
        early = search_memories(store, query)
    finally:
        gate.set()
        build.join()
        del preparing._builds().by_index[index.key]
    preparing.prepare(store)
    return early, search_memories(store, query)


@pytest.mark.parametrize(
    "query", ["run a single test file quickly", "kubernetes", "football results from saturday"]
)
def test_common_words_get_no_and_two_names_at_most_however_ready_the_meaning(
    six: MemoryStore, query: str
) -> None:
    early, hybrid = _words_then_hybrid(six, query)
    assert early.preparing and not hybrid.preparing  # ranked by words, then by both
    for answer in (early, hybrid):
        told = format_hits(answer, query)
        # "No memory matches" when none comes close by its words or its meaning either
        assert told.startswith((f"No memory is specific to '{query}'", "No memory matches")), told
        if query.startswith("run"):  # words several memories hold: the closest two named
            assert told.startswith(f"No memory is specific to '{query}'; the closest: `"), told
        assert len(answer) <= 2 and answer.unspecific
        assert answer.to_dict()["specific"] is False
        assert "\n" not in told.split("(Ranked")[0].strip()  # names only: no lines shown
    # in the same folder, a query one memory answers still ranks it first, with its lines
    for asked, first in ANSWERED:
        for answer in _words_then_hybrid(six, asked):
            assert answer[0].name == first and answer[0].lines
            assert not format_hits(answer, asked).startswith("No memory")
