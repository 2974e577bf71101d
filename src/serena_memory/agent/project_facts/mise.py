"""mise (mise.jdx.dev): a project that pins its tools in ``mise.toml`` is set up with
``mise install``, which installs those tools at those versions."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project, table

CONFIGS = ("mise.toml", ".mise.toml", "mise/config.toml", ".mise/config.toml")


def read_mise(project: Project) -> None:
    name = project.first(*CONFIGS)
    if name is not None and table(project.toml(name), "tools"):
        project.sheet.add_default("setup", "mise install", name)
