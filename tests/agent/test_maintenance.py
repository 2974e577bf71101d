"""The memory_maintenance memory: what the template teaches and how it is seeded."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from conftest import run_cli, write_config
from mcp_support import mem_file, ok, over_stdio, write_memory_file

from serena_memory.agent.maintenance import (
    GLOBAL_MAINTENANCE_NAME,
    MAINTENANCE_NAME,
    seed_maintenance,
    template_text,
)
from serena_memory.core import proposals as P
from serena_memory.core.references import referenced_names
from serena_memory.core.store import MemoryStore
from serena_memory.history.restore import MemoryHistory
from serena_memory.wiring import build_store


@pytest.fixture(scope="module")
def template() -> str:
    return template_text()


def test_template_teaches_the_conventions(template: str) -> None:
    lowered = template.lower()
    assert "`mem:core`" in template  # the entry point of the graph
    assert "serena memories check" in template
    assert "rename" in lowered and "references" in lowered
    assert re.search(r"rename[^.]*tool|tool[^.]*rename", lowered), "rename through the tool"
    assert "topic" in lowered
    assert "stable" in lowered and "non-obvious" in lowered  # the threshold for a memory
    assert "backtick" in lowered
    assert "global/" in template


def test_template_examples_use_the_reference_syntax(template: str) -> None:
    names = referenced_names(template)
    assert "core" in names
    assert len(names) >= 3  # shows references in use, not just describes them


def test_template_is_plain_markdown_of_reasonable_size(template: str) -> None:
    # front matter with the summary the listing shows, as onboarding asks of every memory:
    # `check` told a fresh onboarding's own seeded memory that it lacked one
    front, title = template.split("\n---\n", 1)
    assert front.startswith("---\nsummary: ") and title.startswith("# ")
    assert 40 <= len(template.splitlines()) <= 150
    assert template.endswith("\n")


def test_seeding_writes_the_template_once(store: MemoryStore, template: str) -> None:
    result = seed_maintenance(store)
    assert (result.name, result.created) == (MAINTENANCE_NAME, True)
    assert store.read(MAINTENANCE_NAME) == template
    store.write(MAINTENANCE_NAME, "customized\n")
    result = seed_maintenance(store)
    assert (result.name, result.created) == (MAINTENANCE_NAME, False)
    assert "Kept" in result.describe()
    assert store.read(MAINTENANCE_NAME) == "customized\n"


def test_global_copy_wins(store: MemoryStore, serena_home: Path) -> None:
    store.write(GLOBAL_MAINTENANCE_NAME, "team conventions\n")
    result = seed_maintenance(store)
    assert (result.name, result.created) == (GLOBAL_MAINTENANCE_NAME, False)
    assert GLOBAL_MAINTENANCE_NAME in result.describe()
    assert not store.exists(MAINTENANCE_NAME)
    assert store.read(GLOBAL_MAINTENANCE_NAME) == "team conventions\n"


def test_deleting_brings_the_template_back(store: MemoryStore, template: str) -> None:
    store.write(MAINTENANCE_NAME, "old\n")
    store.delete(MAINTENANCE_NAME)
    assert seed_maintenance(store).created
    assert store.read(MAINTENANCE_NAME) == template


# -- review mode: the seed is one of the agent's changes ------------------------------------
def _review_mode(home: Path, mode: str) -> None:
    write_config(home / "serena_config.yml", f"memory_agent_writes: {mode}\n")


@pytest.mark.slow  # a real server process
def test_onboarding_in_review_mode_proposes_the_seed_instead_of_writing_it(
    project: Path, serena_home: Path, template: str
) -> None:
    _review_mode(serena_home, "propose")
    person = build_store(project, home=serena_home)

    async def go() -> tuple[str, str, str]:
        async with over_stdio(["--project", str(project)]) as client:
            first = await ok(client, "onboarding")
            second = await ok(client, "onboarding")  # no second proposal
            return first, await ok(client, "read_memory", memory_name=MAINTENANCE_NAME), second

    first, read, second = anyio.run(go)
    assert not mem_file(project, MAINTENANCE_NAME).exists()
    assert list(MemoryHistory(person).entries()) == []
    (proposal,) = P.pending(person)[0]
    assert (proposal.memory, proposal.text) == (MAINTENANCE_NAME, template)
    assert f"proposal {proposal.id}" in first and f"proposal {proposal.id}" in second
    assert template in read  # the agent reads the conventions it proposed
    P.accept(person, proposal.id)
    assert mem_file(project, MAINTENANCE_NAME).read_text() == template


def test_an_existing_seed_is_untouched_in_review_mode(
    agent_store: MemoryStore, project: Path, serena_home: Path
) -> None:
    _review_mode(serena_home, "propose")
    write_memory_file(project, MAINTENANCE_NAME, "customized\n")
    result = seed_maintenance(agent_store)
    assert (result.created, result.proposal) == (False, None) and "Kept" in result.describe()
    assert mem_file(project, MAINTENANCE_NAME).read_text() == "customized\n"
    assert P.pending(agent_store)[0] == []


def test_read_only_mode_seeds_nothing_and_says_so_in_one_sentence(
    agent_store: MemoryStore, project: Path, serena_home: Path
) -> None:
    _review_mode(serena_home, "read-only")
    result = seed_maintenance(agent_store)
    assert not mem_file(project, MAINTENANCE_NAME).exists() and P.pending(agent_store)[0] == []
    message = result.describe()
    assert "read-only" in message and "serena memories initialize" in message
    assert "\n" not in message


def test_a_person_seeds_directly_whatever_the_agents_mode(
    store: MemoryStore, project: Path, serena_home: Path, template: str
) -> None:
    _review_mode(serena_home, "propose")
    result = run_cli("memories", "initialize", str(project))
    assert result.returncode == 0, result.stderr
    assert mem_file(project, MAINTENANCE_NAME).read_text() == template
    assert P.pending(store)[0] == []


def test_the_review_brief_carries_what_the_check_finds_duplicates_included(
    store: MemoryStore,
) -> None:
    from serena_memory.agent.review import review_brief

    steps = "".join(
        f"- Step {i}: run `make target{i}` before the deploy of part {i}.\n" for i in range(8)
    )
    store.write("core", "# Core\n\nSee mem:release, mem:shipping and mem:gone.\n")
    store.write("release", "# Release\n\n" + steps)
    store.write("shipping", "# Shipping\n\n" + steps)  # the same steps under another name
    brief = review_brief(store)
    assert "gone" in brief  # the stale reference
    assert "shipping" in brief.split("The current check report:")[1]  # the near-copy
    assert "release" in brief.split("The current check report:")[1]


def test_seeding_a_name_the_project_marks_read_only_says_so_and_writes_nothing(
    agent_store: MemoryStore, project: Path
) -> None:
    """The seed is the agent's change like any other: a read-only pattern covering it is
    honoured, and onboarding goes on with one sentence instead of failing."""
    write_config(
        project / ".serena" / "project.yml", "read_only_memory_patterns: [memory_maint.*]\n"
    )
    result = seed_maintenance(agent_store)
    assert not result.created and not mem_file(project, MAINTENANCE_NAME).exists()
    message = result.describe()
    assert message.startswith(f"'{MAINTENANCE_NAME}' was not created: ") and "\n" not in message


def test_seeding_twice_records_one_change(store: MemoryStore) -> None:
    seed_maintenance(store)
    seed_maintenance(store)
    entries = [e for e in MemoryHistory(store).entries() if MAINTENANCE_NAME in e.names()]
    assert [e.summary for e in entries] == [f"Create {MAINTENANCE_NAME}"]
