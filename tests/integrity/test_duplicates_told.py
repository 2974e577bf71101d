"""Told at write time: a write that nearly repeats or contradicts another memory is kept,
and its answer (the MCP tool's, the command line's) names the other memory in one
sentence. Real files, the real MCP server over its in-memory transport, the command line
in-process."""

from __future__ import annotations

from pathlib import Path

import anyio
from click.testing import CliRunner
from mcp_support import in_memory, ok, write_memory_file
from test_duplicates import DEPLOY

from serena_memory.cli import cli
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates.write_comparison import write_note

NEAR_COPY = "\n".join(reversed(DEPLOY.splitlines()[2:])) + "\n# Shipping\n"
CONFLICT = (
    "# Ops\n\nSome notes first.\n\nHealth checks hit `/healthz` on port 9090 every ten seconds.\n"
)


def test_the_note_names_the_memory_repeated_or_contradicted(store: MemoryStore) -> None:
    store.write("ops/deploy", DEPLOY)
    store.write("ops/health", CONFLICT)
    note = write_note(store, "ops/health", CONFLICT)
    assert "Its line 5 contradicts memory 'ops/deploy' line 6" in note
    assert "`9090` here, `8080` there" in note
    store.write("notes/shipping", NEAR_COPY)
    note = write_note(store, "notes/shipping", NEAR_COPY)
    assert note.startswith(" It nearly repeats memory 'ops/deploy'")
    assert "edit that memory instead" in note
    assert write_note(store, "ops/deploy-2", "# Other\n\nNothing alike at all.\n") == ""


def test_a_note_never_fails_a_write(store: MemoryStore, serena_home: Path) -> None:
    store.write("ops/deploy", DEPLOY)
    (serena_home / "cache").mkdir(exist_ok=True)
    (serena_home / "cache" / "duplicates").write_text("a file where the folder goes")
    store.write("notes/shipping", NEAR_COPY)
    assert "ops/deploy" in write_note(store, "notes/shipping", NEAR_COPY)  # no cache


def test_write_memory_answers_with_the_other_memory(project: Path) -> None:
    write_memory_file(project, "ops/deploy", DEPLOY)

    async def go() -> tuple[str, str, str]:
        async with in_memory(project) as client:
            clash = await ok(client, "write_memory", memory_name="ops/health", content=CONFLICT)
            copy = await ok(client, "write_memory", memory_name="notes/shipping", content=NEAR_COPY)
            plain = await ok(client, "write_memory", memory_name="misc", content="Just a line.\n")
            return copy, clash, plain

    copy, clash, plain = anyio.run(go)
    assert copy.startswith("Memory 'notes/shipping' written (created, ")
    assert "It nearly repeats memory 'ops/deploy'" in copy
    assert "contradicts memory 'ops/deploy' line 6" in clash
    assert plain == "Memory 'misc' written (created, 13 characters)."
    assert (project / ".serena" / "memories" / "notes" / "shipping.md").read_text() == NEAR_COPY


def test_memories_write_says_it_on_stderr(project: Path) -> None:
    write_memory_file(project, "ops/deploy", DEPLOY)
    result = CliRunner().invoke(
        cli, ["memories", "write", "ops/health", str(project), "-c", CONFLICT], prog_name="serena"
    )
    assert result.exit_code == 0
    assert "Created memory 'ops/health'" in result.stdout
    assert "contradicts memory 'ops/deploy' line 6" in result.stderr
    assert (project / ".serena" / "memories" / "ops" / "health.md").read_text() == CONFLICT


def test_a_damaged_cache_row_is_never_trusted_by_a_write(store: MemoryStore) -> None:
    import sqlite3

    from serena_memory.integrity.duplicates import features_cache as DC

    store.write("ops/deploy", DEPLOY)
    DC.check_duplicates(store)  # the cache a check makes
    conn = sqlite3.connect(DC.cache_path(store))
    conn.execute("UPDATE memo SET lines = X'010203', keys = 'text, not a blob'")
    conn.commit()
    conn.close()
    store.write("ops/health", CONFLICT)
    note = write_note(store, "ops/health", CONFLICT)
    assert "contradicts memory 'ops/deploy' line 6" in note  # read again from its file


def test_a_write_after_a_check_sees_the_memories_written_since(store: MemoryStore) -> None:
    from serena_memory.integrity.duplicates import features_cache as DC

    store.write("notes/other", "# Other\n\nNothing alike at all, in three lines.\n\nOne more.\n")
    DC.check_duplicates(store)  # the joined features of the check: without ops/deploy
    store.write("ops/deploy", DEPLOY)
    assert write_note(store, "ops/deploy", DEPLOY) == ""
    store.write("ops/health", CONFLICT)
    note = write_note(store, "ops/health", CONFLICT)
    assert "contradicts memory 'ops/deploy' line 6" in note  # its row, written since
    store.delete("ops/deploy")
    DC.check_duplicates(store)  # joined again, without the memory deleted
    store.write("ops/health", CONFLICT + "\nAnd a line more.\n")
    assert write_note(store, "ops/health", CONFLICT + "\nAnd a line more.\n") == ""


def test_a_damaged_index_is_never_trusted_by_a_write(store: MemoryStore) -> None:
    import sqlite3

    from serena_memory.integrity.duplicates import features_cache as DC

    store.write("ops/deploy", DEPLOY)
    DC.check_duplicates(store)
    damages = (
        "UPDATE posting SET id = id + 1000",  # postings of rows that are not there
        "UPDATE meta SET value = 'many' WHERE key = 'memories'",
        "DROP TABLE df",
    )
    for damage in damages:
        conn = sqlite3.connect(DC.cache_path(store))
        conn.execute(damage)
        conn.commit()
        conn.close()
        store.write("ops/health", CONFLICT)
        assert write_note(store, "ops/health", CONFLICT) == ""  # nothing false, no error
    DC.check_duplicates(store)  # the cache made again
    store.write("ops/health", CONFLICT)
    note = write_note(store, "ops/health", CONFLICT)
    assert "contradicts memory 'ops/deploy' line 6" in note
