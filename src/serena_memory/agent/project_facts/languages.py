"""The project's languages (by file count) and the build, package and task runner files at
its root: what a newcomer looks at first."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from serena_memory.agent.exploration import ProjectFiles
from serena_memory.agent.project_facts.sheet import FactSheet

MAX_FILES_SCANNED = 20_000
# Folders of installed or generated code: counted as the project's languages they would
# drown the real ones, even in projects without a .gitignore.
VENDORED_DIRS = frozenset(
    {"node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", "target", "dist", "build", ".next", ".serena", "vendor"}
)  # fmt: skip

LANGUAGES: dict[str, str] = {
    ".py": "Python", ".pyi": "Python", ".ipynb": "Jupyter Notebook",
    ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript",
    ".vue": "Vue", ".svelte": "Svelte",
    ".go": "Go", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin",
    ".scala": "Scala", ".groovy": "Groovy", ".clj": "Clojure",
    ".c": "C", ".h": "C/C++ header", ".cc": "C++", ".cpp": "C++", ".cxx": "C++",
    ".hpp": "C++", ".hh": "C++", ".m": "Objective-C", ".mm": "Objective-C",
    ".cs": "C#", ".fs": "F#", ".vb": "Visual Basic", ".swift": "Swift", ".dart": "Dart",
    ".rb": "Ruby", ".php": "PHP", ".pl": "Perl", ".pm": "Perl", ".lua": "Lua", ".r": "R",
    ".jl": "Julia", ".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell",
    ".ml": "OCaml", ".nim": "Nim", ".zig": "Zig", ".sol": "Solidity",
    ".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".ps1": "PowerShell",
    ".sql": "SQL", ".tf": "Terraform", ".nix": "Nix",
    ".html": "HTML", ".css": "CSS", ".scss": "SCSS", ".less": "Less",
}  # fmt: skip

# (file, what it tells), checked at the project root in this order.
BUILD_FILES: tuple[tuple[str, str], ...] = (
    ("pyproject.toml", "Python project metadata"),
    ("setup.py", "Python setuptools script"),
    ("setup.cfg", "Python setuptools configuration"),
    ("requirements.txt", "Python requirements"),
    ("requirements-dev.txt", "Python development requirements"),
    ("Pipfile", "Pipenv"),
    ("poetry.lock", "Poetry lock file"),
    ("uv.lock", "uv lock file"),
    ("tox.ini", "tox"),
    ("noxfile.py", "nox"),
    ("package.json", "npm package"),
    ("package-lock.json", "npm lock file"),
    ("yarn.lock", "Yarn lock file"),
    ("pnpm-lock.yaml", "pnpm lock file"),
    ("bun.lockb", "Bun lock file"),
    ("tsconfig.json", "TypeScript configuration"),
    ("Cargo.toml", "Cargo (Rust)"),
    ("go.mod", "Go module"),
    ("Makefile", "make"),
    ("GNUmakefile", "make"),
    ("justfile", "just"),
    ("Justfile", "just"),
    (".justfile", "just"),
    ("Taskfile.yml", "Task"),
    ("Taskfile.yaml", "Task"),
    ("Rakefile", "Rake"),
    ("hatch.toml", "Hatch"),
    ("CMakeLists.txt", "CMake"),
    ("meson.build", "Meson"),
    ("pom.xml", "Maven"),
    ("mvnw", "Maven wrapper"),
    ("gradlew", "Gradle wrapper"),
    ("build.gradle", "Gradle"),
    ("build.gradle.kts", "Gradle (Kotlin DSL)"),
    ("Gemfile", "Bundler (Ruby)"),
    ("composer.json", "Composer (PHP)"),
    ("mix.exs", "Mix (Elixir)"),
    ("Dockerfile", "Docker image"),
    ("docker-compose.yml", "Docker Compose"),
    ("compose.yaml", "Docker Compose"),
    (".pre-commit-config.yaml", "pre-commit hooks"),
    (".golangci.yml", "golangci-lint"),
    (".golangci.yaml", "golangci-lint"),
    (".rubocop.yml", "RuboCop"),
)
CI_FILES = (".gitlab-ci.yml", ".circleci/config.yml", "azure-pipelines.yml", ".travis.yml")


# -- languages -------------------------------------------------------------------------------
def count_languages(root: Path, sheet: FactSheet, max_files: int) -> None:
    counts: Counter[str] = Counter()
    seen = 0
    files = ProjectFiles(root, extra_skipped_dirs=VENDORED_DIRS)
    for rel in files.walk(""):
        seen += 1
        if seen > max_files:
            sheet.truncated = True
            break
        suffix = os.path.splitext(rel)[1].lower()
        language = LANGUAGES.get(suffix)
        if language:
            counts[language] += 1
            sheet.code_bytes += _size(root / rel)
    sheet.files_scanned = min(seen, max_files)
    sheet.languages = sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _size(path: Path) -> int:
    """The file's size in bytes, the link's own for a link (nothing outside is followed)."""
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0
