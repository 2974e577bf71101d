"""The verbs (core/verbs.py): one change planned once, applied or proposed by the access
policy, its outcome typed and carrying the notes of the advisors the store was built with."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from proposing import propose_write

from serena_memory.core import proposals, verbs
from serena_memory.core.advice import Advisors
from serena_memory.core.errors import MemoryExistsError, MemoryNotFoundError
from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store


def _reviewed(serena_home: Path) -> None:
    (serena_home / "serena_config.yml").write_text("memory_agent_writes: propose\n")


def test_the_advisors_a_store_is_given_are_what_a_change_is_told(
    project: Path, serena_home: Path
) -> None:
    said: list[tuple[str, str]] = []

    def near_copy(store: MemoryStore, name: str, text: str) -> str:
        said.append((name, text))
        return f"'{name}' repeats 'core'."

    def broken(store: MemoryStore, name: str, text: str) -> str:
        raise OSError("no disk")

    def stale(store: MemoryStore, name: str) -> str:
        return f"1 memory still refers to {name}"

    advisors = Advisors(after_write=(broken, near_copy), after_delete=(stale,))
    store = MemoryStore(project, home=serena_home, advisors=advisors)
    written = verbs.write(store, "Notes", "# Notes\n")
    assert isinstance(written, verbs.Applied)
    assert written.change.memory == "Notes" and written.created
    # the failing advisor says nothing and fails nothing; the other one is heard
    assert written.notes == ("'Notes' repeats 'core'.",)
    assert said == [("Notes", "# Notes\n")]
    deleted = verbs.delete(store, "Notes")
    assert isinstance(deleted, verbs.Applied)
    assert deleted.notes == ("1 memory still refers to Notes",)
    # a store built without advisors tells nothing
    bare = MemoryStore(project, home=serena_home)
    outcome = verbs.write(bare, "big", "x" * 5000)
    assert isinstance(outcome, verbs.Applied) and outcome.notes == ()


def test_an_edit_is_told_what_a_write_of_its_new_text_is_told(
    project: Path, serena_home: Path
) -> None:
    said: list[tuple[str, str]] = []

    def near_copy(store: MemoryStore, name: str, text: str) -> str:
        said.append((name, text))
        return f"'{name}' now repeats 'core'."

    store = MemoryStore(project, home=serena_home, advisors=Advisors(after_write=(near_copy,)))
    verbs.write(store, "notes", "# Notes\n\nport 8080\n")
    said.clear()
    edited = verbs.edit(store, "notes", lambda text: (text.replace("8080", "8081"), 1))
    assert isinstance(edited, verbs.Applied)
    assert edited.notes == ("'notes' now repeats 'core'.",)
    assert said == [("notes", "# Notes\n\nport 8081\n")]
    # an edit that changed nothing is told nothing
    unchanged = verbs.edit(store, "notes", lambda text: (text, 0))
    assert isinstance(unchanged, verbs.Applied) and unchanged.notes == ()


def test_the_agent_in_review_mode_gets_proposals_and_the_person_changes(
    project: Path, serena_home: Path
) -> None:
    _reviewed(serena_home)
    person = build_store(project, home=serena_home)
    person.write("core", "# Core\n\nUse uv.\n")
    person.write("old", "# Old\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    kinds = {
        "write": verbs.write(agent, "notes", "# Notes\n"),
        "edit": verbs.edit(agent, "core", lambda t: (t.replace("uv", "pip"), 1)),
        "rename": verbs.rename(agent, "old", "older"),
        "delete": verbs.delete(agent, "notes"),  # only proposed: withdrawn
    }
    assert all(isinstance(o, verbs.Proposed) for o in kinds.values())
    assert [p.action for p in proposals.pending(agent)[0]] == ["edit", "rename"]
    withdrawn = kinds["delete"]
    assert isinstance(withdrawn, verbs.Proposed) and withdrawn.withdrawn
    assert (project / ".serena" / "memories" / "core.md").read_text() == "# Core\n\nUse uv.\n"
    edit = kinds["edit"]
    assert isinstance(edit, verbs.Proposed) and edit.replacements == 1
    # the same verbs of a person apply at once
    applied = verbs.edit(person, "core", lambda t: (t.replace("uv", "hatch"), 1))
    assert isinstance(applied, verbs.Applied) and applied.change.replacements == 1
    assert "hatch" in person.read("core")


def test_a_rename_onto_a_taken_name_is_the_same_error_applied_or_proposed(
    project: Path, serena_home: Path
) -> None:
    person = build_store(project, home=serena_home)
    person.write("a", "# A\n")
    person.write("b", "# B\n")
    with pytest.raises(MemoryExistsError) as applied:
        verbs.rename(person, "a", "b")
    _reviewed(serena_home)
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    with pytest.raises(MemoryExistsError) as proposed:
        verbs.rename(agent, "a", "b")
    assert (
        str(applied.value)
        == str(proposed.value)
        == ("memory 'b' already exists; delete or rename it first")
    )
    assert proposals.pending(agent) == ([], [])


def test_accepting_applies_the_saved_change_as_the_person(project: Path, serena_home: Path) -> None:
    _reviewed(serena_home)
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    proposal = propose_write(agent, "notes", "# Notes\n")
    person = build_store(project, home=serena_home)
    proposals.accept(person, proposal.id)
    assert person.read("notes") == "# Notes\n"
    assert proposals.pending(person) == ([], [])


def test_the_command_line_tells_a_memory_past_the_size_budget(
    project: Path, serena_home: Path
) -> None:
    done = run_cli("memories", "write", "big", "-p", str(project), "-c", "word " * 1000)
    assert "longer than the 4,000 characters a memory should stay under" in done.stderr
    small = run_cli("memories", "write", "small", "-p", str(project), "-c", "# Small\n")
    assert small.stderr == ""


def test_a_delete_withdraws_only_a_proposal_that_creates_the_memory(
    project: Path, serena_home: Path
) -> None:
    _reviewed(serena_home)
    person = build_store(project, home=serena_home)
    person.write("old", "# Old\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    edit = verbs.edit(agent, "old", lambda t: (t + "More.\n", 1))
    assert isinstance(edit, verbs.Proposed) and edit.proposal is not None
    (project / ".serena" / "memories" / "old.md").unlink()  # a person removed it by hand
    # the pending edit is the person's to reject: it is not "a proposal to create" withdrawn
    with pytest.raises(MemoryNotFoundError):
        verbs.delete(agent, "old")
    assert [p.id for p in proposals.pending(agent)[0]] == [edit.proposal.id]
    created = verbs.write(agent, "notes", "# Notes\n")
    gone = verbs.delete(agent, "notes")
    assert isinstance(created, verbs.Proposed) and isinstance(gone, verbs.Proposed)
    assert gone.withdrawn and gone.proposal is None
    assert [p.memory for p in proposals.pending(agent)[0]] == ["old"]
