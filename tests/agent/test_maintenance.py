"""The memory_maintenance memory: what the template teaches and how it is seeded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serena_memory.agent.maintenance import (
    GLOBAL_MAINTENANCE_NAME,
    MAINTENANCE_NAME,
    seed_maintenance,
    template_text,
)
from serena_memory.core.references import referenced_names
from serena_memory.core.store import MemoryStore


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
    assert template.startswith("# ")
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
