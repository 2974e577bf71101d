"""The tools a project installs in its own environment, typed through its runner.

After ``uv sync`` or ``npm install`` a dependency's program is not on the PATH: ``mypy``
runs as ``uv run mypy`` (``poetry run``, ``pdm run``), ``ava`` as ``npx ava`` (``pnpm
exec``, ``yarn``, ``bunx``). So every tool the project declares is shown in that form,
wherever it was read (a tox environment, a pre-commit hook, a script's chain), unless the
contributor docs type it another way: they know how their environment is entered."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from serena_memory.agent.project_facts.docs import SOURCE as DOCS
from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.node import package_data, package_manager
from serena_memory.agent.project_facts.package_managers import program_prefix
from serena_memory.agent.project_facts.python_project import runner
from serena_memory.agent.project_facts.sheet import FactSheet

# programs named unlike their package
_PYTHON_PACKAGE = {"sphinx-build": "sphinx", "sphinx-apidoc": "sphinx", "py.test": "pytest"}
# tools whose plugins, named after them, bring them along (`pytest-cov`, `tox-uv`)
_PLUGIN_HOSTS = frozenset({"pytest", "tox", "flake8", "sphinx", "mkdocs", "pylint", "nox"})
_JS_PACKAGE = {"tsc": "typescript", "playwright": "@playwright/test", "biome": "@biomejs/biome"}
# project managers and task runners of their own, typed bare even when declared
_NOT_TOOLS = frozenset({"uv", "poetry", "pdm", "hatch", "pipenv", "pip", "python", "python3",
                        "npm", "pnpm", "yarn", "bun", "node", "npx", "make", "just",
                        "task"})  # fmt: skip
_PROGRAM = re.compile(r"^[a-z][\w.-]*$")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")

Respell = Callable[[str, str], str]


def normalized(name: str) -> str:
    """A Python distribution's name as pip compares it: ``Sphinx_RTD.theme`` is
    ``sphinx-rtd-theme``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def python_packages(pyproject: dict[str, Any]) -> set[str]:
    """Every distribution pyproject.toml declares, in any group, extra or tool table."""
    requirements: list[Any] = list(table(pyproject, "project").get("dependencies") or [])
    for group in (
        table(pyproject, "project", "optional-dependencies"),
        table(pyproject, "dependency-groups"),
        table(pyproject, "tool", "pdm", "dev-dependencies"),
    ):
        for entries in group.values():
            requirements += entries if isinstance(entries, list) else []
    requirements += list(table(pyproject, "tool", "uv").get("dev-dependencies") or [])
    matches = [_REQUIREMENT.match(r) for r in requirements if isinstance(r, str)]
    names = [m.group(1) for m in matches if m]
    poetry = table(pyproject, "tool", "poetry")
    names += list(table(poetry, "dependencies")) + list(table(poetry, "dev-dependencies"))
    for group in table(poetry, "group").values():
        names += list(table(group, "dependencies"))
    return {normalized(name) for name in names}


def _python_installs(packages: set[str], program: str) -> bool:
    """Whether the declared packages install ``program``: its own package, or a plugin of
    it (``pytest-cov`` brings pytest, ``tox-uv`` tox)."""
    package = normalized(_PYTHON_PACKAGE.get(program, program))
    if package in packages:
        return True
    return package in _PLUGIN_HOSTS and any(p.startswith(f"{package}-") for p in packages)


def _js_installs(packages: set[str], program: str) -> bool:
    """Whether the dependencies install ``program``: its package, or a scoped one of that
    name (``@biomejs/biome``)."""
    if _JS_PACKAGE.get(program) in packages or program in packages:
        return True
    return any(p.startswith("@") and p.rsplit("/", 1)[-1] == program for p in packages)


def _js_packages(project: Project) -> tuple[Callable[[str], str], set[str]] | None:
    """How the project's manager runs a program, and the packages it installs."""
    data = package_data(project)
    if data is None:
        return None
    installed = {**table(data, "devDependencies"), **table(data, "dependencies")}
    manager, scripts = package_manager(project, data), table(data, "scripts")
    return lambda program: program_prefix(manager, program, scripts), set(installed)


def respeller(project: Project, pyproject: dict[str, Any]) -> Respell | None:
    """How a command read from anywhere but the docs is typed: a tool the project installs
    gets the runner's prefix, ``mypy`` becomes ``uv run mypy``; not where the docs type the
    tools bare, working in the environment entered."""
    prefix = runner(project, table(pyproject, "tool")) if pyproject else ""
    found: list[tuple[Callable[[str], str], Callable[[str], bool]]] = []
    if prefix and prefix != "hatch run ":  # hatch's environments each install their own
        packages = python_packages(pyproject)
        found.append((lambda _: prefix, lambda program: _python_installs(packages, program)))
    js = _js_packages(project)
    if js:
        run_js, names = js
        found.append((run_js, lambda program: _js_installs(names, program)))
    if not found:
        return None
    sheet = project.sheet

    def respell(command: str, source: str) -> str:
        if source == DOCS:
            return command
        program = command.split(" ", 1)[0]
        if program in _NOT_TOOLS or not _PROGRAM.match(program):
            return command
        for run, installs in found:
            if installs(program):
                return command if _entered(sheet, run, installs) else f"{run(program)}{command}"
        return command

    return respell


def _entered(sheet: FactSheet, run: Callable[[str], str], installs: Callable[[str], bool]) -> bool:
    """Whether the contributor docs work inside the environment: they type the project's
    tools bare (``pytest`` after ``poetry shell``) more often than through the runner."""
    typed = [command for command, source in sheet.sources.items() if source == DOCS]
    bare = sum(installs(command.split(" ", 1)[0]) for command in typed)
    return bare > sum(_through(command, run) for command in typed)


def _through(command: str, run: Callable[[str], str]) -> bool:
    """Whether a command is typed through the runner: ``uv run pytest``, ``pnpm eslint .``
    (the runner's form for the program named after it), not ``pnpm install``."""
    return any(command.startswith(run(word)) for word in command.split(" ")[1:3])
