"""The project's own program, as the contributor docs run it: a console script the project
declares (``uv run sqlite-utils --help``, ``jupyter server`` for ``jupyter-server``) or its
package run as a module (``python -m textual``). Trying the program out is running it;
giving it work (``poetry cache clear --all``) is using it, which the sheet leaves out."""

from __future__ import annotations

import re
from typing import Any

from serena_memory.agent.project_facts.commands import unwrap
from serena_memory.agent.project_facts.files import table

MAX_PROGRAMS = 20
_NAME = re.compile(r"^[A-Za-z][\w.-]*$")


def own_programs(pyproject: dict[str, Any]) -> set[str]:
    """The console scripts the project declares, and its package's import name."""
    scripts = dict(table(pyproject, "project", "scripts"))
    scripts.update(table(pyproject, "tool", "poetry", "scripts"))
    found = {name for name in list(scripts)[:MAX_PROGRAMS] if _NAME.match(name)}
    name = table(pyproject, "project").get("name") or table(pyproject, "tool", "poetry").get("name")
    if isinstance(name, str) and _NAME.match(name):
        found.add(f"-m {name.lower().replace('-', '_')}")
    return found


def runs_own_program(line: str, programs: set[str]) -> bool:
    """Whether a documented line runs the project's own program as it stands, or with
    options only (``--help``): any other line is a use of it, for its users' docs."""
    words = line.split()
    if len(words) > 2 and words[0] in ("python", "python3") and words[1] == "-m":
        return f"-m {words[2]}" in programs and _options_only(words[3:])
    words = unwrap(words)
    if words and words[0] in programs:
        return _options_only(words[1:])
    return len(words) == 2 and "-".join(words) in programs  # `jupyter server`


def _options_only(words: list[str]) -> bool:
    return all(word.startswith("-") for word in words)
