"""The pre-commit git hook a JavaScript project declares (``simple-git-hooks``, husky's
``hooks`` or yorkie's ``gitHooks`` in package.json, or ``.husky/pre-commit``): what runs
before every commit is what a contributor runs by hand to check a change
(``pnpm lint-staged``, ``pretty-quick --staged``), each command by its kind."""

from __future__ import annotations

import json
import re
from typing import Any

from serena_memory.agent.project_facts.commands import MAX_COMMAND_CHARS, classify_command
from serena_memory.agent.project_facts.files import Project

SOURCE = "the pre-commit git hook"
HUSKY_HOOK = ".husky/pre-commit"
MAX_HOOK_LINES = 20
# package.json keys holding the hooks, and the hook in each
_HOOK_TABLES = (("simple-git-hooks",), ("husky", "hooks"), ("gitHooks",))
_SEPARATOR = re.compile(r"\s*(?:&&|;)\s*")
# a line of husky's own plumbing (`. "$(dirname "$0")/_/husky.sh"`), a variable, a redirect
_NOT_TYPED = re.compile(r"""^[.#]|\$|[<>|]""")


def hook_lines(data: dict[str, Any]) -> list[str]:
    """The commands of the pre-commit hook package.json declares."""
    for path in _HOOK_TABLES:
        table: Any = data
        for key in path:
            table = table.get(key) if isinstance(table, dict) else None
        hook = table.get("pre-commit") if isinstance(table, dict) else None
        if isinstance(hook, str):
            return _SEPARATOR.split(hook)
    return []


def read_git_hooks(project: Project) -> None:
    lines: list[str] = []
    text = project.text("package.json")
    try:
        data = json.loads(text) if text else None
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        lines += hook_lines(data)
    husky = project.text(HUSKY_HOOK) if project.is_file(HUSKY_HOOK) else None
    for line in (husky or "").splitlines()[:MAX_HOOK_LINES]:
        lines += _SEPARATOR.split(line)
    for line in (raw.strip() for raw in lines):
        if not line or _NOT_TYPED.search(line) or len(line) > MAX_COMMAND_CHARS:
            continue
        kind = classify_command(line)
        if kind in ("lint", "format", "typecheck", "test"):
            project.sheet.add(kind, line, SOURCE)
