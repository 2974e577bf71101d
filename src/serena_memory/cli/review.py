"""`serena memories review`: the person's side of review mode (core/proposals.py) -- list
the agent's proposals, show one as a diff, accept or reject them.

Registered eagerly into the `memories` group, so this module imports nothing heavy."""

from __future__ import annotations

import click

from serena_memory.cli.common import (
    JSON_OPTION,
    PROJECT_OPTION,
    emit_json,
    open_store,
    say,
    show_text,
)
from serena_memory.core.display import counted, escape_line


@click.group(name="review", invoke_without_command=True)
@PROJECT_OPTION
@JSON_OPTION
@click.pass_context
def review_command(ctx: click.Context, as_json: bool) -> None:
    """List the agent's pending proposals (memory_agent_writes: propose).

    Each line: the proposal's ID, what it would change, the agent that proposed it, and
    CONFLICT when the memory changed since (such a proposal can't be accepted). Act on
    them with `review show ID`, `review accept ID`, `review accept --all` and
    `review reject ID`."""
    if ctx.invoked_subcommand is not None:
        return
    from serena_memory.core import proposals as P

    store = open_store(None)
    found, skipped = P.pending(store)
    rows = []
    for proposal in found:
        _, conflict = P.state_of(store, proposal)
        rows.append((proposal, conflict))
    if as_json:
        emit_json(
            {
                "proposals": [
                    {
                        "id": p.id,
                        "memory": p.memory,
                        "action": p.action,
                        "new_name": p.new_name,
                        "agent": p.agent,
                        "created": p.created,
                        "conflict": conflict,
                    }
                    for p, conflict in rows
                ],
                "skipped": [s.to_dict() for s in skipped],
            }
        )
        return
    if not rows:
        say("No proposals await review.")
    for p, conflict in rows:
        mark = "  CONFLICT: the memory changed since" if conflict else ""
        say(f"{p.id}  {escape_line(p.describe())}  by {escape_line(p.agent)}{mark}")
    for s in skipped:
        say(f"Skipped {escape_line(s.file)}: {s.reason}", err=True)


@review_command.command(name="show")
@PROJECT_OPTION
@click.argument("proposal_id", metavar="ID")
def review_show(proposal_id: str) -> None:
    """Show proposal ID as a diff against the memory as it is now."""
    from serena_memory.agent.proposal_views import proposal_diff
    from serena_memory.core import proposals as P

    store = open_store(None)
    proposal = P.get(store, proposal_id)
    _, conflict = P.state_of(store, proposal)
    say(f"Proposal {proposal.id}: {escape_line(proposal.describe())} by {proposal.agent}")
    if conflict:
        say("CONFLICT: the memory changed since this was proposed; it can't be accepted.")
    show_text(proposal_diff(store, proposal))


@review_command.command(name="accept")
@PROJECT_OPTION
@click.argument("proposal_id", metavar="ID", required=False)
@click.option("--all", "accept_all", is_flag=True, help="Accept every pending proposal.")
@click.option(
    "--edit",
    "edit_first",
    is_flag=True,
    help="Open the proposed text in $EDITOR first, and accept what you save.",
)
def review_accept(proposal_id: str | None, accept_all: bool, edit_first: bool) -> None:
    """Make the change proposal ID proposes (one history entry naming the agent and you).

    A proposal whose memory changed since it was made is refused, and kept: look at it
    with `review show ID`, then reject it."""
    from serena_memory.core import proposals as P
    from serena_memory.core.errors import MemoryStoreError, describe

    if accept_all == (proposal_id is not None):
        raise click.UsageError("give one proposal ID, or --all")
    if edit_first and accept_all:
        raise click.UsageError("--edit accepts one proposal at a time; give its ID")
    store = open_store(None)
    if edit_first:
        assert proposal_id is not None
        proposal = P.get(store, proposal_id)
        if proposal.text is None:
            raise click.UsageError(f"proposal {proposal.id} has no text to edit")
        edited = click.edit(proposal.text, extension=".md", require_save=True)
        if edited is None:
            raise click.ClickException("the text was not saved, so nothing was accepted")
        done = P.accept(store, proposal.id, edited)
        say(f"Accepted {done.id}, as edited: {escape_line(done.describe())}.")
        return
    ids = [proposal_id] if proposal_id is not None else [p.id for p in P.pending(store)[0]]
    failed = 0
    for one in ids:
        assert one is not None
        try:
            done = P.accept(store, one)
        except MemoryStoreError as exc:
            if not accept_all:
                raise
            failed += 1
            say(f"Not accepted: {describe(exc)}", err=True)
            continue
        say(f"Accepted {done.id}: {escape_line(done.describe())}.")
    if failed:
        raise click.ClickException(
            f"{counted(failed, 'proposal was', 'proposals were')} not accepted (see above)"
        )


@review_command.command(name="reject")
@PROJECT_OPTION
@click.argument("proposal_id", metavar="ID")
def review_reject(proposal_id: str) -> None:
    """Drop proposal ID; no memory changes."""
    from serena_memory.core import proposals as P

    done = P.reject(open_store(None), proposal_id)
    say(f"Rejected {done.id}: {escape_line(done.describe())}.")
