"""Creating several memories as one history entry, never over an existing one."""

from __future__ import annotations

import pytest

from serena_memory.core.errors import InvalidNameError
from serena_memory.core.store import MemoryStore


def test_creates_the_absent_ones_as_one_entry_and_leaves_the_rest(store: MemoryStore) -> None:
    store.write("kept", "mine\n")
    before = len(store.history().entries())
    created = store.create_many({"kept": "theirs\n", "a": "A\n", "t/b": "B\n"}, "Import x")
    assert sorted(created) == ["a", "t/b"]
    assert store.read("kept") == "mine\n"
    entries = store.history().entries()
    assert len(entries) == before + 1
    assert entries[0].summary == "Import x"
    assert sorted(entries[0].names()) == ["a", "t/b"]


def test_a_bad_name_refuses_the_whole_batch(store: MemoryStore) -> None:
    with pytest.raises(InvalidNameError):
        store.create_many({"ok": "x", "../escape": "y"}, "Import")
    assert not store.exists("ok")
