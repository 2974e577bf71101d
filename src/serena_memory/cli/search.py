"""`serena memories search`: ranked search over the memories of a project.

Part of the command tree from import, so this module imports nothing heavy: the search
engine (and sqlite3) is loaded inside the command.
"""

from __future__ import annotations

from pathlib import Path

import click

from serena_memory.cli.common import JSON_OPTION, PROJECT_ARG, emit_json, open_store, say


@click.command()
@click.argument("query")
@PROJECT_ARG
@click.option("--topic", "-t", default="", help="Only memories in this topic, e.g. billing.")
@click.option(
    "--scope",
    type=click.Choice(["all", "project", "global"]),
    default="all",
    show_default=True,
    help="Project memories, global ones, or both.",
)
@click.option(
    "--max-results",
    "-n",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="How many memories to show at most.",
)
@JSON_OPTION
def search(
    query: str, project: Path | None, topic: str, scope: str, max_results: int, as_json: bool
) -> None:
    """Find the memories that best match QUERY, best first, with their matching lines.

    Memories are ranked by the words they share with QUERY (in names most, then in
    headings, then in the text) and by similar meaning; each hit says why it matched. A
    `mem:NAME` in QUERY puts that memory first.
    """
    from serena_memory.core.search import format_hits, search_memories

    hits = search_memories(
        open_store(project), query, topic=topic, scope=scope, max_results=max_results
    )
    if as_json:
        emit_json({"query": query, "hits": [hit.to_dict() for hit in hits]})
        return
    say(format_hits(hits, query))
