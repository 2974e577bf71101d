"""What changed in a project since a revision (``check --since REV``): the paths deleted or
renamed, the words on the code's removed lines, the memories changed, and which findings
those make worth telling. A revision from outside is refused unless it has the shape of one
and git knows it as a commit: nothing starting with ``-``, no ranges."""

from __future__ import annotations

import re
from dataclasses import dataclass

from serena_memory.core.errors import MemoryStoreError
from serena_memory.integrity.code_drift.code_report import MISSING, MOVED, CodeFinding
from serena_memory.integrity.code_drift.git import GitStalled, GitUnavailable, run_git
from serena_memory.integrity.code_drift.history import MEMORIES_FOLDER, name_status
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL
from serena_memory.integrity.code_drift.project import ProjectFiles

_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/~^@{}-]*$")


@dataclass
class Window:
    """What changed since a revision: the paths deleted or renamed, the words on removed
    lines, the memories changed."""

    gone: set[str]
    removed_words: set[str]
    memories: set[str]

    def keep(self, findings: list[CodeFinding]) -> list[CodeFinding]:
        kept = []
        for f in findings:
            if f.memory in self.memories:
                kept.append(f)
            elif f.kind == PATH and f.status in (MISSING, MOVED):
                target = f.target.rstrip("/")
                if any(
                    g == target or g.endswith("/" + target) or g.startswith(target + "/")
                    for g in self.gone
                ):
                    kept.append(f)
            elif f.kind == SYMBOL and any(
                w in self.removed_words for w in re.findall(r"\w+", f.target)
            ):
                kept.append(f)
        return kept


def changes_since(files: ProjectFiles, rev: str) -> Window:
    """The :class:`Window` since ``rev`` (a commit; refused unless git knows it as one)."""
    commit = _commit(files, rev)
    try:
        gone, touched = _names_changed(files, commit)
        untracked = run_git(
            files.root, "ls-files", "-z", "--others", "--exclude-standard", "--", ".serena"
        )
        removed = _removed_words(files, commit)
    except GitUnavailable as exc:
        raise _since_failed(rev, exc) from None
    touched.update(untracked.decode("utf-8", "replace").split("\0"))
    memories = {
        p[len(MEMORIES_FOLDER) : -3]
        for p in touched
        if p.startswith(MEMORIES_FOLDER) and p.endswith(".md")
    }
    return Window(gone, removed, memories)


def _since_failed(rev: str, exc: GitUnavailable) -> MemoryStoreError:
    return MemoryStoreError(
        f"git could not tell what changed since {rev!r} ({exc}); run the check again, or "
        "without --since"
    )


def _commit(files: ProjectFiles, rev: str) -> str:
    """The commit ``rev`` names; one sentence when it names none."""
    if not files.git:
        raise MemoryStoreError("--since needs a git work tree; this project is not one")
    if not _REVISION.match(rev) or ".." in rev:
        raise MemoryStoreError(f"{rev!r} is not a revision; give a commit such as HEAD or main~3")
    try:
        return (
            run_git(
                files.root,
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                rev + "^{commit}",
            )
            .decode()
            .strip()
        )
    except GitStalled as exc:
        raise _since_failed(rev, exc) from None
    except GitUnavailable:
        raise MemoryStoreError(
            f"git knows no commit {rev!r}; give one such as HEAD or main~3"
        ) from None


_DIFF = ("--no-ext-diff", "--no-textconv", "--relative")


def _names_changed(files: ProjectFiles, commit: str) -> tuple[set[str], set[str]]:
    """(paths deleted or renamed away, paths touched) between ``commit`` and the work tree."""
    names = run_git(files.root, "diff", "-z", "-M", "--name-status", *_DIFF, commit)
    gone: set[str] = set()
    touched: set[str] = set()
    for letter, old, path in name_status(names.decode("utf-8", "replace").split("\0")):
        if letter in "RD":
            gone.add(old or path)  # renamed away, or deleted
        touched.add(path)
        if old is not None:
            touched.add(old)
    return gone, touched


def _removed_words(files: ProjectFiles, commit: str) -> set[str]:
    """The identifiers on the lines of the code (not the memories) removed since ``commit``."""
    text = run_git(files.root, "diff", "-U0", *_DIFF, commit, "--", ".", ":(exclude).serena")
    words: set[str] = set()
    for line in text.decode("utf-8", "replace").splitlines():
        if line.startswith("-") and not line.startswith("---"):
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", line))
    return words
