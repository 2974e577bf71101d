"""Which project a command run in some folder means, found the way git finds a repository.

A person runs commands from wherever they are in the tree: ``src/auth/`` of a project
means the project, not a folder of its own that would get a stray ``.serena/``. From the
starting folder upward, the nearest folder holding ``.serena/`` is the project; the search
stops at the top of the git work tree it is in (a git worktree or submodule is a project of
its own, so its memories follow its branch), which is the project when no ``.serena/`` was
found below it. Outside any work tree and without ``.serena/``, the starting folder is the
project. The home folder and the file-system root are never a project, and their
``.serena/`` (the global ``$SERENA_HOME``) never makes one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from serena_memory.core.errors import NotAProjectError
from serena_memory.core.paths import project_folder

# The folder a store that touches only global memories stands on when no project is at
# hand: inside $SERENA_HOME, so nothing is ever created where the command runs.
GLOBAL_ONLY_FOLDER = "global-only"


class ProjectChoice(NamedTuple):
    """The project a command works on and how it was found, to tell the person."""

    root: Path
    found_by: str  # "given", ".serena", "git", "current folder" or "global only"

    def describe(self) -> str:
        how = {
            "given": "as given",
            ".serena": "the nearest folder holding .serena/",
            "git": "the top of the git work tree",
            "current folder": "the current folder: no .serena/ or git work tree above it",
            "global only": "none: only global memories are used",
        }[self.found_by]
        return f"Project: {self.root} ({how})"


def choose_project(given: str | os.PathLike[str] | None, home: Path) -> ProjectChoice:
    """The project folder the person named, or the one found from the current folder."""
    if given is not None:
        return ProjectChoice(project_folder(given), "given")
    return discover_project(Path.cwd(), home)


def global_only_choice(home: Path) -> ProjectChoice:
    """Where a command that touches only global memories runs: the project found from the
    current folder when there is one (its settings apply), else no project at all (the
    home folder, the file-system root, a folder with no .serena/ or git work tree), which
    is a stand-in folder inside ``home`` that holds no memories."""
    try:
        found = discover_project(Path.cwd(), home)
    except NotAProjectError:
        found = None
    if found is not None and found.found_by != "current folder":
        return found
    return ProjectChoice(Path(os.path.realpath(home)) / GLOBAL_ONLY_FOLDER, "global only")


def discover_project(start: Path, home: Path) -> ProjectChoice:
    """Search from ``start`` upward (see the module's docstring); ``home`` is
    ``$SERENA_HOME``, whose own ``.serena`` never marks a project."""
    start = Path(os.path.realpath(start))
    serena_home = os.path.realpath(home)
    user_home = Path(os.path.realpath(Path.home()))
    for folder in (start, *start.parents):
        if folder == user_home or folder == Path(folder.anchor) or user_home.is_relative_to(folder):
            break
        marker = folder / ".serena"
        if marker.is_dir() and os.path.realpath(marker) != serena_home:
            return ProjectChoice(project_folder(folder), ".serena")
        if (folder / ".git").exists():
            return ProjectChoice(project_folder(folder), "git")
    return ProjectChoice(project_folder(start), "current folder")


def project_above(root: Path, home: Path) -> Path | None:
    """The project a folder without ``.serena/`` of its own lies in, if any: a person who
    gives ``-p src/`` inside a project most likely meant the project, not a new one."""
    if (root / ".serena").is_dir() or root.parent == root:
        return None
    try:
        found = discover_project(root.parent, home)
    except NotAProjectError:
        return None
    return found.root if found.found_by == ".serena" else None
