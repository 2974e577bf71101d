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
    OneOf,
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
    "to_global",
    is_flag=True,
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
    "to_team",
    is_flag=True,
    help="Pull the team's memories (memory_sync_team_remote) into global/team/ only.",
)
@click.option(
    "--remote",
    default=None,
    metavar="URL",
    help="The git repository to sync with, remembered in serena_config.yml once a sync with "
    "it worked.",
)
@JSON_OPTION
def sync_command(
    project: Path | None,
    to_global: bool,
    project_option: str | None,
    to_team: bool,
    remote: str | None,
    as_json: bool,
) -> None:
    """Fetch, merge and push the memories through a git remote (a bare repository on a
    shared drive, SSH or HTTPS; authentication is git's own). Both sides' changes are
    merged per memory; where both changed the same lines the local text stays and the
    other is kept for you (`serena memories conflicts`). Each sync is one history entry,
    undone with `serena memories restore`. With a team remote configured, the team's
    memories are pulled too (read-only, under global/team/)."""
    from serena_memory.sync.team import sync_everything

    chosen = [
        flag
        for flag, given in (
            ("global", to_global),
            ("project", project_option is not None),
            ("team", to_team),
        )
        if given
    ]
    if len(chosen) > 1:
        given = " and ".join(f"--{flag}" for flag in chosen)
        raise click.UsageError(f"{given} contradict each other; sync one of them per run")
    scope = chosen[0] if chosen else "global"
    if project_option:  # -p/--project DIR names the project, whose memories sync
        folder = Path(project_option)
        if project is not None and project.resolve() != folder.resolve():
            raise click.UsageError(
                "two project folders given; give it once, as PROJECT or with -p/--project"
            )
        project = folder
    store = _store(project, scope)
    results = sync_everything(store, scope, remote, interactive=sys.stdin.isatty())
    if as_json:
        emit_json(results[0].to_dict() if len(results) == 1 else [r.to_dict() for r in results])
    else:
        for result in results:
            say(result.summary())
    if any(result.refused for result in results):
        sys.exit(1)  # held back or kept out: a script must not take it for a sync


@click.command(name="conflicts")
@PROJECT_ARG
@PROJECT_OPTION
@JSON_OPTION
@click.option(
    "--show",
    "show",
    default=None,
    metavar="NAME",
    help="Print the two texts of NAME as a diff: the memory now, and the text set aside.",
)
def conflicts_command(project: Path | None, as_json: bool, show: str | None) -> None:
    """Memories both sides of a sync changed on the same lines: one text stays in the
    memory, the other is set aside here, until `serena memories resolve NAME` settles it."""
    from serena_memory.core.display import escape_line
    from serena_memory.core.names import normalize_name
    from serena_memory.sync.conflicts import conflicts, sides

    store = _store(project, "global")  # once: it says which project on stderr
    found = conflicts(store)
    if show is not None:
        name = normalize_name(show)
        match = next((c for c in found if c.name == name), None)
        if match is None:
            raise click.ClickException(f"memory '{escape_line(name)}' has no sync conflict")
        from serena_memory.history.restore import unified_diff

        try:
            now: bytes | None = store.read_bytes(name)
        except FileNotFoundError:
            now = None
        aside = match.remote_text.encode("utf-8")
        if as_json:
            emit_json({**match.to_dict(), "local_text": None if now is None else now.decode()})
            return
        words = sides(store, match)
        show_text(
            unified_diff(
                name,
                now,
                aside,
                f"set aside: {words.set_aside}",
                f"in the memory: {words.in_memory}",
            )
        )
        return
    if as_json:
        emit_json([c.to_dict() for c in found])
        return
    if not found:
        say("No sync conflicts.")
        return
    say(f"Sync conflicts ({len(found)}):")
    for item in found:
        words = sides(store, item)
        where = (
            f"{escape_line(item.at)}; in the memory: {escape_line(words.in_memory)}, "
            f"set aside: {escape_line(words.set_aside)}"
        )
        say(f"  {escape_line(item.name)}  ({where})")
    say(
        "Compare with `serena memories conflicts --show NAME`; combine the texts in the "
        "memory if you like, then `serena memories resolve NAME --keep memory` (or "
        "`--keep set-aside` to take the text set aside)."
    )


@click.command(name="resolve")
@click.argument("name")
@PROJECT_ARG
@PROJECT_OPTION
@click.option(
    "--keep",
    type=OneOf(["memory", "set-aside", "local", "remote"]),
    required=True,
    help="memory: the memory as it is now (edit it first to combine both texts); set-aside: "
    "the text the sync set aside (`conflicts` says whose each is). local and remote are "
    "the earlier spellings of memory and set-aside.",
)
def resolve_command(name: str, project: Path | None, keep: str) -> None:
    """Settle the sync conflict of memory NAME."""
    from serena_memory.sync.conflicts import resolve

    say(resolve(_store(project, "global"), name, keep))
