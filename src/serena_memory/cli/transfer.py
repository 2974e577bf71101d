"""`serena memories import` and `export`: memories in from other tools, out for agents
without MCP. The formats are read by serena_memory.transfer, loaded inside the commands."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

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
from serena_memory.core.display import counted

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.transfer.formats import Found
    from serena_memory.transfer.plan import ImportResult

_FORMATS = (
    "claude-md",
    "agents-md",
    "cursor-rules",
    "cline-memory-bank",
    "claude-auto-memory",
    "basic-memory",
    "mcp-memory-jsonl",
    "bundle",
    "okf",
    "auto",
)
PROGRESS_EVERY = 25  # files between two progress lines on a terminal


def _progress() -> Callable[[str], None] | None:
    """A count of the files read, on a terminal only (a pipe stays quiet)."""
    if not sys.stderr.isatty():
        return None
    seen = [0]

    def tell(_shown: str) -> None:
        seen[0] += 1
        if seen[0] % PROGRESS_EVERY == 0:
            click.echo(f"\rRead {seen[0]} files...", err=True, nl=False)

    return tell


@click.command(name="import")
@click.argument("fmt", metavar="FORMAT", type=OneOf(_FORMATS))
@click.argument("path", required=False, type=click.Path(path_type=Path))
@PROJECT_OPTION
@click.option(
    "--topic", "-t", default=None, help="The topic to import under (default: per format)."
)
@click.option("--dry-run", is_flag=True, help="Say what would be created; write nothing.")
@click.option(
    "--on-conflict",
    type=OneOf(["beside", "rename", "skip"]),
    default="beside",
    show_default=True,
    help="A memory of the same name with other text: write the import beside it under the "
    "format's topic, as FORMAT/NAME (beside), or as NAME-imported (rename), and add a "
    "reference to it at the end of that memory; or leave it out (skip).",
)
@click.option("--yes", "-y", is_flag=True, help="With auto: import everything found, unasked.")
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Import text the secret scan flags (when you know it is not a secret).",
)
@click.option(
    "--allow-global",
    is_flag=True,
    help="Also write the global/ memories a bundle holds (every project sees them); "
    "without it they are skipped.",
)
@click.option(
    "--max-memories",
    metavar="N",
    type=WholeNumber(1),
    default=None,
    help="The most memories the import may create (default: 2,000); past it nothing is written.",
)
@JSON_OPTION
def import_command(
    fmt: str,
    path: Path | None,
    topic: str | None,
    dry_run: bool,
    on_conflict: str,
    yes: bool,
    allow_secret: bool,
    allow_global: bool,
    max_memories: int | None,
    as_json: bool,
) -> None:
    """Import memories from FORMAT at PATH (default: the project folder).

    FORMAT is claude-md or agents-md (CLAUDE.md/AGENTS.md, nested ones and @imports),
    cursor-rules (.cursor/rules/*.mdc), cline-memory-bank (memory-bank/),
    claude-auto-memory (Claude Code's MEMORY.md and topic files), basic-memory (notes with
    [[links]]), mcp-memory-jsonl (the MCP memory server's memory.jsonl), bundle (a file
    written by `export bundle`), okf (an Open Knowledge Format bundle folder), or auto
    (find them in the project, list them, and import those you confirm). Without PATH the
    source must lie inside the project: a link out of it is never followed. Existing
    memories are never overwritten, global memories are written only with --allow-global,
    at most --max-memories are created, and the import
    is one history entry (its output ends with the commands that undo it)."""
    from serena_memory.transfer.formats import Found, plan_import
    from serena_memory.transfer.plan import MAX_IMPORTED_MEMORIES, apply_plan
    from serena_memory.transfer.sources import Reach

    _refuse_bundle_without_file(fmt, path)
    store = open_store(None)
    source = path if path is not None else store.layout.project_root
    if fmt == "auto":
        chosen = _auto_sources(source, yes or dry_run)  # a dry run asks nothing: it writes nothing
        reach = Reach.project(source)
    else:
        chosen = [Found(fmt, source)]
        reach = (
            Reach.project(source) if path is None else Reach.named(path, store.layout.project_root)
        )
    results = []
    for item in chosen:
        plan = plan_import(item.format, item.path, topic, _progress(), reach=reach)
        results.append(
            apply_plan(
                store,
                plan,
                on_conflict=on_conflict,
                dry_run=dry_run,
                allow_secret=allow_secret,
                allow_global=allow_global,
                max_memories=max_memories or MAX_IMPORTED_MEMORIES,
            )
        )
    if as_json:
        emit_json([r.to_dict() for r in results])
        return
    _say_results(results)


def _say_results(results: list[ImportResult]) -> None:
    """Each import's summary; after several (`auto`), one undo for the whole run: the
    first import's, which goes back to before all of them."""
    if len(results) > 1:
        undo = next((r.undo for r in results if r.undo), [])
        for result in results:
            result.undo = []
        results[-1].undo = undo
    for result in results:
        for line in result.lines():
            say(line)


def _refuse_bundle_without_file(fmt: str, path: Path | None) -> None:
    if fmt == "okf" and path is None:
        raise click.UsageError(
            "import okf reads one bundle folder: give it as PATH, e.g. `serena memories "
            "import okf knowledge/` (`serena memories export okf DEST` writes one)"
        )
    if fmt == "bundle" and path is None:
        raise click.UsageError(
            "import bundle reads one bundle file: give it as PATH, e.g. `serena memories "
            "import bundle memories.json` (`serena memories export bundle --file F` writes one)"
        )


def _auto_sources(source: Path, yes: bool) -> list[Found]:
    """The sources `import auto` takes: those the project holds, listed, each confirmed
    (``yes``: all). One reached through a link out of the project is never followed, and
    one in the home folder is only named, with the command that imports it by its path."""
    from serena_memory.transfer.formats import detect

    found = detect(source)
    usable = [f for f in found if f.in_project and not f.refused]
    _say_found(source, found, usable)
    if not usable:
        return []
    if not yes and not sys.stdin.isatty():
        say("Run again with --yes to import them all, or import one with its FORMAT.")
        return []
    return [f for f in usable if yes or click.confirm(f"Import {f.describe()}?", default=True)]


def _say_found(source: Path, found: list[Found], usable: list[Found]) -> None:
    """What `import auto` found: what it may import, then what it leaves and why."""
    from serena_memory.core.display import escape_line

    if not found:
        say(f"No importable sources in {escape_line(str(source))} or the home folder.")
    elif usable:
        say("Found:")
        for item in usable:
            say(f"  {escape_line(item.describe())}")
    for item in found:
        if item.refused:
            say(f"Not followed: {escape_line(item.refused)}.")
        elif not item.in_project:
            say(
                f"Outside the project: {escape_line(item.describe())}; import it with "
                f"`{escape_line(item.command())}`."
            )


@click.command(name="export")
@click.argument("fmt", metavar="FORMAT", type=OneOf(["agents-md", "claude-md", "bundle", "okf"]))
@click.argument("dest", metavar="[PATH]", required=False, type=click.Path(path_type=Path))
@PROJECT_OPTION
@click.option(
    "--file", "-f", "file", type=click.Path(path_type=Path), default=None, help="The file to write."
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the export is stale.")
@click.option(
    "--budget",
    type=WholeNumber(100, 100_000),
    default=600,
    show_default=True,
    help="Tokens the section may take.",
)
@click.option("--global", "include_global", is_flag=True, help="With okf: the global memories too.")
def export_command(
    fmt: str, dest: Path | None, file: Path | None, check: bool, budget: int, include_global: bool
) -> None:
    """Write the memories for agents that read only AGENTS.md or CLAUDE.md, as a bundle, or
    as an Open Knowledge Format bundle folder.

    agents-md and claude-md write, between two marker comments of that file (PATH, default:
    AGENTS.md or CLAUDE.md in the project), a short section telling an agent where the
    memories are and which to read first; running it again replaces only that section.
    bundle writes every memory with its metadata as one JSON file (PATH or --file), which
    `serena memories import bundle FILE` reads back. okf writes the folder PATH: one
    concept per memory, an index.md per folder and log.md from the history, which
    `serena memories import okf PATH` reads back."""
    from serena_memory.core.display import escape_line
    from serena_memory.transfer.export import export_bundle, export_section

    if dest is not None and file is not None:
        raise click.UsageError("give the path once: as PATH or as --file, not both")
    file = file or dest
    store = open_store(None)
    if fmt == "okf":
        _export_okf(store, file, check, include_global)
        return
    if fmt == "bundle":
        if file is None:
            raise click.UsageError("export bundle needs the file to write: PATH or --file FILE")
        count = export_bundle(store, file)
        say(f"Wrote {counted(count, 'memory', 'memories')} to {escape_line(str(file))}.")
        return
    result = export_section(store, fmt, file, budget=budget, check=check)
    shown = escape_line(str(result.path))
    if check:
        if result.changed:
            say(
                f"The memory section of {shown} is out of date; run `serena memories export {fmt}`."
            )
            sys.exit(1)
        say(f"The memory section of {shown} is up to date.")
        return
    say(f"{'Updated' if result.changed else 'Already up to date:'} {shown}.")


def _export_okf(store: MemoryStore, dest: Path | None, check: bool, include_global: bool) -> None:
    """`export okf DEST`: write the bundle folder, or with --check say whether it is stale."""
    from serena_memory.core.display import escape_line
    from serena_memory.integrity.code_drift.read_note import code_facts
    from serena_memory.transfer.okf_export import export_okf

    if dest is None:
        raise click.UsageError(
            "export okf needs the folder to write: `serena memories export okf DEST`"
        )
    result = export_okf(
        store, dest, include_global=include_global, check=check, code=code_facts(store)
    )
    shown = escape_line(str(result.dest))
    files = counted(len(result.written) + len(result.removed), "file", "files")
    if check:
        if result.changed:
            again = "export okf " + ("--global " if include_global else "") + shown
            say(
                f"The OKF bundle in {shown} is out of date ({files} differ); run "
                f"`serena memories {again}`."
            )
            sys.exit(1)
        say(f"The OKF bundle in {shown} is up to date.")
        return
    memories = counted(result.memories, "memory", "memories")
    if not result.changed:
        say(f"Already up to date: {shown} ({memories}).")
        return
    say(f"Wrote {memories} to {shown} ({files} written or removed).")
