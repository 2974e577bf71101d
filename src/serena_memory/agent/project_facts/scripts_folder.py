"""The project's own tools in ``scripts/`` or ``script/`` (``scripts/test``,
``script/bootstrap``, ``scripts/lint.sh``), offered by what their names say."""

from __future__ import annotations

import os

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import offer_tasks

FOLDERS = ("scripts", "script")
SHELL_SUFFIXES = ("", ".sh", ".bash")


def read_scripts(project: Project, installs_project: bool) -> None:
    for folder in FOLDERS:
        tools: dict[str, str] = {}
        for name in project.listing(folder):
            stem, suffix = os.path.splitext(name)
            rel = f"{folder}/{name}"
            if suffix in SHELL_SUFFIXES and project.is_file(rel) and not name.startswith("."):
                runnable = os.access(project.root / rel, os.X_OK)
                tools[stem] = rel if runnable else f"bash {rel}"
        offer_tasks(
            project.sheet,
            tools,
            tools.__getitem__,
            f"{folder}/",
            installs_project=installs_project,
        )
