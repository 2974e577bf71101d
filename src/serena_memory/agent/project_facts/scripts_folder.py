"""The project's own tools in ``scripts/`` or ``script/`` (``scripts/test``,
``script/bootstrap``, ``scripts/lint.sh``) and its shell scripts at the root
that check or test (``./check.sh``), and a Ruby project's ``bin/`` (Bundler's
``bin/setup``, ``bin/console``, a ``bin/test``), offered by what they run (their names when
their lines say nothing): a ``scripts/coverage`` that runs ``coverage report`` is no test
runner, a ``scripts/lint`` that runs ``ruff format`` formats."""

from __future__ import annotations

import os
import re

from serena_memory.agent.project_facts.commands import installs_system_packages
from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import classify_name
from serena_memory.agent.project_facts.recipes import Reader, Task, offer_runner_tasks

FOLDERS = ("scripts", "script")
# Bundler's folder of the project's own tools; elsewhere `bin/` holds what the project ships
RUBY_TOOLS = "bin"
SHELL_SUFFIXES = ("", ".sh", ".bash")
CHECKS = frozenset({"test", "lint", "format", "typecheck"})
# `export NAME="plain value"` (no expansion in it) and a use of it, `$NAME` or `${NAME}`
_ASSIGNMENT = re.compile(r"""^(?:export\s+)?([A-Za-z_]\w*)=(["']?)([^"'$`\\]*)\2$""")
_VARIABLE = re.compile(r"""(")?\$\{?([A-Za-z_]\w*)\}?(?(1)")""")
_ONE_WORD = re.compile(r"^[\w./:=+-]+$")
# a positional parameter, with the default it is given: `$1`, `${1}`, `${1:-test}`
_POSITIONAL = re.compile(r"\$\{([1-9])(?::?-([\w./:=+-]*))?\}|\$([1-9])(?!\w)")


def read_scripts(project: Project, installs_project: bool) -> None:
    ruby = (RUBY_TOOLS,) if project.is_file("Gemfile") else ()
    for folder in (*FOLDERS, *ruby, ""):
        tools, tasks = _folder_tools(project, folder)
        offer_runner_tasks(
            project.sheet,
            tasks,
            tools.__getitem__,
            f"{folder}/" if folder else "the project's shell scripts",
            installs_project=installs_project,
        )


def _folder_tools(project: Project, folder: str) -> tuple[dict[str, str], dict[str, Task]]:
    """(name -> how to run it, name -> its lines) of a folder's tools; at the root, only
    shell files that check or test (`configure`, `gradlew` are no tasks; a `build-docs.sh`
    is often a host's or a release's)."""
    tools: dict[str, str] = {}
    tasks: dict[str, Task] = {}
    suffixes = SHELL_SUFFIXES if folder else (".sh",)
    for name in project.listing(folder or "."):
        stem, suffix = os.path.splitext(name)
        rel = f"{folder}/{name}" if folder else name
        if suffix not in suffixes or name.startswith(".") or not project.is_file(rel):
            continue
        if not folder and classify_name(stem) not in CHECKS:
            continue
        lines = _lines(project.text(rel) or "")
        if installs_system_packages(lines):
            continue  # `script/install-apt-deps.sh`: CI's machine set up
        runnable = os.access(project.root / rel, os.X_OK)
        tools[stem] = (rel if folder else f"./{rel}") if runnable else f"bash {rel}"
        tasks[stem] = Task(stem, lines=lines)
    return tools, tasks


def _lines(text: str, arguments: tuple[str, ...] = ()) -> list[str]:
    """The command lines of a shell script (no comments), the plain values the script
    gives its own variables filled in: after ``export SOURCE_FILES="uvicorn tests"``,
    ``ruff check $SOURCE_FILES`` is ``ruff check uvicorn tests``; its ``arguments`` (or
    the defaults it gives them, ``${1:-test}``) too."""
    values: dict[str, str] = {}
    varying: set[str] = set()
    lines = []
    for raw in text.splitlines()[:200]:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = _POSITIONAL.sub(lambda m: _argument(m, arguments), line)
        assigned = _ASSIGNMENT.match(line)
        if assigned:
            name, value = assigned.group(1), assigned.group(3)
            if values.setdefault(name, value) != value:
                varying.add(name)
        lines.append(_VARIABLE.sub(lambda m: _value(m, values, varying), line))
    return lines


def _value(match: re.Match[str], values: dict[str, str], varying: set[str]) -> str:
    """A variable's plain value (unquoted when it is one word: ``cargo "${cmd}"`` is
    ``cargo test``), or the variable left when the script gives it more than one
    (``PREFIX=""``, then ``PREFIX="venv/bin/"`` when a ``venv`` is there): which one holds
    depends on the machine, and the tool's name alone is what a person types."""
    name = match.group(2)
    if name in varying or name not in values:
        return match.group(0)
    value = values[name]
    return f'"{value}"' if match.group(1) and not _ONE_WORD.match(value) else value


def _argument(match: re.Match[str], arguments: tuple[str, ...]) -> str:
    """A script's positional parameter: the argument it is given, else its default."""
    index = int(match.group(1) or match.group(3)) - 1
    if index < len(arguments):
        return arguments[index]
    default = match.group(2)
    return default if default is not None else match.group(0)


def script_parts(text: str, arguments: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(kind, line) of each command of a script of the project's that CI runs with
    ``arguments``, read as a task's body: a ``ci/test-stable.sh test`` that tests, then
    checks the benchmarks with ``cargo check --benches``, offers each, as a task running
    tools of several kinds does."""
    reader = Reader({"script": Task("script", lines=_lines(text, arguments))})
    return reader.body_kinds("script")
