"""How proposals of review mode (core/proposals.py) are shown: as a diff for the person
who reviews them, as a line of the activation message for the agent that makes them."""

from __future__ import annotations

from serena_memory.agent import tools as T
from serena_memory.core import proposals as P
from serena_memory.core.display import counted
from serena_memory.core.store import MemoryStore


def proposal_diff(store: MemoryStore, proposal: P.Proposal) -> str:
    """The proposal as a unified diff against the memory as it is now (a rename: the two
    names)."""
    from serena_memory.history.restore import unified_diff

    if proposal.action == "rename":
        return f"rename {proposal.memory} -> {proposal.new_name}\n"
    current, _ = P.state_of(store, proposal)
    before = None if current is None else current.encode("utf-8")
    after = None if proposal.action == "delete" else (proposal.text or "").encode("utf-8")
    return unified_diff(proposal.memory, before, after, "proposal " + proposal.id, "now")


def activation_line(store: MemoryStore) -> str:
    """How the agent's changes work here and how many of its proposals await review;
    '' when its changes land directly and none are pending."""
    policy = store.access()
    mode = policy.agent_writes
    if mode == "read-only":
        return (
            "Memories are read-only for you in this project (memory_agent_writes: read-only): "
            "read them, and tell the user what you would change."
        )
    found, _ = P.pending(store)
    text = ""
    if mode == P.PROPOSE:
        text = (
            "Your memory changes are proposals in this project (memory_agent_writes: propose): "
            f"`{T.WRITE_MEMORY}`, `{T.EDIT_MEMORY}`, `{T.DELETE_MEMORY}` and "
            f"`{T.RENAME_MEMORY}` record what you propose, and the user accepts or rejects it; "
            "reading a memory shows your pending proposals for it."
        )
    global_mode = policy.global_agent_writes()
    if global_mode != mode:
        done = "are proposals" if global_mode == P.PROPOSE else "are refused"
        text += (
            f" Your changes to global memories {done} (memory_agent_writes: {global_mode}, "
            "as a project this server served before says)."
        )
    if found:
        text += f" {counted(len(found), 'proposal awaits', 'proposals await')} the user's review."
    return text.strip()
