"""Read the Docs' configuration (``.readthedocs.yaml``): how the project sets up the docs'
build, which a contributor building the docs sets up the same way (``pip install -r
docs/requirements.txt``, ``pip install tox`` before ``tox -e docs``).

Only its installs are offered: its other lines (``mkdir _readthedocs``, ``mv site ...``)
place the output where Read the Docs looks, and a build it runs is offered by the runner
that defines it."""

from __future__ import annotations

from typing import Any

from serena_memory.agent.project_facts.commands import canonical
from serena_memory.agent.project_facts.docs import is_command
from serena_memory.agent.project_facts.files import Project, table

NAMES = (".readthedocs.yaml", ".readthedocs.yml", "readthedocs.yml", "readthedocs.yaml")
FOLDERS = ("", "docs/")
# the build's steps before the docs are built, in the order Read the Docs runs them
_STAGES = ("pre_create_environment", "post_create_environment", "pre_install", "install",
           "post_install")  # fmt: skip
MAX_LINES = 30
# options choosing the interpreter of Read the Docs' machine (`uv tool install tox
# --python 3.13 --managed-python`): its plumbing, not how a contributor installs
_MACHINE_OPTIONS = frozenset({"--python", "-p", "--managed-python", "--python-preference"})
MAX_CHARS = 200


def read_readthedocs(project: Project) -> None:
    """Offer the installs of the first Read the Docs configuration found."""
    rel = next((f + n for f in FOLDERS for n in NAMES if project.is_file(f + n)), None)
    if rel is None:
        return
    sheet = project.sheet
    for line in install_lines(project.yaml(rel))[:MAX_LINES]:
        options = {word.split("=", 1)[0] for word in line.split()}
        if len(line) > MAX_CHARS or "$" in line or options & _MACHINE_OPTIONS:
            continue  # Read the Docs' own variables (`$READTHEDOCS_OUTPUT`), its machine
        if canonical(line) not in {canonical(c) for c in sheet.offered()}:
            sheet.add("setup", line, rel)


def install_lines(data: Any) -> list[str]:
    """The configuration's install lines: the build's job and command lines that install
    (what the docs' reader would call a set-up), then each requirements file of
    ``python.install`` as ``pip install -r FILE``."""
    build = table(data, "build")
    lines: list[str] = []
    for stage in _STAGES:
        lines += _strings(table(build, "jobs").get(stage))
    lines += _strings(build.get("commands"))
    found = [" ".join(line.split()) for line in lines]
    found = [line for line in found if line and is_command(line) == "setup"]
    for item in table(data, "python").get("install") or []:
        path = item.get("requirements") if isinstance(item, dict) else None
        if isinstance(path, str) and path.strip() and " " not in path.strip():
            found.append(f"pip install -r {path.strip()}")
    return list(dict.fromkeys(found))


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
