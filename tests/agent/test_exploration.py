"""Read-only exploration: confined to the project, honouring .gitignore, with limits."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from serena_memory.agent import exploration as E
from serena_memory.core.errors import PatternError


def tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return tree(
        tmp_path / "repo",
        {
            ".gitignore": "*.log\nbuild/\n!keep.log\n",
            "src/app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
            "src/util.py": "def helper():\n    pass\n",
            "src/.gitignore": "secret.py\n",
            "src/secret.py": "TOKEN = 1\n",
            "debug.log": "noise\n",
            "keep.log": "kept\n",
            "build/out.py": "def main(): pass\n",
            ".git/config": "[core]\n",
            "README.md": "# Repo\nmain entry: src/app.py\n",
            "image.png": b"\x89PNG\x00\x00binary",
        },
    )


def test_list_dir_honours_gitignore_at_every_level(repo: Path) -> None:
    top = E.list_dir(repo, ".", recursive=False)
    assert top == {
        "dirs": ["src"],
        "files": [".gitignore", "README.md", "image.png", "keep.log"],
    }
    deep = E.list_dir(repo, "", recursive=True)
    assert "src/app.py" in deep["files"] and "src/secret.py" not in deep["files"]
    everything = E.list_dir(repo, ".", recursive=True, skip_ignored_files=False)
    assert {"debug.log", "build/out.py", "src/secret.py"} <= set(everything["files"])
    assert not any(f.startswith(".git/") for f in everything["files"])  # never .git
    assert E.list_dir(repo, "src", recursive=False)["files"] == [
        "src/.gitignore",
        "src/app.py",
        "src/util.py",
    ]


def test_a_gitignore_line_git_skips_is_skipped_not_an_error(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("!\n*.log\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("", encoding="utf-8")
    (tmp_path / "b.log").write_text("", encoding="utf-8")
    assert E.list_dir(tmp_path, ".", recursive=False)["files"] == [".gitignore", "a.py"]


def test_paths_are_confined_to_the_project(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("private\n")
    for bad in ["../outside.txt", "/etc/passwd", str(tmp_path / "outside.txt"), "src/../../x"]:
        with pytest.raises(E.ExplorationError, match="outside the project"):
            E.read_file(repo, bad)
    with pytest.raises(E.ExplorationError, match="outside the project"):
        E.list_dir(repo, "..", recursive=False)
    # an absolute path inside the project is fine
    assert E.read_file(repo, str(repo / "keep.log")) == "kept\n"


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_symlinks_never_lead_outside(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("private\n")
    (tmp_path / "outdir").mkdir()
    (tmp_path / "outdir" / "x.py").write_text("x\n")
    os.symlink(tmp_path / "outside.txt", repo / "link.txt")
    os.symlink(tmp_path / "outdir", repo / "linkdir")
    os.symlink(repo / "README.md", repo / "readme-link.md")
    with pytest.raises(E.ExplorationError, match="outside the project"):
        E.read_file(repo, "link.txt")
    with pytest.raises(E.ExplorationError, match="outside the project"):
        E.list_dir(repo, "linkdir", recursive=True)
    listing = E.list_dir(repo, ".", recursive=True)
    assert "link.txt" not in listing["files"] and "linkdir" not in listing["dirs"]
    assert "readme-link.md" in listing["files"]
    found = E.search_for_pattern(repo, "private|Repo")
    assert list(found) == ["README.md", "readme-link.md"]


def test_find_file(repo: Path) -> None:
    assert E.find_file(repo, "*.py", ".") == {"files": ["src/app.py", "src/util.py"]}
    assert E.find_file(repo, "*.log", ".") == {"files": ["keep.log"]}
    assert "build/out.py" in E.find_file(repo, "*.py", ".", skip_ignored_files=False)["files"]
    assert E.find_file(repo, "app.?y", "src") == {"files": ["src/app.py"]}
    with pytest.raises(E.ExplorationError, match="file_mask"):
        E.find_file(repo, " ", ".")


def test_search_for_pattern(repo: Path) -> None:
    hits = E.search_for_pattern(repo, r"def \w+")
    assert hits == {"src/app.py": ["3:def main():"], "src/util.py": ["1:def helper():"]}
    context = E.search_for_pattern(repo, "getcwd", context_lines_before=1, context_lines_after=1)
    assert context == {"src/app.py": ["3-def main():", "4:    return os.getcwd()", "5-"]}
    spanning = E.search_for_pattern(repo, r"import os.*?def main")
    assert spanning["src/app.py"] == ["1:import os", "2:", "3:def main():"]
    assert E.search_for_pattern(repo, r"import os.*?def main", multiline=False) == {}
    assert list(E.search_for_pattern(repo, "main", paths_include_glob="*.md")) == ["README.md"]
    assert list(E.search_for_pattern(repo, "main", paths_include_glob="src/**/*.{py,md}")) == [
        "src/app.py"
    ]
    assert "src/app.py" not in E.search_for_pattern(repo, "main", paths_exclude_glob="src/*")
    assert list(E.search_for_pattern(repo, "main", relative_path="src/app.py")) == ["src/app.py"]
    assert list(E.search_for_pattern(repo, "main", code_files_only=True)) == ["src/app.py"]
    assert "build/out.py" in E.search_for_pattern(repo, "main", skip_ignored_files=False)
    assert "image.png" not in E.search_for_pattern(repo, "PNG", skip_ignored_files=False)
    with pytest.raises(PatternError, match="not a valid regular expression"):
        E.search_for_pattern(repo, "(")
    with pytest.raises(E.ExplorationError, match="empty"):
        E.search_for_pattern(repo, "")


def test_separate_groups_are_marked(tmp_path: Path) -> None:
    tree(tmp_path, {"f.txt": "hit\na\nb\nc\nhit\n"})
    assert E.search_for_pattern(tmp_path, "hit") == {"f.txt": ["1:hit", "--", "5:hit"]}


def test_read_file_ranges_and_refusals(repo: Path) -> None:
    assert E.read_file(repo, "src/app.py", 1, 2) == "\ndef main():\n"
    assert E.read_file(repo, "src/app.py", -1) == "    return os.getcwd()\n"
    assert E.read_file(repo, "src/secret.py") == "TOKEN = 1\n"  # named explicitly: readable
    with pytest.raises(E.ExplorationError, match="past the end"):
        E.read_file(repo, "src/app.py", 10)
    with pytest.raises(E.ExplorationError, match="before start_line"):
        E.read_file(repo, "src/app.py", 3, 1)
    with pytest.raises(E.ExplorationError, match="binary"):
        E.read_file(repo, "image.png")
    with pytest.raises(E.ExplorationError, match="folder"):
        E.read_file(repo, "src")
    with pytest.raises(E.ExplorationError, match="does not exist"):
        E.read_file(repo, "nope.txt")
    tree(repo, {"latin.txt": b"caf\xe9\n"})
    with pytest.raises(E.ExplorationError, match="not UTF-8"):
        E.read_file(repo, "latin.txt")


def test_answer_limit_says_how_to_narrow() -> None:
    assert E.check_answer_size("abc", 3, "narrow it") == "abc"
    with pytest.raises(E.AnswerTooLongError) as info:
        E.check_answer_size("abcd", 3, "narrow it")
    assert "4 characters" in str(info.value) and "limit of 3" in str(info.value)
    assert "narrow it" in str(info.value)
