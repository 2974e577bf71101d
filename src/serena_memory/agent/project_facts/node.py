"""package.json scripts, run with the package manager the project uses: the one
``packageManager`` names, else the one whose lock file is there, else npm."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from serena_memory.agent.project_facts.ci import ci_paths
from serena_memory.agent.project_facts.commands import in_folder
from serena_memory.agent.project_facts.docs import SOURCE as DOCS
from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.package_managers import is_own_command
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks
from serena_memory.agent.project_facts.workspace_scripts import SEPARATOR, add_member_lines

# (lock file, package manager), in the order they are looked for
LOCK_FILES = (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"),
              ("bun.lock", "bun"), ("package-lock.json", "npm"))  # fmt: skip
MAX_MEMBERS = 3
_LOCKS = {"npm": "package-lock.json", "pnpm": "pnpm-lock.yaml", "yarn": "yarn.lock",
          "bun": "bun.lock"}  # fmt: skip
MAX_CI_READ = 20
# a package manager's command as a CI step types it: `run: pnpm run lint --fix`
_CI_RUN = re.compile(r"(?:run:|^)\s*((?:npm|pnpm|yarn|bun) [\w:.-]+)", re.M)
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


def script_command(manager: str, script: str, *, with_run: bool = False) -> str:
    """How a script is typed: npm, bun and a script named like one of the manager's own
    commands (``pnpm run ci``) need ``run``; pnpm and yarn take it when the docs use it."""
    if manager == "npm":
        return f"npm {script}" if script in ("test", "start") else f"npm run {script}"
    if manager == "bun" or with_run or is_own_command(manager, script):
        return f"{manager} run {script}"
    return f"{manager} {script}"


def _documented_with_run(project: Project, manager: str, scripts: dict) -> bool:
    """Whether the contributor docs and CI mostly type the scripts as ``pnpm run build``:
    the sheet speaks as they do (and shows each script once); one ``yarn run start`` in a
    README against CI's ``yarn test``, ``yarn build`` is the exception."""
    sheet = project.sheet
    typed = [c for c in sheet.offered() if sheet.sources.get(c) == DOCS]
    for path in ci_paths(project)[:MAX_CI_READ]:
        typed += _CI_RUN.findall(project.text(path) or "")
    with_run = bare = 0
    for command in typed:
        first, _, rest = command.partition(" ")
        second = rest.split(" ", 1)[0]
        with_run += first == manager and second == "run"
        bare += first == manager and second in scripts
    return with_run > bare


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


def package_data(project: Project) -> dict | None:
    """The project's ``package.json`` as an object, or None when it is missing, unreadable
    or not an object (what reads it for a command needs no more than that)."""
    try:
        data = json.loads(project.text("package.json") or "null")
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


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
        with_run = _documented_with_run(project, manager, scripts)
        tasks = script_tasks(scripts)
        add_member_lines(project, data, tasks)
        offer_runner_tasks(
            project.sheet,
            tasks,
            lambda script: script_command(manager, script, with_run=with_run),
            "package.json",
            read=project.text,
        )


def read_member_scripts(project: Project) -> None:
    """The scripts of the workspace members CI works in (``cd packages/svelte && pnpm
    check``): a member's ``package.json`` has its own build, checks and code generation,
    offered as typed from the root (``cd packages/svelte && pnpm build``)."""
    folders: list[tuple[str, str]] = []
    for command in list(project.sheet.offered()):
        inside = in_folder(command)
        manager = inside[1].split()[0] if inside else ""
        if (
            inside
            and manager in ("npm", "pnpm", "yarn", "bun")
            and project.is_file(f"{inside[0]}/package.json")
        ):
            folders.append((inside[0].rstrip("/"), manager))
    for folder, manager in list(dict.fromkeys(folders))[:MAX_MEMBERS]:
        data = _json(project, f"{folder}/package.json")
        scripts = data.get("scripts") if data else None
        if isinstance(scripts, dict) and project.is_file(f"{folder}/{_LOCKS[manager]}"):
            # a folder with its own lock file is no workspace member: installed on its own
            project.sheet.add(
                "setup", f"cd {folder} && {manager} install", f"{folder}/package.json"
            )
        if isinstance(scripts, dict):
            offer_runner_tasks(
                project.sheet,
                script_tasks(scripts),
                _in(folder, manager),
                f"{folder}/package.json",
                parts=False,
            )


def _in(folder: str, manager: str) -> Callable[[str], str]:
    """How a member's script is typed from the root."""
    return lambda script: f"cd {folder} && {script_command(manager, script)}"


def _json(project: Project, rel: str) -> dict | None:
    text = project.text(rel)
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def script_tasks(scripts: dict) -> dict[str, Task]:
    """Each everyday script with the commands it chains (``xo && tsc --noEmit && ava``)."""
    tasks: dict[str, Task] = {}
    for name in everyday_scripts(scripts):
        body = scripts[name]
        lines = SEPARATOR.split(body) if isinstance(body, str) else []
        tasks[name] = Task(name, lines=[line.strip() for line in lines if line.strip()])
    return tasks
