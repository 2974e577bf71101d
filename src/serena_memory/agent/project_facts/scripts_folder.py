"""The project's own tools in ``scripts/`` or ``script/`` (``scripts/test``,
``script/bootstrap``, ``scripts/lint.sh``), offered by what they run (their names when
their lines say nothing): a ``scripts/coverage`` that runs ``coverage report`` is no test
runner, a ``scripts/lint`` that runs ``ruff format`` formats."""

from __future__ import annotations

import os

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

FOLDERS = ("scripts", "script")
SHELL_SUFFIXES = ("", ".sh", ".bash")


def read_scripts(project: Project, installs_project: bool) -> None:
    for folder in FOLDERS:
        tools: dict[str, str] = {}
        tasks: dict[str, Task] = {}
        for name in project.listing(folder):
            stem, suffix = os.path.splitext(name)
            rel = f"{folder}/{name}"
            if suffix in SHELL_SUFFIXES and project.is_file(rel) and not name.startswith("."):
                runnable = os.access(project.root / rel, os.X_OK)
                tools[stem] = rel if runnable else f"bash {rel}"
                tasks[stem] = Task(stem, lines=_lines(project.text(rel) or ""))
        offer_runner_tasks(
            project.sheet,
            tasks,
            tools.__getitem__,
            f"{folder}/",
            installs_project=installs_project,
        )


def _lines(text: str) -> list[str]:
    """The command lines of a shell script (no comments, no ``set -e``)."""
    return [
        line.strip()
        for line in text.splitlines()[:200]
        if line.strip() and not line.lstrip().startswith("#")
    ]
