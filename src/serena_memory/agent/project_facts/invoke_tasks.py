"""Invoke's tasks (pyinvoke, ``tasks.py``), offered as ``inv NAME`` by what they run.

``tasks.py`` is Python: it is parsed with ``ast``, never imported or run. A task is a
function decorated with ``@task`` (or ``@task(...)``), called by its name with dashes for
underscores (``watch_docs`` is ``inv watch-docs``); its body's ``c.run("...")`` lines are
its commands (an f-string's values are variables: ``c.run(f"mypy {path}")`` runs mypy), the
tasks of ``@task(pre=[...])`` and the local tasks it calls run with it. When the file
builds its namespace (``ns = Collection(test, docs, checks.blacken)``), what it adds is
what ``inv`` offers: a collection imported from elsewhere is known by its name only
(``checks`` lints, ``docs`` builds).
"""

from __future__ import annotations

import ast

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

TASKS_FILES = ("tasks.py", "tasks/__init__.py")
# what a task's lines are handed to: `c.run`, `ctx.sudo`
_RUNS = frozenset({"run", "sudo", "local"})
_NAMESPACES = frozenset({"ns", "namespace"})
MAX_TASKS = 200


def invoke_tasks(source: str) -> dict[str, Task]:
    """The tasks ``inv`` offers from the text of ``tasks.py`` (empty when it can't be
    parsed)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and _task_decorator(node) is not None
    }
    found = {_typed(name): _task(node, functions) for name, node in functions.items()}
    added = _namespace(tree)
    if added is None:
        return dict(list(found.items())[:MAX_TASKS])
    tasks = {name: found.get(name) or Task(name) for name in added}
    # the local tasks the namespace leaves out are still read for the tasks running them
    for name, task in found.items():
        tasks.setdefault(name, Task(name, needs=task.needs, lines=task.lines, private=True))
    return dict(list(tasks.items())[:MAX_TASKS])


def _typed(name: str) -> str:
    """How invoke names a function's task: dashes for underscores, none at either end."""
    return name.strip("_").replace("_", "-")


def _task_decorator(node: ast.FunctionDef) -> ast.expr | None:
    """The ``@task`` or ``@task(...)`` decorator of ``node``, or None."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if _name_of(target) == "task":
            return decorator
    return None


def _name_of(node: ast.expr) -> str:
    """The last name of ``task`` or ``invoke.task``; of ``checks.blacken``, ``blacken``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _task(node: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> Task:
    """One task: the tasks it runs first and calls, and the lines it hands to ``c.run``."""
    task = Task(_typed(node.name), needs=_pre(node, functions))
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        called = _name_of(call.func)
        if isinstance(call.func, ast.Attribute) and called in _RUNS and call.args:
            line = _literal(call.args[0])
            if line:
                task.lines.append(line)
        elif isinstance(call.func, ast.Name) and called in functions and called != node.name:
            task.needs.append(_typed(called))
    return task


def _pre(node: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> list[str]:
    """The local tasks ``@task(clean, pre=[build], post=[...])`` runs with it."""
    decorator = _task_decorator(node)
    if not isinstance(decorator, ast.Call):
        return []
    given = [kw.value for kw in decorator.keywords if kw.arg in ("pre", "post")]
    listed = [e for value in given if isinstance(value, ast.List | ast.Tuple) for e in value.elts]
    return [_typed(_name_of(e)) for e in [*decorator.args, *listed] if _name_of(e) in functions]


def _literal(node: ast.expr) -> str:
    """A command line as written: a string, or an f-string with each value a variable."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [
            value.value if isinstance(value, ast.Constant) else "$VALUE" for value in node.values
        ]
        return "".join(str(part) for part in parts)
    return ""


def _namespace(tree: ast.Module) -> list[str] | None:
    """The names of what ``ns = Collection(...)`` (or ``namespace``) adds, with its
    ``ns.add_task(x)`` and ``ns.add_collection(x)``; None when the file builds none."""
    added: list[str] | None = None
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.Expr) else None
        if not isinstance(value, ast.Call):
            continue
        if _builds_namespace(node, value):
            added = (added or []) + _added(value.args)
        elif _name_of(value.func) in ("add_task", "add_collection") and added is not None:
            named = [kw.value for kw in value.keywords if kw.arg == "name"]
            added += _added(named[:1] or value.args[1:2] or value.args[:1])
    return None if added is None else list(dict.fromkeys(added))


def _builds_namespace(node: ast.stmt, value: ast.Call) -> bool:
    """``ns = Collection(...)``: the namespace ``inv`` reads (any other collection is a
    part of it)."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    named = any(isinstance(t, ast.Name) and t.id in _NAMESPACES for t in targets)
    return named and _name_of(value.func) == "Collection"


def _added(args: list[ast.expr]) -> list[str]:
    """The names of the tasks and collections given (a string names the one given after)."""
    names = []
    for arg in args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            names.append(arg.value)
        elif _name_of(arg):
            names.append(_typed(_name_of(arg)))
    return names


def runner_word(project: Project) -> str:
    """``invoke`` when the project's docs type it so, else its short name ``inv``."""
    offered = project.sheet.offered()
    if any(c.startswith("invoke ") for c in offered) and not any(
        c.startswith("inv ") for c in offered
    ):
        return "invoke"
    return "inv"


def read_invoke(project: Project) -> None:
    name = project.first(*TASKS_FILES)
    text = project.text(name) if name else None
    if name is None or not text or "invoke" not in text:
        return
    word = runner_word(project)
    offer_runner_tasks(
        project.sheet, invoke_tasks(text), lambda task: f"{word} {task}", name, read=project.text
    )
