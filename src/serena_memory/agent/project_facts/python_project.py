"""Python projects: how to set one up (the lock file's tool), the tasks pyproject.toml
declares (hatch scripts, taskipy, poethepoet), the commands it installs, and, only for a
kind nothing else answered, the tool the project configures (a ``[tool.ruff]`` table makes
``ruff check`` true; no table, no guess)."""

from __future__ import annotations

import re
from typing import Any

from serena_memory.agent.project_facts.ci import release_only_lines
from serena_memory.agent.project_facts.commands import canonical
from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.hatch import hatch_envs, read_hatch
from serena_memory.agent.project_facts.names import classify_name
from serena_memory.agent.project_facts.pdm import read_pdm
from serena_memory.agent.project_facts.poe import poe_tasks
from serena_memory.agent.project_facts.python_cli import read_python_clis
from serena_memory.agent.project_facts.recipes import offer_runner_tasks

PYPROJECT = "pyproject.toml"
MAX_RUN_SCRIPTS = 2
# (lock file, the command that sets up a working copy from it)
_LOCK_SETUP = (("uv.lock", "uv sync"), ("poetry.lock", "poetry install"),
               ("pdm.lock", "pdm install"), ("Pipfile", "pipenv install --dev"))  # fmt: skip
# (lock file, the command that builds the package's sdist and wheel with its tool)
_LOCK_BUILD = (("uv.lock", "uv build"), ("poetry.lock", "poetry build"),
               ("pdm.lock", "pdm build"))  # fmt: skip
# the task runners pyproject.toml configures: (its table, the command, its package)
_TASK_RUNNERS = (("taskipy", "task ", "taskipy"), ("poe", "poe ", "poethepoet"))
_RUN_PREFIXES = ("uv run ", "poetry run ", "pdm run ", "hatch run ")
_PREFIX_SETUP = {"uv run ": "uv sync", "poetry run ": "poetry install", "pdm run ": "pdm install"}


def runner(project: Project, tool: dict[str, Any]) -> str:
    """What Python commands run through: ``uv run``, ``poetry run``, ``pdm run`` or nothing;
    from the lock file, else the tool's table, else what the project's own tasks use."""
    if project.is_file("uv.lock"):
        return "uv run "
    if project.is_file("poetry.lock") or "poetry" in tool:
        return "poetry run "
    if project.is_file("pdm.lock") or "pdm" in tool:
        return "pdm run "
    if "uv" in tool:
        return "uv run "
    for command in project.sheet.offered():
        for prefix in _RUN_PREFIXES:
            if command.startswith(prefix):
                return prefix
    return ""


def setup_command(project: Project, tool: dict[str, Any]) -> tuple[str, str] | None:
    """(command, the file that names it) for setting up a working copy: the lock file's
    tool, else the tool the project's tasks run through (``uv run`` is set up by ``uv
    sync``)."""
    for lock, command in _LOCK_SETUP:
        if project.is_file(lock):
            return command, lock
    if "poetry" in tool:
        return "poetry install", PYPROJECT
    prefix = runner(project, tool)
    if prefix in _PREFIX_SETUP:
        return _PREFIX_SETUP[prefix], "the project's tasks"
    return None


def read_python_tasks(project: Project, data: dict[str, Any]) -> None:
    """The tasks pyproject.toml (and hatch.toml) declare, by what their names say."""
    tool = table(data, "tool")
    prefix = runner(project, tool)
    sheet = project.sheet
    setup = setup_command(project, tool)
    if setup:
        sheet.add("setup", *setup)
    read_hatch(project, tool)
    read_pdm(project, tool)
    declared = project.text(PYPROJECT) or ""
    for name, command, package in _TASK_RUNNERS:
        # a runner the project does not depend on is a tool installed on its own (`uv
        # tool install poethepoet`), typed bare: the project's environment has none; so
        # is one the docs type bare (`poe test`)
        bare = any(known.startswith(command) for known in sheet.offered())
        through = prefix if package in declared and not bare else ""
        tasks = table(tool, name, "tasks")
        if name == "poe":
            offer_runner_tasks(
                sheet, poe_tasks(tasks), f"{through}{command}".__add__, PYPROJECT, read=project.text
            )
            continue
        for task in tasks:
            kind = classify_name(task)
            if kind:
                sheet.add(kind, f"{through}{command}{task}", PYPROJECT)
    read_python_clis(project, prefix)
    scripts = dict(table(data, "project", "scripts"))
    scripts.update(table(tool, "poetry", "scripts"))
    for script in list(scripts)[:MAX_RUN_SCRIPTS]:
        sheet.add("run", f"{prefix}{script}", PYPROJECT)


def read_python_tools(project: Project, data: dict[str, Any]) -> None:
    """The tools the project configures, run through its runner (``uv run mypy``), next to
    its tasks: a task says what the project runs, the tool what to type for one part."""
    tool = table(data, "tool")
    prefix = runner(project, tool)
    sheet = project.sheet
    has = _configured(project, tool)
    if "pytest" not in has and _declares(data, "pytest"):
        has["pytest"] = PYPROJECT  # a test dependency: `pytest` runs the tests it finds
    choices = (
        ("test", "pytest", "pytest"),
        ("lint", "ruff", "ruff check"),
        ("lint", "flake8", "flake8"),
        ("format", "ruff-format", "ruff format"),
        ("format", "black", "black ."),
        ("format", "isort", "isort ."),
        ("typecheck", "mypy", "mypy"),
        ("typecheck", "pyright", "pyright"),
        ("typecheck", "ty", "ty check"),
    )
    offered = {canonical(known) for known in sheet.offered()}
    for kind, name, command in choices:
        if has.get(name) and command not in offered:  # pre-commit's bare `black .`
            sheet.add(kind, f"{prefix}{command}", has[name])
    if not sheet.has("setup") and (project.is_file(PYPROJECT) or project.is_file("setup.py")):
        sheet.add("setup", "pip install -e .", PYPROJECT if data else "setup.py")
    _read_package_build(project, tool)


def _read_package_build(project: Project, tool: dict[str, Any]) -> None:
    """The project tool's own build of the package (``uv build`` beside ``uv.lock``, ``hatch
    build`` where Hatch environments are configured), like ``cargo build`` for a crate;
    not when CI runs it only to publish."""
    found = [(command, lock) for lock, command in _LOCK_BUILD if project.is_file(lock)]
    if hatch_envs(project, tool):
        found.append(("hatch build", "hatch"))
    if found and found[0][0] not in release_only_lines(project):
        project.sheet.add_default("build", *found[0])


def _declares(data: dict[str, Any], package: str) -> bool:
    """Whether pyproject.toml declares ``package`` in any dependency group or extra."""
    from serena_memory.agent.project_facts.environment_tools import python_packages

    return package in python_packages(data)


_MYPY_FILES = ("mypy.ini", ".mypy.ini")
_MYPY_TARGETS = re.compile(r"^(?:files|packages|modules)[ \t]*=[ \t]*\S", re.M)


def _configured(project: Project, tool: dict[str, Any]) -> dict[str, str]:
    """tool -> the file that configures it (only tools whose bare command uses that file)."""
    setup_cfg = project.text("setup.cfg") or ""
    found = _test_and_lint_tools(project, tool, setup_cfg)
    for name in ("black", "isort"):
        if name in tool:
            found[name] = PYPROJECT
    mypy = table(tool, "mypy")
    if mypy.get("files") or mypy.get("packages") or mypy.get("modules"):
        found["mypy"] = PYPROJECT
    for name in _MYPY_FILES:  # bare `mypy` checks the files its own file names
        if _MYPY_TARGETS.search(project.text(name) or ""):
            found["mypy"] = name
    if "pyright" in tool or project.is_file("pyrightconfig.json"):
        found["pyright"] = "pyright configuration"
    if "ty" in tool or project.is_file("ty.toml"):
        found["ty"] = "ty configuration"  # `ty check` reads `[tool.ty]` and checks the project
    return found


def _test_and_lint_tools(project: Project, tool: dict[str, Any], setup_cfg: str) -> dict[str, str]:
    found: dict[str, str] = {}
    if "pytest" in tool or project.first("pytest.ini", "conftest.py", "tests/conftest.py"):
        found["pytest"] = "pytest configuration"
    elif "[tool:pytest]" in setup_cfg:
        found["pytest"] = "setup.cfg"
    ruff = "ruff" in tool or project.first("ruff.toml", ".ruff.toml")
    if ruff:
        found["ruff"] = "ruff configuration"
        if "black" not in tool:
            found["ruff-format"] = "ruff configuration"
    if project.is_file(".flake8") or "[flake8]" in setup_cfg:
        found["flake8"] = "flake8 configuration"
    return found
