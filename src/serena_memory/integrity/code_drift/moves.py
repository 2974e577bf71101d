"""What git's history says of a path a memory mentions that is missing now: the names
git may have known it by, where it went (one place: a ``moved`` finding) and, when it
did not go to one place, a note (moved to several, deleted, gone before the memory last
changed, never in the history).

Only the history already walked (:class:`~serena_memory.integrity.code_drift.history.GitPast`)
and the project's list of files are looked at; nothing is read from a mentioned path.
"""

from __future__ import annotations

import posixpath
from collections import Counter

from serena_memory.integrity.code_drift.code_report import MOVED, CodeFinding, in_commit
from serena_memory.integrity.code_drift.history import GitPast
from serena_memory.integrity.code_drift.project import ProjectFiles

Moves = dict[str, tuple[str, str]]
"""Where a missing path went: path now -> (old path, commit of the rename)."""


def moves(
    past: GitPast, files: ProjectFiles, target: str, when: float | None = None
) -> tuple[list[str], Moves]:
    """The paths git may have known a missing ``target`` by (itself, itself below the
    subproject, and for a suffix git never saw the paths git saw ending with it), and
    where they went (``when``: the memory last changed, for a folder's files)."""
    bare = target.rstrip("/")
    candidates = _names_of(past, files, target)
    found_moves = _followed(past, files, candidates)
    if _as_folder(past, target) and not found_moves:
        folders = [bare] if past.had_folder(bare) or "/" not in bare else []
        folders = folders or suffix_folders(past, bare, when)
        candidates += [f for f in folders if f not in candidates]
        for folder in folders:
            found_moves.update(moved_folder(past, files, folder, when))
    return candidates, found_moves


def _names_of(past: GitPast, files: ProjectFiles, target: str) -> list[str]:
    """The paths git may have known ``target`` by: itself, itself below the subproject,
    and for a suffix git never saw, the paths git saw ending with it."""
    bare = target.rstrip("/")
    candidates = [bare]
    if files.prefix and target.startswith(files.prefix):
        candidates.append(target[len(files.prefix) :].rstrip("/"))
    if bare not in past.renamed and bare not in past.seen:
        candidates += past.ending_with(bare)
    return candidates


def _followed(past: GitPast, files: ProjectFiles, candidates: list[str]) -> Moves:
    """Where each of the ``candidates`` went, each rename followed to a file there now."""
    found_moves = {}
    for old in candidates:
        found = past.follow(old, files)
        if found is not None:
            found_moves[found[0]] = (old, found[1])
    return found_moves


def _as_folder(past: GitPast, target: str) -> bool:
    """Whether ``target`` names a folder: written with a ``/`` at its end, or a name
    without an extension that git knew as a folder."""
    bare = target.rstrip("/")
    return target.endswith("/") or ("." not in bare.rsplit("/", 1)[-1] and past.had_folder(bare))


def suffix_folders(past: GitPast, tail: str, when: float | None) -> list[str]:
    """The folders git saw that end with ``/tail`` (``com/acme/repo`` in
    ``src/main/kotlin/com/acme/repo``); when some were there at ``when`` (the memory last
    changed), those."""
    name = tail.rsplit("/", 1)[-1]
    found = [f for f in past.folders_named(name) if f.endswith("/" + tail)]
    then = [f for f in found if past.folder_there_at(f, when)]
    return then or found


def there_when_written(past: GitPast, went: Moves, when: float | None) -> Moves:
    """Of the places a missing path went, the one it named when the memory last changed
    (``when``; unknown: the one that left last): of the files called ``filesize.py``,
    ``src/humanize/filesize.py`` renamed this week, not ``tests/filesize.py`` renamed
    years before the memory was written; nor ``.claude/agents/planner.md``, added after
    it. All of them when that leaves none or several."""
    if len(went) < 2:
        return went
    gone = {new: past.gone_at(old) or 0.0 for new, (old, _commit) in went.items()}
    if when is None:
        newest = max(gone.values())
        kept = {new: v for new, v in went.items() if gone[new] == newest}
    else:
        kept = {
            new: (old, commit)
            for new, (old, commit) in went.items()
            if gone[new] > when and there_at(past, old, when)
        }
    return kept if len(kept) == 1 else went


def known(past: GitPast, candidates: list[str], target: str) -> bool:
    """Whether git knew a file by one of the ``candidates`` names of ``target`` (or,
    for a folder, a file below one of them)."""
    last = target.rstrip("/").rsplit("/", 1)[-1]
    return any(c in past.seen for c in candidates) or (
        (target.endswith("/") or "." not in last)
        and any(folder_seen(past, c) for c in [target, *candidates])
    )


def missing_note(
    past: GitPast,
    target: str,
    candidates: list[str],
    found_moves: Moves,
    when: float | None,
) -> str:
    """What git says about a path that is missing and did not move to one place."""
    gone = [t for t in (past.gone_at(c) for c in candidates) if t is not None]
    if len(found_moves) > 1:
        return "moved to several places: " + ", ".join(sorted(found_moves))
    folders = _folders_of(past, target)
    if not gone and not any(c in past.seen for c in candidates) and not folders:
        return "never in the git history: a plan or a typo?"
    deleted = past.deleted.get(target.rstrip("/"))
    said = f"deleted {in_commit(deleted[0])}" if deleted else _emptied(past, folders)
    if gone and when is not None and max(gone) <= when:
        # a fix of the memory's other mentions makes it newer: the commit is still told
        return "already gone when the memory last changed" + (f" ({said})" if said else "")
    return said


def _folders_of(past: GitPast, target: str) -> list[str]:
    """The folders git saw that a folder mention names: the one at its path, else, for a
    bare name (`__tests__/`), every folder so named (`src/components/__tests__`)."""
    folder = target.rstrip("/")
    if past.had_folder(folder):
        return [folder]
    return past.folders_named(folder) if target == folder + "/" and "/" not in folder else []


def _emptied(past: GitPast, folders: list[str]) -> str:
    """When a folder git saw only through its files went: the last commit that deleted
    or moved away a file below one of ``folders`` ('' when none did)."""
    if not folders:
        return ""
    prefixes = tuple(f + "/" for f in folders)
    went = [(t, c, "deleted") for path, (c, t) in past.deleted.items() if path.startswith(prefixes)]
    went += [
        (t, c, "its files moved away")
        for path, (_new, c, t) in past.renamed.items()
        if path.startswith(prefixes)
    ]
    if not went:
        return ""
    _time, commit, verb = max(went)
    return f"{verb} {in_commit(commit)}"


def folder_seen(past: GitPast, target: str) -> bool:
    """Whether git saw a file below the folder ``target``."""
    return past.had_folder(target)


def moved_folder(past: GitPast, files: ProjectFiles, folder: str, when: float | None) -> Moves:
    """A folder whose files git saw renamed away: the folder two thirds of them went to
    at the same places in it (or more of them than to any other, when all they share is
    a folder shallower than this one: ``src/drivers/`` to ``packages/cli/drivers/``, not
    ``packages/``), else the deepest folder that holds them all now, each rename followed
    (``docs/prompts/``, whose files went to its ``Archive/`` and then to
    ``docs/legacy_tasks/Archive/``, went there). Only the files it held when the memory
    last changed (``when``) count: a file added and moved later says nothing; when none of
    those moved (all deleted), the files it held when it went (``docs/10-requirements/``
    rewritten, then archived whole under ``docs-archive/``)."""
    went = _moved_folder(past, files, folder, when)
    if not went and when is not None:
        went = _moved_folder(past, files, folder, None)
    return {_named_like(new, folder): old for new, old in went.items()}


def _named_like(new: str, folder: str) -> str:
    """The folder a folder went to: of ``new`` and the folders above it, the deepest one
    with the folder's name (``docs/arch/`` whose files went to ``archive/arch/system/`` in
    two renames went to ``archive/arch/``), else ``new``."""
    name = folder.rsplit("/", 1)[-1]
    parts = new.rstrip("/").split("/")
    if parts[-1] == name or name not in parts[:-1]:
        return new
    at = len(parts) - 1 - parts[::-1].index(name)
    return "/".join(parts[: at + 1]) + "/"


def _moved_folder(past: GitPast, files: ProjectFiles, folder: str, when: float | None) -> Moves:
    head = folder + "/"
    went, images = _went_out(past, files, head, when)
    if not went:
        return {}
    common = posixpath.commonpath([posixpath.dirname(p) for p in went])
    image = _image_went_to(images, len(went), head, common)
    if image is not None:
        commit = Counter(went[p] for p in went if p.startswith(image)).most_common(1)[0][0]
        return {image: (folder, commit)}
    if not common or head.startswith(common + "/"):
        return {}  # scattered, or only up: no one place
    commit = Counter(went.values()).most_common(1)[0][0]
    return {common + "/": (folder, commit)}


def _went_out(
    past: GitPast, files: ProjectFiles, head: str, when: float | None
) -> tuple[dict[str, str], Counter[str]]:
    """The files below ``head`` at ``when`` that git saw renamed out of it: where each is
    now -> the commit, and how many went to each folder at the same place in it (the
    folder's image: ``a/x/y.md`` to ``b/x/y.md`` counts for ``b/``)."""
    went: dict[str, str] = {}
    images: Counter[str] = Counter()
    for old in past.renamed:
        if not (old.startswith(head) and there_at(past, old, when)):
            continue
        found = past.follow(old, files)
        if found is None or found[0].startswith(head):
            continue
        went[found[0]] = found[1]
        rest = old[len(head) :]
        if found[0].endswith("/" + rest):
            images[found[0][: -len(rest)]] += 1
    return went, images


def _image_went_to(images: Counter[str], went: int, head: str, common: str) -> str | None:
    """The folder ``head`` went to whole (its image, at least two files): the one two
    thirds of the ``went`` files went to, or more than to any other when all they share
    is a folder shallower than ``head``; None: no such one."""
    ranked = images.most_common(2)
    if not ranked or ranked[0][1] < 2 or head.startswith(ranked[0][0]):
        return None
    image, count = ranked[0]
    most = 3 * count >= 2 * went
    # or more than any other place, where all of them only share a shallower folder
    ahead = (len(ranked) == 1 or count > ranked[1][1]) and image.startswith(common + "/")
    if most or (ahead and common.count("/") < head.count("/") - 1):
        return image
    return None


def there_at(past: GitPast, path: str, when: float | None) -> bool:
    """Whether git had a file at ``path`` at ``when`` (None: any time)."""
    times = past.changes.get(path)
    return when is None or not times or min(times) <= when


def still_there_at(past: GitPast, path: str, when: float) -> bool:
    """Whether git had a file at ``path`` at ``when`` and had not deleted it or renamed it
    away by then (or had made it again since)."""
    made = max((t for t in past.changes.get(path, ()) if t <= when), default=None)
    gone = max((t for t in past.left.get(path, ()) if t <= when), default=None)
    return made is not None and (gone is None or made > gone)


def folder_held_at(past: GitPast, folder: str, when: float) -> bool:
    """Whether a folder git knew held a file at ``when``: ``backend/app/`` emptied the
    day before a memory was written and filled again months later held none then."""
    head = folder.rstrip("/") + "/"
    if not past.folder_there_at(head, when):
        return False
    return any(p.startswith(head) and still_there_at(past, p, when) for p in past.seen)


def unsaid_moves(
    findings: list[CodeFinding], near: dict[tuple[str, int], list[str]]
) -> list[CodeFinding]:
    """``findings`` without the moves their memory tells on the same line: a path whose
    new place is written beside it ("`ml/` was renamed to `ai-dl/`", in any language) is
    history the memory keeps, not drift (``near``: the paths on each (memory, line))."""
    return [f for f in findings if not (f.status == MOVED and _new_place_beside(f, near))]


def _new_place_beside(f: CodeFinding, near: dict[tuple[str, int], list[str]]) -> bool:
    new = (f.new_path or "").rstrip("/")
    # its own name alone says no new place (root `x.yaml` beside a moved `a/x.yaml`)
    own = (f.target.rstrip("/"), f.mention.rstrip("/"), f.target.rstrip("/").rsplit("/", 1)[-1])
    for written in near.get((f.memory, f.line), ()):
        written = written.rstrip("/")
        if (
            written
            and (new == written or new.endswith("/" + written))
            and written not in own
            and not f.mention.removeprefix("./").startswith(written)  # its own, with a line
        ):
            return True
    return False
