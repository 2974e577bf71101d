"""Forms met on drift-19's repositories, each checked on a real git repository: a line of
spaces in a ``.gitignore`` ignores no folder (``git check-ignore`` says it matches any
folder asked with its ``/``, ``git status`` ignores nothing by it); a path that names a
project path only when case is ignored is told with the project's case as its fix; a name
a prose list shows under a folder as a naming rule or an example stays weak there; a
folder a build or test command takes (``dotnet test tests/App.Tests``) is a path it
names."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli_process
from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.checker import CodeChecker
from serena_memory.integrity.code_drift.code_report import MISSING, MOVED
from serena_memory.integrity.code_drift.mentions import extract

__all__ = ["repo"]  # the fixture, used by name


def _told(root: Path) -> dict[tuple[int, str], tuple[str, str | None]]:
    """(line, mention) -> (status, new path) of every path not present, each memory read
    as of its last commit."""
    texts = {p.stem: p.read_text("utf-8") for p in (root / ".serena/memories").glob("*.md")}
    written = {
        name: float(git(root, "log", "-1", "--format=%ct", "--", f".serena/memories/{name}.md"))
        for name in texts
    }
    report = CodeChecker(root, changed_commits=0).check(texts, written, symbols=False)
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


def test_a_path_in_another_case_than_the_projects_is_told_with_its_case(repo: Path) -> None:
    write(repo, "tests/Billing.Api.Tests/AssemblyInfo.cs", "[assembly: X]\n")
    write(repo, "tests/Foo.Api.Tests/A.cs", "class A {}\n")
    write(repo, "docs/a.md", "a\n")
    write(repo, "docs/A.md", "b\n")
    memory(
        repo,
        "checklist",
        "- Update API tests in `tests/Billing.API.Tests/`\n"
        "- and `tests/Foo.API.Tests/` (a placeholder's name, but the project's folder)\n"
        "- See [the info](tests/billing.api.tests/AssemblyInfo.cs:3)\n"
        "- Not `tests/Foo.Qpi.Tests/`, `tests/Zed.API.Tests/` nor `docs/a.MD`\n",
    )
    commit(repo)
    assert _told(repo) == {
        (1, "tests/Billing.API.Tests/"): (MOVED, "tests/Billing.Api.Tests/"),
        (2, "tests/Foo.API.Tests/"): (MOVED, "tests/Foo.Api.Tests/"),
        (3, "tests/billing.api.tests/AssemblyInfo.cs:3"): (
            MOVED,
            "tests/Billing.Api.Tests/AssemblyInfo.cs",
        ),
        (4, "tests/Zed.API.Tests/"): (MISSING, None),  # no project path, in any case
        (4, "docs/a.MD"): (MISSING, None),  # two project paths: no one fix
    }  # `tests/Foo.Qpi.Tests/`: a placeholder's name git never knew, in any case
    found = by_mention(findings(repo))
    assert found["tests/Billing.API.Tests/"]["new_path"] == "tests/Billing.Api.Tests/"
    fixed = run_cli_process("memories", "fix-code-references", str(repo), "--json")
    assert fixed.returncode == 0, fixed.stderr
    done = {f["mention"] for f in json.loads(fixed.stdout)["fixed"]}
    assert done == {
        "tests/Billing.API.Tests/",
        "tests/Foo.API.Tests/",
        "tests/billing.api.tests/AssemblyInfo.cs:3",
    }
    text = (repo / ".serena/memories/checklist.md").read_text("utf-8")
    assert "in `tests/Billing.Api.Tests/`\n" in text and "`tests/Zed.API.Tests/`" in text
    assert "(tests/Billing.Api.Tests/AssemblyInfo.cs:3)" in text  # the link keeps its line


def test_a_name_a_list_shows_under_a_folder_as_a_naming_rule_stays_weak(repo: Path) -> None:
    write(repo, "pages/01_Overview.py", "import streamlit\n")
    write(repo, "dataforge/utils.py", "def f():\n    return 1\n")
    write(repo, "dataforge/old.py", "x = 1\n")
    commit(repo)
    memory(
        repo,
        "codebase_structure",
        "- `pages/` — auto-discovered modules named `NN_Icon_Title.py` (e.g., `01_Overview.py`)\n"
        "- `dataforge/` — shared helpers (e.g., `old.py`, `validators.py`)\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "dataforge/old.py")
    commit(repo)
    assert _told(repo) == {(2, "old.py"): (MISSING, None)}
    # a naming rule's name and an example git never knew, though drawn under a folder the
    # project has, are no claims; an example git knew there, deleted since, is one


def test_a_folder_a_build_or_test_command_takes_is_a_path_it_names(repo: Path) -> None:
    write(repo, "tests/Billing.Api.Tests/A.cs", "class A {}\n")
    write(repo, "tests/Billing.Core.Tests/B.cs", "class B {}\n")
    write(repo, "src/Billing.Api/Program.cs", "class P {}\n")
    memory(
        repo,
        "suggested_commands",
        "```bash\ndotnet test tests/Billing.Core.Tests\ndotnet test tests/Billing.API.Tests\n"
        "dotnet run --project src/Billing.Api\ndotnet publish -o out/Billing.Api\n"
        "git checkout feature/Billing.Api\nls src/Billing.API\n```\n",
    )
    commit(repo)
    assert _told(repo) == {
        (3, "tests/Billing.API.Tests"): (MOVED, "tests/Billing.Api.Tests"),
        (7, "src/Billing.API"): (MOVED, "src/Billing.Api"),
    }  # an option's output and a branch are no folders of the project
    names = [(m.line, m.text) for m in extract(_commands()) if m.kind == "path"]
    assert names == [(2, "tests/App.Tests"), (3, "src/App"), (4, "tests/unit")]


def _commands() -> str:
    return (
        "```\ndotnet test tests/App.Tests\ndotnet run --project src/App\npytest tests/unit -q\n"
        "docker run org/image\nexport X=a/b\n```\n"
    )
