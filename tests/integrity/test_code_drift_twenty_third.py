"""Forms met on drift-23's repositories (a Rust plotting library, a C# control system),
each checked on a real git repository: a module split into a package keeps its import
path, so `src/core/plot.rs` went to `src/core/plot/mod.rs`; the files listed under a
heading about a folder outside the project ("## Scripts (../Tools/Scripts/)") are no
claims about the project's own files."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli_process
from test_code_drift import commit, git, memory, repo, write
from test_code_drift_twentieth import _report, _told

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


def _notes(root: Path) -> dict[str, str]:
    """mention -> what the check says of it."""
    return {f.mention: f.describe() for f in _report(root).findings}


def test_a_folder_that_went_says_when_and_never_that_git_never_knew_it(repo: Path) -> None:
    """A folder named bare (`__tests__/`, which the project had in several places) or by
    its path (`tests/contract/`), whose files were deleted or moved away, is told with the
    commit it went in, never as a name git never knew ("a plan or a typo?")."""
    write(repo, "src/components/__tests__/a.test.ts", "test('a', () => {})\n")
    write(repo, "src/api/__tests__/b.test.ts", "test('b', () => {})\n")
    write(repo, "tests/contract/api.rs", "#[test] fn api() {}\n")
    write(repo, "e2e/home.spec.ts", "test('home', () => {})\n")
    memory(
        repo,
        "conventions",
        "- Tests co-located in `__tests__/` folders.\n- Contract tests: `tests/contract/`\n"
        "- End-to-end: `e2e/`\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", "src/components/__tests__", "src/api/__tests__", "tests")
    (repo / "tests/e2e").mkdir(parents=True)
    git(repo, "mv", "e2e/home.spec.ts", "tests/e2e/home.spec.ts")
    commit(repo, "tests in one place")
    git(repo, "rm", "-q", "-r", "tests/e2e")
    commit(repo, "no e2e")
    notes = _notes(repo)
    assert "deleted in commit" in notes["__tests__/"], notes
    assert "deleted in commit" in notes["tests/contract/"], notes
    assert "moved away in commit" in notes["e2e/"], notes
    assert not any("never in the git history" in note for note in notes.values())


def test_a_tree_entry_that_went_under_another_entry_is_left_and_said(repo: Path) -> None:
    """The fix never puts a path into a drawn tree (`dictionaries/` ->
    `admin/dictionaries/`): it leaves the entry, says so with where it went, and fixes
    the same folder written with its path."""
    write(repo, "src/app/dictionaries/page.tsx", "export default function Page() {}\n" * 5)
    write(repo, "src/app/admin/page.tsx", "export default function Admin() {}\n")
    tree = (
        "```\nsrc/app/\n├── admin/            # Admin\n├── dictionaries/     # Dictionaries\n```\n"
    )
    memory(repo, "structure", tree + "- Dictionaries live in `src/app/dictionaries/`.\n")
    commit(repo)
    git(repo, "mv", "src/app/dictionaries", "src/app/admin/dictionaries")
    commit(repo, "dictionaries under admin")
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/structure.md").read_text(encoding="utf-8")
    assert "├── dictionaries/     # Dictionaries" in text  # the drawing as it was
    assert "`src/app/admin/dictionaries/`" in text
    assert "Left as written, to move by hand (1 moved path):" in fixed.stderr
    assert "structure:4: `dictionaries/` moved to `src/app/admin/dictionaries/`" in fixed.stderr


def test_a_check_since_a_commit_says_its_verdict_is_of_those_commits() -> None:
    """`check --code --since HEAD~5` found nothing in those commits: it says so, not that
    nothing in the memories drifted (a full check may still find what went before)."""
    from serena_memory.integrity.code_drift.code_report import CodeReport

    report = CodeReport(scanned=2, mentions=7, git=True, since="HEAD~5")
    assert "none drifted in the commits since HEAD~5." in report.to_text()
    assert "; none drifted.\n" in CodeReport(scanned=2, mentions=7, git=True).to_text()
