"""Accepting a proposal while another process changes its memory: the check that the
memory is still the version the proposal was made on and the change itself happen under
the same folder locks, so a change made in between is a conflict, never overwritten or
carried along. Real worker processes holding the store's locks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_config
from mcp_support import mem_file, write_memory_file
from proposing import propose_delete, propose_rename, propose_write

from serena_memory.core import proposals as P
from serena_memory.core.errors import ProposalError
from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store

pytestmark = pytest.mark.slow  # an accept racing a change made while it waits for the lock

WORKER = Path(__file__).parents[1] / "helpers" / "memory_worker.py"
CHANGED = "# Auth\n\nChanged by another process meanwhile.\n"


def _propose(agent: MemoryStore, action: str) -> P.Proposal:
    if action == "write":
        return propose_write(agent, "auth", "# Auth\n\nThe agent's text.\n")
    if action == "delete":
        proposal = propose_delete(agent, "auth")
        assert proposal is not None
        return proposal
    return propose_rename(agent, "auth", "login")


@pytest.mark.parametrize("action", ["write", "delete", "rename"])
def test_a_change_made_while_accept_waits_for_the_lock_is_a_conflict(
    project: Path, serena_home: Path, action: str
) -> None:
    write_config(serena_home / "serena_config.yml", "memory_agent_writes: propose\n")
    write_memory_file(project, "auth", "# Auth\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    proposal = _propose(agent, action)
    person = build_store(project, home=serena_home, context=Context.HUMAN)
    # another process holds the memory's locks for a while, then changes it: accept's
    # own check runs meanwhile and finds the memory as the proposal knew it
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), "slow-update", str(project), str(serena_home)]
        + ["auth", CHANGED, "1.5"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None and worker.stdout.readline() == "locked\n"
        with pytest.raises(ProposalError, match="changed since"):
            P.accept(person, proposal.id)
    finally:
        assert worker.wait(timeout=60) == 0
        worker.stdout.close()  # type: ignore[union-attr]
    assert mem_file(project, "auth").read_text() == CHANGED
    assert not mem_file(project, "login").exists()
    assert [p.id for p in P.pending(person)[0]] == [proposal.id]  # kept for the person
