"""Mage: the targets of ``magefile.go`` (or of the ``magefiles/`` folder), offered as
``mage target`` by what their doc comment says (``// Run tests and linters``), else their
name. Their Go bodies are not read: a comment is what the author wrote for people."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import classify_name
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

SOURCE = "magefile.go"
MAX_FILES = 10
# an exported function with no argument but a context: a target mage can run
_TARGET = re.compile(r"^func ([A-Z][A-Za-z0-9_]*)\(\s*(?:\w+ context\.Context)?\s*\)")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# targets that undo (`mage clean`, `mage uninstall`): no everyday command
_UNDOES = ("clean", "uninstall")


def mage_tasks(text: str) -> dict[str, Task]:
    """The targets of a magefile, in order, each labeled with its doc comment when that
    says a kind, else its name's words."""
    tasks: dict[str, Task] = {}
    comment: list[str] = []
    for line in text.splitlines()[:5000]:
        if line.startswith("//"):
            comment.append(line.lstrip("/ ").strip())
            continue
        match = _TARGET.match(line)
        if match:
            name = match.group(1)
            spaced = _CAMEL.sub(" ", name).lower()
            said = " ".join(comment)
            label = said if classify_name(said) else spaced
            if not spaced.startswith(_UNDOES):
                target = name[0].lower() + name[1:]
                tasks[target] = Task(target, label=label)
        comment = []
    return tasks


def read_mage(project: Project, installs_project: bool) -> None:
    paths = ["magefile.go"] if project.is_file("magefile.go") else []
    paths += [
        f"magefiles/{name}"
        for name in project.listing("magefiles")[:MAX_FILES]
        if name.endswith(".go")
    ]
    tasks: dict[str, Task] = {}
    for path in paths:
        tasks.update(mage_tasks(project.text(path) or ""))
    offer_runner_tasks(
        project.sheet,
        tasks,
        lambda target: f"mage {target}",
        SOURCE,
        installs_project=installs_project,
    )
