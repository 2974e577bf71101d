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
    return moved_finding(memory, m, m.target, cased, None, read_only, None, note=CASE_ONLY)


def moved_finding(
    memory: str,
    m: Mention,
    target: str,
    new: str,
    commit: str | None,
    read_only: bool,
    new_mention: str | None,
    form: str = "",
    note: str = "",
) -> CodeFinding:
    """The finding of a mention whose file went from ``target`` to ``new``: as git saw it
    (``commit``), or, with ``note``, as the project spells it (a case-only change)."""
    return CodeFinding(
        memory,
        m.line,
        m.text,
        PATH,
        MOVED,
        target,
        new_path=new,
        commit=commit,
        note=note,
        read_only=read_only,
        new_mention=new_mention,
        form=form,
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
