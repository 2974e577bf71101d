"""A file gone without a move git saw, found again where its folder went (the file
rewritten at its place in the folder's new home) or by its name in a reorganised tree:
`src/core/regtech_collector.py` rewritten as `src/core/collectors/regtech_collector.py`,
`app/streamlit_demo/services/scorer.py` as `app/services/scorer.py`. Git sees no rename
when the file was rewritten or moved in steps; a person reads the one file of that name
that came since, in the same part of the project, as where it went (pure but for the
project's lists).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from serena_memory.integrity.code_drift.moves import moved_folder, there_at

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.history import GitPast
    from serena_memory.integrity.code_drift.project import ProjectFiles


def stem_index(files: ProjectFiles) -> dict[str, list[str]]:
    """The project's files by their path without the extension (``docs/spec`` for
    ``docs/spec.orbs``), made once per list of files."""
    index: dict[str, list[str]] = {}
    for path in files.files:
        head, dot, _ext = path.rpartition(".")
        if dot and head and not head.endswith("/"):
            index.setdefault(head, []).append(path)
    return index


def new_extension(
    past: GitPast, stems: dict[str, list[str]], target: str, when: float | None
) -> tuple[str, str] | None:
    """(new path, commit) when the file ``target``, gone, has one file at its place with
    another extension now that came after ``when`` (``docs/spec.osc`` rewritten as
    ``docs/spec.orbs``, ``config.js`` as ``config.ts`` in a later commit)."""
    head, dot, _ext = target.rpartition(".")
    if when is None or not dot or not head or head.endswith("/") or target not in past.seen:
        return None
    now = [p for p in stems.get(head, ()) if p != target]
    if len(now) != 1 or not _came_after(past, now[0], when):
        return None
    deleted = past.deleted.get(target)
    return now[0], deleted[0] if deleted else ""


_PACKAGE_FILES = {
    "py": ("__init__.py",),
    "rs": ("mod.rs",),
    "ts": ("index.ts",),
    "tsx": ("index.tsx",),
    "js": ("index.js",),
    "mjs": ("index.mjs",),
}
"""The file that stands for a folder as a module, by the extension of the file it replaces:
a module split into a package keeps its import path (`core/plot.rs` -> `core/plot/mod.rs`,
`app/models.py` -> `app/models/__init__.py`)."""


def became_package(
    past: GitPast, files: ProjectFiles, target: str, when: float | None
) -> tuple[str, str] | None:
    """(new path, the commit that deleted ``target``) when the module file ``target``,
    there when the memory last changed (``when``) and gone now, became a folder of the
    same name whose module file came after ``when``; None otherwise."""
    head, dot, ext = target.rpartition(".")
    if when is None or not dot or not head or target not in past.seen:
        return None
    for name in _PACKAGE_FILES.get(ext, ()):
        new = f"{head}/{name}"
        if files.exists(new) and _came_after(past, new, when) and there_at(past, target, when):
            deleted = past.deleted.get(target)
            return new, deleted[0] if deleted else ""
    return None


def reorganised_to(
    past: GitPast, files: ProjectFiles, target: str, when: float | None
) -> tuple[str, str] | None:
    """(new path, the commit that deleted ``target``) when the file ``target``, there
    when the memory last changed (``when``) and gone now, has one namesake in the project
    now, which came after ``when`` and lies in the same top folder; None otherwise (a
    root file's namesake made later elsewhere is a newcomer: a root
    ``copilot-instructions.md`` deleted, a ``.github/copilot-instructions.md`` added)."""
    if when is None or target.endswith("/") or target not in past.seen or files.exists(target):
        return None
    if not there_at(past, target, when):
        return None
    now = files.by_name.get(target.rsplit("/", 1)[-1], ())
    if len(now) != 1:
        return None
    new = next(iter(now))
    top, _, rest = target.partition("/")
    if not rest or new.partition("/")[0] != top:
        return None  # a root file's namesake elsewhere is a newcomer, not where it went
    if not _came_after(past, new, when):
        return None  # there already when the memory was written: another file
    deleted = past.deleted.get(target)
    return new, deleted[0] if deleted else ""


def copied_before_gone(
    past: GitPast, files: ProjectFiles, target: str, when: float | None
) -> tuple[str, str] | None:
    """(new path, the commit that deleted it) when the file ``target``, there when the
    memory last changed (``when``), went (renamed or not: into a backup folder) to a
    deletion while its one namesake in the project now was already there, made after
    ``when``: the code was copied to its new home (``modules/tasks/cache.py`` to
    ``infrastructure/cache/cache.py``), the old file kept a while (a shim, a backup) and
    deleted then. None otherwise: a namesake made after the deletion is a newcomer."""
    name = target.rsplit("/", 1)[-1]
    if when is None or "." not in name or target not in past.seen:
        return None
    if not there_at(past, target, when):
        return None
    now = files.by_name.get(name, ())
    if len(now) != 1 or files.exists(target):
        return None
    end, seen = target, {target}
    while end in past.renamed and past.renamed[end][0] not in seen:
        end = past.renamed[end][0]
        seen.add(end)
    deleted = past.deleted.get(end)
    new = next(iter(now))
    times = past.changes.get(new)
    if deleted is None or not times or not when < min(times) <= deleted[1]:
        return None
    return new, deleted[0]


FolderMoves = dict[tuple[str, float | None], dict[str, tuple[str, str]]]
"""Where each folder went, asked once per check: (folder, when) -> :func:`moved_folder`."""


def carried_with_folder(
    past: GitPast, files: ProjectFiles, target: str, when: float | None, asked: FolderMoves
) -> tuple[str, str] | None:
    """(new path, commit) when the deepest folder above the file ``target`` that git saw
    go to one place holds a file at ``target``'s place there now, made after ``when``
    (one there then is another file): a folder carries its
    files, even those rewritten as it moved (``backend/app/main.py`` with ``backend/``
    gone to ``server/``); None otherwise. ``asked``: the folders' moves found so far (the
    files of one folder share them)."""
    parts = target.split("/")
    for depth in range(len(parts) - 1, 0, -1):
        key = ("/".join(parts[:depth]), when)
        went = asked.get(key)
        if went is None:
            went = asked[key] = moved_folder(past, files, key[0], when)
        if not went:
            continue
        if len(went) > 1:
            return None
        ((folder, (_old, commit)),) = went.items()
        new = folder.rstrip("/") + "/" + "/".join(parts[depth:])
        return (new, commit) if files.exists(new) and _came_after(past, new, when) else None
    return None


def _came_after(past: GitPast, path: str, when: float | None) -> bool:
    """Whether git first saw ``path`` after ``when`` (a file there then is another one)."""
    times = past.changes.get(path)
    return when is not None and times is not None and bool(times) and min(times) > when
