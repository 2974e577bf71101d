"""A root script that hands its name to the workspace's members (``"publint": "turbo
publint"``, ``lerna run test``, ``pnpm -r lint``): what it runs is what the members'
scripts of that name run, so their lines say its kind when its own words say none."""

from __future__ import annotations

import json
import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.package_managers import for_member
from serena_memory.agent.project_facts.recipes import Task

MAX_MEMBERS = 40
MAX_LINES = 20
# the commands a script chains: `xo && tsc --noEmit && ava`
SEPARATOR = re.compile(r"\s*(?:&&|;)\s*")
_SCRIPT_NAME = re.compile(r"^[\w:.-]{1,80}$")
# nx's option naming the target every member runs: `nx run-many -t lint`, `--target=lint`
_NX_TARGETS = ("-t", "--target", "--targets")


def delegated_script(line: str) -> str | None:
    """The script name a line runs in every member, None for a line that runs something
    itself: ``turbo run build`` -> build, ``lerna run test --stream`` -> test, ``nx
    run-many -t lint`` -> lint, ``pnpm -r run check`` -> check."""
    words = line.split()
    if words[:1] == ["turbo"]:
        rest = words[2:] if words[1:2] == ["run"] else words[1:]
    elif words[:2] == ["lerna", "run"]:
        rest = words[2:]
    elif words[:2] == ["nx", "run-many"]:
        rest = _nx_target(words[2:])
    elif words[:1] == ["pnpm"] and ("-r" in words or "--recursive" in words):
        member = for_member(words)
        rest = member[2:] if member[1:2] == ["run"] else member[1:]
    else:
        return None
    names = [word for word in rest if not word.startswith("-")][:1]
    return names[0] if names and _SCRIPT_NAME.match(names[0]) else None


def _nx_target(words: list[str]) -> list[str]:
    for index, word in enumerate(words):
        if word in _NX_TARGETS:
            return words[index + 1 : index + 2]
        if word.split("=", 1)[0] in _NX_TARGETS:
            return [word.split("=", 1)[1]]
    return []


def member_folders(project: Project, root: dict) -> list[str]:
    """The members' folders, from pnpm-workspace.yaml's ``packages`` or package.json's
    ``workspaces``: a plain folder, or ``DIR/*`` read from the tree (``!`` exclusions and
    deeper globs are left: a member missed only costs a kind)."""
    patterns = table_packages(project.yaml("pnpm-workspace.yaml"))
    workspaces = root.get("workspaces")
    patterns += workspaces if isinstance(workspaces, list) else table_packages(workspaces)
    folders: list[str] = []
    for pattern in patterns:
        if not isinstance(pattern, str) or pattern.startswith("!") or ".." in pattern:
            continue
        pattern = pattern.strip().removeprefix("./").rstrip("/")
        if pattern.endswith("/*") and "*" not in pattern[:-2]:
            parent = pattern[:-2]
            folders += [f"{parent}/{name}" for name in project.listing(parent)]
        elif "*" not in pattern:
            folders.append(pattern)
    return [f for f in dict.fromkeys(folders) if project.is_file(f"{f}/package.json")][:MAX_MEMBERS]


def table_packages(data: object) -> list[object]:
    """A ``packages`` list of a mapping (pnpm-workspace.yaml, Yarn's ``workspaces``)."""
    found = data.get("packages") if isinstance(data, dict) else None
    return list(found) if isinstance(found, list) else []


def add_member_lines(project: Project, root: dict, tasks: dict[str, Task]) -> None:
    """Give each root task that hands a script to the members those members' lines of it
    (read for its kind only: they run in the members' folders, not the root)."""
    wanted = {
        name: script
        for name, task in tasks.items()
        if len(task.lines) == 1 and (script := delegated_script(task.lines[0]))
    }
    if not wanted:
        return
    for folder in member_folders(project, root):
        scripts = _scripts(project, f"{folder}/package.json")
        for name, script in wanted.items():
            body = scripts.get(script)
            elsewhere = tasks[name].elsewhere
            if isinstance(body, str) and len(elsewhere) < MAX_LINES:
                lines = (line.strip() for line in SEPARATOR.split(body))
                elsewhere += [line for line in lines if line and line not in elsewhere]


def _scripts(project: Project, rel: str) -> dict:
    try:
        data = json.loads(project.text(rel) or "{}")
    except (ValueError, RecursionError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return scripts if isinstance(scripts, dict) else {}
