"""The tasks of a Taskfile (taskfile.dev), offered as ``task NAME`` by what they run.

A task's kind is read from its ``cmds`` (a command line, ``cmd:``, or ``task:`` calling
another task) and its ``deps``, as for a make target; its name says the kind only when the
body says nothing. The Taskfiles it ``includes:`` (``website: ./website``) add their tasks
under the include's name: ``task website:build``, and ``task website`` for that file's
``default``. The root's ``default`` task is ``task`` alone.
"""

from __future__ import annotations

import posixpath
from typing import Any

from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

TASKFILES = ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml",
             "Taskfile.dist.yml", "Taskfile.dist.yaml")  # fmt: skip
MAX_INCLUDES = 10
DEFAULT = "default"


def taskfile_tasks(data: object, namespace: str = "") -> dict[str, Task]:
    """The callable tasks of one Taskfile's data, named with ``namespace`` (``website:``),
    with the tasks they need first and their command lines (a called task as ``task X``).
    A wildcard task (``release:*``) needs its argument: it is left out."""
    found: dict[str, Task] = {}
    for name, body in table(data, "tasks").items():
        if not isinstance(name, str) or "*" in name:
            continue
        spec = body if isinstance(body, dict) else {"cmds": body}
        if spec.get("internal") is True:
            continue
        cmds = spec.get("cmds") or spec.get("cmd")
        needs = _called(spec.get("deps"), bare=True) + _called(cmds, bare=False)
        found[namespace + name] = Task(
            namespace + name,
            needs=[namespace + need for need in needs],
            lines=_lines(cmds),
            label=name,
        )
    return found


def _called(items: Any, *, bare: bool) -> list[str]:
    """The tasks ``deps:`` names (``bare``: a name, or ``{task: name}``) or ``cmds:``
    calls (``{task: name}``): run first, as a make target's prerequisites are."""
    names = []
    for item in items if isinstance(items, list) else []:
        name = item.get("task") if isinstance(item, dict) else item if bare else None
        if isinstance(name, str):
            names.append(name)
    return names


def _lines(cmds: Any) -> list[str]:
    """The command lines of ``cmds:`` (a string, or ``{cmd: line}``)."""
    lines: list[str] = []
    for item in cmds if isinstance(cmds, list) else [cmds]:
        text = item.get("cmd") if isinstance(item, dict) else item
        if isinstance(text, str):
            lines.extend(line for line in text.splitlines() if line.strip())
    return lines


def typed(name: str) -> str:
    """How a task is called: an included file's ``default`` by the include's name."""
    if name == DEFAULT:
        return "task"
    if name.endswith(":" + DEFAULT):
        name = name[: -len(DEFAULT) - 1]
    return f"task {name}"


def included(project: Project, data: object, folder: str) -> dict[str, Task]:
    """The tasks of the local Taskfiles ``data`` includes (a path, or ``{taskfile: path}``,
    a folder meaning its Taskfile), each under its include's name."""
    found: dict[str, Task] = {}
    for name, spec in list(table(data, "includes").items())[:MAX_INCLUDES]:
        path = spec.get("taskfile") if isinstance(spec, dict) else spec
        internal = isinstance(spec, dict) and spec.get("internal") is True
        if not isinstance(name, str) or not isinstance(path, str) or internal or "://" in path:
            continue
        rel = posixpath.normpath(posixpath.join(folder, path))
        if rel.startswith(("..", "/")) or "{{" in rel:
            continue
        if project.is_dir(rel):
            rel = next((f"{rel}/{n}" for n in TASKFILES if project.is_file(f"{rel}/{n}")), "")
        if rel and project.is_file(rel):
            found.update(taskfile_tasks(project.yaml(rel), f"{name}:"))
    return found


def read_taskfile(project: Project, installs_project: bool) -> None:
    name = project.first(*TASKFILES)
    if name is None:
        return
    data = project.yaml(name)
    found = taskfile_tasks(data)
    for task_name, task in included(project, data, "").items():
        found.setdefault(task_name, task)
    offer_runner_tasks(
        project.sheet,
        found,
        typed,
        name,
        default=DEFAULT if DEFAULT in found else None,
        bare="task",
        installs_project=installs_project,
        read=project.text,
    )
