"""`serena memories facts`: the fact sheet onboarding hands the agent, for a person to read.

The sheet is built by the library (agent/project_facts); this command only prints it, so a
person can check what the agent will be told to run before it writes its first memories.
"""

from __future__ import annotations

from pathlib import Path

import click

from serena_memory.cli.common import (
    JSON_OPTION,
    PROJECT_ARG,
    PROJECT_OPTION,
    emit_json,
    open_store,
    say,
)


@click.command(name="facts")
@PROJECT_ARG
@PROJECT_OPTION
@JSON_OPTION
def facts_command(project: Path | None, as_json: bool) -> None:
    """Print the project's fact sheet, as onboarding gives it to the agent: its languages,
    build and CI files, and the commands contributors run, by kind ("(CI)" marks a step
    only CI runs). Read from the project's files; nothing is written."""
    from serena_memory.agent.project_facts import detect_facts

    sheet = detect_facts(open_store(project).layout.project_root)
    if as_json:
        emit_json(sheet.to_dict())
        return
    say(sheet.to_markdown())
