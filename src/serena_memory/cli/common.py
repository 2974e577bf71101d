"""What every command shares: the project folder, opening the store, the output.

Cheap to import (click and the core store only), so every command module can use it
without slowing the start of `serena`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from serena_memory.core import background
from serena_memory.core.changes import Provenance
from serena_memory.core.display import escape_json, escape_text
from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store

if TYPE_CHECKING:
    from serena_memory.core.discovery import ProjectChoice


class WholeNumber(click.IntRange):
    """click's IntRange, worded for a person: a word given for a number is answered "'abc'
    is not a valid integer range" by click itself, which names no range."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            try:
                int(value.strip())
            except ValueError:
                self.fail(f"{value!r} is not a whole number; give {self._bounds()}", param, ctx)
        return super().convert(value, param, ctx)

    def _bounds(self) -> str:
        if self.min is not None and self.max is not None:
            return f"one from {self.min} to {self.max}"
        if self.min is not None:
            return f"{self.min} or more"
        return "a whole number" if self.max is None else f"{self.max} or less"


class OneOf(click.Choice):
    """click's Choice that also says which choice a slip most likely meant (`setup claude`:
    claude-code or claude-desktop)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            import difflib

            choices = [str(c) for c in self.choices]
            typed = str(value).casefold()
            close = [c for c in choices if c.startswith(typed) and typed]
            close += [
                c for c in difflib.get_close_matches(typed, choices, 2, 0.6) if c not in close
            ]
            if not close:
                raise
            listed = ", ".join(choices)
            guess = " or ".join(f"'{c}'" for c in close[:2])
            self.fail(f"{value!r} is not one of {listed}; did you mean {guess}?", param, ctx)


ALLOW_SECRET_OPTION = click.option(
    "--allow-secret",
    is_flag=True,
    help="Write even if the text looks like it holds a secret (it is not one).",
)
"""The person's override of the secret gate (core/secrets.py), the same on every command
that writes."""

PROJECT_ARG = click.argument(
    "project",
    required=False,
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
)


def _remember_project(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    if value is not None:
        ctx.meta["serena.project_option"] = value


# `-p/--project DIR` names the project in every command, beside the positional PROJECT where
# a command has one; open_store reads it, so the commands' own signatures stay as they are.
PROJECT_OPTION = click.option(
    "--project",
    "-p",
    "project_option",
    metavar="DIR",
    default=None,
    expose_value=False,
    is_eager=True,
    callback=_remember_project,
    type=click.Path(file_okay=False, path_type=Path),
    help="The project folder (default: found from the current folder).",
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def given_project(project: Path | None) -> Path | None:
    """The folder given as PROJECT or with -p/--project (the same one if both)."""
    command = click.get_current_context(silent=True)
    option = command.meta.get("serena.project_option") if command is not None else None
    if option is None:
        return project
    if project is not None and os.path.realpath(project) != os.path.realpath(option):
        raise click.UsageError(
            f"two project folders given ({project} and {option}); give it once, as PROJECT "
            "or with -p/--project"
        )
    return Path(option)


def open_store(
    project: Path | None, *, names: Iterable[str] = (), only_global: bool = False
) -> MemoryStore:
    """The project's store; refuses a missing folder, a file, a folder that is never a
    project (core/paths.py) and a broken configuration before any command runs.

    Without PROJECT the project is found from the current folder as git finds a repository
    (core/discovery.py), and stderr says which one, so a command run from a subfolder never
    works on a stray folder of its own unnoticed. A command that touches only global
    memories (``names`` all global, or ``only_global``) needs no project: run from the home
    folder or a folder that is no project, it works on the global memories alone and
    creates nothing where it runs."""
    from serena_memory.core.config import serena_home
    from serena_memory.core.discovery import choose_project, global_only_choice

    project = given_project(project)
    home = serena_home()
    if project is None and (only_global or _all_global(names)):
        choice = global_only_choice(home)
    else:
        choice = choose_project(project, home)
    tell_project(choice, home)
    command = click.get_current_context(silent=True)
    action = command.info_name if command is not None else ""
    store = build_store(
        choice.root,
        home=home,
        context=Context.HUMAN,
        provenance=Provenance.os_user("cli", action or ""),
    )
    if command is not None:  # an interrupted rename finished on the way: say so at the end
        command.call_on_close(lambda: _tell(store))
        command.meta["serena.store"] = store  # for the closest names when one is not found
    store.snapshot()  # a configuration that can't be used is told now, before any work
    return store


def tell_project(choice: ProjectChoice, home: Path | None) -> None:
    """Say on stderr which project a command works on when that tells something: one found
    from the current folder (a command run from a subfolder never works on a stray folder
    unnoticed), or one given that has a project above it. A folder given as it is, the
    usual case (an agent's host starts the MCP server with --project), is not echoed.
    ``home``: $SERENA_HOME (None: the configured one)."""
    from serena_memory.core.config import serena_home
    from serena_memory.core.discovery import project_above

    home = serena_home() if home is None else home

    if choice.found_by not in ("given", "global only"):
        if _is_current_folder(choice.root):
            return  # run in the project's own folder: nothing to tell
        say(choice.describe(), err=True)
    elif choice.found_by == "given" and (above := project_above(choice.root, home)) is not None:
        say(
            f"Project: {choice.root} (as given; it has no .serena/ of its own, and {above} "
            f"above it is a project: give -p {above} to use that one)",
            err=True,
        )


def _is_current_folder(root: Path) -> bool:
    try:
        return Path.cwd().resolve() == root.resolve()
    except OSError:  # the current folder was removed
        return False


def _all_global(names: Iterable[str]) -> bool:
    from serena_memory.core import names as N
    from serena_memory.core.errors import InvalidNameError

    listed = list(names)
    try:
        return bool(listed) and all(N.is_global(N.normalize_name(n)) for n in listed)
    except InvalidNameError:
        return False  # the command itself says what is wrong with the name


def _tell(store: MemoryStore) -> None:
    """What the store did on the side (see MemoryStore.take_notices), one line each on stderr."""
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


@contextlib.contextmanager
def background_stopped() -> Iterator[None]:
    """Around a server's serving: its background threads are stopped before the command
    returns, however it ends (core/background.py: a thread left running can make the
    interpreter's end abort the process)."""
    try:
        yield
    except SystemExit as exc:
        background.finish(exc.code if isinstance(exc.code, int) else 1)
        raise
    except BaseException:
        background.finish(1)
        raise
    background.finish(0)
