"""Listings of memory names that stay within the budget at any size, with every name still
reachable by listing topics and pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.agent.listing import (
    _answer_json,
    estimate_tokens,
    listing_answer,
    plan_listing,
)
from serena_memory.agent.onboarding import activation_message, memory_overview
from serena_memory.core import names as N
from serena_memory.core.errors import ConfigError, MemoryStoreError
from serena_memory.core.store import MemoryListing, MemoryStore


def make_names(count: int) -> list[str]:
    """Top-level names, topics with sub-topics, one topic too big for one listing, and
    global memories; ``count`` in all."""
    names = ["core", "tech_stack", "conventions", "suggested_commands", "task_completion"]
    i = 0
    while len(names) < count:
        kind = i % 10
        if kind == 0:
            names.append(f"crowded/entry_number_{i:05d}")
        elif kind == 1:
            names.append(f"global/shared/note_{i:05d}")
        elif kind < 6:
            names.append(f"topic_{i % 23:02d}/memory_about_thing_{i:05d}")
        else:
            names.append(f"topic_{i % 23:02d}/sub_{i % 7}/deeper_memory_{i:05d}")
        i += 1
    return sorted(names[:count])


def fill(store: MemoryStore, names: list[str]) -> None:
    for name in names:
        if N.is_global(name):
            path = store.layout.global_dir / (name[len("global/") :] + ".md")
        else:
            path = store.layout.memories_dir / (name + ".md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x\n")


def listing_of(names: list[str], read_only: set[str], topic: str) -> MemoryListing:
    shown = [n for n in names if N.in_topic(n, topic)]
    return MemoryListing(
        [n for n in shown if n not in read_only], [n for n in shown if n in read_only]
    )


def walk(answer, budget: int) -> set[str]:
    """Follow every topic and page from the top; every answer must fit the budget."""
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
    todo = [("", 1)]
    while todo:
        topic, page = todo.pop()
        if (topic, page) in seen:
            continue
        seen.add((topic, page))
        text = answer(topic, page)
        assert estimate_tokens(text) <= budget, (topic, page, estimate_tokens(text))
        data = json.loads(text)
        found.update(data["memories"], data["read_only_memories"])
        for sub in data.get("topics", {}):
            todo.append((sub, 1))
        for more in range(2, data.get("pages", 1) + 1):
            todo.append((topic, more))
    return found


@pytest.mark.parametrize(
    "count",
    [10, 1000, pytest.param(10_000, marks=pytest.mark.slow)],  # slow: ten thousand
)
def test_budget_held_and_every_name_reachable(count: int) -> None:
    names = make_names(count)
    read_only = {n for n in names if n.startswith("global/") or n == "conventions"}
    budget = 2000

    def answer(topic: str, page: int) -> str:
        view = plan_listing(
            listing_of(names, read_only, topic),
            topic,
            budget,
            lambda v: _answer_json(v, True),
            page,
        )
        return _answer_json(view, True)

    assert walk(answer, budget) == set(names)
    top = json.loads(answer("", 1))
    if count == 10:
        assert "topics" not in top and len(top["memories"]) + len(top["read_only_memories"]) == 10
    else:
        assert top["memories"][0] == "core"  # the entry point first
        assert top["topics"]["crowded"]["memories"] == len(
            [n for n in names if n.startswith("crowded/")]
        )
        assert top["topics"]["global"]["read_only"] == top["topics"]["global"]["memories"]
        assert "search_memories" in top["note"] and "list_memories" in top["note"]


def test_deepest_level_that_fits(store: MemoryStore) -> None:
    names = ["core"] + [f"a/s{i:02d}/a_long_memory_name_{j}" for i in range(30) for j in range(3)]
    listing = listing_of(names, set(), "")
    view = plan_listing(listing, "", 600, lambda v: _answer_json(v, True))
    assert not view.complete and view.names == ["core"]
    assert [t.topic for t in view.topics] == ["a"] + [f"a/s{i:02d}" for i in range(30)]
    small = plan_listing(listing, "", 300, lambda v: _answer_json(v, True))
    assert [t.topic for t in small.topics] == ["a"] and small.pages == 1


@pytest.mark.slow  # thousands of memories
def test_store_listing_and_activation_message_stay_within_budget(
    store: MemoryStore, project: Path, serena_home: Path
) -> None:
    names = make_names(1000)
    fill(store, names)
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['global/.*']\n")
    budget = 2000
    assert walk(lambda topic, page: listing_answer(store, topic, page), budget) == set(names)
    overview = memory_overview(store)
    assert estimate_tokens(overview) <= budget
    assert "- core" in overview and "list_memories" in overview and "search_memories" in overview
    assert "- global/ (" in overview and "all read-only" in overview
    assert estimate_tokens(activation_message(store)) <= budget + 100  # + the project line


def test_under_budget_every_name_as_before(store: MemoryStore) -> None:
    fill(store, ["core", "auth/login", "global/team"])
    data = json.loads(listing_answer(store))
    assert data == {"memories": ["auth/login", "core", "global/team"], "read_only_memories": []}
    overview = memory_overview(store)
    assert "- auth/login" in overview and "Topics:" not in overview


def test_budget_is_configurable(store: MemoryStore, project: Path, serena_home: Path) -> None:
    fill(store, [f"t{i}/memory_{j}" for i in range(10) for j in range(20)])
    assert "topics" not in json.loads(listing_answer(store))
    write_config(project / ".serena" / "project.yml", "memory_listing_budget: 500\n")
    small = listing_answer(store)
    assert "topics" in json.loads(small) and estimate_tokens(small) <= 500
    for bad in ("memory_listing_budget: 10", "memory_listing_budget: lots"):
        write_config(serena_home / "serena_config.yml", bad + "\n")
        with pytest.raises(ConfigError, match="memory_listing_budget"):
            listing_answer(store)


def test_a_page_out_of_range_says_which_exist(store: MemoryStore) -> None:
    fill(store, ["core"])
    with pytest.raises(MemoryStoreError, match="page"):
        listing_answer(store, "", 0)
    assert json.loads(listing_answer(store, "", 1))["memories"] == ["core"]


def test_list_memories_says_what_looks_like_a_memory_but_is_not_read(
    store: MemoryStore, project: Path
) -> None:
    """As `serena memories list --json` does, within the budget: the first few, and how many."""
    fill(store, [f"t{i}/memory_{j}" for i in range(10) for j in range(20)])
    memories = project / ".serena" / "memories"
    (memories / "broken.md").symlink_to(project / "nowhere.md")
    data = json.loads(listing_answer(store))
    assert data["skipped"] == [
        {
            "name": "broken",
            "path": str(memories / "broken.md"),
            "reason": f"broken symlink (its target {project / 'nowhere.md'} does not exist)",
        }
    ]
    assert "skipped_total" not in data
    for i in range(14):
        (memories / f"gone_{i:02}.md").symlink_to(project / f"nowhere_{i}.md")
    fill(store, [f"top_level_note_{i:02}" for i in range(60)])  # more than one page holds
    for budget in (800, 500):
        write_config(project / ".serena" / "project.yml", f"memory_listing_budget: {budget}\n")
        first = listing_answer(store)
        data = json.loads(first)
        assert estimate_tokens(first) <= budget
        assert len(data["skipped"]) < 15 and data["skipped_total"] == 15
    assert data["pages"] > 1
    for page in range(2, data["pages"] + 1):
        answer = listing_answer(store, "", page)
        assert estimate_tokens(answer) <= 500 and json.loads(answer)["skipped_total"] == 15
