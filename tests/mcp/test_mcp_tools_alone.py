"""Each MCP tool is a plain function: imported from its module and called with a server
state, without the SDK's server or a client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_support import mem_file, text_read, write_memory_file

from serena_memory.core.errors import MemoryStoreError, NoProjectError
from serena_memory.mcp.state import ServerState, create_state


@pytest.fixture
def state(project: Path, serena_home: Path) -> ServerState:
    return create_state(project, [], home=serena_home)


def test_memory_tools_alone(state: ServerState, project: Path) -> None:
    from serena_memory.mcp.tools_memories import (
        delete_memory,
        edit_memory,
        list_memories,
        read_memory,
        rename_memory,
        write_memory,
    )

    assert write_memory(state, "auth/login", "Tokens.\n") == (
        "Memory 'auth/login' written (created, 8 characters)."
    )
    assert text_read(read_memory(state, "mem:auth/login.md")) == "Tokens.\n"
    assert "1 replacement" in edit_memory(state, "auth/login", "Tokens", "JWT", mode="literal")
    assert json.loads(list_memories(state))["memories"] == ["auth/login"]
    rename_memory(state, "auth/login", "security/login")
    assert mem_file(project, "security/login").read_text() == "JWT.\n"
    assert delete_memory(state, "security/login") == "Memory 'security/login' deleted."
    with pytest.raises(MemoryStoreError, match="not found"):
        read_memory(state, "security/login")


def test_onboarding_tools_alone(state: ServerState, project: Path, tmp_path: Path) -> None:
    from serena_memory.mcp.tools_onboarding import (
        activate_project,
        check_onboarding_performed,
        initial_instructions,
        onboarding,
    )

    assert "not been performed" in check_onboarding_performed(state)
    assert "`mem:core`" in onboarding(state)
    assert "Onboarding has not been performed" in initial_instructions(state)
    other = tmp_path / "other"
    write_memory_file(other, "core", "Other.\n")
    assert "- core" in activate_project(state, str(other))
    assert state.require_store().read("core") == "Other.\n"


def test_exploration_tools_alone(state: ServerState, project: Path) -> None:
    from serena_memory.mcp.tools_exploration import (
        find_file,
        list_dir,
        read_file,
        search_for_pattern,
    )

    (project / "README.md").write_text("# Demo\nsecond\n", encoding="utf-8")
    assert "README.md" in json.loads(list_dir(state, ".", False))["files"]
    assert json.loads(find_file(state, "*.md", "."))["files"] == ["README.md"]
    assert json.loads(search_for_pattern(state, "sec"))["README.md"] == ["2:second"]
    assert read_file(state, "README.md", 1) == "second\n"
    with pytest.raises(MemoryStoreError, match="limit"):
        read_file(state, "README.md", max_answer_chars=3)


def test_without_a_project_every_tool_says_to_activate_one(serena_home: Path) -> None:
    from serena_memory.mcp.tools_memories import read_memory

    state = create_state(None, [], home=serena_home, use_default_project=False)
    with pytest.raises(NoProjectError, match="activate_project"):
        read_memory(state, "core")


def test_each_tool_is_declared_once_with_its_docstring_as_description() -> None:
    from serena_memory.mcp.server import DECLARED_TOOLS
    from serena_memory.mcp.state import all_tool_names

    names = [declared.name for declared in DECLARED_TOOLS]
    assert sorted(names) == sorted(all_tool_names())
    for declared in DECLARED_TOOLS:
        assert declared.description and "\n" not in declared.description, declared.name
        assert declared.fn.__module__.startswith("serena_memory.mcp.tools_")
