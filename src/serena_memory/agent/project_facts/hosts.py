"""A docs host's own commands: what Netlify runs to build and publish the site, or to
decide whether to (``[build] command = "pnpm ci-docs"``, ``ignore = "./scripts/docs-check.sh"``)
is the host's deploy, never an everyday command, whatever its name says."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project, table

NETLIFY = "netlify.toml"


def read_hosts(project: Project) -> None:
    build = table(project.toml(NETLIFY), "build")
    for key in ("command", "ignore"):
        command = build.get(key)
        if isinstance(command, str) and command.strip():
            project.sheet.withhold(command)
