"""nox sessions of ``noxfile.py``, read as text (never imported), offered as
``nox -s NAME``."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import offer_tasks

MAX_DECORATOR_LINES = 30
_DEF = re.compile(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(")
_NAME = re.compile(r"""\bname\s*=\s*["']([^"']{1,80})["']""")


def sessions(text: str) -> list[str]:
    """The session names: a function under ``@nox.session`` (or ``@session``), or the
    ``name=`` its decorator gives."""
    found: list[str] = []
    decorator: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("@nox.session", "@session")):
            decorator = [stripped]
        elif decorator is not None:
            match = _DEF.match(stripped)
            if match:
                named = _NAME.search(" ".join(decorator)[:2000])
                found.append(named.group(1) if named else match.group(1))
                decorator = None
            elif len(decorator) < MAX_DECORATOR_LINES:
                decorator.append(stripped)
            else:
                decorator = None
    return found


def read_nox(project: Project) -> None:
    text = project.text("noxfile.py")
    if text is not None:
        offer_tasks(project.sheet, sessions(text), lambda name: f"nox -s {name}", "noxfile.py")
