"""nox sessions of ``noxfile.py``, read as text (never imported), offered as
``nox -s NAME`` by what their ``session.run(...)`` calls run (their names when they run
nothing known)."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

MAX_DECORATOR_LINES = 30
_DEF = re.compile(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(")
_NAME = re.compile(r"""\bname\s*=\s*["']([^"']{1,80})["']""")
# `session.run("pytest", "-q", *session.posargs)`: its leading string words
_RUN = re.compile(
    r"""\bsession\.run\(\s*((?:["'][^"'\n]{1,200}["']\s*,\s*)*["'][^"'\n]{1,200}["'])"""
)
_WORD = re.compile(r"""["']([^"'\n]*)["']""")
# a name the shell passes as it is (`tests-3.12`, `lint`)
_PLAIN_NAME = re.compile(r"^[\w.,:+=@/-]+$")


def sessions(text: str) -> dict[str, Task]:
    """The sessions: a function under ``@nox.session`` (or ``@session``), or the ``name=``
    its decorator gives, with the commands its ``session.run`` calls run."""
    found: dict[str, Task] = {}
    bodies: dict[str, list[str]] = {}
    decorator: list[str] | None = None
    body: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("@nox.session", "@session")):
            decorator, body = [stripped], None
        elif decorator is not None:
            match = _DEF.match(stripped)
            if match:
                named = _NAME.search(" ".join(decorator)[:2000])
                name = named.group(1) if named else match.group(1)
                found.setdefault(name, Task(name))
                body = bodies.setdefault(name, [])
                decorator = None
            elif len(decorator) < MAX_DECORATOR_LINES:
                decorator.append(stripped)
            else:
                decorator = None
        elif body is not None and (line[:1] in (" ", "\t") or not stripped):
            body.append(stripped)
        else:
            body = None
    for name, lines in bodies.items():
        for run in _RUN.finditer("\n".join(lines)[:100_000]):
            found[name].lines.append(" ".join(_WORD.findall(run.group(1))))
    return found


def session_command(name: str) -> str:
    """``nox -s NAME``, the name quoted where the shell would read it otherwise: a session
    named ``docs(style)`` (nox's name of a parametrized one) is ``nox -s "docs(style)"``."""
    return f"nox -s {name}" if _PLAIN_NAME.match(name) else f'nox -s "{name}"'


def read_nox(project: Project) -> None:
    text = project.text("noxfile.py")
    if text is not None:
        offer_runner_tasks(project.sheet, sessions(text), session_command, "noxfile.py")
