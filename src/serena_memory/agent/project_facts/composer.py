"""PHP's Composer: ``composer install`` sets the project up, and the ``scripts`` of
``composer.json`` are the project's tasks (``composer test``, ``composer cs-fix``)."""

from __future__ import annotations

import json

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

MANIFEST = "composer.json"
# Composer's own commands: a script named like one is typed `composer run-script NAME`
_OWN_COMMANDS = frozenset({"install", "update", "require", "remove", "dump-autoload",
                           "validate", "show", "outdated", "init", "run-script", "run",
                           "exec", "audit", "archive", "status"})  # fmt: skip
# a script's entry that hands over to Composer or PHP (`@php vendor/bin/phpstan`)
_HANDOVERS = ("@php ", "@composer ", "@putenv ")


def read_composer(project: Project) -> None:
    text = project.text(MANIFEST)
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return
    if not isinstance(data, dict):
        return
    project.sheet.add("setup", "composer install", MANIFEST)
    scripts = data.get("scripts")
    if isinstance(scripts, dict):
        offer_runner_tasks(project.sheet, script_tasks(scripts), script_command, MANIFEST)


def script_command(name: str) -> str:
    return f"composer run-script {name}" if name in _OWN_COMMANDS else f"composer {name}"


def script_tasks(scripts: dict) -> dict[str, Task]:
    """Each script a person types (not an event's hook, ``post-install-cmd``), with its
    lines as a shell would run them: ``@test`` calls the script ``test``."""
    tasks: dict[str, Task] = {}
    for name, body in scripts.items():
        if not isinstance(name, str) or name.startswith(("pre-", "post-")):
            continue
        entries = body if isinstance(body, list) else [body]
        lines = [_as_line(entry) for entry in entries if isinstance(entry, str)]
        tasks[name] = Task(name, lines=[line for line in lines if line])
    return tasks


def _as_line(entry: str) -> str:
    entry = entry.strip()
    if entry.startswith(_HANDOVERS):
        return entry[1:]
    if entry.startswith("@"):
        return script_command(entry[1:].split(" ", 1)[0])
    return entry


# (kind, its configuration files, the command Composer installs for it)
_CONFIGURED = (
    ("test", ("phpunit.xml", "phpunit.xml.dist", "phpunit.dist.xml"), "vendor/bin/phpunit"),
    ("typecheck", ("phpstan.neon", "phpstan.neon.dist", "phpstan.dist.neon"),
     "vendor/bin/phpstan analyse"),
    ("typecheck", ("psalm.xml", "psalm.xml.dist"), "vendor/bin/psalm"),
    ("format", (".php-cs-fixer.php", ".php-cs-fixer.dist.php"), "vendor/bin/php-cs-fixer fix"),
    ("lint", ("phpcs.xml", "phpcs.xml.dist", ".phpcs.xml", ".phpcs.xml.dist"), "vendor/bin/phpcs"),
)  # fmt: skip


def read_php_tools(project: Project) -> None:
    """For a kind still empty, the PHP tool the project configures, run from Composer's
    ``vendor/bin``."""
    if not project.is_file(MANIFEST):
        return
    for kind, configs, command in _CONFIGURED:
        config = project.first(*configs)
        if config is not None and not project.sheet.has(kind):
            project.sheet.add(kind, command, config)
