"""Which file a mention meant when its memory was written, from what git remembers: a
file name still found now (``HackRFOne.ts``) that git saw renamed to its place since the
memory was written named the file at its old place, so it moved; a link (``./A.md``)
names a file beside the memory; a file git ignores now but deleted since the memory was
written is gone, not a local file.

Only the history already walked and the project's list of files are looked at; nothing
is read from a mentioned path (a link's place is a string joined to the memory's own).
"""

from __future__ import annotations

import os
import posixpath

from serena_memory.core.paths import is_inside
from serena_memory.integrity.code_drift.history import MEMORIES_FOLDER, GitPast
from serena_memory.integrity.code_drift.project import ProjectFiles


def moved_since(
    past: GitPast, files: ProjectFiles, target: str, resolved: str, when: float | None
) -> tuple[str, str] | None:
    """(old path, commit) when the file ``resolved`` that ``target`` (a file name or a
    path's end) names now came to its place by renames since ``when``, from a place that
    ``target`` named as well and that is gone now; None otherwise."""
    if when is None or resolved == target or resolved.endswith("/"):
        return None
    found = past.before(resolved, when)
    if found is None:
        return None
    old, commit = found
    named = old == target or old.endswith("/" + target.lstrip("/"))
    return (old, commit) if named and not files.exists(old) else None


def beside_memory(memory: str, target: str) -> str | None:
    """The project path a link in ``memory`` names from the memory's own folder (None:
    it leaves the project)."""
    folder = posixpath.dirname(MEMORIES_FOLDER + memory)
    path = posixpath.normpath(posixpath.join(folder, target))
    return None if path.startswith(("..", "/")) else path


def gone_since(past: GitPast, root: str, target: str, when: float | None) -> bool:
    """Whether git deleted or renamed away ``target`` since ``when`` and it is not on
    disk now either (a file git ignores now but tracked then is gone, not local)."""
    bare = target.rstrip("/")
    gone = gone_at(past, bare, when)
    if when is None or gone is None or gone <= when:
        return False
    path = os.path.join(root, bare)
    return is_inside(path, (root,)) and not os.path.lexists(path)


def gone_at(past: GitPast, bare: str, when: float | None) -> float | None:
    """When git last deleted or renamed away the file ``bare``, or a file of the folder
    ``bare`` that was there at ``when`` (None: never)."""
    gone = past.gone_at(bare)
    if gone is None and when is not None and bare[:1] != "." and past.had_folder(bare):
        # a tool's folder (`.playwright-mcp/`) stays local though its files were tracked
        gone = _folder_gone_at(past, bare, when)
    return gone


def _folder_gone_at(past: GitPast, folder: str, when: float) -> float | None:
    """When git last deleted or renamed away a file of ``folder`` that was there at
    ``when`` (a folder tracked then, deleted and ignored since, is gone, not local)."""
    if not past.folder_there_at(folder, when):
        return None
    head = folder + "/"
    times = [
        t
        for path in (*past.deleted, *past.renamed)
        if path.startswith(head) and (t := past.gone_at(path)) is not None
    ]
    return max(times) if times else None
