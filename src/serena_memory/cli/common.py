"""What every command shares: the PROJECT argument, opening the store, the output.

Cheap to import (click and the core store only), so every command module can use it
without slowing the start of `serena`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from serena_memory.core.display import escape_json, escape_text
from serena_memory.core.history import Provenance
from serena_memory.core.store import Context, MemoryStore

PROJECT_ARG = click.argument(
    "project",
    required=False,
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def open_store(project: Path | None) -> MemoryStore:
    """The project's store; refuses a missing folder, a file, a folder that is never a
    project (core/paths.py) and a broken configuration before any command runs.

    Without PROJECT the project is found from the current folder as git finds a repository
    (core/discovery.py), and stderr says which one, so a command run from a subfolder never
    works on a stray folder of its own unnoticed."""
    from serena_memory.core.config import serena_home
    from serena_memory.core.discovery import choose_project

    choice = choose_project(project, serena_home())
    if choice.found_by != "given":
        say(choice.describe(), err=True)
    command = click.get_current_context(silent=True)
    action = command.info_name if command is not None else ""
    store = MemoryStore(
        choice.root, context=Context.HUMAN, provenance=Provenance.os_user("cli", action or "")
    )
    if command is not None:  # an interrupted rename finished on the way: say so at the end
        command.call_on_close(lambda: _tell(store))
    store.validate_config()
    return store


def _tell(store: MemoryStore) -> None:
    """What the store did on the side (see MemoryStore.notices), one line each on stderr."""
    for notice in store.take_notices():
        say(notice, err=True)


def emit_json(data: object) -> None:
    """Indented for a person at a terminal; compact for a pipe, where json's fast C
    encoder applies (indenting a 10,000-memory report costs over half a second)."""
    indent = 2 if sys.stdout.isatty() else None
    click.echo(escape_json(json.dumps(data, indent=indent, ensure_ascii=False)))


def say(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print a message, to a terminal or a pipe alike. Whatever names, paths or remote texts
    it quotes, no control character, bidi control or zero-width space gets through
    (core/display.py); names are best quoted with escape_line first, which also escapes
    newlines and tabs. Scripts that need the exact names read --json."""
    click.echo(escape_text(text), err=err, nl=nl)


def show_text(text: str) -> None:
    """A memory's own text (its content, the other side of a sync conflict, a diff):
    exact to a pipe or a file, so a script gets what was written; on a terminal its
    control characters are escaped (newlines and tabs stay), so a text from a cloned
    repository or a remote can't steer the terminal."""
    if sys.stdout.isatty():
        text = escape_text(text)
    click.echo(text, nl=not text.endswith("\n"))
