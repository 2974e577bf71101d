"""One change reads what it needs once and hands it on: the sync settings of its
snapshot reach its access rules and its history entry, the global file is read once per
load of the settings, and a listing sorts every memory out with the patterns looked up
once. Real files, a store with its history."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.core import config, operation, paths
from serena_memory.core.config import load_settings
from serena_memory.core.store import MemoryStore


def _counting(monkeypatch: pytest.MonkeyPatch, where: str, real: object) -> list[int]:
    calls: list[int] = []

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[operator]

    monkeypatch.setattr(where, counted)
    return calls


def test_a_change_reads_the_sync_settings_once(
    store: MemoryStore, serena_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The team's topic decides both who may write a memory and which history skips it:
    one change reads it once, with the rest of its snapshot's settings, for both."""
    write_config(
        serena_home / "serena_config.yml",
        "memory_sync_team_remote: /nowhere/team.git\nmemory_sync_team_topic: team\n",
    )
    store.write("fact", "v1\n")
    loads = _counting(
        monkeypatch, "serena_memory.core.config.load_global_config", config.load_global_config
    )
    store.write("fact", "v2\n")
    assert len(loads) == 1
    snap = store.snapshot()
    assert snap.sync.team_topic_pulled() == "team"
    assert snap.policy.is_read_only("global/team/rules")
    assert [e.summary for e in store.history().entries("fact")][:1] == ["Replace fact"]


def test_the_global_file_is_read_once_per_load_of_the_settings(
    project: Path, serena_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the project's ``.serena`` folder is comes from the global file, which the
    settings read anyway: it is handed on, not read a second time."""
    write_config(serena_home / "serena_config.yml", "memory_listing_budget: 7000\n")
    write_config(project / ".serena" / "project.yml", "memory_listing_budget: 5000\n")
    loads = _counting(
        monkeypatch, "serena_memory.core.config.load_global_config", config.load_global_config
    )
    settings = config.load_settings(project, serena_home)
    assert len(loads) == 1
    assert settings.listing_budget == 5000 and settings.global_config.memory_listing_budget == 7000


def test_inside_an_operation_settings_and_paths_are_loaded_once_and_outside_at_each_ask(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One command reads the settings and resolves a name through the path gate once
    however many layers ask; the library used outside a command reads them at each ask,
    so an edit to the settings applies at once."""
    store.write("fact", "v1\n")
    settings = _counting(monkeypatch, "serena_memory.core.store.load_settings", load_settings)
    resolved = _counting(monkeypatch, "serena_memory.core.paths.resolve", paths.resolve)
    with operation.operation():
        assert store.read("fact") == "v1\n"
        once = len(resolved)
        assert store.read("fact") == "v1\n"
        assert store.settings is store.settings
    assert len(settings) == 1 and len(resolved) == once > 0
    store.read("fact")
    store.read("fact")
    assert len(settings) == 3 and len(resolved) == 3 * once


def test_a_listing_sorts_memories_out_as_the_rules_say_one_by_one(
    store: MemoryStore, serena_home: Path, project: Path
) -> None:
    """Ignored wins over read-only; the team's memories are read-only as if a pattern said
    so; the project's patterns add to the user's."""
    write_config(
        serena_home / "serena_config.yml",
        'ignored_memory_patterns: ["scratch/.*"]\n'
        'read_only_memory_patterns: ["policy/.*", "scratch/keep"]\n'
        "memory_sync_team_remote: /nowhere/team.git\nmemory_sync_team_topic: team\n",
    )
    write_config(project / ".serena" / "project.yml", 'read_only_memory_patterns: ["adr/.*"]\n')
    names = [
        "scratch/keep",
        "scratch/tmp",
        "policy/ship",
        "adr/0001",
        "global/team/rules",
        "global/mine",
        "notes/free",
    ]
    policy = store.access()
    ignored, read_only = policy.sorted_out(names)
    assert ignored == {n for n in names if policy.is_ignored(n)} == {"scratch/keep", "scratch/tmp"}
    expected = {n for n in names if not policy.is_ignored(n) and policy.is_read_only(n)}
    assert read_only == expected == {"policy/ship", "adr/0001", "global/team/rules"}
