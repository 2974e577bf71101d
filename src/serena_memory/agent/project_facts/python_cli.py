"""The project's own Python command-line tools in ``scripts/`` (a Typer or Click app such as
``scripts/docs.py`` with ``build-all``, ``live``, ``serve``), offered per command by its
verb (``build-all`` builds, ``live`` serves), spelled as CI or pre-commit run the script
(``uv run ./scripts/docs.py``). Only commands that take no arguments are offered: they can
be typed as they stand. The files are read as text, never imported."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.ci import ci_paths
from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import classify_name, is_never
from serena_memory.agent.project_facts.pre_commit import CONFIGS

FOLDERS = ("scripts", "script")
MAX_SCRIPTS = 40
# `@app.command()`, `@cli.command("build-all")`, then its function with no parameters
_COMMAND = re.compile(
    r"""^@\w+\.command\(\s*(?:name\s*=\s*)?(?:["']([\w-]+)["'])?[^)\n]*\)\s*\n"""
    r"""(?:@[^\n]*\n){0,5}def\s+(\w+)\(([^)]{0,200})\)""",
    re.M,
)


def commands(text: str) -> list[str]:
    """The names of a CLI script's commands that take no arguments (Typer writes
    ``build_all`` as ``build-all``)."""
    found = []
    for match in _COMMAND.finditer(text[:200_000]):
        named, function, params = match.groups()
        if not params.strip():
            found.append(named or function.replace("_", "-"))
    return found


def kind_of(command: str) -> str | None:
    """A command's kind by its verb, its first word: ``build-all`` builds, ``update-x``
    and ``deploy`` are a maintainer's; ``generate-docs-src`` is no docs build."""
    return None if is_never(command) else classify_name(re.split(r"[-_]", command)[0])


def spelling(project: Project, rel: str, prefix: str) -> str:
    """How the project runs the script: as CI or pre-commit write it, else with the
    project's runner."""
    pattern = re.compile(
        rf"(?:(?:uv|pdm|poetry) run (?:python3? )?|python3? )(?:\./)?{re.escape(rel)}"
    )
    for path in [*ci_paths(project), *CONFIGS]:
        match = pattern.search(project.text(path) or "")
        if match:
            return match.group(0)
    return f"{prefix}python {rel}"


def read_python_clis(project: Project, prefix: str) -> None:
    for folder in FOLDERS:
        names = [n for n in project.listing(folder) if n.endswith(".py")][:MAX_SCRIPTS]
        for name in names:
            rel = f"{folder}/{name}"
            text = project.text(rel) or ""
            if ".command(" not in text:
                continue
            for command in commands(text):
                kind = kind_of(command)
                if kind in ("build", "run", "test", "lint", "format", "typecheck"):
                    run = spelling(project, rel, prefix)
                    project.sheet.add(kind, f"{run} {command}", rel)
