"""MemoryStore.write_if_unchanged: the check-and-write the dashboard's "no lost work" uses."""

from __future__ import annotations

import threading

import pytest
from conftest import write_config

from serena_memory.core.errors import MemoryChangedError, ReadOnlyMemoryError
from serena_memory.core.store import Context, MemoryStore, version_of
from serena_memory.wiring import build_store


def test_save_with_the_version_read_succeeds(store: MemoryStore) -> None:
    store.write("notes", "first")
    base = version_of(store.read("notes"))
    result = store.write_if_unchanged("notes", "second", base)
    assert store.read("notes") == "second"
    assert not result.created


def test_save_after_someone_else_changed_it_is_refused_and_shows_theirs(
    store: MemoryStore,
) -> None:
    store.write("notes", "first")
    base = version_of(store.read("notes"))
    store.write("notes", "the agent's change")
    with pytest.raises(MemoryChangedError) as info:
        store.write_if_unchanged("notes", "my change", base)
    assert store.read("notes") == "the agent's change"
    assert info.value.current == "the agent's change"
    assert info.value.current_version == version_of("the agent's change")
    assert "changed since it was read" in str(info.value)


def test_create_refuses_to_overwrite_and_save_notices_deletion(store: MemoryStore) -> None:
    store.write_if_unchanged("new/one", "hello", None)
    assert store.read("new/one") == "hello"
    with pytest.raises(MemoryChangedError, match="already exists"):
        store.write_if_unchanged("new/one", "again", None)
    base = version_of("hello")
    store.delete("new/one")
    with pytest.raises(MemoryChangedError, match="was deleted") as info:
        store.write_if_unchanged("new/one", "edited", base)
    assert info.value.current is None


def test_read_only_is_enforced_in_agent_context(project, serena_home) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['locked']\n")
    build_store(project, home=serena_home).write("locked", "x")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    with pytest.raises(ReadOnlyMemoryError):
        agent.write_if_unchanged("locked", "y", version_of("x"))


def test_concurrent_saves_from_one_base_let_exactly_one_win(store: MemoryStore) -> None:
    store.write("race", "base")
    base = version_of("base")
    outcomes: list[str] = []

    def save(text: str) -> None:
        try:
            store.write_if_unchanged("race", text, base)
            outcomes.append("saved")
        except MemoryChangedError:
            outcomes.append("refused")

    threads = [threading.Thread(target=save, args=(f"tab {i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused"] * 7 + ["saved"]
    assert store.read("race").startswith("tab ")
