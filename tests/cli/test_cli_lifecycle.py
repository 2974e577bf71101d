"""The command line tells the memories' front matter: summaries after the names in `list`,
deprecated and stale marks, `check` naming memories without a summary among others that
have one, and `check --stale`."""

from __future__ import annotations

import json

from conftest import run_cli

from serena_memory.core.store import MemoryStore

LOGIN = "---\nsummary: How a login is checked\n---\n# Login\n"
OLD = "---\nsummary: The first login\nstatus: deprecated\nsuperseded_by: auth/login\n---\n# x\n"
EXPIRED = "---\nsummary: Release steps\nstale_after: 2001-02-03\nsuperseded_by: mem:nope\n---\n"


def _fill(store: MemoryStore) -> None:
    store.write("auth/login", LOGIN)
    store.write("auth/old", OLD)
    store.write("release", EXPIRED)
    store.write("core", "# Core\n")


def test_list_shows_summaries_and_marks(store: MemoryStore) -> None:
    _fill(store)
    shown = run_cli("memories", "list", "-p", str(store.layout.project_root))
    assert "  auth/login - How a login is checked\n" in shown.stdout
    assert "  auth/old [deprecated] - The first login\n" in shown.stdout
    assert "  release [stale] - Release steps\n" in shown.stdout
    assert "  core\n" in shown.stdout
    data = json.loads(
        run_cli("memories", "list", "--json", "-p", str(store.layout.project_root)).stdout
    )
    assert data["summaries"]["auth/login"] == "How a login is checked"
    assert data["deprecated"] == ["auth/old"] and data["stale"] == ["release"]


def test_check_names_memories_without_a_summary(store: MemoryStore) -> None:
    _fill(store)
    checked = run_cli("memories", "check", "-p", str(store.layout.project_root))
    assert checked.returncode == 0
    assert "no `summary:` front matter" in checked.stdout and "1 memory: core;" in checked.stdout
    data = json.loads(
        run_cli("memories", "check", "--json", "-p", str(store.layout.project_root)).stdout
    )
    assert data["missing_summaries"] == ["core"]


def test_check_stale_reports_deprecated_stale_and_unknown_successors(store: MemoryStore) -> None:
    _fill(store)
    root = str(store.layout.project_root)
    checked = run_cli("memories", "check", "--stale", "-p", root)
    assert "Deprecated: 1 memory: auth/old (superseded by auth/login)." in checked.stdout
    assert "Stale: 1 memory: release (stale after 2001-02-03)" in checked.stdout
    assert "Successors that name no memory: 1 memory: release -> nope" in checked.stdout
    strict = run_cli("memories", "check", "--stale", "--strict", "--json", "-p", root)
    assert strict.returncode == 1 and "stale_after" in strict.stderr
    found = json.loads(strict.stdout)["lifecycle"]
    assert found["deprecated"] == [{"name": "auth/old", "superseded_by": "auth/login"}]
    assert found["stale"] == [{"name": "release", "stale_after": "2001-02-03"}]
    assert found["unknown_successors"] == [{"name": "release", "superseded_by": "nope"}]


def test_read_says_on_stderr_that_a_memory_is_deprecated(store: MemoryStore) -> None:
    _fill(store)
    read = run_cli("memories", "read", "auth/old", "-p", str(store.layout.project_root))
    assert read.stdout == OLD
    assert "This memory is deprecated: read `mem:auth/login` instead" in read.stderr


def test_check_sees_a_summary_added_since_and_a_broken_cache_is_no_error(
    store: MemoryStore,
) -> None:
    _fill(store)
    root = str(store.layout.project_root)
    assert json.loads(run_cli("memories", "check", "--json", "-p", root).stdout)[
        "missing_summaries"
    ] == ["core"]
    store.write("core", "---\nsummary: Where to start\n---\n# Core\n")
    assert "missing_summaries" not in json.loads(
        run_cli("memories", "check", "--json", "-p", root).stdout
    )
    (store.layout.home / "cache" / "front-matter.json").write_text('{"format": 1, "files": [1, 2]}')
    listed = run_cli("memories", "list", "-p", root)
    assert listed.returncode == 0 and "  core - Where to start\n" in listed.stdout


def test_the_seeded_conventions_memory_asks_no_other_for_a_summary(store: MemoryStore) -> None:
    """After `initialize` and one hand-written memory, `check` asked that memory for a
    summary because the shipped `memory_maintenance` template has one (a fresh-eyes walk
    met it on every project; 1,023 names on a large real folder)."""
    root = str(store.layout.project_root)
    run_cli("memories", "initialize", "-p", root, check=True)
    store.write("core", "# Core\n")
    checked = run_cli("memories", "check", "--json", "-p", root)
    assert "missing_summaries" not in json.loads(checked.stdout)
    store.write("auth/login", LOGIN)  # a summary the folder's own memories write
    checked = run_cli("memories", "check", "--json", "-p", root)
    assert json.loads(checked.stdout)["missing_summaries"] == ["core"]
