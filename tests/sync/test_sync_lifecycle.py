"""A memory one machine deprecated while an agent on another machine wrote to it: the
sync keeps it deprecated and keeps the other text as a conflict for review, on whichever
machine merges. Two stores with their own $SERENA_HOME sync through a real bare repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from serena_memory.core.access import Context
from serena_memory.core.lifecycle import of_text
from serena_memory.core.store import MemoryStore
from serena_memory.sync.conflicts import conflicts
from serena_memory.sync.merge import sync
from serena_memory.wiring import build_store

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over a real git remote
]

BASE = "# Deploy\n\nRun `make deploy` from the root.\nThen check the dashboard.\n"
DEPRECATED = "---\nstatus: deprecated\nsuperseded_by: mem:global/release\n---\n" + BASE
AGENT = BASE.replace("Then check the dashboard.", "Then check the dashboard and the logs.")


@pytest.fixture
def machines(tmp_path: Path, store: MemoryStore) -> tuple[MemoryStore, MemoryStore, str]:
    """``store`` and a laptop, both holding global/deploy as BASE, synced."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    (tmp_path / "laptop-project").mkdir()
    (tmp_path / "laptop-home").mkdir()
    laptop = build_store(tmp_path / "laptop-project", home=tmp_path / "laptop-home")
    laptop.write("global/deploy", BASE)
    sync(laptop, "global", str(remote))
    sync(store, "global", str(remote))
    assert store.read("global/deploy") == BASE
    return store, laptop, str(remote)


def test_the_machine_that_wrote_keeps_the_deprecation_and_a_conflict(
    machines: tuple[MemoryStore, MemoryStore, str],
) -> None:
    here, laptop, remote = machines
    laptop.write("global/deploy", DEPRECATED)
    sync(laptop, "global", remote)
    here.write("global/deploy", AGENT)  # an agent here, unaware of the deprecation
    result = sync(here, "global", remote)
    assert here.read("global/deploy") == DEPRECATED
    assert result.conflicts == ["global/deploy"]
    [kept] = conflicts(here)
    assert kept.name == "global/deploy" and kept.remote_text == AGENT
    # the laptop learns of it too, and still reads the memory as deprecated
    sync(laptop, "global", remote)
    assert laptop.read("global/deploy") == DEPRECATED
    assert [c.name for c in conflicts(laptop)] == ["global/deploy"]


def test_the_machine_that_deprecated_keeps_it_and_the_agent_text_aside(
    machines: tuple[MemoryStore, MemoryStore, str],
) -> None:
    here, laptop, remote = machines
    laptop.write("global/deploy", AGENT)  # an agent on the laptop, first to sync
    sync(laptop, "global", remote)
    here.write("global/deploy", DEPRECATED)
    result = sync(here, "global", remote)
    assert here.read("global/deploy") == DEPRECATED
    assert result.conflicts == ["global/deploy"]
    assert conflicts(here)[0].remote_text == AGENT
    sync(laptop, "global", remote)
    assert laptop.read("global/deploy") == DEPRECATED


def test_an_agent_writing_after_the_sync_keeps_the_deprecation_on_both(
    machines: tuple[MemoryStore, MemoryStore, str],
) -> None:
    """Machine A (the laptop) deprecates; machine B syncs, then its agent, which knows the
    old name only, rewrites the memory whole: the deprecation stays, on both machines, with
    B's text under it, and nothing is left as a conflict."""
    here, laptop, remote = machines
    laptop.write("global/deploy", DEPRECATED)
    sync(laptop, "global", remote)
    sync(here, "global", remote)
    agent = build_store(here.layout.project_root, home=here.layout.home, context=Context.AGENT)
    agent.write("global/deploy", AGENT)
    result = sync(here, "global", remote)
    sync(laptop, "global", remote)
    for machine in (here, laptop):
        text = machine.read("global/deploy")
        state = of_text(text)
        assert state.deprecated and state.successor == "global/release"
        assert text.endswith(AGENT)  # B's text, kept under the deprecation
    assert result.conflicts == [] and conflicts(here) == [] and conflicts(laptop) == []
