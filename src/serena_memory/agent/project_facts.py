"""A short fact sheet detected from the project itself, handed to the agent at onboarding.

What a newcomer would look up first (languages, build and package files, the commands to
test, lint and run) is cheap to find mechanically and expensive for an agent to find by
reading, so onboarding starts from it. Detection only reads well-known files and walks
the tree once with a file budget; it never runs anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serena_memory.agent.exploration import ProjectFiles

MAX_FILES_SCANNED = 20_000
MAX_COMMANDS_PER_KIND = 8
MAX_CI_COMMANDS = 12
MAX_SMALL_FILE = 512 * 1024
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
    ("Taskfile.yml", "Task"),
    ("CMakeLists.txt", "CMake"),
    ("meson.build", "Meson"),
    ("pom.xml", "Maven"),
    ("build.gradle", "Gradle"),
    ("build.gradle.kts", "Gradle (Kotlin DSL)"),
    ("Gemfile", "Bundler (Ruby)"),
    ("composer.json", "Composer (PHP)"),
    ("mix.exs", "Mix (Elixir)"),
    ("Dockerfile", "Docker image"),
    ("docker-compose.yml", "Docker Compose"),
    ("compose.yaml", "Docker Compose"),
    (".pre-commit-config.yaml", "pre-commit hooks"),
)
CI_FILES = (".gitlab-ci.yml", ".circleci/config.yml", "azure-pipelines.yml", ".travis.yml")

_TEST = re.compile(r"(^|[:_\-])(test|tests|check|spec|e2e|coverage)([:_\-]|$)", re.I)
_LINT = re.compile(r"(^|[:_\-])(lint|format|fmt|typecheck|type-check|types|mypy|style)", re.I)
_BUILD = re.compile(r"(^|[:_\-])(build|compile|dist|package|bundle)([:_\-]|$)", re.I)
_RUN = re.compile(r"(^|[:_\-])(start|dev|serve|run|watch|preview)([:_\-]|$)", re.I)


@dataclass
class FactSheet:
    """What the project says about itself; every list is short and deduplicated."""

    languages: list[tuple[str, int]] = field(default_factory=list)
    files_scanned: int = 0
    truncated: bool = False
    build_files: list[tuple[str, str]] = field(default_factory=list)
    ci_files: list[str] = field(default_factory=list)
    commands: dict[str, list[str]] = field(
        default_factory=lambda: {"test": [], "lint": [], "build": [], "run": [], "other": []}
    )
    ci_commands: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, kind: str, command: str) -> None:
        bucket = self.commands.setdefault(kind, [])
        if command not in bucket and len(bucket) < MAX_COMMANDS_PER_KIND:
            bucket.append(command)

    def is_empty(self) -> bool:
        return not (self.languages or self.build_files or self.ci_files)

    def to_dict(self) -> dict[str, Any]:
        return {
            "languages": [{"language": n, "files": c} for n, c in self.languages],
            "files_scanned": self.files_scanned,
            "truncated": self.truncated,
            "build_files": [{"file": f, "kind": k} for f, k in self.build_files],
            "ci_files": self.ci_files,
            "commands": {k: v for k, v in self.commands.items() if v},
            "ci_commands": self.ci_commands,
            "notes": self.notes,
        }

    def to_markdown(self) -> str:
        if self.is_empty():
            return "No source files or build files were found; the project looks empty."
        lines = self._language_lines()
        if self.build_files:
            shown = ", ".join(f"`{f}` ({k})" for f, k in self.build_files)
            lines.append(f"- Build and package files: {shown}.")
        for kind, label in _COMMAND_LABELS.items():
            found = self.commands.get(kind) or []
            if found:
                lines.append(f"- {label}: {_quoted(found)}.")
        if self.ci_files:
            lines.append(f"- CI configuration: {_quoted(self.ci_files)}.")
        if self.ci_commands:
            lines.append(f"- Commands CI runs: {_quoted(self.ci_commands)}.")
        lines.extend(f"- {note}" for note in self.notes)
        return "\n".join(lines)

    def _language_lines(self) -> list[str]:
        if not self.languages:
            return []
        total = sum(c for _, c in self.languages)
        shown = ", ".join(f"{n} ({c})" for n, c in self.languages[:8])
        more = " (file budget reached; counts are partial)" if self.truncated else ""
        return [f"- Languages by file count: {shown}; {total} source files{more}."]


# the fact sheet's command lines, in the order they are shown
_COMMAND_LABELS = {
    "test": "Test",
    "lint": "Lint / format / type check",
    "build": "Build",
    "run": "Run",
    "other": "Other declared commands",
}


def _quoted(items: list[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def detect_facts(root: str | Path, max_files: int = MAX_FILES_SCANNED) -> FactSheet:
    """Build the fact sheet of the project at ``root``; unreadable files are skipped."""
    root = Path(root)
    sheet = FactSheet()
    _count_languages(root, sheet, max_files)
    for name, kind in BUILD_FILES:
        if (root / name).is_file():
            sheet.build_files.append((name, kind))
    _python_commands(root, sheet)
    _node_commands(root, sheet)
    _make_commands(root, sheet)
    _cargo_commands(root, sheet)
    _go_commands(root, sheet)
    _ci_commands(root, sheet)
    return sheet


# -- languages -------------------------------------------------------------------------------
def _count_languages(root: Path, sheet: FactSheet, max_files: int) -> None:
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
    sheet.files_scanned = min(seen, max_files)
    sheet.languages = sorted(counts.items(), key=lambda item: (-item[1], item[0]))


# -- per-ecosystem commands ------------------------------------------------------------------
def _read_small(root: Path, path: Path) -> str | None:
    """A small regular file of the project, never through a link leading out of it (a
    cloned repository's ``Makefile -> ~/.aws/credentials`` would land in the facts)."""
    from serena_memory.core.errors import MemoryStoreError
    from serena_memory.core.paths import is_inside, read_regular_file

    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if not is_inside(real, (real_root,)):
        return None
    try:
        data = read_regular_file(real, (real_root,), str(path), MAX_SMALL_FILE)
    except (OSError, MemoryStoreError):
        return None
    return data.decode("utf-8", errors="replace")


def _classify(name: str) -> str:
    for kind, pattern in (("test", _TEST), ("lint", _LINT), ("build", _BUILD), ("run", _RUN)):
        if pattern.search(name):
            return kind
    return "other"


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    """The TOML table ``data[key]``, or an empty one when it is missing or not a table."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _python_commands(root: Path, sheet: FactSheet) -> None:
    text = _read_small(root, root / "pyproject.toml")
    if text is None:
        legacy = (root / "setup.py").is_file() or (root / "requirements.txt").is_file()
        if legacy and ((root / "tests").is_dir() or (root / "test").is_dir()):
            sheet.add("test", "pytest")
        return
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        sheet.notes.append(f"`pyproject.toml` could not be parsed ({exc}).")
        return
    tool = _table(data, "tool")
    runner = _python_runner(root, tool)
    _python_tools(root, sheet, tool, runner)
    _python_scripts(sheet, _table(data, "project"), tool, runner)
    _python_tasks(sheet, tool, runner)
    _hatch_scripts(sheet, tool)


def _python_runner(root: Path, tool: dict[str, Any]) -> str:
    """What Python commands run through: ``uv run``, ``poetry run`` or nothing."""
    if (root / "uv.lock").is_file():
        return "uv run "
    if (root / "poetry.lock").is_file() or "poetry" in tool:
        return "poetry run "
    return ""


# (the [tool] table, the lint command it stands for)
_PYTHON_LINTERS = (("black", "black ."), ("isort", "isort ."), ("mypy", "mypy ."))


def _python_tools(root: Path, sheet: FactSheet, tool: dict[str, Any], runner: str) -> None:
    """The test runners and linters ``pyproject.toml`` configures."""
    if "pytest" in tool or (root / "pytest.ini").is_file() or (root / "tests").is_dir():
        sheet.add("test", f"{runner}pytest")
    if "ruff" in tool:
        sheet.add("lint", f"{runner}ruff check .")
        sheet.add("lint", f"{runner}ruff format .")
    for name, command in _PYTHON_LINTERS:
        if name in tool:
            sheet.add("lint", f"{runner}{command}")
    if (root / "tox.ini").is_file() or "tox" in tool:
        sheet.add("test", "tox")


def _python_scripts(
    sheet: FactSheet, project: dict[str, Any], tool: dict[str, Any], runner: str
) -> None:
    """The commands the project installs ([project.scripts], [tool.poetry.scripts])."""
    scripts = dict(_table(project, "scripts"))
    poetry = _table(tool, "poetry")
    if isinstance(poetry.get("scripts"), dict):
        scripts.update(poetry["scripts"])
    for script in list(scripts)[:MAX_COMMANDS_PER_KIND]:
        sheet.add("run", f"{runner}{script}" if runner else script)


def _python_tasks(sheet: FactSheet, tool: dict[str, Any], runner: str) -> None:
    """The tasks of taskipy and poethepoet."""
    for table, prefix in (("taskipy", "task "), ("poe", "poe ")):
        tasks = _table(tool, table).get("tasks")
        if isinstance(tasks, dict):
            for task in tasks:
                sheet.add(_classify(task), f"{runner}{prefix}{task}")


def _hatch_scripts(sheet: FactSheet, tool: dict[str, Any]) -> None:
    """The scripts of hatch's environments (``hatch run [env:]script``)."""
    envs = _table(_table(tool, "hatch"), "envs")
    for env_name, env in envs.items():
        if isinstance(env, dict) and isinstance(env.get("scripts"), dict):
            for script in env["scripts"]:
                target = script if env_name == "default" else f"{env_name}:{script}"
                sheet.add(_classify(script), f"hatch run {target}")


def _node_commands(root: Path, sheet: FactSheet) -> None:
    text = _read_small(root, root / "package.json")
    if text is None:
        return
    try:
        data = json.loads(text)
    except ValueError as exc:
        sheet.notes.append(f"`package.json` could not be parsed ({exc}).")
        return
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return
    if (root / "pnpm-lock.yaml").is_file():
        tool = "pnpm"
    elif (root / "yarn.lock").is_file():
        tool = "yarn"
    elif (root / "bun.lockb").is_file():
        tool = "bun run"
    else:
        tool = "npm run"
    for name in scripts:
        if not isinstance(name, str) or name.startswith(("pre", "post")) and name != "prepare":
            continue
        if tool == "npm run" and name in ("test", "start"):
            command = f"npm {name}"
        else:
            command = f"{tool} {name}"
        sheet.add(_classify(name), command)


_MAKE_TARGET = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.\-/]*)\s*:(?!=)", re.M)


def _make_commands(root: Path, sheet: FactSheet) -> None:
    for name in ("Makefile", "GNUmakefile", "makefile"):
        text = _read_small(root, root / name)
        if text is not None:
            break
    else:
        return
    targets = []
    for match in _MAKE_TARGET.finditer(text):
        target = match.group(1)
        if "%" in target or "/" in target or "." in target or target in targets:
            continue
        targets.append(target)
    for target in targets:
        sheet.add(_classify(target), f"make {target}")


def _cargo_commands(root: Path, sheet: FactSheet) -> None:
    text = _read_small(root, root / "Cargo.toml")
    if text is None:
        return
    sheet.add("build", "cargo build")
    sheet.add("test", "cargo test")
    sheet.add("lint", "cargo clippy")
    sheet.add("lint", "cargo fmt")
    if (root / "src" / "main.rs").is_file() or "[[bin]]" in text:
        sheet.add("run", "cargo run")
    if "[workspace]" in text:
        sheet.notes.append("`Cargo.toml` declares a workspace (several crates).")


def _go_commands(root: Path, sheet: FactSheet) -> None:
    text = _read_small(root, root / "go.mod")
    if text is None:
        return
    module = re.search(r"^module\s+(\S+)", text, re.M)
    version = re.search(r"^go\s+(\S+)", text, re.M)
    sheet.add("build", "go build ./...")
    sheet.add("test", "go test ./...")
    sheet.add("lint", "go vet ./...")
    sheet.add("lint", "gofmt -l .")
    if module:
        detail = f" (Go {version.group(1)})" if version else ""
        sheet.notes.append(f"Go module `{module.group(1)}`{detail}.")


def _ci_commands(root: Path, sheet: FactSheet) -> None:
    paths = _ci_paths(root)
    if not paths:
        return
    full = False
    for path in paths:
        sheet.ci_files.append(path.relative_to(root).as_posix())
        if full:
            continue  # every CI file is still named, its commands no longer read
        for command in _commands_in_ci(_ci_data(root, path, sheet)):
            if not _add_ci_lines(sheet, command):
                full = True
                break


def _ci_paths(root: Path) -> list[Path]:
    """The CI files of the project: GitHub workflows first, then the others."""
    workflows = root / ".github" / "workflows"
    paths: list[Path] = []
    if workflows.is_dir():
        with contextlib.suppress(OSError):
            paths.extend(sorted(p for p in workflows.iterdir() if p.suffix in (".yml", ".yaml")))
    paths.extend(root / name for name in CI_FILES if (root / name).is_file())
    return paths


def _ci_data(root: Path, path: Path, sheet: FactSheet) -> Any:
    """A CI file's YAML, or None when it can't be read or parsed (noted on the sheet)."""
    import yaml

    text = _read_small(root, path)
    if text is None:
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        sheet.notes.append(f"`{path.relative_to(root).as_posix()}` is not valid YAML.")
        return None


def _add_ci_lines(sheet: FactSheet, command: str) -> bool:
    """Add each new line of a CI command (long ones cut); False once the list is full."""
    for line in command.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and line not in sheet.ci_commands:
            if len(sheet.ci_commands) >= MAX_CI_COMMANDS:
                return False
            sheet.ci_commands.append(line if len(line) <= 120 else line[:117] + "...")
    return True


def _commands_in_ci(node: Any) -> list[str]:
    """Every `run:` (GitHub) and `script:` (GitLab, Travis, CircleCI) string, in order."""
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("run", "script", "command") and isinstance(value, str):
                    found.append(value)
                elif key in ("script", "before_script") and isinstance(value, list):
                    found.extend(v for v in value if isinstance(v, str))
                elif isinstance(value, dict | list):
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return found
