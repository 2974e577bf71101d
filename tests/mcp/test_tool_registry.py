"""The tool registry: every MCP tool once, with its group; the server, the modes and every
text the agent reads name only tools that exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.agent import tools as T
from serena_memory.agent.listing import listing_answer
from serena_memory.agent.modes import BUILTIN_MODES
from serena_memory.agent.onboarding import activation_message, onboarding_status, run_onboarding
from serena_memory.agent.review import review_brief
from serena_memory.core.errors import MemoryStoreError, NoProjectError, Remedy
from serena_memory.mcp.errors import agent_wording
from serena_memory.mcp.state import create_state
from serena_memory.mcp.tool_declaration import ToolDeclaration
from serena_memory.wiring import build_store

# A tool named in a text: `read_memory`, `list_memories(topic="x")`, or "the read_memory tool".
_NAMED = re.compile(r"`([a-z][a-z_]*)(?:\([^`]*\))?`|\bthe ([a-z][a-z_]*) tool\b")


def tools_named_in(text: str) -> set[str]:
    return {a or b for a, b in _NAMED.findall(text)}


def test_each_tool_is_registered_once_and_declared_once_with_its_group() -> None:
    from serena_memory.mcp.server import DECLARED_TOOLS

    assert len(T.BY_NAME) == len(T.REGISTRY)
    assert [d.name for d in DECLARED_TOOLS] == [
        t.name for g in _declared_group_order(DECLARED_TOOLS) for t in T.REGISTRY if t.group == g
    ]
    for declared in DECLARED_TOOLS:
        assert T.BY_NAME[declared.name].group == declared.group
        assert declared.title == T.BY_NAME[declared.name].title
    assert {d.name for d in DECLARED_TOOLS} == set(T.all_names())
    assert set().union(*(set(T.names_in(g)) for g in T.Group)) == set(T.all_names())


def _declared_group_order(declared: tuple[ToolDeclaration, ...]) -> list[T.Group]:
    order: list[T.Group] = []
    for d in declared:
        if d.group not in order:
            order.append(d.group)
    return order


def test_a_declaration_whose_function_has_another_name_is_refused() -> None:
    def read_memorys(state: object) -> str:
        return ""

    with pytest.raises(ValueError, match="read_memory"):
        ToolDeclaration(T.READ_MEMORY, read_memorys, read_only=True)


def test_the_modes_switch_off_registered_tools_by_group() -> None:
    for mode in BUILTIN_MODES.values():
        assert mode.excluded_tools <= set(T.all_names()), mode.name
    assert BUILTIN_MODES["no-memories"].excluded_tools == set(
        T.names_in(T.Group.MEMORY, T.Group.SEARCH, T.Group.HISTORY, T.Group.ONBOARDING)
    )
    assert BUILTIN_MODES["no-onboarding"].excluded_tools == set(T.names_in(T.Group.ONBOARDING))


def _texts_the_agent_reads(project: Path, serena_home: Path) -> dict[str, str]:
    """Every kind of text that tells the agent which tool to call, in its various states."""
    texts: dict[str, str] = {}
    nobody = create_state(None, [], home=serena_home, use_default_project=False)
    texts["instructions without a project"] = nobody.instructions()
    with pytest.raises(NoProjectError) as no_project:
        nobody.require_store()
    texts["no project error"] = str(no_project.value)

    store = build_store(project, home=serena_home)
    texts["activation, empty"] = activation_message(store)
    texts["status, nothing written"] = onboarding_status(store).describe()
    texts["onboarding brief"] = run_onboarding(store)
    store.write("core", "The entry point.\n")
    texts["status, incomplete"] = onboarding_status(store).describe()
    texts["onboarding brief, again"] = run_onboarding(store)
    for i in range(400):  # more names than a listing budget of 500 tokens holds
        note = project / ".serena" / "memories" / f"topic{i % 4}" / f"a_rather_long_note_{i}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text("Text.\n", encoding="utf-8")
    write_config(project / ".serena" / "project.yml", "memory_listing_budget: 500\n")
    store = build_store(project, home=serena_home)
    texts["activation, over the budget"] = activation_message(store)
    texts["listing, over the budget"] = json.loads(listing_answer(store))["note"]
    with pytest.raises(MemoryStoreError) as no_topic:
        listing_answer(store, "nothing")
    texts["no such topic"] = str(no_topic.value)
    texts["review brief"] = review_brief(store)
    for operation in ("history", "list", "conflicts"):
        texts[f"remedy {operation}"] = agent_wording(Remedy(operation, "core"))
    return texts


def test_every_tool_the_agent_is_told_about_is_registered(project: Path, serena_home: Path) -> None:
    texts = _texts_the_agent_reads(project, serena_home)
    named: set[str] = set()
    for label, text in texts.items():
        found = tools_named_in(text)
        assert found <= set(T.all_names()), (label, found - set(T.all_names()), text)
        named |= found
    # the texts above do name tools, so the check is not vacuous
    for tool in (T.ONBOARDING, T.WRITE_MEMORY, T.READ_MEMORY, T.LIST_MEMORIES, T.LIST_DIR):
        assert tool.name in named
    assert {T.SEARCH_MEMORIES.name, T.ACTIVATE_PROJECT.name, T.MEMORY_HISTORY.name} <= named
    assert {T.CHECK_ONBOARDING_PERFORMED.name, T.RENAME_MEMORY.name} <= named


def test_a_misspelt_tool_in_a_text_is_caught() -> None:
    assert tools_named_in('call `read_memorys` then `list_memories(topic="a")`') == {
        "read_memorys",
        "list_memories",
    }
    assert tools_named_in("use the memory_history tool; read `mem:core`") == {"memory_history"}
