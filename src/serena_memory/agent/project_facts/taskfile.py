"""The tasks of a Taskfile (taskfile.dev), offered as ``task NAME``."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.names import offer_tasks

TASKFILES = ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml",
             "Taskfile.dist.yml", "Taskfile.dist.yaml")  # fmt: skip


def tasks(data: object) -> list[str]:
    """The tasks a person can call (not the ``internal`` ones), in order."""
    found = []
    for name, task in table(data, "tasks").items():
        if isinstance(name, str) and not (isinstance(task, dict) and task.get("internal")):
            found.append(name)
    return found


def read_taskfile(project: Project, installs_project: bool) -> None:
    name = project.first(*TASKFILES)
    if name is None:
        return
    offer_tasks(
        project.sheet,
        tasks(project.yaml(name)),
        lambda task: f"task {task}",
        name,
        installs_project=installs_project,
    )
