"""The names the memories of a project's folder have, or had: a memory that names
another (`suggested_commands`, `task_completion`, `refactoring_plan.md`) makes no claim
about the code, even after that memory was renamed, archived or deleted, so such a name
is never told as a missing symbol or file. Read from the project's list of files and
git's history (nothing more is asked of git).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from serena_memory.integrity.code_drift.code_report import CodeFinding
from serena_memory.integrity.code_drift.history import MEMORIES_FOLDER, GitPast
from serena_memory.integrity.code_drift.mentions import Mention
from serena_memory.integrity.code_drift.project import ProjectFiles


def memory_names(files: ProjectFiles, past: GitPast | None) -> frozenset[str]:
    """Each memory's name (``core``, ``arch/api``, and ``api`` as written alone) that the
    memories folder holds now, on disk or tracked, or that git saw there."""
    paths: list[str] = list(files.files)
    if past is not None:
        paths += [*past.deleted, *past.renamed]
    if not files.git:  # the folder is not listed without git: read it
        paths += _on_disk(files.root)
    return frozenset(_names(paths))


def _names(paths: Iterable[str]) -> Iterable[str]:
    for path in paths:
        if path.startswith(MEMORIES_FOLDER) and path.endswith(".md"):
            name = path[len(MEMORIES_FOLDER) : -len(".md")]
            yield name
            yield name.rsplit("/", 1)[-1]


def _on_disk(root: str) -> list[str]:
    """The memories' paths under ``root`` (from the root, ``/``-separated)."""
    top = os.path.join(root, MEMORIES_FOLDER)
    out = []
    for folder, _dirs, names in os.walk(top):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        out += [f"{rel}/{name}" for name in names if name.endswith(".md")]
    return out


def names_a_memory(
    m: Mention, found: CodeFinding, files: ProjectFiles, past: GitPast | None
) -> bool:
    """Whether a path mention (``found``: its finding) names the memories' own files,
    not code: written or found under the memories folder, or a file name git only ever
    knew there (``refactoring_plan.md``)."""
    folder = MEMORIES_FOLDER.rstrip("/")
    if any(p == folder or p.startswith(MEMORIES_FOLDER) for p in (m.target, found.target)):
        return True
    name = m.target.rstrip("/")
    if "/" in name or past is None:
        return False
    known = [*past.ending_with(name), *files.by_name.get(name, ())]
    known += [name] if name in past.seen else []
    return bool(known) and all(p.startswith(MEMORIES_FOLDER) for p in known)
