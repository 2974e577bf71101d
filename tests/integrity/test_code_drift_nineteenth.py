"""Forms met on drift-19's repositories, each checked on a real git repository: a line of
spaces in a ``.gitignore`` ignores no folder (``git check-ignore`` says it matches any
folder asked with its ``/``, ``git status`` ignores nothing by it)."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, git, memory, repo, write

from serena_memory.integrity.code_drift.checker import CodeChecker
from serena_memory.integrity.code_drift.code_report import MISSING, MOVED

__all__ = ["repo"]  # the fixture, used by name


def _told(root: Path) -> dict[tuple[int, str], tuple[str, str | None]]:
    """(line, mention) -> (status, new path) of every path not present."""
    texts = {p.stem: p.read_text("utf-8") for p in (root / ".serena/memories").glob("*.md")}
    when = float(git(root, "log", "-1", "--format=%ct").strip())
    report = CodeChecker(root, changed_commits=0).check(
        texts, dict.fromkeys(texts, when), symbols=False
    )
    return {
        (f.line, f.mention): (f.status, f.new_path)
        for f in report.findings
        if f.status in (MISSING, MOVED)
    }


def test_a_blank_line_of_the_gitignore_ignores_no_folder(repo: Path) -> None:
    write(repo, ".gitignore", "# gone, do not recreate\napis/\n \n!keep/\n")
    memory(
        repo,
        "layout",
        "- API tests live in `tests/Billing.Tests/`\n- Old endpoints in `apis/`\n- Kept: `keep/`\n",
    )
    commit(repo)
    assert _told(repo) == {
        (1, "tests/Billing.Tests/"): (MISSING, None),
        (3, "keep/"): (MISSING, None),  # a negated pattern ignores nothing
    }  # `apis/` is ignored: a folder kept off git
