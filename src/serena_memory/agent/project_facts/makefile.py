"""The targets of a Makefile, offered as ``make TARGET`` by what their names say."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import offer_tasks

MAKEFILES = ("GNUmakefile", "Makefile", "makefile")
MAX_LINE = 500
# `name other: prerequisites`, not `NAME := value` nor `name::` (both checked on a short line)
# (every name is matched whole, so a line without a colon fails in linear time)
_NAME = r"[A-Za-z0-9][A-Za-z0-9_\-]*(?![A-Za-z0-9_\-])"
_TARGETS = re.compile(rf"^({_NAME}(?:[ \t]+{_NAME})*)[ \t]*:")


def make_targets(text: str) -> list[str]:
    """The plain targets of a Makefile, in order (no patterns, files or variables)."""
    found: list[str] = []
    for line in text.splitlines():
        if not line or line[0] in " \t#." or len(line) > MAX_LINE or ":" not in line:
            continue
        match = _TARGETS.match(line)
        if match is None or line[match.end() : match.end() + 1] in ("=", ":"):
            continue
        found.extend(match.group(1).split())
    return list(dict.fromkeys(found))


def read_makefile(project: Project, installs_project: bool) -> None:
    name = project.first(*MAKEFILES)
    text = project.text(name) if name else None
    if name is None or text is None:
        return
    targets = make_targets(text)
    offer_tasks(
        project.sheet,
        targets,
        lambda target: f"make {target}",
        name,
        installs_project=installs_project,
    )
