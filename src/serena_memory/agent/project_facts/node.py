"""package.json scripts, run with the package manager the project uses: the one
``packageManager`` names, else the one whose lock file is there, else npm."""

from __future__ import annotations

import json
import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

# (lock file, package manager), in the order they are looked for
LOCK_FILES = (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"),
              ("bun.lock", "bun"), ("package-lock.json", "npm"))  # fmt: skip
_SEPARATOR = re.compile(r"\s*(?:&&|;)\s*")
# scripts npm runs by itself around others (install, publish, version): never typed
LIFECYCLE = frozenset({"prepare", "prepublish", "prepublishOnly", "prepack", "postpack",
                       "preinstall", "install", "postinstall", "preversion", "version",
                       "postversion", "dependencies"})  # fmt: skip


def package_manager(project: Project, data: dict) -> str:
    declared = data.get("packageManager")
    if isinstance(declared, str):
        name = declared.split("@", 1)[0].strip()
        if name in ("npm", "pnpm", "yarn", "bun"):
            return name
    for lock, manager in LOCK_FILES:
        if project.is_file(lock):
            return manager
    return "npm"


def script_command(manager: str, script: str) -> str:
    if manager == "npm":
        return f"npm {script}" if script in ("test", "start") else f"npm run {script}"
    if manager == "bun":
        return f"bun run {script}"
    return f"{manager} {script}"


def everyday_scripts(scripts: dict) -> list[str]:
    """The scripts a person types: not npm's lifecycle ones, nor ``preX``/``postX`` of a
    script ``X`` (npm runs them around it)."""
    found = []
    for name in scripts:
        if not isinstance(name, str) or name in LIFECYCLE:
            continue
        for prefix in ("pre", "post"):
            if name.startswith(prefix) and name[len(prefix) :] in scripts:
                break
        else:
            found.append(name)
    return found


def read_package_json(project: Project) -> None:
    text = project.text("package.json")
    if text is None:
        return
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        project.sheet.notes.append(f"`package.json` could not be parsed ({exc}).")
        return
    if not isinstance(data, dict):
        return
    manager = package_manager(project, data)
    project.sheet.add("setup", f"{manager} install", "package.json")
    scripts = data.get("scripts")
    if isinstance(scripts, dict):
        offer_runner_tasks(
            project.sheet,
            script_tasks(scripts),
            lambda script: script_command(manager, script),
            "package.json",
        )


def script_tasks(scripts: dict) -> dict[str, Task]:
    """Each everyday script with the commands it chains (``xo && tsc --noEmit && ava``)."""
    tasks: dict[str, Task] = {}
    for name in everyday_scripts(scripts):
        body = scripts[name]
        lines = _SEPARATOR.split(body) if isinstance(body, str) else []
        tasks[name] = Task(name, lines=[line.strip() for line in lines if line.strip()])
    return tasks
