"""`check --code` on the shapes of a second set of real memories, each in a real git
repository whose files go after the memory is written: bare names a list or a map places
in a folder (cargo's binaries, components by name), a map drawn by indentation alone,
lines listed after a path; and what is the machine's, not the project's: a program on
the PATH, the project's own name from a Dart manifest, a system file given as an
example, a file the memory says is not used."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, shared


def _told(root: Path) -> dict[str, tuple[str, str | None]]:
    """mention -> (status, new path) of the missing and moved paths."""
    return {
        f["mention"]: (f["status"], f.get("new_path"))
        for f in findings(root)
        if f["kind"] == "path" and f["status"] in ("missing", "moved")
    }


def test_bare_names_listed_under_a_folder_and_cargo_binaries_are_files(repo: Path) -> None:
    for name in ("smtop", "reembed", "db_check"):
        write(repo, f"src/bin/{name}.rs", "fn main() {}\n")
    memory(
        repo,
        "commands",
        "# Commands\n```bash\ncargo run --bin smtop        # TUI dashboard\n"
        "cargo run --bin reembed\ncargo run --bin planned_tool\n```\n\n"
        "## Utility Binaries\nLocated in `src/bin/`:\n- `smtop` - TUI dashboard\n"
        "- `reembed` / `db_check` - maintenance\n- `someday` - not written yet\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/bin/smtop.rs", "src/bin/db_check.rs")
    commit(repo, "fold the tools into admin")
    told = _told(repo)
    assert told["smtop"][0] == "missing"
    assert told["db_check"][0] == "missing"
    assert "reembed" not in told
    assert "planned_tool" not in told and "someday" not in told  # git never knew them


def test_a_map_drawn_by_indentation_places_files_and_component_names(repo: Path) -> None:
    write(repo, "src/middleware.ts", "export function middleware() {\n  return 1;\n}\n")
    write(repo, "src/app/[locale]/pricing/page.tsx", "export default function P() {}\n")
    write(repo, "src/app/[locale]/login/page.tsx", "export default function L() {}\n")
    for name in ("MarketingHeader", "HeroSection"):
        write(repo, f"src/components/marketing/{name}.tsx", f"export function {name}() {{}}\n")
    write(repo, "src/components/features/editor/BlockEditor.tsx", "export {}\n")
    memory(
        repo,
        "core",
        "# Core\n```\nsrc/\n  app/                # App Router\n    [locale]/\n"
        "      pricing/page.tsx  # public pricing\n      login/page.tsx\n"
        "  middleware.ts         # route protection\n  components/marketing/\n"
        "    # MarketingHeader (client, sticky nav), HeroSection\n  components/features/\n"
        "    # editor/: BlockEditor,\n    #          SlashMenu\n```\n",
    )
    commit(repo)
    git(repo, "mv", "src/middleware.ts", "src/proxy.ts")
    git(repo, "rm", "-q", "src/app/[locale]/pricing/page.tsx")
    git(repo, "rm", "-q", "src/components/marketing/MarketingHeader.tsx")
    commit(repo, "the Next 16 proxy; a new landing page")
    told = _told(repo)
    assert told["middleware.ts"] == ("moved", "src/proxy.ts")
    assert told["pricing/page.tsx"][0] == "missing"
    assert told["MarketingHeader"][0] == "missing"
    assert "HeroSection" not in told and "BlockEditor" not in told and "SlashMenu" not in told
    assert "login/page.tsx" not in told


def test_a_path_with_lines_listed_and_a_folder_item_with_its_files(repo: Path) -> None:
    write(repo, "backend/lib/src/services/pubspec_analyzer.dart", "class A {}\n" * 20)
    write(repo, "frontend/lib/widgets/dep_graph.dart", "class G {}\n")
    write(repo, "packages/shared/lib/src/models/dep_graph.dart", "class M {}\n")
    memory(
        repo,
        "core",
        "# Core\n- `services/pubspec_analyzer.dart:44,86` — dead null checks.\n"
        "- `lib/widgets/` — `dep_graph.dart` (graphview).\n",
    )
    commit(repo)
    git(
        repo,
        "mv",
        "backend/lib/src/services/pubspec_analyzer.dart",
        "backend/lib/src/services/dependency_analyzer.dart",
    )
    git(repo, "rm", "-q", "frontend/lib/widgets/dep_graph.dart")
    commit(repo, "ecosystem seam")
    told = _told(repo)
    assert told["services/pubspec_analyzer.dart:44,86"] == (
        "moved",
        "backend/lib/src/services/dependency_analyzer.dart",
    )
    assert told["dep_graph.dart"][0] == "missing"  # the widget, not the shared model


def test_the_machine_s_names_and_what_the_memory_says_is_not_used_are_left_alone(
    repo: Path,
) -> None:
    write(repo, "pubspec.yaml", "name: project_cloud\nenvironment:\n  sdk: ^3.6.0\n")
    write(repo, "globals.css", "@theme {}\n")
    memory(
        repo,
        "core",
        "# Core\n- Root is `project_cloud/` (the git repo root).\n"
        "- `dart`/`flutter` are on PATH as `dart.bat`/`flutter.bat`.\n"
        "- Comments explain why (e.g. non-obvious nix.conf / builder requirements).\n"
        "- Config via `@theme` in `globals.css`, not `tailwind.config.js`.\n"
        "- The build reads `build.yaml`.\n",
    )
    commit(repo)
    told = _told(repo)
    assert set(told) == {"build.yaml"}  # the one claim about the project's files


def test_a_folder_moved_wholesale_in_steps_is_told_its_destination(repo: Path) -> None:
    write(repo, "docs/prompts/20251227-cleanup.md", "cleanup\n")
    write(repo, "docs/prompts/Archive/20251120-status.md", "status\n")
    memory(repo, "tasks", "# Tasks\n1. Update `docs/prompts/` with implementation notes\n")
    commit(repo)
    (repo / "docs/prompts/troubleshooting").mkdir()
    write(repo, "docs/prompts/troubleshooting/later.md", "added after the memory\n")
    git(repo, "mv", "docs/prompts/20251227-cleanup.md", "docs/prompts/Archive/")
    commit(repo, "archive old prompts")
    (repo / "docs/legacy_tasks").mkdir()
    git(repo, "mv", "docs/prompts/Archive", "docs/legacy_tasks/Archive")
    git(repo, "mv", "docs/prompts/troubleshooting", "docs/legacy_tasks/troubleshooting")
    commit(repo, "more repo cleanup")
    assert _told(repo)["docs/prompts/"] == ("moved", "docs/legacy_tasks/Archive/")


def test_files_a_generic_guide_lists_per_language_or_with_etc_are_examples(repo: Path) -> None:
    write(repo, "setup.cfg", "[metadata]\nname = x\n")
    write(repo, "requirements.txt", "numpy\n")
    write(repo, "build.gradle", "plugins {}\n")
    commit(repo)
    memory(
        repo,
        "health_check",
        "# Health check\n\n- Using code analysis on build files (CMakeLists.txt, Makefile, "
        "package.json, etc.)\n\n"
        "2. **Language Server Configuration**\n"
        "   - **C/C++:** Verify .clangd configuration file and compile_commands.json\n"
        "   - **Python:** Check for pyproject.toml, setup.cfg, or requirements.txt\n"
        "   - **TypeScript/JavaScript:** Check for tsconfig.json or jsconfig.json\n\n"
        "- Our build uses (build.gradle, main.go)\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "setup.cfg", "build.gradle")
    commit(repo, "setup.cfg into pyproject")
    told = _told(repo)
    # kinds of file any project has, and any file named in passing outside code (main.go,
    # which git never knew here): told only when git knew them here
    assert set(told) == {"setup.cfg", "build.gradle"}
    assert told["setup.cfg"][0] == "missing"
