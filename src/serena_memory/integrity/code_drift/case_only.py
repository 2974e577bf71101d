"""A path that names a project path only when case is ignored (``tests/App.API.Tests/``
for ``tests/App.Api.Tests/``): git and Linux tell case apart, so a command or a link with
it fails, and the fix is plain. It is told as a moved path is, the project's spelling
offered in the memory's form."""

from __future__ import annotations

from serena_memory.integrity.code_drift.code_report import CASE_ONLY, MOVED, CodeFinding
from serena_memory.integrity.code_drift.history import GitPast
from serena_memory.integrity.code_drift.mentions import PATH, Mention
from serena_memory.integrity.code_drift.moves import Moves, known
from serena_memory.integrity.code_drift.project import ProjectFiles


def in_other_case(
    files: ProjectFiles, memory: str, m: Mention, read_only: bool
) -> CodeFinding | None:
    """The finding of ``m`` when it names one project path only when case is ignored.
    None: no such path, several, or a mention in another form than a path."""
    if m.form:
        return None
    cased = files.in_other_case(m.target)
    if cased is None:
        return None
    if m.target.endswith("/") != cased.endswith("/"):
        cased = cased.rstrip("/") + ("/" if m.target.endswith("/") else "")
    return CodeFinding(
        memory,
        m.line,
        m.text,
        PATH,
        MOVED,
        m.target,
        new_path=cased,
        note=CASE_ONLY,
        read_only=read_only,
    )


def unknown_in_other_case(
    past: GitPast,
    files: ProjectFiles,
    seen: tuple[list[str], Moves],
    memory: str,
    m: Mention,
    read_only: bool,
) -> CodeFinding | None:
    """:func:`in_other_case` for a path git saw go nowhere and never knew (``seen``: the
    candidates it was looked up as, and where git saw them go), even one written loosely:
    it is the project's own path, in another case."""
    candidates, went = seen
    if went or known(past, candidates, m.target):
        return None
    return in_other_case(files, memory, m, read_only)
