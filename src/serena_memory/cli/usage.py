"""`serena memories usage`: how often each memory was read.

Reads are counted on this machine (serena_memory/usage); this command only reports them.
Cheap to import: the report is loaded inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from serena_memory.cli.common import (
    JSON_OPTION,
    PROJECT_ARG,
    PROJECT_OPTION,
    emit_json,
    open_store,
    say,
)
from serena_memory.core.display import counted, escape_line


@click.command(name="usage")
@PROJECT_ARG
@PROJECT_OPTION
@JSON_OPTION
def usage_command(project: Path | None, as_json: bool) -> None:
    """How often each memory was read on this machine, by which clients, the ones never
    read, and what each costs the agent's listing."""
    from serena_memory.agent.usage import usage_answer

    answer = usage_answer(open_store(project))
    if as_json:
        emit_json(answer)
        return
    rows = answer["memories"]
    if not rows:
        say("No memories yet.")
        return
    say(f"Reads on this machine since {_when(answer['counted_since'])}:")
    for row in rows:
        say("  " + _row_text(row))
    never = answer["never_read"]
    if never:
        say(
            f"Never read: {counted(len(never), 'memory', 'memories')}, "
            f"{answer['never_read_listing_chars']} characters (about "
            f"{answer['never_read_listing_tokens']:g} tokens) of every listing that names them."
        )
    else:
        say("Every memory was read at least once.")


def _when(stamp: str | None) -> str:
    from serena_memory.usage.unused import local_time  # not at every command's start

    return local_time(stamp)


def _row_text(row: dict[str, Any]) -> str:
    cost = f"{row['listing_chars']} characters in the listing"
    if not row["reads"]:
        return f"{escape_line(row['name'])}: never read; {cost}"
    clients = ", ".join(f"{escape_line(c)}: {n}" for c, n in row["clients"].items())
    reads = counted(row["reads"], "read")
    return (
        f"{escape_line(row['name'])}: {reads}, last {_when(row['last_read'])} ({clients}); {cost}"
    )
