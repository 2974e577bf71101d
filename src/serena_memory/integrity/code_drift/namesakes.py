"""A name a memory wrote, found now at another place than the one it named then: whether
the file or folder it named is gone and the ones found now came after it (a root
`copilot-instructions.md` deleted, a new one added under `.github/`; a root `src/hooks/`
gone, a `packages/cli/src/hooks/` made later)."""

from __future__ import annotations

from serena_memory.integrity.code_drift.history import GitPast
from serena_memory.integrity.code_drift.moves import folder_held_at, there_at
from serena_memory.integrity.code_drift.project import ProjectFiles


def namesake_gone(
    past: GitPast | None, files: ProjectFiles, name: str, resolved: str, when: float | None
) -> str | None:
    """For a file name or a path's end found now (``resolved``, not at its own place from
    the root), the one file or folder of that name or end the project had when the memory
    last changed (``when``), when it is gone and the ones found now came after it: the
    memory named that one. None: the name still names its file, or no history (``past``
    None) to tell."""
    if when is None or past is None or resolved == name:
        return None
    if name.endswith("/"):
        return _folder_gone(past, files, name, resolved, when)
    return _file_gone(past, files, name, resolved, when)


def _folder_gone(
    past: GitPast, files: ProjectFiles, name: str, resolved: str, when: float
) -> str | None:
    """:func:`namesake_gone` for a folder (``name`` ends in ``/``): the folder itself when
    none found now by that end was there then, and it was, and is gone."""
    bare = name.rstrip("/")
    if folder_held_at(past, resolved, when):
        return None  # the folder found now was there then
    if any(folder_held_at(past, p, when) for p in files.suffix_matches(name)):
        return None
    gone = past.folder_there_at(bare, when) and not files.exists(name)
    return name if gone and past.had_folder(bare) else None


def _file_gone(
    past: GitPast, files: ProjectFiles, name: str, resolved: str, when: float
) -> str | None:
    """:func:`namesake_gone` for a file: the one file git knew by that name or end then,
    gone since, when none found now by it was there then."""
    if there_at(past, resolved, when) and resolved in past.changes:
        return None  # the file found now was there then
    if any(there_at(past, p, when) for p in _namesakes_now(files, name)):
        return None  # a file of that name now was there then
    then = [p for p in [name, *past.ending_with(name)] if there_then(past, p, when)]
    if len(then) != 1 or files.exists(then[0]):
        return None
    return then[0]


def _namesakes_now(files: ProjectFiles, name: str) -> list[str]:
    """The project's files now that a file name (by name) or a path (by its end) finds."""
    if "/" in name:
        return files.suffix_matches(name)
    return list(files.by_name.get(name, ()))


def there_then(past: GitPast, path: str, when: float) -> bool:
    """Whether git knew ``path`` as a file when the memory last changed (``when``) and it
    was not gone by then (deleted at that very time counts as gone)."""
    return (
        path in past.seen and there_at(past, path, when) and (past.gone_at(path) or when + 1) > when
    )
