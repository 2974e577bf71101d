"""Forms met on drift-22's repositories (a C++ game mod, a Rust documentation generator),
each checked on a real git repository: a drawn tree's note that a folder is not used
(`build_mingw/  # MinGW build output (not used)`) says the memory does not count on it;
a file named in passing in prose, outside code (`minijinja with base.html (layout)`,
`generates sitemap.xml + robots.txt`), is a template's or an output's name, told only
when git knew a file by it here."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, git, memory, repo, write
from test_code_drift_twentieth import _told

__all__ = ["repo"]  # the fixture, used by name


def test_a_folder_a_tree_notes_as_not_used_is_no_drift_when_it_goes(repo: Path) -> None:
    write(repo, "build_mingw/out.txt", "x\n")
    write(repo, "game/g_main.cpp", "int main() {}\n")
    write(repo, "horde/g_horde.cpp", "int horde() {}\n")
    memory(
        repo,
        "codebase_structure",
        "```\nmod/\n├── build_mingw/     # MinGW build output (not used)\n"
        "├── game/            # Game DLL source (alternative structure, unused)\n"
        "├── horde/           # Horde mode implementation\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", "build_mingw", "game", "horde")
    commit(repo, "clean up")
    told = {mention: status for (_line, mention), status in _told(repo).items()}
    assert told == {"horde/": "missing"}


def test_file_names_in_passing_are_told_only_when_git_knew_them(repo: Path) -> None:
    write(repo, "crates/static/src/templates.rs", "// templates\n")
    write(repo, "crates/static/src/nav.html", "<nav></nav>\n")
    memory(
        repo,
        "docs_architecture",
        "- **Template engine**: minijinja with base.html (layout), nav.html (sidebar)\n"
        "- **Build**: generate sitemap.xml + robots.txt\n"
        "- **Files**: `templates.rs`\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "crates/static/src/templates.rs", "crates/static/src/nav.html")
    commit(repo, "templates embedded")
    told = {mention: status for (_line, mention), status in _told(repo).items()}
    # git never knew base.html, sitemap.xml nor robots.txt here: names, not files
    assert told == {"nav.html": "missing", "templates.rs": "missing"}
