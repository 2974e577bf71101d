"""Where a tree drawn from a folder's name alone (``Web3/``, then ``├── ChainSwitcher``)
was drawn from: the project never had that folder at its root, so the drawing starts
below it, at the one folder of that name git had when the memory was written that holds
the names drawn under it (``src/components/Web3``). Checked there, its top is told
missing when that folder went, as its names are; a top whose names are at the root is
the project's own name, and a name no folder of the time holds says nothing (pure: only
the history already walked and the list of files are looked at).
"""

from __future__ import annotations

from dataclasses import replace

from serena_memory.integrity.code_drift.extensions import stem_candidates
from serena_memory.integrity.code_drift.forms import STEM
from serena_memory.integrity.code_drift.history import GitPast
from serena_memory.integrity.code_drift.mentions import PATH, Mention
from serena_memory.integrity.code_drift.moves import there_at
from serena_memory.integrity.code_drift.project import ProjectFiles


def placed_tops(
    mentions: list[Mention], past: GitPast, files: ProjectFiles, when: float | None
) -> list[Mention]:
    """``mentions``, each tree's top drawn by a folder's name alone that the project
    never had at its root named by the folder it stands for then, when one does; one
    the root had only before the memory was written, over names at the root, left out
    (the project's own name: its old folder of that name is no claim)."""
    out: list[Mention | None] = list(mentions)
    for i, m in enumerate(mentions):
        if not _bare_top(m) or files.resolve(m.target) is not None:
            continue
        names = _names_under(mentions, i)
        if past.had_folder(m.target.rstrip("/")):
            if _at_root_below(names, past, files) and _gone_before(m.target, past, when):
                out[i] = None
            continue
        folder = _drawn_from(m.target, names, past, files, when)
        if folder is not None:
            out[i] = replace(m, target=folder + "/", placed="", exact=True)
    return [m for m in out if m is not None]


def _bare_top(m: Mention) -> bool:
    """Whether ``m`` is a tree's top written as a folder's name alone (``Web3/``)."""
    return (
        m.kind == PATH
        and m.weak
        and not m.form
        and m.placed == m.target
        and m.target.endswith("/")
        and "/" not in m.target[:-1]
    )


def _names_under(mentions: list[Mention], at: int) -> list[tuple[str, bool]]:
    """(place from the top, whether a stem) of each name drawn below the top at
    ``mentions[at]``: the placed mentions right after it that lie under it."""
    top = mentions[at].target
    found = []
    for m in mentions[at + 1 :]:
        place = m.placed or (m.target if m.form == STEM else "")  # a stem: where placed
        if not place:
            continue
        if not place.startswith(top):
            break
        if place != top:
            found.append((place[len(top) :], m.form == STEM))
    return found


def _drawn_from(
    top: str, names: list[tuple[str, bool]], past: GitPast, files: ProjectFiles, when: float | None
) -> str | None:
    """The one folder named ``top`` git had at ``when`` that holds the most of the
    ``names`` drawn below it (None: the names are at the root, or no such folder holds
    any, or several hold as many)."""
    if not names or _at_root_below(names, past, files):
        return None
    held = [
        (sum(_holds(folder, n, stem, past) for n, stem in names), folder)
        for folder in past.folders_named(top.rstrip("/"))
        if past.folder_there_at(folder, when)
    ]
    held = sorted((h for h in held if h[0]), reverse=True)
    if not held or (len(held) > 1 and held[0][0] == held[1][0]):
        return None
    return held[0][1]


def _at_root_below(names: list[tuple[str, bool]], past: GitPast, files: ProjectFiles) -> bool:
    """Whether a name drawn below a tree's top is at the root: the top is the project."""
    return any(_at_root(name, past, files) for name, _stem in names)


def _gone_before(top: str, past: GitPast, when: float | None) -> bool:
    """Whether the root's folder ``top`` held no file git had when the memory was
    written (``when``): gone before it."""
    if when is None:
        return False
    head = top.rstrip("/") + "/"
    return not any(
        p.startswith(head) and there_at(past, p, when) and (past.gone_at(p) or when + 1) > when
        for p in past.seen
    )


def _holds(folder: str, name: str, stem: bool, past: GitPast) -> bool:
    """Whether git knew ``name`` (a place below a tree's top; a ``stem``: any file of
    that stem) in ``folder``."""
    path = f"{folder}/{name}".rstrip("/")
    if path in past.seen or past.had_folder(path):
        return True
    return stem and any(c in past.seen for c in stem_candidates(path))


def _at_root(place: str, past: GitPast, files: ProjectFiles) -> bool:
    """Whether a file or folder is at ``place`` from the root now, or git knew one."""
    bare = place.rstrip("/")
    return files.exists(place) or bare in past.seen or past.had_folder(bare)
