"""PDM: the scripts of ``[tool.pdm.scripts]``, offered as ``pdm run NAME`` by what they run
(a plain string, ``cmd``, ``shell`` or a ``composite`` of other scripts and commands); a
``call`` runs Python code and is known by its name only."""

from __future__ import annotations

from typing import Any

from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

SOURCE = "pyproject.toml"


def script_lines(body: Any) -> list[str]:
    """The command lines of one script, whatever its form."""
    if isinstance(body, str):
        return [body]
    if not isinstance(body, dict):
        return []
    for key in ("cmd", "shell", "composite"):
        value = body.get(key)
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            words = [str(item) for item in value if isinstance(item, str)]
            return [" ".join(words)] if key == "cmd" else words
    return []


def read_pdm(project: Project, tool: dict[str, Any]) -> None:
    scripts = table(tool, "pdm", "scripts")
    tasks: dict[str, Task] = {}
    for name, body in scripts.items():
        if name == "_" or not isinstance(name, str):
            continue  # `_` holds the options every script shares
        lines = [" ".join(line.split()) for line in script_lines(body)]
        if isinstance(body, dict) and "composite" in body:
            # a composite's step that names another script runs it: `pre_doc`, `test -x`
            lines = [f"pdm run {line}" if line.split()[0] in scripts else line
                     for line in lines if line]  # fmt: skip
        tasks[name] = Task(name, lines=[line for line in lines if line])
    offer_runner_tasks(project.sheet, tasks, lambda name: f"pdm run {name}", SOURCE)
