"""Hatch: the scripts of its environments, offered as ``hatch run ENV:SCRIPT`` by what they
run (``coverage combine`` is a report, no test), and its own commands where the project
configures what they use: ``hatch test`` for a ``hatch-test`` environment, ``hatch fmt``
for a ``hatch-static-analysis`` one, ``hatch env create`` for any environment (when no lock
file says how to set up)."""

from __future__ import annotations

from typing import Any

from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.names import classify_name
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

SOURCE = "hatch"
_CHECKS = ("lint", "format", "typecheck")
# environment -> the commands of Hatch's own that use it
_BUILT_IN = {
    "hatch-test": (("test", "hatch test"),),
    "hatch-static-analysis": (("format", "hatch fmt"), ("lint", "hatch fmt --check")),
}


def hatch_envs(project: Project, tool: dict[str, Any]) -> dict[str, Any]:
    """The environments of ``[tool.hatch.envs]`` or of ``hatch.toml``."""
    return table(tool, "hatch", "envs") or table(project.toml("hatch.toml"), "envs")


def read_hatch(project: Project, tool: dict[str, Any]) -> None:
    envs = hatch_envs(project, tool)
    if not envs:
        return
    sheet = project.sheet
    if not sheet.has("setup"):  # a lock file's tool sets up first (`uv sync`)
        sheet.add("setup", "hatch env create", SOURCE)
    for env_name, commands in _BUILT_IN.items():
        if env_name in envs:
            for kind, command in commands:
                sheet.add(kind, command, SOURCE)
    tasks: dict[str, Task] = {}
    for env_name, env in envs.items():
        scripts = table(env, "scripts")
        for script, body in scripts.items():
            target = _target(env_name, script)
            lines = [body] if isinstance(body, str) else body if isinstance(body, list) else []
            lines = [_spelled_out(str(line), env_name, scripts) for line in lines]
            # a script whose name says nothing is known by its check environment's
            # (`lint:js`); a test environment's helpers are reports and summaries
            checks = classify_name(env_name) in _CHECKS
            label = target if checks and not classify_name(script) else script
            tasks[target] = Task(target, lines=lines, label=label)
    offer_runner_tasks(sheet, tasks, lambda target: f"hatch run {target}", SOURCE)


def _target(env_name: str, script: str) -> str:
    return script if env_name == "default" else f"{env_name}:{script}"


def _spelled_out(line: str, env_name: str, scripts: dict[str, Any]) -> str:
    """A script's line that runs another script of its environment (``lint --fix``) as a
    person types it: ``hatch run style:lint --fix``."""
    first, _, rest = line.strip().partition(" ")
    if first not in scripts:
        return line
    return " ".join(["hatch run", _target(env_name, first), rest]).strip()
