"""pre-commit hooks: ``pre-commit run --all-files`` lints, and formats or type checks
too when a hook does."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project, walk

CONFIGS = (".pre-commit-config.yaml", ".pre-commit-config.yml")
COMMAND = "pre-commit run --all-files"
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
