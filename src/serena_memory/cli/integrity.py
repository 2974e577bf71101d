"""Integrity commands (check, auto-prefix-references, backlinks, graph).

Attached to the `memories` group when the command line is imported, so this module
imports nothing heavy: the analysis (Aho-Corasick, rapidfuzz) is loaded inside each
command.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from serena_memory.cli.common import (
    JSON_OPTION,
    PROJECT_ARG,
    PROJECT_OPTION,
    OneOf,
    WholeNumber,
    emit_json,
    open_store,
    say,
)
from serena_memory.core.display import counted, escape_line

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.history.secret_scan import SecretSeen
    from serena_memory.integrity.code_drift.code_report import CodeFinding


@click.command()
@PROJECT_ARG
@PROJECT_OPTION
@click.option(
    "--include-unmarked",
    is_flag=True,
    help="Also report existing memory names written without `mem:`.",
)
@click.option(
    "--fuzzy-matching",
    is_flag=True,
    help="With --include-unmarked: also report long words that nearly spell a memory name.",
)
@click.option(
    "--reachability",
    is_flag=True,
    help="Also report memories no chain of references from `mem:core` leads to, and "
    "references into ignored memories.",
)
@click.option(
    "--code",
    is_flag=True,
    help="Also check the files, folders and symbols the memories mention against the "
    "project's code: missing, moved (with the new path) and changed.",
)
@click.option(
    "--since",
    metavar="REV",
    help="With --code: look only at what changed since this git commit (for a pre-commit "
    "hook: --since HEAD).",
)
@click.option(
    "--changed-commits",
    type=WholeNumber(min=0),
    default=None,
    help="With --code: report a mentioned file as changed after this many commits since the "
    "memory last changed (default 10; 0: never).",
)
@click.option(
    "--duplicates",
    is_flag=True,
    help="Also report near-duplicate memories and sections, and statements that contradict "
    "each other (another command, path, version, number, flag, or a negation).",
)
@click.option(
    "--secrets",
    "secrets_only",
    is_flag=True,
    help="Report secrets (API keys, private keys, passwords) in the memories and in their "
    "history instead, with how to remove them; exit with status 1 when any is found.",
)
@click.option(
    "--unused",
    "unused_days",
    metavar="DAYS",
    type=WholeNumber(min=1),
    default=None,
    help="Also report the memories nobody read on this machine for DAYS days or more "
    "(see `serena memories usage`).",
)
@click.option(
    "--stale",
    is_flag=True,
    help="Also report deprecated memories, those past their stale_after date, and "
    "superseded_by names that are no memory (the memories' front matter).",
)
@JSON_OPTION
@click.option(
    "--strict",
    is_flag=True,
    help="Exit with status 1 when anything is found (of the code: missing or moved).",
)
def check(
    project: Path | None,
    include_unmarked: bool,
    fuzzy_matching: bool,
    reachability: bool,
    code: bool,
    since: str | None,
    changed_commits: int | None,
    as_json: bool,
    strict: bool,
    secrets_only: bool,
    unused_days: int | None,
    duplicates: bool,
    stale: bool,
) -> None:
    """Find references to memories that don't exist (and, on request, more). Never writes."""
    if secrets_only:
        _check_secrets(open_store(project), as_json)
        return
    from serena_memory.integrity.plugins.base import CheckOptions
    from serena_memory.integrity.plugins.registry import run_checks

    _note_ignored_options(include_unmarked, fuzzy_matching, code, since, changed_commits)
    options = CheckOptions(
        include_unmarked=include_unmarked,
        fuzzy=fuzzy_matching,
        reachability=reachability,
        code=code,
        since=since,
        changed_commits=changed_commits,
        duplicates=duplicates,
        unused_days=unused_days,
        stale=stale,
        jobs=0,  # a large check is split over the CPUs (this process runs no threads)
        progress=_reading_told() if duplicates else None,
    )
    results = run_checks(open_store(project), options)
    if as_json:
        emit_json(results.to_dict())
    else:
        for text in results.to_texts():
            say(text, nl=False)
    failure = results.strict_failure() if strict else None
    if failure is not None:
        say(failure, err=True)
        sys.exit(1)


def _reading_told() -> Callable[[int], None] | None:
    """On a terminal (a pipe stays quiet): a line saying that many memories are read for
    the duplicate check, which takes seconds the first time."""
    if not sys.stderr.isatty():
        return None
    return lambda count: say(
        f"Reading {counted(count, 'memory', 'memories')} for duplicates...", err=True
    )


def _note_ignored_options(
    include_unmarked: bool,
    fuzzy_matching: bool,
    code: bool,
    since: str | None,
    changed_commits: int | None,
) -> None:
    """Options that only work with another one are said to be ignored, not refused."""
    if fuzzy_matching and not include_unmarked:
        say("Note: --fuzzy-matching only works with --include-unmarked; ignored.", err=True)
    if (since is not None or changed_commits is not None) and not code:
        say("Note: --since and --changed-commits only work with --code; ignored.", err=True)


@click.command(name="fix-code-references")
@PROJECT_ARG
@PROJECT_OPTION
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@JSON_OPTION
def fix_code_references(project: Path | None, dry_run: bool, as_json: bool) -> None:
    """Point the paths that moved (as git's rename detection saw them) at their new place
    and the symbols git saw renamed at their new name, in the writable project memories;
    one history entry. Never touches missing mentions."""
    from serena_memory.core.display import escape_line
    from serena_memory.integrity.code_drift.fixing import fix_code_replacements as fix

    fixed, left = fix(open_store(project), dry_run=dry_run)
    if as_json:
        emit_json(
            {
                "dry_run": dry_run,
                "fixed": [f.to_dict() for r in fixed for f in r.findings],
                "left": [f.to_dict() for f in left],
            }
        )
        return
    if not fixed:
        say(
            "No moved path or renamed symbol to fix"
            + (" (dry run)." if dry_run else "; no memory changed.")
        )
        _say_left(left)
        return
    if all(f.status == "moved" for r in fixed for f in r.findings):
        verb = "Would point" if dry_run else "Pointed"
        place = "its new place" if len(fixed) == 1 else "their new places"
        say(f"{verb} {counted(len(fixed), 'moved path')} at {place}:")
    else:
        verb = "Would bring" if dry_run else "Brought"
        say(f"{verb} {counted(len(fixed), 'mention')} of code up to date:")
    for r in fixed:
        say(f"  {escape_line(r.memory)}:{r.line}: `{escape_line(r.old)}` -> `{escape_line(r.new)}`")
    _say_left(left)


def _say_left(left: list[CodeFinding]) -> None:
    """The moved paths a fix leaves as written, each with where it went: a person moves
    them (the form the memory writes them in can't hold the new place)."""
    if not left:
        return
    say(f"Left as written, to move by hand ({counted(len(left), 'moved path')}):", err=True)
    for f in left:
        say(f"  {escape_line(f.memory)}:{f.line}: {escape_line(f.describe())}", err=True)


@click.command(name="auto-prefix-references")
@PROJECT_ARG
@PROJECT_OPTION
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--include-flat-names",
    is_flag=True,
    help="Also prefix short names without a topic (often ordinary words).",
)
@click.option("--include-read-only", is_flag=True, help="Also change read-only memories.")
@click.option(
    "--include-global", is_flag=True, help="Also change global memories (shared by all projects)."
)
@click.option(
    "--include-file-paths",
    is_flag=True,
    help="Also write paths to memory files (.serena/memories/NAME.md) as `mem:NAME`.",
)
@JSON_OPTION
def auto_prefix_references(
    project: Path | None,
    dry_run: bool,
    include_flat_names: bool,
    include_read_only: bool,
    include_global: bool,
    include_file_paths: bool,
    as_json: bool,
) -> None:
    """Add `mem:` before exact mentions of existing memory names.

    By default only names with a topic or of 10+ characters, only in writable project
    memories. Near-misses are listed, never rewritten; paths to memory files are
    rewritten only with --include-file-paths.
    """
    from serena_memory.integrity.references.prefixing import auto_prefix

    report = auto_prefix(
        open_store(project),
        dry_run=dry_run,
        include_flat_names=include_flat_names,
        include_read_only=include_read_only,
        include_global=include_global,
        include_file_paths=include_file_paths,
    )
    if as_json:
        emit_json(report.to_dict())
    else:
        say(report.to_text(), nl=False)


@click.command()
@click.argument("name")
@PROJECT_ARG
@PROJECT_OPTION
@JSON_OPTION
def backlinks(name: str, project: Path, as_json: bool) -> None:
    """List the memories that reference NAME, with line numbers."""
    from serena_memory.core import names as N
    from serena_memory.core.display import escape_line
    from serena_memory.integrity.references.links import backlinks as find_backlinks

    store = open_store(project)
    canonical = N.normalize_name(name)
    found = find_backlinks(store, canonical)
    exists = store.exists(canonical) and not store.access().is_ignored(canonical)
    if as_json:
        emit_json({"name": canonical, "exists": exists, "backlinks": [b.to_dict() for b in found]})
        return
    shown = escape_line(canonical)
    note = "" if exists else f" (no memory '{shown}' exists)"
    if not found:
        say(f"No memory references `mem:{shown}`{note}.")
        return
    who = counted(len(found), "memory references", "memories reference")
    say(f"{who} `mem:{shown}`{note}:")
    for b in found:
        lines = ", ".join(str(n) for n in b.lines)
        tag = " [read-only]" if b.source_read_only else ""
        say(f"  {escape_line(b.source)}{tag}: line{'s' if len(b.lines) > 1 else ''} {lines}")


@click.command()
@PROJECT_ARG
@PROJECT_OPTION
@click.option(
    "--format",
    "fmt",
    type=OneOf(["mermaid", "dot", "graphml", "json"]),
    default="mermaid",
    show_default=True,
    help="Output format.",
)
def graph(project: Path | None, fmt: str) -> None:
    """Print the reference graph; missing targets are marked."""
    from serena_memory.core.display import escape_json
    from serena_memory.integrity.references.links import build_graph

    text = build_graph(open_store(project)).export(fmt)
    if fmt == "json":  # still JSON, with the same names, once parsed
        click.echo(escape_json(text), nl=False)
    else:
        say(text, nl=False)


def _secrets_advice(now: list[SecretSeen], past: list[SecretSeen], repositories: list[Path]) -> str:
    """Where the secrets are, then what to remove: a secret pasted in an editor is in the
    file only, and a person told to purge the history would lose all undo for nothing."""
    steps = ["Each secret found is compromised: rotate it with its provider first."]
    if now:
        named = any(seen.where() == "name" for seen in now)
        steps.append(
            "Then put a placeholder in its place in the memory (`serena memories edit`; in a "
            "name: `serena memories rename`"
            + (", with the full name `serena memories list` shows" if named else "")
            + ")."
        )
    if not past:
        steps.append(
            "The history holds none of them: they are in the memory files only, so keep the "
            "history as it is (it holds your undo)."
        )
        return "\n".join(steps)
    held = counted(len(repositories), "history repository", "history repositories")
    steps.append(
        f"The history holds {'them' if len(past) > 1 else 'it'} too, in {held}: purge "
        f"{'it' if len(repositories) == 1 else 'them'} as docs/secrets.md says (remove "
        "the repository, or rewrite it with git filter-repo):"
    )
    return "\n".join(steps + [f"  {repository}" for repository in repositories])


def _check_secrets(store: MemoryStore, as_json: bool) -> None:
    """`check --secrets`: secrets in the memories and in their history, and what to do."""
    from serena_memory.history import secret_scan

    now = secret_scan.in_memories(store)
    past = secret_scan.in_history(store)
    if as_json:
        emit_json(
            {
                "memories": [s.to_dict() for s in now],
                "history": [s.to_dict() for s in past],
                "history_repositories": [str(p) for p in secret_scan.repositories(past)],
            }
        )
    elif not now and not past:
        say("No secrets found in the memories nor in their history.")
    else:
        for seen in now:
            say(f"{escape_line(seen.memory)}:{seen.where()}: {seen.kind}")
        for seen in past:
            say(f"history {seen.entry} {escape_line(seen.memory)}:{seen.where()}: {seen.kind}")
        say(_secrets_advice(now, past, secret_scan.repositories(past)))
    if now or past:
        raise SystemExit(1)
