"""Poe the Poet's tasks (``[tool.poe.tasks]``), offered as ``poe NAME`` by what they run.

A task is read as poe runs it: a ``cmd`` or ``shell`` is its command lines, a ``sequence``
runs its items in turn (a plain item, or a ``ref``, names another task), ``deps`` run
first, and a ``script`` (a Python function) says nothing, leaving the task's name to say
its kind. So ``format-ruff = "ruff check . --fix-only"`` lints and ``style = "black .
--check"`` checks the formatting, whatever their names. A private task (``_clean``) can't
be called: it is read for the tasks that run it, never offered.
"""

from __future__ import annotations

from typing import Any

from serena_memory.agent.project_facts.names import words
from serena_memory.agent.project_facts.recipes import Task

MAX_TASKS = 200
MAX_SEQUENCE = 30
_TEST_FOLDERS = frozenset({"tests", "test"})
_KINDS = ("cmd", "shell", "sequence", "ref", "script", "expr", "switch")


def poe_tasks(tasks: dict[str, Any]) -> dict[str, Task]:
    """Each task of ``[tool.poe.tasks]`` with the lines it runs and the tasks it runs first."""
    found: dict[str, Task] = {}
    for name, spec in list(tasks.items())[:MAX_TASKS]:
        if not isinstance(name, str) or not name:
            continue
        task = Task(name, private=name.startswith("_"))
        _read(spec, task)
        if isinstance(spec, dict):
            task.needs = _refs(spec.get("deps")) + task.needs
        found[name] = task
    return found


def _read(spec: Any, task: Task) -> None:
    """Add what ``spec`` (a task's body, or an item of a sequence) runs to ``task``: a
    string is a command line (an item of a sequence a task's name), a list a sequence."""
    if isinstance(spec, str):
        task.lines.extend(line for line in spec.splitlines() if line.strip())
    elif isinstance(spec, list):
        for item in spec[:MAX_SEQUENCE]:
            if isinstance(item, str):
                task.needs.extend(_refs([item]))
            else:
                _read(item, task)
    elif isinstance(spec, dict):
        _read_table(spec, task)


def _read_table(spec: dict[str, Any], task: Task) -> None:
    """A task given as a table: by the key that says what it runs."""
    body_kind = next((key for key in _KINDS if key in spec), None)
    body = spec.get(body_kind) if body_kind else None
    if body_kind in ("cmd", "shell") and isinstance(body, str):
        task.lines.extend(line for line in body.splitlines() if line.strip())
    elif body_kind == "sequence":
        _read(body if isinstance(body, list) else [], task)
    elif body_kind == "ref" and isinstance(body, str):
        task.needs.extend(_refs([body]))
    elif body_kind == "script" and _from_tests(body, spec.get("env")):
        task.label = "test"


def _from_tests(script: Any, env: Any) -> bool:
    """Whether a ``script`` task calls a function of the tests' code: its module is under
    ``tests`` (``tests.harness:main``), or the task's ``PYTHONPATH`` is the tests' folder
    (``tests/completion``): a harness or evals a contributor runs like the tests."""
    module = script.split(":", 1)[0] if isinstance(script, str) else ""
    path = env.get("PYTHONPATH") if isinstance(env, dict) else None
    folders = words(path.replace("${POE_ROOT}", "")) if isinstance(path, str) else []
    return module.split(".", 1)[0] in _TEST_FOLDERS or bool(_TEST_FOLDERS & set(folders[:1]))


def _refs(items: Any) -> list[str]:
    """The tasks a ``deps`` list or a sequence's items name (``docs -b linkcheck`` runs
    ``docs``, given arguments)."""
    names = []
    for item in items if isinstance(items, list) else []:
        first = item.split()[:1] if isinstance(item, str) else []
        names.extend(first)
    return names
