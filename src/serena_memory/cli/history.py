"""History commands (history, show, diff, restore): every change recorded, and undone.

Registered eagerly into the `memories` group, so this module imports nothing heavy; the
history engine is loaded inside each command.
"""

from __future__ import annotations

from pathlib import Path

import click

from serena_memory.cli.common import (
    ALLOW_SECRET_OPTION,
    JSON_OPTION,
    emit_json,
    open_store,
    say,
    show_text,
)

_PROJECT_ARG = click.argument(
    "project",
    required=False,
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
)
_PROJECT_OPTION = click.option(
    "--project",
    "-p",
    "project_option",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="The project folder (default: found from the current folder).",
)


class _TimeInWordsCommand(click.Command):
    """`history --since last week`: the shell gave `--since` the word `last`, and `week`
    became a project folder or a memory name. Told before the words are taken for those;
    ``time_option`` is the option that takes the time (`restore --at 3 days ago` too)."""

    time_option = "--since"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        from serena_memory.history.times import quoting_hint, split_phrase

        option = self.time_option
        for at, arg in enumerate(args):
            if arg == "--":
                break
            if arg == option and at + 1 < len(args):
                value, rest = args[at + 1], args[at + 2 :]
            elif arg.startswith(option + "="):
                value, rest = arg.removeprefix(option + "="), args[at + 1 :]
            else:
                continue
            ends = [i for i, word in enumerate(rest) if word.startswith("-")]
            phrase = split_phrase(value, rest[: ends[0] if ends else len(rest)])
            if phrase:
                raise click.UsageError(
                    f"the time after {option} is several words ({phrase}), and the shell "
                    f"gave {option} only '{value}': {quoting_hint(phrase, option)}",
                    ctx,
                )
        return super().parse_args(ctx, args)


class _TimeAtCommand(_TimeInWordsCommand):
    """`restore --at 3 days ago`: the same told for the time after `--at`."""

    time_option = "--at"


def _history(*projects: Path | None, names: tuple[str | None, ...] = ()):
    """The history of the project given (-p/--project, else PROJECT), else the one found
    from the current folder; of the global memories alone when every name is global."""
    given = [p for p in projects if p is not None]
    if len(given) == 2 and given[0].resolve() != given[1].resolve():
        raise click.UsageError("two project folders given; give it once, as PROJECT or with -p")
    listed = [n for n in names if n is not None]
    from serena_memory.history.restore import MemoryHistory

    return MemoryHistory(open_store(given[0] if given else None, names=listed))


def _folder_not_name(name: str | None, project: Path | None) -> bool:
    """Whether the lone argument of `history ARG` is a project folder, not a memory name:
    an existing folder that holds .serena/ or .git, or that no memory name can spell
    (`.`, `..`, `/abs/path`, `~/app`)."""
    if name is None or project is not None:
        return False
    folder = Path(name).expanduser()
    if not folder.is_dir():
        return False
    if name.startswith("~"):
        return True
    if (folder / ".serena").is_dir() or (folder / ".git").exists():
        return True
    from serena_memory.core.errors import InvalidNameError
    from serena_memory.core.names import normalize_name

    try:
        return normalize_name(name) != name.strip()
    except InvalidNameError:
        return True


def _when(text: str) -> str:
    from datetime import datetime

    moment = datetime.fromisoformat(text)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _describe_changes(entry) -> str:
    from serena_memory.core.display import escape_line

    words = {"A": "created", "M": "changed", "D": "deleted"}
    return ", ".join(
        f"{escape_line(name)} {escape_line(words.get(kind, kind))}" for kind, name in entry.changes
    )


@click.command(name="history", cls=_TimeInWordsCommand)
@click.argument("name", required=False)
@_PROJECT_ARG
@_PROJECT_OPTION
@click.option(
    "--since",
    "since",
    default=None,
    help="Only entries since WHEN: 2h, 3 days ago, yesterday, 2026-11-30 or 2026-11-30T14:05.",
)
@JSON_OPTION
@click.option(
    "--prune",
    is_flag=True,
    help="Drop entries older than memory_history_keep_days days (configuration).",
)
def history_command(
    name: str | None,
    project: Path | None,
    project_option: Path | None,
    since: str | None,
    as_json: bool,
    prune: bool,
) -> None:
    """Changes to memory NAME (across its renames), or to every memory: when, through
    what, by whom. Newest first."""
    from serena_memory.core.names import normalize_name
    from serena_memory.history.times import parse_when

    if _folder_not_name(name, project):  # `history DIR`: the history of that project
        name, project = None, Path(name or ".")
    history = _history(project_option, project, names=(name,))
    if prune:
        _prune(history)
        return
    moment = parse_when(since) if since else None
    entries = history.entries(normalize_name(name) if name else None, moment)
    if as_json:
        emit_json([e.to_dict() for e in entries])
        return
    if not history.enabled:
        say(
            "History is off for this project (memory_history: false); entries recorded "
            "before, and those of the global memories, are below."
        )
    if not entries:
        say("No history entries." if not name else f"No history entries for '{name}'.")
        return
    for entry in entries:
        _say_entry(entry)


def _prune(history) -> None:
    """Drop the entries older than the kept days and say what is kept."""
    from serena_memory.core.display import counted

    dropped = history.prune()
    kept = [
        f"the {label} history {counted(days, 'day')}"
        for label, days in (
            ("project's", history.keep_days),
            ("global", history.global_keep_days),
        )
        if days > 0
    ]
    say(
        f"Dropped {counted(dropped, 'old entry', 'old entries')}, keeping "
        f"{' and '.join(kept)}; the memories as they were at each cut are the first "
        "entry of that history now."
    )


def _say_entry(entry) -> None:
    """One line per entry, and the changes under it when they are not the summary's."""
    from serena_memory.core.display import escape_line as shown

    # author, summary and names come from commits, perhaps a remote's
    who = f"{shown(entry.entry_point)} {shown(entry.who)}"
    if entry.action:
        who += f" ({shown(entry.action)})"
    if entry.machine:
        who += f" on {shown(entry.machine)}"
    when = _when(entry.time.isoformat())
    say(f"{shown(entry.short)}  {when}  {who}  {shown(entry.summary)}")
    named = len(entry.changes) == 1 and entry.changes[0][1] in entry.summary  # "Create core"
    if entry.changes and (entry.entry_point == "external" or not named):
        say(f"{'':12}{_describe_changes(entry)}")


@click.command(name="show")
@click.argument("name")
@_PROJECT_ARG
@_PROJECT_OPTION
@click.option("--at", "rev", required=True, help="The history entry (from `history`).")
def show_command(name: str, project: Path | None, project_option: Path | None, rev: str) -> None:
    """Print memory NAME as it was at entry REV."""
    import sys

    from serena_memory.core.errors import HistoryError
    from serena_memory.core.names import normalize_name

    name = normalize_name(name)
    old_name, data = _history(project_option, project, names=(name,)).content_at(name, rev)
    if data is None:
        raise HistoryError(f"memory '{name}' did not exist at {rev}")
    if old_name != name:
        say(f"(then named '{old_name}')", err=True)
    if sys.stdout.isatty():  # on a terminal its control characters are escaped
        show_text(data.decode("utf-8", "surrogateescape"))
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(data if data.endswith(b"\n") or not data else data + b"\n")
    sys.stdout.flush()


@click.command(name="diff")
@click.argument("name")
@click.argument("revs", nargs=-1)
@_PROJECT_OPTION
def diff_command(name: str, revs: tuple[str, ...], project_option: Path | None) -> None:
    """What changed in memory NAME: with no REV its latest change, with one REV the change
    that entry made, with two the difference from the first to the second."""
    from serena_memory.core.names import normalize_name
    from serena_memory.history.restore import unified_diff

    if len(revs) > 2:
        raise click.UsageError("give at most two entries")
    name = normalize_name(name)
    history = _history(project_option, names=(name,))
    if len(revs) == 2:
        old_rev, new_rev = revs
        old = history.content_at(name, old_rev)[1]
    else:
        new_rev = revs[0] if revs else history.latest(name).rev
        old_rev = ""
        old = history.before(name, new_rev)
    new = history.content_at(name, new_rev)[1]
    text = unified_diff(name, old, new, new_rev, old_rev)
    show_text(text if text else "No difference.")


@click.command(name="restore", cls=_TimeAtCommand)
@click.argument("name", required=False)
@_PROJECT_ARG
@_PROJECT_OPTION
@click.option("--at", "at", default=None, help="The entry to go back to (or, with --all, a time).")
@click.option("--all", "everything", is_flag=True, help="Restore every memory (needs --at).")
@ALLOW_SECRET_OPTION
def restore_command(
    name: str | None,
    project: Path | None,
    project_option: Path | None,
    at: str | None,
    everything: bool,
    allow_secret: bool,
) -> None:
    """Bring back memory NAME as it was at entry --at (default: before its latest change,
    which brings back a deleted memory), or with --all every memory as it was at an entry
    or a time. A restore is a new entry: nothing in the history is lost."""
    from serena_memory.core.names import normalize_name

    if everything:
        if name is not None and project is None:
            project = Path(name)  # `restore --all PROJECT`
        elif name is not None:
            raise click.UsageError("give a memory NAME or --all, not both")
        if at is None:
            raise click.UsageError("--all needs --at ENTRY or --at TIME")
        result = _history(project_option, project).restore_all(at)
    else:
        if name is None:
            raise click.UsageError("give the NAME of a memory, or --all --at ENTRY|TIME")
        result = _history(project_option, project, names=(name,)).restore(
            normalize_name(name), at, allow_secret=allow_secret
        )
    say(result.summary())
