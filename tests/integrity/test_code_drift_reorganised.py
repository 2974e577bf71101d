"""A file rewritten into a reorganised tree (no rename git could see) is told moved to
the one file of its name that came since in the same part of the project, checked on
real git repositories."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, used by name


def test_a_file_rewritten_into_a_subfolder_is_told_moved_there(repo: Path) -> None:
    write(repo, "src/core/collector.py", "def collect():\n    return 1\n")
    write(repo, "src/core/other.py", "def other():\n    return 2\n")
    write(repo, "src/core/config.py", "A = 1\n")
    memory(
        repo,
        "structure",
        "- `src/core/collector.py` collects\n- `src/core/other.py` helps\n"
        "- `src/core/config.py` configures\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/core/collector.py", "src/core/other.py", "src/core/config.py")
    commit(repo, "drop the old collectors")
    write(repo, "src/core/collectors/collector.py", "class Collector:\n    pass\n")
    write(repo, "lib/other.py", "class Other:\n    pass\n")  # another part of the project
    write(repo, "src/a/config.py", "B = 2\n")
    write(repo, "src/b/config.py", "C = 3\n")  # two namesakes: no telling which
    commit(repo, "collectors rewritten in their own folder")
    found = by_mention(findings(repo))
    assert found["src/core/collector.py"]["status"] == "moved"
    assert found["src/core/collector.py"]["new_path"] == "src/core/collectors/collector.py"
    assert found["src/core/other.py"]["status"] == "missing"
    assert found["src/core/config.py"]["status"] == "missing"


def test_a_namesake_there_when_the_memory_was_written_is_another_file(repo: Path) -> None:
    write(repo, "docs/guide.md", "# Guide\n")
    write(repo, "docs/core/guide.md", "# Core guide\n")
    memory(repo, "docs", "Read `docs/guide.md` first.\n")
    commit(repo)
    git(repo, "rm", "-q", "docs/guide.md")
    commit(repo, "drop the old guide")
    assert by_mention(findings(repo))["docs/guide.md"]["status"] == "missing"


def test_a_file_rewritten_where_its_folder_went_is_told_moved_there(repo: Path) -> None:
    for name in ("a", "b", "c"):
        write(repo, f"backend/app/{name}.py", f"{name.upper()} = 1\n")
    write(repo, "backend/app/main.py", "def main():\n    return 1\n")
    write(repo, "tools/main.py", "def tool():\n    return 2\n")  # a namesake elsewhere
    memory(repo, "layout", "The server starts in `backend/app/main.py`.\n")
    commit(repo)
    (repo / "server/app").mkdir(parents=True)
    for name in ("a", "b", "c"):
        git(repo, "mv", f"backend/app/{name}.py", f"server/app/{name}.py")
    git(repo, "rm", "-q", "backend/app/main.py")
    write(repo, "server/app/main.py", "import asyncio\n\n\nasync def serve():\n    pass\n")
    commit(repo, "backend/ becomes server/, main.py rewritten for asyncio")
    found = by_mention(findings(repo))["backend/app/main.py"]
    assert (found["status"], found["new_path"]) == ("moved", "server/app/main.py")


def test_a_file_rewritten_with_another_extension_later_is_told_moved(repo: Path) -> None:
    write(repo, "scores/intro.osc", "intro\n")
    write(repo, "scores/outro.osc", "outro\n")
    memory(repo, "scores", "The opening is `scores/intro.osc`, the close `scores/outro.osc`.\n")
    commit(repo)
    git(repo, "rm", "-q", "scores/intro.osc", "scores/outro.osc")
    commit(repo, "drop the old format")
    write(repo, "scores/intro.orbs", "<orbs>intro, rewritten</orbs>\n")
    commit(repo, "the new format")
    found = by_mention(findings(repo))
    assert found["scores/intro.osc"]["new_path"] == "scores/intro.orbs"
    assert found["scores/outro.osc"]["status"] == "missing"
