"""Forms met on drift-23's repositories (a Rust plotting library, a C# control system),
each checked on a real git repository: a module split into a package keeps its import
path, so `src/core/plot.rs` went to `src/core/plot/mod.rs`; the files listed under a
heading about a folder outside the project ("## Scripts (../Tools/Scripts/)") are no
claims about the project's own files."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, git, memory, repo, write
from test_code_drift_twentieth import _told

__all__ = ["repo"]  # the fixture, used by name


def test_a_module_split_into_a_package_moved_to_its_module_file(repo: Path) -> None:
    write(repo, "src/core/plot.rs", "pub struct Plot;\n" * 20)
    write(repo, "app/models.py", "class User: ...\n" * 20)
    memory(repo, "status", "- Plotting in `src/core/plot.rs`.\n- Models: `app/models.py`.\n")
    commit(repo)
    git(repo, "rm", "-q", "src/core/plot.rs", "app/models.py")
    write(repo, "src/core/plot/mod.rs", "mod builder;\npub use builder::Plot;\n")
    write(repo, "src/core/plot/builder.rs", "pub struct Plot { width: u32 }\n")
    write(repo, "app/models/__init__.py", "from .user import User\n")
    write(repo, "app/models/user.py", "class User:\n    name: str\n")
    commit(repo, "split into modules")
    assert _told(repo) == {
        (1, "src/core/plot.rs"): "moved",
        (2, "app/models.py"): "moved",
    }


def test_files_under_a_heading_about_a_folder_outside_the_project_are_no_claims(
    repo: Path,
) -> None:
    write(repo, "scripts/build.ps1", "Write-Host build\n")
    write(repo, "README.md", "# x\n")
    memory(
        repo,
        "commands",
        "## Build\n- `scripts/build.ps1` - the build\n\n"
        "## PowerShell Management Scripts (../Tools/Scripts/)\n"
        "- `Setup-PLCSIM-Environment.ps1` - PLCSIM configuration\n"
        "- `Debug-InfluxDB.ps1` - Database troubleshooting\n\n"
        "## Git\n- `README.md` first\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "scripts/build.ps1", "README.md")
    commit(repo, "scripts elsewhere")
    assert _told(repo) == {(2, "scripts/build.ps1"): "missing", (9, "README.md"): "missing"}
