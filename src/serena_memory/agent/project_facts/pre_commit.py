"""pre-commit hooks: ``pre-commit install`` sets them up (a project that configures hooks
wants them run before each commit), ``pre-commit run --all-files`` lints, and formats or
type checks too when a hook does."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project, walk

CONFIGS = (".pre-commit-config.yaml", ".pre-commit-config.yml")
COMMAND = "pre-commit run --all-files"
INSTALL = "pre-commit install"
_FORMATTERS = ("black", "ruff-format", "prettier", "isort", "gofmt", "rustfmt", "fmt",
               "format", "clang-format", "yapf", "autopep8", "biome")  # fmt: skip
_TYPE_CHECKERS = ("mypy", "pyright", "typecheck", "ty", "pyrefly", "tsc")


def hook_ids(data: object) -> list[str]:
    return [v.lower() for k, v in walk(data) if k == "id" and isinstance(v, str)]


def read_pre_commit(project: Project) -> None:
    name = project.first(*CONFIGS)
    if name is None:
        return
    ids = hook_ids(project.yaml(name))
    project.sheet.add("lint", COMMAND, name)
    if any(any(f in hook for f in _FORMATTERS) for hook in ids):
        project.sheet.add("format", COMMAND, name)
    if any(hook in _TYPE_CHECKERS or "mypy" in hook or "pyright" in hook for hook in ids):
        project.sheet.add("typecheck", COMMAND, name)


def offer_hook_install(project: Project) -> None:
    """``pre-commit install``, after every other set-up command (it is what CI never
    runs, and the set-up's room goes to installing the project first); unless the docs
    install the hooks their way already (``pre-commit install --install-hooks``)."""
    name = project.first(*CONFIGS)
    setup = project.sheet.commands.get("setup", [])
    if name is not None and not any(c.startswith(INSTALL) for c in setup):
        project.sheet.add("setup", INSTALL, name)
