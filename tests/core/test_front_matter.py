"""A memory's optional front matter: read safely and bounded, written back keeping every
other key and the body byte for byte; a memory without one is all body."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import anyio
from conftest import run_cli
from hypothesis import given
from hypothesis import strategies as st
from mcp_support import ok, over_stdio

from serena_memory.core.front_matter import (
    BLOCK_NOT_READ,
    MAX_FRONT_MATTER_CHARS,
    block_problem,
    parse,
    with_keys,
)
from serena_memory.core.lifecycle import of_text
from serena_memory.wiring import build_store

TEXT = "---\nsummary: How login works\nowner: team-auth\ntags: [a, b]\n---\n# Login\r\n\tbody \n"


def test_keys_are_read_and_summary_wins_over_description() -> None:
    found = parse(TEXT)
    assert found.summary == "How login works" and found.keys["owner"] == "team-auth"
    assert found.body == "# Login\r\n\tbody \n" and found.block + found.body == TEXT
    assert parse("---\ndescription: Other name\n---\nx").summary == "Other name"
    both = "---\ndescription: second\nsummary: first\n---\n"
    assert parse(both).summary == "first"


def test_writing_keys_back_keeps_the_others_and_the_body_byte_for_byte() -> None:
    changed = with_keys(TEXT, {"status": "deprecated", "summary": None})
    found = parse(changed)
    assert found.body == parse(TEXT).body
    assert found.keys == {"owner": "team-auth", "tags": ["a", "b"], "status": "deprecated"}
    assert with_keys("# plain\n", {"summary": "s"}) == "---\nsummary: s\n---\n# plain\n"
    assert with_keys("---\nsummary: s\n---\n# plain\n", {"summary": None}) == "# plain\n"
    assert with_keys(TEXT, {}) == TEXT


@given(st.text(max_size=200))
def test_any_body_survives_a_write_back(body: str) -> None:
    text = with_keys(body if not body.startswith("---") else "x" + body, {"summary": "s"})
    assert parse(text).body == (body if not body.startswith("---") else "x" + body)


def test_what_is_no_front_matter_is_all_body() -> None:
    for text in (
        "# No block\n",
        "---\njust a rule and text\n---\n",  # YAML, but no mapping
        "---\nunclosed: yes\n",
        "---\na: &x [1, 2]\nb: *x\n---\n",  # an alias is never expanded
        "---\n" + "k: v\n" * (MAX_FRONT_MATTER_CHARS // 4) + "---\n",  # too long
        "---\n: [\n---\n",  # not YAML
    ):
        found = parse(text)
        assert not found.present and found.body == text, text


def test_the_lifecycle_keys() -> None:
    state = of_text("---\nstatus: Deprecated\nsuperseded_by: mem:auth/new.md\n---\n")
    assert state.deprecated and state.successor == "auth/new"
    stale = of_text("---\nstale_after: 2026-01-31\n---\n")
    assert stale.stale(dt.date(2026, 2, 1)) and not stale.stale(dt.date(2026, 1, 31))
    assert of_text("---\nstatus: archived\n---\n").current()  # an unknown status is none


def test_a_writer_is_told_at_once_when_its_block_is_not_read(
    project: Path, serena_home: Path
) -> None:
    """`summary: Entry point: what it holds` is no YAML: the listing would show no summary
    and nobody would know why. The agent's write and edit, and the person's, say so."""
    broken = "---\nsummary: Entry point: what it holds\n---\n# core\n"
    fixed = '---\nsummary: "Entry point: what it holds"\n---\n# core\n'

    async def go() -> tuple[str, str, str]:
        async with over_stdio(["--project", str(project)]) as client:
            wrote = await ok(client, "write_memory", memory_name="core", content=broken)
            edited = await ok(
                client,
                "edit_memory",
                memory_name="core",
                needle="# core",
                repl="# Core",
                mode="literal",
            )
            again = await ok(client, "write_memory", memory_name="core", content=fixed)
            return wrote, edited, again

    wrote, edited, again = anyio.run(go)
    assert BLOCK_NOT_READ in wrote and BLOCK_NOT_READ in edited
    assert BLOCK_NOT_READ not in again
    assert parse(build_store(project, home=serena_home).read("core")).summary == (
        "Entry point: what it holds"
    )
    person = run_cli("memories", "write", "notes", "--content", broken, "-p", str(project))
    assert person.returncode == 0 and BLOCK_NOT_READ in person.stderr
    assert block_problem("# no block\n") == "" and block_problem(fixed) == ""
