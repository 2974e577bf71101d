"""What every command shares: the PROJECT argument, opening the store, JSON output.

Cheap to import (click and the core store only), so every command module can use it
without slowing the start of `serena`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from serena_memory.core.store import Context, MemoryStore

PROJECT_ARG = click.argument(
    "project",
    required=False,
    default=".",
    type=click.Path(file_okay=False, path_type=Path),
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def open_store(project: Path) -> MemoryStore:
    """The project's store; refuses a missing folder, a file, a folder that is never a
    project (core/paths.py) and a broken configuration before any command runs."""
    from serena_memory.core.paths import project_folder

    store = MemoryStore(project_folder(project), context=Context.HUMAN)
    store.validate_config()
    return store


def emit_json(data: object) -> None:
    """Indented for a person at a terminal; compact for a pipe, where json's fast C
    encoder applies (indenting a 10,000-memory report costs over half a second)."""
    indent = 2 if sys.stdout.isatty() else None
    click.echo(json.dumps(data, indent=indent, ensure_ascii=False))
