"""The Makefiles of a project's parts (a binding, a port, a sub-crate): where the root's
Makefile or CI runs make in a folder (``$(MAKE) -C minijinja-py``, ``cd bindings/go &&
make``, ``cd tests; cargo test``), that folder's own Makefile is a task runner of the
project, its targets offered as typed from the root: ``make -C minijinja-py develop``.
Its lines run in its folder, so only whole targets are offered, never their parts; and only
its everyday ones: those its default goal runs and those of one word (``test``, ``lint``,
``develop``), not its variants (``build-pgo``, ``install-wasm``), read for what runs them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.makefile import (
    DOCS_FOLDERS,
    MAKEFILES,
    make_tasks,
    with_includes,
)
from serena_memory.agent.project_facts.names import words
from serena_memory.agent.project_facts.recipes import Task, closure, offer_runner_tasks

MAX_MEMBERS = 8
# `make -C dir`, `$(MAKE) -C dir`, `${MAKE} --directory=dir` (one word each: linear time)
_MAKE_IN = re.compile(r"(?:\bmake|\$\(MAKE\)|\$\{MAKE\})[ \t]+(?:-C[ \t]*|--directory=)([\w./-]+)")
# `cd dir && ...`, `cd dir; ...`: the folder a line works in
_CD = re.compile(r"\bcd[ \t]+([\w./-]+)[ \t]*(?:&&|;)")
# files whose presence says a member's `install` sets it up, not the system
_INTERPRETED = ("pyproject.toml", "setup.py", "package.json", "Gemfile", "composer.json")


def member_folders(texts: list[str]) -> list[str]:
    """The folders (inside the project, in the order named) that ``texts`` run make or
    work in."""
    found: list[str] = []
    for text in texts:
        for match in [*_MAKE_IN.finditer(text), *_CD.finditer(text)]:
            folder = posixpath.normpath(match.group(1)).rstrip("/")
            if folder in (".", "") or folder.startswith(("..", "/")):
                continue
            found.append(folder)
    return list(dict.fromkeys(found))


def read_member_makefiles(project: Project) -> None:
    root = project.first(*MAKEFILES)
    texts = [with_includes(project, project.text(root) or "")] if root else []
    texts += [project.text(rel) or "" for rel in project.sheet.ci_files]
    members = [
        folder
        for folder in member_folders(texts)
        if folder.split("/")[0] not in DOCS_FOLDERS  # Sphinx's: see read_sphinx_makefile
    ]
    for folder in members[:MAX_MEMBERS]:
        name = next((f"{folder}/{n}" for n in MAKEFILES if project.is_file(f"{folder}/{n}")), None)
        text = project.text(name) if name else None
        if name is None or not text:
            continue
        tasks, default = make_tasks(text)
        _keep_everyday(tasks, default)
        installs = any(project.is_file(f"{folder}/{n}") for n in _INTERPRETED)
        offer_runner_tasks(
            project.sheet,
            tasks,
            _in(folder),
            name,
            default=default,
            bare=f"make -C {folder}",
            installs_project=installs,
            parts=False,
        )


def _in(folder: str) -> Callable[[str], str]:
    """How a part's target is typed from the root."""
    return lambda target: f"make -C {folder} {target}"


def _keep_everyday(tasks: dict[str, Task], default: str | None) -> None:
    """Make private every target of a part but its default's and those of one word."""
    kept = closure(tasks, default) if default else set()
    for name, task in tasks.items():
        if name not in kept and len(words(name)) > 1:
            task.private = True
