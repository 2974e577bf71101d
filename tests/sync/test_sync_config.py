"""Sync settings: read from the person's own configuration only, checked like every other
key, and written back without disturbing the rest of the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.core.config import load_sync_config, set_global_key
from serena_memory.core.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("memory_sync: sometimes\n", "expected manual or auto"),
        ("memory_sync_remote: 3\n", "expected the URL of a git repository"),
        ("memory_sync_project_remotes: [a, b]\n", "expected a mapping of project folders"),
        ("memory_sync_team_topic: a/b\n", "expected one topic name"),
        ("memory_sync_team_writable: maybe\n", "expected true or false"),
    ],
)
def test_wrong_sync_settings_are_one_clear_error(serena_home: Path, text: str, words: str) -> None:
    write_config(serena_home / "serena_config.yml", text)
    with pytest.raises(ConfigError, match=words):
        load_sync_config(serena_home)


def test_a_file_that_can_not_be_edited_safely_is_left_alone(serena_home: Path) -> None:
    config = serena_home / "serena_config.yml"
    original = "memory_history: true\nmemory_history: false\n"  # a key written twice
    config.write_text(original)
    with pytest.raises(ConfigError, match="add `memory_sync_remote: /r.git` to it by hand"):
        set_global_key(serena_home, "memory_sync_remote", "/r.git")
    assert config.read_text() == original


def test_keys_are_replaced_in_place_and_nested_values_kept(serena_home: Path) -> None:
    config = serena_home / "serena_config.yml"
    config.write_text(
        "memory_sync_project_remotes:\n  /a: /a.git\n\n# trailing comment\nmemory_history: true\n"
    )
    set_global_key(serena_home, "memory_sync_project_remotes", {"/a": "/a.git", "/b": "/b.git"})
    # the new entry goes above the last one, so the comment below stays where it was
    assert config.read_text() == (
        "memory_sync_project_remotes:\n  /b: /b.git\n  /a: /a.git\n\n# trailing comment\n"
        "memory_history: true\n"
    )
    assert load_sync_config(serena_home).project_remotes["/b"] == "/b.git"
