"""Missing paths that are not the project's code, so no drift: the project's own name
(``Commander.js`` in a title), folders its scripts create (``venv/``), paths git ignores
(a local file, a build output) and, in a subproject, paths of the work tree outside it.

Git is asked once for all the paths of a check; a mentioned path is never opened.
"""

from __future__ import annotations

from collections.abc import Callable

from serena_memory.integrity.code_drift.code_report import MISSING, CodeFinding
from serena_memory.integrity.code_drift.forms import GLOB
from serena_memory.integrity.code_drift.git import GitUnavailable, run_git
from serena_memory.integrity.code_drift.local_paths import (
    created_folders,
    is_created,
    is_project_name,
    project_names,
)
from serena_memory.integrity.code_drift.mentions import PATH
from serena_memory.integrity.code_drift.project import ProjectFiles

MAX_FOLDERS_ASKED = 2000
"""The project's folders a bare file name is asked to git in, to see whether it is ignored
there."""


def _is_missing_path(f: CodeFinding) -> bool:
    return f.kind == PATH and f.status == MISSING


def _asked(f: CodeFinding) -> tuple[str, ...]:
    """What is asked of a missing path: its target, and for a glob the glob as written
    too (``models/*.bson``, a pattern the ``.gitignore`` lists: checkpoints kept local)."""
    if f.form != GLOB:
        return (f.target,)
    return (f.target, f.mention.removeprefix("./"))


class LeftAlone:
    """Which missing paths one project leaves alone (its names and created folders read
    once)."""

    def __init__(self, files: ProjectFiles) -> None:
        self.files = files
        self._local_names: tuple[frozenset[str], frozenset[str]] | None = None

    def without(
        self, findings: list[CodeFinding], kept: Callable[[CodeFinding], bool] | None = None
    ) -> list[CodeFinding]:
        """``findings`` without the missing paths left alone (but those ``kept`` keeps:
        gone since their memory was written)."""
        targets = sorted({t for f in findings if _is_missing_path(f) for t in _asked(f)})
        alone = self.paths(targets) if targets else set()
        if not alone:
            return findings
        return [
            f
            for f in findings
            if not (_is_missing_path(f) and any(t.rstrip("/") in alone for t in _asked(f)))
            or (kept is not None and kept(f))
        ]

    def paths(self, targets: list[str]) -> set[str]:
        """The ``targets`` left alone, each without its trailing ``/``."""
        alone = {t.rstrip("/") for t in targets if self._local(t)}
        if self.files.git:
            asked = [t for t in targets if t.rstrip("/") not in alone]
            found = self._ignored(asked) | self._outside(asked) if asked else set()
            alone |= {a.rstrip("/") for a in found}
        return alone

    def _local(self, target: str) -> bool:
        """Whether ``target`` is the project's name or lies in a folder its scripts
        create (read once)."""
        if self._local_names is None:
            self._local_names = (project_names(self.files), created_folders(self.files))
        names, created = self._local_names
        return is_project_name(target, names) or is_created(target, created)

    def _ignored(self, targets: list[str]) -> set[str]:
        """The ``targets`` git ignores (a folder asked with its ``/``: a pattern for
        folders only, ``venv*/``, matches a folder that is not there only so); a bare
        file name is asked in every folder too (``_version.py``, ignored as
        ``src/*/_version.py``), but a folder git ignores as a whole (``node_modules/``)
        says nothing of the name: every name is ignored there."""
        asked: dict[str, set[str]] = {t: {t} for t in targets}  # path -> targets it stands for
        folders = sorted(self.files.dirs)[:MAX_FOLDERS_ASKED]
        bare = [t for t in targets if "/" not in t.rstrip("/")]
        for t in bare:
            for d in folders:
                asked.setdefault(f"{d}/{t}", set()).add(t)
        whole = {f"{d}/": d for d in folders} if bare else {}
        try:
            out = run_git(
                self.files.root,
                "check-ignore",
                "-z",
                "-v",
                "--no-index",
                "--stdin",
                data="\0".join([*asked, *whole]).encode() + b"\0",
            )
        except GitUnavailable:
            return set()  # nothing ignored
        ignored = _ignored_paths(out.decode("utf-8", "replace"))
        skipped = {whole[p] for p in ignored if p in whole}
        direct = set(targets)
        found = [
            asked.get(p, set())
            for p in ignored
            if p in direct or p.rstrip("/").rpartition("/")[0] not in skipped
        ]
        return set().union(*found)

    def _outside(self, targets: list[str]) -> set[str]:
        """In a subproject, the ``targets`` that name files of its work tree outside it."""
        if not self.files.prefix:
            return set()
        specs = [":(top,literal)" + t.rstrip("/") for t in targets]
        try:
            out = run_git(self.files.root, "ls-files", "-z", "--full-name", "--", *specs)
        except GitUnavailable:
            return set()
        listed = set(out.decode("utf-8", "replace").split("\0"))
        return {
            t
            for t in targets
            if t.rstrip("/") in listed or any(p.startswith(t.rstrip("/") + "/") for p in listed)
        }


def _ignored_paths(verbose: str) -> list[str]:
    """The paths ``git check-ignore -z -v`` says are ignored: each record is its source,
    line, pattern and path. Not those a negated pattern matched (``!keep/``: verbose
    output lists them too), nor those a blank pattern matched: a line of spaces in a
    ``.gitignore`` is trimmed to nothing, which check-ignore matches against the empty
    name after a folder's ``/`` though ``git status`` ignores nothing by it."""
    fields = verbose.split("\0")
    out = []
    for i in range(0, len(fields) - 3, 4):
        pattern, path = fields[i + 2], fields[i + 3]
        if pattern.strip() and not pattern.startswith("!"):
            out.append(path)
    return out
