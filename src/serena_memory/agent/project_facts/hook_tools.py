"""The tools pre-commit runs for the project (``black``, ``flake8``, ``codespell``, ``mypy
src``), offered as a person runs them by hand: pre-commit installs its own copy, so they
are typed bare, with the hook's arguments when it runs on the whole project rather than
on the files changed. A checker the project configures with a file of its own at the
root (typos, rumdl) is offered the same way, hook or not."""

from __future__ import annotations

from typing import Any

from serena_memory.agent.project_facts.commands import canonical
from serena_memory.agent.project_facts.files import Project, walk
from serena_memory.agent.project_facts.pre_commit import CONFIGS

# hook id -> (kind, the command it stands for when given files, or None: needs its args)
_HOOKS: dict[str, tuple[str, str | None]] = {
    "black": ("format", "black ."), "isort": ("format", "isort ."),
    "ruff": ("lint", "ruff check"), "ruff-check": ("lint", "ruff check"),
    "ruff-format": ("format", "ruff format"), "flake8": ("lint", "flake8"),
    "codespell": ("lint", "codespell"), "typos": ("lint", "typos"),
    "committed": ("lint", "committed"), "mypy": ("typecheck", None),
    "pyright": ("typecheck", "pyright"),
    "taplo-format": ("format", "taplo format"), "taplo-lint": ("lint", "taplo lint"),
    "yamlfmt": ("format", "yamlfmt"), "zizmor": ("lint", "zizmor ."),
}  # fmt: skip


def hook_commands(data: Any) -> list[tuple[str, str]]:
    """(kind, command) of each known hook of a pre-commit configuration; a hook with its
    own ``entry`` is the project's and runs something else."""
    found: list[tuple[str, str]] = []
    for key, hook in walk(data):
        if key != "hooks" or not isinstance(hook, list):
            continue
        for item in hook:
            hook_id = item.get("id") if isinstance(item, dict) else None
            if isinstance(hook_id, str) and hook_id in _HOOKS and "entry" not in item:
                command = _command(item)
                if command:
                    found.append(command)
    return found


def _command(hook: dict[str, Any]) -> tuple[str, str] | None:
    kind, command = _HOOKS[hook["id"]]
    args = hook.get("args")
    plain = [str(a) for a in args if not str(a).startswith("-")] if isinstance(args, list) else []
    if hook.get("pass_filenames") is False and plain and len(plain) == len(args or []):
        return kind, " ".join([hook["id"], *plain])  # `mypy src`
    return (kind, command) if command else None


def read_hook_tools(project: Project) -> None:
    name = project.first(*CONFIGS)
    if name is None:
        return
    sheet = project.sheet
    for kind, command in hook_commands(project.yaml(name)):
        if command not in {canonical(known) for known in sheet.offered()}:
            sheet.add(kind, command, name)


# a checker's own configuration file at the root -> the command a person runs it with
_CONFIGURED = {"_typos.toml": "typos", ".typos.toml": "typos", "typos.toml": "typos",
               ".rumdl.toml": "rumdl check", "rumdl.toml": "rumdl check"}  # fmt: skip


def read_configured_checkers(project: Project) -> None:
    sheet = project.sheet
    for name, command in _CONFIGURED.items():
        if project.is_file(name) and command not in {canonical(c) for c in sheet.offered()}:
            sheet.add("lint", command, name)
