"""pre-commit hooks: ``pre-commit install`` sets them up (a project that configures hooks
wants them run before each commit), ``pre-commit run --all-files`` lints, and formats or
type checks too when a hook does."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project, walk

CONFIGS = (".pre-commit-config.yaml", ".pre-commit-config.yml")
COMMAND = "pre-commit run --all-files"
INSTALL = "pre-commit install"
# prek, pre-commit's drop-in, reads the same configuration
PREK_COMMAND = "prek run --all-files"
PREK_INSTALL = "prek install"
_FORMATTERS = ("black", "ruff-format", "prettier", "isort", "gofmt", "rustfmt", "fmt",
               "format", "clang-format", "yapf", "autopep8", "biome")  # fmt: skip
_TYPE_CHECKERS = ("mypy", "pyright", "typecheck", "ty", "pyrefly", "tsc")
# where a project's own set-up installs the hooks, options and all (`pre-commit install
# --install-hooks` in `.devcontainer/on-create-command.sh`)
_SETUP_FOLDERS = (".devcontainer", "scripts", "script")
_SETUP_FILES = ("Makefile", "justfile", "Justfile")
MAX_SETUP_FILES = 20
_INSTALL_LINE = re.compile(r"\bpre-commit install((?:[ \t]+(?:-[\w-]+(?:=[\w.-]+)?|[a-z][\w-]*))*)")


def hook_ids(data: object) -> list[str]:
    return [v.lower() for k, v in walk(data) if k == "id" and isinstance(v, str)]


def hooks_command(offered: set[str]) -> str:
    """How the hooks are run: ``pre-commit run --all-files``, or as the docs run them
    with prek, pre-commit's drop-in (``uv run prek run --all-files``)."""
    prek = sorted(c for c in offered if c.endswith(PREK_COMMAND))
    return prek[0] if prek else COMMAND


def read_pre_commit(project: Project) -> None:
    name = project.first(*CONFIGS)
    if name is None:
        return
    ids = hook_ids(project.yaml(name))
    command = hooks_command(project.sheet.offered())
    project.sheet.add("lint", command, name)
    if any(any(f in hook for f in _FORMATTERS) for hook in ids):
        project.sheet.add("format", command, name)
    if any(hook in _TYPE_CHECKERS or "mypy" in hook or "pyright" in hook for hook in ids):
        project.sheet.add("typecheck", command, name)


def offer_hook_install(project: Project) -> None:
    """``pre-commit install``, after every other set-up command (it is what CI never
    runs, and the set-up's room goes to installing the project first); unless the docs
    install the hooks their way already (``pre-commit install --install-hooks``, ``uv run
    prek install``)."""
    name = project.first(*CONFIGS)
    setup = project.sheet.commands.get("setup", [])
    if name is not None and not any(INSTALL in c or PREK_INSTALL in c for c in setup):
        project.sheet.add("setup", own_install(project) or INSTALL, name)


def own_install(project: Project) -> str | None:
    """``pre-commit install`` with the options the project's own set-up gives it (a dev
    container's script, ``scripts/``, a Makefile recipe): ``--install-hooks`` fetches the
    hooks' environments up front, ``-t pre-push`` adds a stage."""
    paths = [f"{folder}/{entry}" for folder in _SETUP_FOLDERS for entry in project.listing(folder)]
    for path in [*paths[:MAX_SETUP_FILES], *_SETUP_FILES]:
        if not project.is_file(path):
            continue
        for match in _INSTALL_LINE.finditer(project.text(path) or ""):
            options = match.group(1).split()
            if options and options[0].startswith("-"):
                return " ".join([INSTALL, *options])
    return None
