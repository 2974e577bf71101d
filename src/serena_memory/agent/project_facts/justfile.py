"""The recipes of a justfile (any of just's spellings), offered as ``just RECIPE``."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import offer_tasks

JUSTFILES = ("justfile", "Justfile", ".justfile", "JUSTFILE")
MAX_LINE = 500
# the name is matched whole (the lookahead), so a line without a colon fails in linear time
_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_\-]*)(?![A-Za-z0-9_\-])([^:]*):(?!=)")
_KEYWORDS = frozenset({"alias", "set", "export", "import", "mod", "unexport"})


def recipes(text: str) -> list[str]:
    """The public recipes that take no required argument, in order."""
    found: list[str] = []
    private = False
    for line in text.splitlines():
        if len(line) > MAX_LINE or not line or line[0] in " \t#" or ":" not in line:
            continue
        if line.startswith("["):
            private = private or "private" in line
            continue
        match = _RECIPE.match(line)
        if match and match.group(1) not in _KEYWORDS and not private:
            found.extend([match.group(1)] if _no_required_parameter(match.group(2)) else [])
        private = False
    return found


def _no_required_parameter(parameters: str) -> bool:
    """``+args='x'`` and ``*rest`` need nothing; ``PATTERN`` does."""
    return all(word.startswith(("*", "$*")) or "=" in word for word in parameters.split())


def read_justfile(project: Project) -> None:
    name = project.first(*JUSTFILES)
    text = project.text(name) if name else None
    if name is None or text is None:
        return
    offer_tasks(project.sheet, recipes(text), lambda recipe: f"just {recipe}", name)
