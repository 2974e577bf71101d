"""The recipes of a justfile (any of just's spellings), offered as ``just RECIPE`` by what
they run, and ``just`` alone for the default recipe."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

JUSTFILES = ("justfile", "Justfile", ".justfile", "JUSTFILE")
MAX_LINE = 500
# the name is matched whole (the lookahead), so a line without a colon fails in linear time
_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_\-]*)(?![A-Za-z0-9_\-])([^:]*):(?!=)")
_KEYWORDS = frozenset({"alias", "set", "export", "import", "mod", "unexport"})
_DEPENDENCY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def just_tasks(text: str) -> tuple[dict[str, Task], str | None]:
    """The public recipes that take no required argument, in order, with what they run
    first and their lines, and the default recipe (``default``, else the first)."""
    found: dict[str, Task] = {}
    first: str | None = None
    private = False
    current: Task | None = None
    for line in text.splitlines():
        if line[:1] in (" ", "\t") and current is not None:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                current.lines.append(stripped)
            continue
        current = None
        if len(line) > MAX_LINE or not line or line[0] in " \t#" or ":" not in line:
            continue
        if line.startswith("["):
            private = private or "private" in line
            continue
        match = _RECIPE.match(line)
        if match and match.group(1) not in _KEYWORDS:
            name = match.group(1)
            after = line[match.end() :].split("#", 1)[0].split()
            needs = [word for word in after if _DEPENDENCY.match(word)]
            task = Task(name, needs)
            first = first or name
            if not private and _no_required_parameter(match.group(2)):
                found[name] = task
            current = task
        private = False
    default = "default" if "default" in found else first
    return found, default


def recipes(text: str) -> list[str]:
    """The public recipes that take no required argument, in order."""
    return list(just_tasks(text)[0])


def _no_required_parameter(parameters: str) -> bool:
    """``+args='x'`` and ``*rest`` need nothing; ``PATTERN`` does."""
    return all(word.startswith(("*", "$*")) or "=" in word for word in parameters.split())


def read_justfile(project: Project) -> None:
    name = project.first(*JUSTFILES)
    text = project.text(name) if name else None
    if name is None or text is None:
        return
    tasks, default = just_tasks(text)
    offer_runner_tasks(
        project.sheet, tasks, lambda recipe: f"just {recipe}", name, default=default, bare="just"
    )
