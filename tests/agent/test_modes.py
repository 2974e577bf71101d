"""Modes: built-ins, user mode files, and the errors that stop start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.agent.modes import (
    MEMORY_TOOLS,
    ONBOARDING_TOOLS,
    ModeError,
    available_modes,
    excluded_tools,
    load_mode,
    resolve_modes,
)
from serena_memory.core.errors import ConfigError


def test_builtin_modes_take_the_memory_and_onboarding_tools_away(serena_home: Path) -> None:
    no_memories = load_mode("no-memories", serena_home)
    assert no_memories.excluded_tools == set(MEMORY_TOOLS) | set(ONBOARDING_TOOLS)
    assert load_mode("no-onboarding", serena_home).excluded_tools == set(ONBOARDING_TOOLS)
    assert no_memories.prompt and no_memories.path is None


def test_a_user_mode_file(serena_home: Path) -> None:
    write_config(
        serena_home / "modes" / "review.yml",
        "description: Reviewing only\nprompt: |\n  Do not change memories.\n"
        "excluded_tools: [write_memory, delete_memory]\nexcluded_apis: [ignored]\n",
    )
    mode = load_mode("review", serena_home)
    assert mode.description == "Reviewing only"
    assert mode.prompt == "Do not change memories."
    assert mode.excluded_tools == {"write_memory", "delete_memory"}
    assert mode.path == serena_home / "modes" / "review.yml"
    assert "review" in available_modes(serena_home)


def test_a_user_file_may_reword_a_builtin(serena_home: Path) -> None:
    write_config(
        serena_home / "modes" / "no-onboarding.yml",
        "prompt: Our team writes memories by hand.\nexcluded_tools: [onboarding]\n",
    )
    mode = load_mode("no-onboarding", serena_home)
    assert mode.prompt == "Our team writes memories by hand."
    assert mode.excluded_tools == {"onboarding"}


def test_base_modes_come_first_and_each_mode_counts_once(serena_home: Path) -> None:
    modes = resolve_modes(["no-memories", "no-onboarding"], ["no-onboarding"], serena_home)
    assert [m.name for m in modes] == ["no-onboarding", "no-memories"]
    assert "read_memory" in excluded_tools(modes)
    assert resolve_modes([], [], serena_home) == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("prompt: [unclosed\n", ["invalid YAML", "line 2"]),
        ("- a\n- b\n", ["top level must be a mapping"]),
        ("prompt: 5\n", ["'prompt'", "expected text"]),
        ("excluded_tools: read_memory\n", ["'excluded_tools'", "list of tool names"]),
        ("excluded_tools: [1, 2]\n", ["'excluded_tools'"]),
    ],
)
def test_broken_mode_files_are_named_with_the_problem(
    serena_home: Path, text: str, words: list[str]
) -> None:
    write_config(serena_home / "modes" / "bad.yml", text)
    with pytest.raises(ModeError) as info:
        load_mode("bad", serena_home)
    message = str(info.value)
    assert str(serena_home / "modes" / "bad.yml") in message
    for word in words:
        assert word in message


def test_undecodable_mode_file(serena_home: Path) -> None:
    path = serena_home / "modes" / "latin.yml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"prompt: caf\xe9\n")
    with pytest.raises(ModeError, match="not valid UTF-8"):
        load_mode("latin", serena_home)


def test_unknown_and_invalid_names(serena_home: Path) -> None:
    with pytest.raises(ModeError) as info:
        load_mode("plannig", serena_home)
    assert "unknown mode 'plannig'" in str(info.value)
    assert "no-memories" in str(info.value) and "no-onboarding" in str(info.value)
    for bad in ["../evil", "", "a/b", " spaced"]:
        with pytest.raises(ModeError, match="not valid"):
            load_mode(bad, serena_home)
    assert issubclass(ModeError, ConfigError)
