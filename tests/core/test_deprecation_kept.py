"""A memory a person deprecated stays deprecated whatever an agent writes to it: the
agent's write or edit keeps its `status` and `superseded_by`, its text goes below them,
and the agent is told where what is current belongs; a person may change the status."""

from __future__ import annotations

from pathlib import Path

from conftest import write_config
from proposing import propose_write

from serena_memory.core.lifecycle import of_text
from serena_memory.core.store import MemoryStore
from serena_memory.mcp.state import create_state
from serena_memory.mcp.tools_memories import edit_memory, write_memory

OLD = (
    "---\nsummary: The first login\nstatus: deprecated\nsuperseded_by: mem:auth/login\n---\n"
    "# Old login\n\nTokens live in the cookie.\n"
)
NEW_BODY = "# Old login\n\nTokens live in the session table now.\n"


def test_an_agent_rewriting_a_deprecated_memory_keeps_its_deprecation(
    store: MemoryStore, agent_store: MemoryStore
) -> None:
    store.write("auth/login", "# Login\n")
    store.write("auth/old", OLD)
    result = agent_store.write("auth/old", NEW_BODY)  # the whole text, no front matter
    text = store.read("auth/old")
    state = of_text(text)
    assert state.deprecated and state.successor == "auth/login"
    assert text.endswith(NEW_BODY)  # the agent's text, below the deprecation
    assert "mem:auth/login" in result.note
    # a person (the command line, the dashboard) may change the status
    store.write("auth/old", NEW_BODY)
    assert store.read("auth/old") == NEW_BODY


def test_an_agent_can_not_undeprecate_but_its_other_keys_are_kept(
    store: MemoryStore, agent_store: MemoryStore
) -> None:
    store.write("auth/login", "# Login\n")
    store.write("auth/old", OLD)
    given = "---\nsummary: Sessions\nstatus: stable\nsuperseded_by: mem:elsewhere\n---\n" + NEW_BODY
    agent_store.write("auth/old", given)
    text = store.read("auth/old")
    assert of_text(text).deprecated and of_text(text).successor == "auth/login"
    assert "summary: Sessions" in text and text.endswith(NEW_BODY)
    # renaming the successor still points the deprecation at it (a reference fix)
    agent_store.rename("auth/login", "auth/sessions")
    assert of_text(store.read("auth/old")).successor == "auth/sessions"


def test_an_agent_edit_of_the_status_is_undone_and_of_the_body_kept(
    store: MemoryStore, agent_store: MemoryStore
) -> None:
    store.write("auth/old", OLD)
    result = agent_store.edit("auth/old", "status: deprecated", "status: stable")
    assert result.note and store.read("auth/old") == OLD
    agent_store.edit("auth/old", "the cookie", "the session table")
    assert store.read("auth/old") == OLD.replace("the cookie", "the session table")
    store.edit("auth/old", "status: deprecated\n", "")  # a person's edit: taken as is
    assert not of_text(store.read("auth/old")).deprecated


def test_the_agent_is_told_where_what_is_current_belongs(
    project: Path, serena_home: Path, store: MemoryStore
) -> None:
    store.write("auth/login", "# Login\n")
    store.write("auth/old", OLD)
    state = create_state(project, [], home=serena_home)
    told = write_memory(state, "auth/old", NEW_BODY)
    assert "stays deprecated" in told and "`mem:auth/login`" in told
    told = edit_memory(state, "auth/old", "status: deprecated", "status: draft", mode="literal")
    assert "stays deprecated" in told
    assert of_text(store.read("auth/old")).deprecated


def test_a_proposal_in_review_mode_keeps_the_deprecation(
    project: Path, serena_home: Path, store: MemoryStore, agent_store: MemoryStore
) -> None:
    write_config(project / ".serena" / "project.yml", "memory_agent_writes: propose\n")
    store.write("auth/old", OLD)
    proposal = propose_write(agent_store, "auth/old", NEW_BODY)
    assert of_text(proposal.text or "").deprecated
    assert (proposal.text or "").endswith(NEW_BODY)
