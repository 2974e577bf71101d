"""The agent fixes a memory's drift in one call: after a commit that moved two files and
renamed a method, `read_memory` offers the exact replacements as each memory writes them,
and `edit_memory` in drift mode applies them all, as the agent's edit (or its proposal
under review mode). Real git repositories, real files and history."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_code_drift import commit, git, memory, write

from serena_memory.history.restore import MemoryHistory
from serena_memory.mcp.state import ServerState, create_state
from serena_memory.mcp.tools_memories import edit_memory, read_memory
from serena_memory.wiring import build_store

CORE = "# Core\n- The cache lives in `src/app/cache.py`; call `Store.load()` at start.\n"
JOBS = "# Jobs\n- Jobs run from `./src/app/jobs.py:3`, each after `Store.load`.\n"


def _moved_and_renamed(project: Path) -> None:
    """Two memories, then one commit moving two files and renaming `Store.load`."""
    git(project, "init", "-q", "-b", "main")
    for step in ("before", "after"):
        method = "load" if step == "before" else "reload"
        folder = "app" if step == "before" else "core"
        write(
            project,
            f"src/{folder}/cache.py",
            f"class Store:\n    def {method}(self):\n        pass\n",
        )
        write(
            project, f"src/{folder}/jobs.py", f"from .cache import Store\n\n\nStore().{method}()\n"
        )
        if step == "before":
            memory(project, "core", CORE)
            memory(project, "jobs", JOBS)
            commit(project, "start")
            git(project, "rm", "-q", "src/app/cache.py", "src/app/jobs.py")
    commit(project, "move the app into core, load is reload")


@pytest.fixture
def state(project: Path, serena_home: Path) -> ServerState:
    _moved_and_renamed(project)
    return create_state(project, [], home=serena_home)


def test_two_calls_fix_a_commit_that_moved_two_files_and_renamed_a_method(
    state: ServerState, project: Path, serena_home: Path
) -> None:
    read = read_memory(state, "core")
    assert "`src/app/cache.py` -> `src/core/cache.py`" in read
    assert "`Store.load()` -> `Store.reload()`" in read
    assert "edit_memory(memory_name='core', mode='drift')" in read
    assert "`./src/app/jobs.py:3` -> `./src/core/jobs.py:3`" in read_memory(state, "jobs")
    before = len(list(MemoryHistory(build_store(project, home=serena_home)).entries()))

    assert "2 replacements" in edit_memory(state, "core", needle="", repl="", mode="drift")
    assert "2 replacements" in edit_memory(state, "jobs", needle="", repl="", mode="drift")

    store = build_store(project, home=serena_home)
    assert store.read("core") == (
        "# Core\n- The cache lives in `src/core/cache.py`; call `Store.reload()` at start.\n"
    )
    assert store.read("jobs") == (
        "# Jobs\n- Jobs run from `./src/core/jobs.py:3`, each after `Store.reload`.\n"
    )
    entries = list(MemoryHistory(store).entries())
    assert len(entries) == before + 2
    assert {e.entry_point for e in entries[: len(entries) - before]} == {"mcp"}
    assert "Note:" not in read_memory(state, "core")  # nothing drifted is left
    assert "Nothing to apply" in edit_memory(state, "core", mode="drift")  # no needle needed


def test_in_review_mode_the_fix_is_a_proposal(
    project: Path, serena_home: Path, state: ServerState
) -> None:
    (serena_home / "serena_config.yml").write_text("memory_agent_writes: propose\n")
    proposing = create_state(project, [], home=serena_home)
    told = edit_memory(proposing, "core", needle="", repl="", mode="drift")
    assert "2 replacements" in told and "proposal" in told
    assert build_store(project, home=serena_home).read("core") == CORE  # unchanged until accepted
