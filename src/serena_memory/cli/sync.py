"""Sync commands (sync, conflicts, resolve): the same memories on every machine.

Registered eagerly into the `memories` group, so this module imports nothing heavy; the
sync engine is loaded inside each command.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from serena_memory.cli.common import (
    JSON_OPTION,
    PROJECT_ARG,
    PROJECT_OPTION,
    emit_json,
    open_store,
    say,
    show_text,
)


def _store(project: Path | None, scope: str):
    """The global memories need no project: run from anywhere (the home folder included),
    they are synced all the same."""
    if scope == "project":
        return open_store(project)
    return open_store(project, only_global=scope == "global")


@click.command(name="sync")
@PROJECT_ARG
@click.option(
    "--global",
    "scope",
    flag_value="global",
    default=True,
    help="Sync the global memories ($SERENA_HOME/memories/global); the default.",
)
@click.option(
    "--project",
    "-p",
    "project_option",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[DIR]",
    help="Sync the memories of the project DIR (PROJECT/.serena/memories) instead; without "
    "DIR the project found from the current folder.",
)
@click.option(
    "--team",
    "scope",
    flag_value="team",
    help="Pull the team's memories (memory_sync_team_remote) into global/team/ only.",
)
@click.option(
    "--remote",
    default=None,
    metavar="URL",
    help="The git repository to sync with, remembered in serena_config.yml for next time.",
)
@JSON_OPTION
def sync_command(
    project: Path | None,
    scope: str,
    project_option: str | None,
    remote: str | None,
    as_json: bool,
) -> None:
    """Fetch, merge and push the memories through a git remote (a bare repository on a
    shared drive, SSH or HTTPS; authentication is git's own). Both sides' changes are
    merged per memory; where both changed the same lines the local text stays and the
    other is kept for you (`serena memories conflicts`). Each sync is one history entry,
    undone with `serena memories restore`. With a team remote configured, the team's
    memories are pulled too (read-only, under global/team/)."""
    from serena_memory.core.sync import configured_remote, remember_remote, sync_everything

    if project_option is not None:  # -p/--project names the project, whose memories sync
        ctx = click.get_current_context()
        if ctx.get_parameter_source("scope") is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError(
                f"--project syncs the project's memories, --{scope} the {scope} ones; give one"
            )
        scope = "project"
        if project_option:
            chosen = Path(project_option)
            if project is not None and project.resolve() != chosen.resolve():
                raise click.UsageError(
                    "two project folders given; give it once, as PROJECT or with -p/--project"
                )
            project = chosen
    store = _store(project, scope)
    if remote is not None and scope != "team" and remote != configured_remote(store, scope):
        where = remember_remote(store, scope, remote)
        say(f"Remembered the {scope} sync remote in {where}.", err=True)
    results = sync_everything(store, scope, remote, interactive=sys.stdin.isatty())
    if as_json:
        emit_json(results[0].to_dict() if len(results) == 1 else [r.to_dict() for r in results])
        return
    for result in results:
        say(result.summary())


@click.command(name="conflicts")
@PROJECT_ARG
@PROJECT_OPTION
@JSON_OPTION
@click.option("--show", "show", default=None, metavar="NAME", help="Print the other side's text.")
def conflicts_command(project: Path | None, as_json: bool, show: str | None) -> None:
    """Memories both sides of a sync changed on the same lines: the local text is in the
    memory, the other side's here, until `serena memories resolve NAME` settles it."""
    from serena_memory.core.display import escape_line
    from serena_memory.core.names import normalize_name
    from serena_memory.core.sync import conflicts

    found = conflicts(_store(project, "global"))
    if show is not None:
        name = normalize_name(show)
        match = next((c for c in found if c.name == name), None)
        if match is None:
            raise click.ClickException(f"memory '{escape_line(name)}' has no sync conflict")
        show_text(match.remote_text)
        return
    if as_json:
        emit_json([c.to_dict() for c in found])
        return
    if not found:
        say("No sync conflicts.")
        return
    say(f"Sync conflicts ({len(found)}):")
    for item in found:
        where = f"from {escape_line(item.remote)}, {escape_line(item.at)}"
        say(f"  {escape_line(item.name)}  ({where})")
    say(
        "Compare with `serena memories conflicts --show NAME`; combine the texts in the "
        "memory if you like, then `serena memories resolve NAME --keep local` (or "
        "`--keep remote` to take the other side's text)."
    )


@click.command(name="resolve")
@click.argument("name")
@PROJECT_ARG
@PROJECT_OPTION
@click.option(
    "--keep",
    type=click.Choice(["local", "remote"]),
    required=True,
    help="local: the memory as it is now (edit it first to combine both); remote: the "
    "other side's text.",
)
def resolve_command(name: str, project: Path | None, keep: str) -> None:
    """Settle the sync conflict of memory NAME."""
    from serena_memory.core.sync import resolve

    say(resolve(_store(project, "global"), name, keep))
