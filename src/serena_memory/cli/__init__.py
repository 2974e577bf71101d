"""The `serena` command line: a thin skin over the library.

The command tree is whole once this module is imported (every command is declared in its
module and attached here), so it can be run in-process, e.g. with click's CliRunner.
Heavy modules (the MCP SDK, the web stack, the integrity engine) are imported inside the
commands that need them, so `serena memories list` starts in milliseconds.
"""

from __future__ import annotations

import io
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from serena_memory.cli.common import (
    ALLOW_SECRET_OPTION,
    JSON_OPTION,
    PROJECT_ARG,
    PROJECT_OPTION,
    OneOf,
    emit_json,
    open_store,
    say,
    show_text,
)
from serena_memory.cli.dashboard import dashboard
from serena_memory.cli.facts import facts_command
from serena_memory.cli.history import diff_command, history_command, restore_command, show_command
from serena_memory.cli.integrity import (
    auto_prefix_references,
    backlinks,
    check,
    fix_code_references,
    graph,
)
from serena_memory.cli.review import review_command
from serena_memory.cli.search import search
from serena_memory.cli.servers import start_mcp_server
from serena_memory.cli.setup import setup
from serena_memory.cli.sync import conflicts_command, resolve_command, sync_command
from serena_memory.cli.transfer import export_command, import_command
from serena_memory.cli.usage import usage_command
from serena_memory.core.display import counted, escape_line, escape_text
from serena_memory.core.errors import EXPECTED_ERRORS, MemoryNotFoundError, describe
from serena_memory.core.operation import HISTORY, operation

if TYPE_CHECKING:
    from serena_memory.core.lifecycle import Described
    from serena_memory.core.store import MemoryListing, MemoryStore


class SerenaGroup(click.Group):
    """The top-level group. Any expected failure of any command (a library error, a full
    disk, a pattern nested too deeply) becomes click's one-line ``Error: ...`` with exit
    status 1, worded by :func:`describe`: the same in-process as from the console script.

    Each run is one operation (core/operation.py): the settings are read once, and what
    the history could not record is said at the end, once, on stderr."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with operation() as opened:
            try:
                return super().main(*args, **kwargs)
            finally:
                for notice in opened.take(HISTORY):  # a history that could not be recorded
                    say(f"Warning: {notice}", err=True)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise  # the reader went away; click exits quietly
        except MemoryNotFoundError as exc:
            raise click.ClickException(escape_text(_not_found(ctx, exc))) from None
        except EXPECTED_ERRORS as exc:
            raise click.ClickException(escape_text(describe(exc))) from None


def _not_found(ctx: click.Context, exc: MemoryNotFoundError) -> str:
    """The error, with the closest existing names (a typo, a shortened name, a plural) and
    where to see them all."""
    message = describe(exc)
    store = ctx.meta.get("serena.store")
    if not exc.name or store is None or "; " in message:
        return message
    from serena_memory.integrity.references.missing_names import closest_names, renamed_note

    renamed = renamed_note(store, exc.name)
    if renamed:
        return f"{message}: {escape_line(renamed)}; give that name"
    try:
        close = closest_names(store, exc.name)
    except EXPECTED_ERRORS:
        close = ()
    if close:
        quoted = " or ".join(f"'{escape_line(n)}'" for n in close)
        return f"{message}; did you mean {quoted}? (`serena memories list` shows them all)"
    if not exc.name.startswith("global/"):  # where it looked: -p may have named another folder
        message += f" in {escape_line(str(store.layout.memories_dir))}"
    return f"{message}; `serena memories list` shows the memories there are"


@click.group(cls=SerenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="serena-memory", prog_name="serena")
def cli() -> None:
    """Plain-Markdown memories for coding agents."""


@cli.group()
def memories() -> None:
    """Create, read, change and check the memories of a project.

    PROJECT (or -p/--project DIR, accepted by every command) is the project folder.
    Without it, the project is found from the current folder as git finds a repository:
    the nearest folder upward holding .serena/, else the top of the git work tree, else the
    current folder; stderr says which. Project memories live in PROJECT/.serena/memories,
    global ones (names starting with global/) in $SERENA_HOME/memories/global. A command
    that touches only global memories needs no project and runs from anywhere.
    """


@memories.command()
@PROJECT_ARG
@PROJECT_OPTION
def initialize(project: Path | None) -> None:
    """Seed the memory_maintenance memory (never overwrites an existing one)."""
    from serena_memory.agent.maintenance import seed_maintenance

    result = seed_maintenance(open_store(project))
    say(result.describe())


@memories.command(name="list")
@PROJECT_ARG
@PROJECT_OPTION
@click.option("--topic", "-t", default="", help="Only memories in this topic, e.g. auth or global.")
@JSON_OPTION
def list_command(project: Path | None, topic: str, as_json: bool) -> None:
    """List memory names: project, global and read-only apart."""
    from serena_memory.core.lifecycle import summaries_and_marks
    from serena_memory.sync.conflicts import conflicts

    store = open_store(project, only_global=topic.strip("/").split("/")[0] == "global")
    listing = store.list(topic)
    clashing = [c.name for c in conflicts(store)]
    described = summaries_and_marks(store, listing.all)
    if as_json:
        extra: dict[str, object] = {"sync_conflicts": clashing} if clashing else {}
        summaries = {n: d.summary for n, d in described.items() if d.summary}
        for key, value in (("summaries", summaries), *_marked(described)):
            if value:
                extra[key] = value
        emit_json({"project": str(store.layout.project_root), **listing.to_dict(), **extra})
        return
    _say_names(listing, topic, described)
    _say_listing_notes(listing, clashing)


SUMMARY_CHARS = 80  # a summary after its name, in a listing read on a terminal


def _marked(described: dict[str, Described]) -> list[tuple[str, list[str]]]:
    """The memories marked deprecated, and those marked stale."""
    from serena_memory.core.lifecycle import MARKS

    return [(m, sorted(n for n, d in described.items() if d.mark == m)) for m in MARKS]


def _shown(name: str, described: Described | None) -> str:
    """A listed name, then its mark and its summary, cut to one terminal line."""
    from serena_memory.core.front_matter import one_line

    if described is None:
        return escape_line(name)
    mark = f" [{described.mark}]" if described.mark else ""
    told = f" - {one_line(described.summary, SUMMARY_CHARS)}" if described.summary else ""
    return escape_line(name + mark + told)


def _say_names(
    listing: MemoryListing, topic: str, described: dict[str, Described] | None = None
) -> None:
    """The names, project, global and read-only apart, each with its mark and summary; or
    why there are none."""
    project_names = [n for n in listing.memories if not n.startswith("global/")]
    global_names = [n for n in listing.memories if n.startswith("global/")]
    sections = [
        ("Project memories", project_names),
        ("Global memories", global_names),
        ("Read-only memories", listing.read_only_memories),
    ]
    shown = False
    for title, names in sections:
        if not names:
            continue
        say(f"{title} ({len(names)}):")
        for name in names:
            say(f"  {_shown(name, (described or {}).get(name))}")
        shown = True
    if not shown and topic:
        say(f"No memories in topic '{escape_line(topic)}'; `serena memories list` shows them all.")
    elif not shown:
        say(
            "No memories yet: write one with `serena memories write NAME`, or let the agent "
            "write the first ones (its onboarding) when it starts in this project."
        )


def _say_listing_notes(listing: MemoryListing, clashing: list[str]) -> None:
    """What the names alone don't tell: skipped files, sync conflicts, a rename journal."""
    if listing.skipped:
        say(f"Skipped, not memories ({len(listing.skipped)}):")
        for item in listing.skipped:
            say(f"  {item.describe()}")
    if clashing:
        say(f"Unresolved sync conflicts ({len(clashing)}; see `serena memories conflicts`):")
        for name in clashing:
            say(f"  {escape_line(name)}")
    if listing.rename_journal:
        say(f"Warning: {listing.rename_journal}.", err=True)


@memories.command()
@click.argument("name")
@PROJECT_ARG
@PROJECT_OPTION
@JSON_OPTION
def read(name: str, project: Path | None, as_json: bool) -> None:
    """Print the content of memory NAME (on stderr: what in it names code that changed, and
    whether it is deprecated or stale)."""
    store = open_store(project, names=[name])
    memory = store.load(name)
    if as_json:
        emit_json(memory._asdict())
    else:
        show_text(memory.content)
    from serena_memory.core.lifecycle import read_note
    from serena_memory.integrity.code_drift.read_note import drift_note  # light: no analysis

    applying = "`serena memories fix-code-references` applies them."
    note = drift_note(store, memory.name, memory.content, applying)
    note = note.strip().removeprefix("---").strip()
    if note:
        say(escape_line(note), err=True)
    told = read_note(store, memory.content)  # deprecated or stale
    if told:
        say(escape_line(told), err=True)


@memories.command()
@click.argument("name")
@PROJECT_ARG
@PROJECT_OPTION
@click.option("--content", "-c", default=None, help="The content (default: read from stdin).")
@click.option(
    "--file",
    "-f",
    "source",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help="Read the content from this file ('-' for stdin).",
)
@click.option(
    "--empty",
    "allow_empty",
    is_flag=True,
    help="Empty an existing memory on purpose (an empty --content is refused otherwise).",
)
@ALLOW_SECRET_OPTION
def write(
    name: str,
    project: Path | None,
    content: str | None,
    source,
    allow_empty: bool,
    allow_secret: bool,
) -> None:
    """Create or replace memory NAME."""
    if content is not None and source is not None:
        raise click.UsageError("give either --content or --file, not both")
    if content is None:
        if source is None:
            if sys.stdin.isatty():
                raise click.UsageError("give --content, --file, or pipe the content on stdin")
            source = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
        content = source.read()  # input that is not UTF-8 is reported by main()
        if not content:  # an empty pipe or file is far more often a slip than the intent
            name_of = getattr(source, "name", None)
            where = (
                name_of if isinstance(name_of, str) and name_of != "<stdin>" else "standard input"
            )
            raise click.ClickException(
                f"{where} is empty, so memory '{escape_line(name)}' would be empty; nothing "
                "was written (to write an empty memory on purpose, give --content '' --empty)"
            )
    store = open_store(project, names=[name])
    if not content and not allow_empty:
        _refuse_emptying(store, name)
    from serena_memory.core import verbs

    outcome = verbs.write(store, name, content, allow_secret=allow_secret)
    assert isinstance(outcome, verbs.Applied)  # a person's change is never a proposal
    verb = "Created" if outcome.created else "Updated"
    shown = escape_line(outcome.change.memory)
    say(f"{verb} memory '{shown}' ({counted(outcome.chars, 'character')}).")
    for note in outcome.notes:
        say(note, err=True)


def _refuse_emptying(store: MemoryStore, name: str) -> None:
    """An empty ``--content`` is most often an unset variable (``--content "$X"``), as an
    empty pipe is: refused, unless ``--empty`` says it is meant."""
    try:
        held = len(store.load(name, announce=False).content)
    except EXPECTED_ERRORS:
        held = 0  # a new memory (or one the write will refuse with its own reason)
    if not held:
        raise click.ClickException(
            f"--content is empty, so memory '{escape_line(name)}' would be written empty; "
            'nothing was written (an unset variable in --content "$X" does this). To write '
            "an empty memory on purpose, add --empty"
        )
    if held:
        raise click.ClickException(
            f"--content is empty, so memory '{escape_line(name)}' "
            f"({counted(held, 'character')} now) would be emptied; nothing was written (an "
            'unset variable in --content "$X" does this). To empty it on purpose, add '
            "--empty; to remove it, use `serena memories delete`"
        )


@memories.command()
@click.argument("name")
@PROJECT_ARG
@PROJECT_OPTION
def delete(name: str, project: Path | None) -> None:
    """Delete memory NAME."""
    from serena_memory.core import verbs

    outcome = verbs.delete(open_store(project, names=[name]), name)
    assert isinstance(outcome, verbs.Applied)  # a person's change is never a proposal
    deleted = escape_line(outcome.change.memory)
    say(f"Deleted memory '{deleted}'.")
    if outcome.notes:  # the delete can be undone: say how, with what it broke
        say(
            f"{escape_line('; '.join(outcome.notes))}; `serena memories restore {deleted}` "
            "brings it back, or fix them (`serena memories check`).",
            err=True,
        )


@memories.command()
@click.argument("old_name")
@click.argument("new_name")
@PROJECT_ARG
@PROJECT_OPTION
@ALLOW_SECRET_OPTION
def rename(old_name: str, new_name: str, project: Path | None, allow_secret: bool) -> None:
    """Rename or move a memory; every `mem:OLD_NAME` reference follows."""
    store = open_store(project, names=[old_name, new_name])
    result = store.rename(old_name, new_name, allow_secret=allow_secret)
    say(result.summary())


@memories.command()
@click.argument("name")
@PROJECT_ARG
@PROJECT_OPTION
@click.option("--needle", "-n", required=True, help="The text (or regex) to replace.")
@click.option("--repl", "-r", required=True, help="The replacement, inserted verbatim.")
@click.option(
    "--mode",
    type=OneOf(["literal", "regex"]),
    default="literal",
    show_default=True,
    help="regex: Python regex with MULTILINE and DOTALL; $!1, $!2 insert matched groups.",
)
@click.option(
    "--allow-multiple-occurrences",
    is_flag=True,
    help="Replace every match instead of refusing when there are several.",
)
@ALLOW_SECRET_OPTION
def edit(
    name: str,
    project: Path | None,
    needle: str,
    repl: str,
    mode: str,
    allow_multiple_occurrences: bool,
    allow_secret: bool,
) -> None:
    """Replace text in memory NAME."""
    result = open_store(project, names=[name]).edit(
        name, needle, repl, mode, allow_multiple_occurrences, allow_secret=allow_secret
    )
    replaced = counted(result.replacements, "replacement")
    say(f"Edited memory '{escape_line(result.name)}': {replaced}.")
    if result.note:
        say(result.note, err=True)


for _command in (
    check,
    auto_prefix_references,
    fix_code_references,
    backlinks,
    graph,
    history_command,
    show_command,
    diff_command,
    restore_command,
    search,
    sync_command,
    conflicts_command,
    resolve_command,
    import_command,
    export_command,
    review_command,
    usage_command,
    facts_command,
):
    memories.add_command(_command)
for _command in (start_mcp_server, dashboard, setup):
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> None:
    # history problems are printed once at the end (SerenaGroup.main), not by logging too
    logging.getLogger("serena_memory.history").propagate = False
    logging.getLogger("serena_memory.history").addHandler(logging.NullHandler())
    _run(argv)


def _run(argv: list[str] | None) -> None:
    try:
        cli.main(args=argv, prog_name="serena", standalone_mode=False)
    except click.exceptions.Abort:
        say("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    sys.exit(0)


if __name__ == "__main__":
    main()
