"""`serena memories search`: ranked search over the memories of a project.

Part of the command tree from import, so this module imports nothing heavy: the search
engine (and sqlite3) is loaded inside the command.
"""

from __future__ import annotations

from pathlib import Path

import click

from serena_memory.cli.common import (
    JSON_OPTION,
    PROJECT_OPTION,
    OneOf,
    WholeNumber,
    emit_json,
    open_store,
    say,
)


# A word of QUERY that looks like an option but is none (``--dry-run``) is text to look for:
# click's documented way is to keep unknown options for the argument.
@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, required=True, metavar="QUERY...", type=click.UNPROCESSED)
@PROJECT_OPTION
@click.option("--topic", "-t", default="", help="Only memories in this topic, e.g. billing.")
@click.option(
    "--scope",
    type=OneOf(["all", "project", "global"]),
    default="all",
    show_default=True,
    help="Project memories, global ones, or both.",
)
@click.option(
    "--max-results",
    "-n",
    type=WholeNumber(1, 100),
    default=10,
    show_default=True,
    help="How many memories to show at most.",
)
@JSON_OPTION
def search(words: tuple[str, ...], topic: str, scope: str, max_results: int, as_json: bool) -> None:
    """Find the memories that best match QUERY, best first, with their matching lines.

    QUERY is the rest of the line (`search token refresh` looks for both words); the
    project is given with -p/--project DIR. Memories are ranked by the words they share
    with QUERY (in names most, then in headings, then in the text) and by similar meaning;
    each hit says why it matched. A `mem:NAME` in QUERY puts that memory first. A word
    that is not an option of this command, such as --dry-run, is searched for as text.
    """
    from serena_memory.search.hits import format_hits
    from serena_memory.search.index import search_memories

    query = " ".join(words)
    store = open_store(None, only_global=scope == "global")
    last = Path(words[-1]).expanduser()
    if len(words) > 1 and (last / ".serena").is_dir():  # the old `search QUERY PROJECT`
        say(
            f"Note: '{words[-1]}' is searched for as a word; to search the memories of that "
            f"project, give it with -p: serena memories search -p {words[-1]} ...",
            err=True,
        )
    _tell_near_options(words)
    hits = search_memories(store, query, topic=topic, scope=scope, max_results=max_results)
    if as_json:
        emit_json({"query": query, **hits.to_dict()})
        return
    say(format_hits(hits, query, "--max-results"))


def _tell_near_options(words: tuple[str, ...]) -> None:
    """A word of QUERY that is not an option but nearly one of this command's (``--jsno``)
    is searched for as text; the person likely meant the option, so say so."""
    options = [name for param in search.params for name in param.opts if name.startswith("--")]
    for word in words:
        if word.startswith("--") and word.split("=")[0] not in options:
            import difflib

            near = difflib.get_close_matches(word.split("=")[0], options, n=1, cutoff=0.75)
            if near:
                say(
                    f"Note: '{word}' is not an option of search, so it is searched for as "
                    f"text; did you mean {near[0]}?",
                    err=True,
                )
