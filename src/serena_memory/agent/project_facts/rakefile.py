"""Ruby projects: the tasks of a Rakefile (through Bundler when there is a Gemfile),
``bundle install``, and RuboCop when it is configured."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import offer_tasks

RAKEFILES = ("Rakefile", "rakefile", "Rakefile.rb")
MAX_LINE = 500
# `task :name`, `task "name"`, `task name: deps`, at the top level only
_TASK = re.compile(r"""^task[ (]+(?::(\w[\w:]*)|["'](\w[\w:\-]*)["']|(\w+):)""")
# the task classes that define a task, and the name they give without one
_TASK_CLASSES = re.compile(
    r"^(Rake::TestTask|Minitest::TestTask|RSpec::Core::RakeTask|RuboCop::RakeTask)"
    r"""\.(?:new|create)(?:\(\s*:?["']?(\w[\w:]*))?"""
)
_DEFAULT_NAMES = {"Rake::TestTask": "test", "Minitest::TestTask": "test",
                  "RSpec::Core::RakeTask": "spec", "RuboCop::RakeTask": "rubocop"}  # fmt: skip


def rake_tasks(text: str) -> list[str]:
    found: list[str] = []
    for line in text.splitlines():
        if len(line) > MAX_LINE:
            continue
        match = _TASK.match(line)
        if match:
            name = next(g for g in match.groups() if g)
            found.append(name)
            continue
        made = _TASK_CLASSES.match(line)
        if made:
            found.append(made.group(2) or _DEFAULT_NAMES[made.group(1)])
    return [name for name in dict.fromkeys(found) if name != "default"]


def read_ruby(project: Project) -> None:
    bundler = project.is_file("Gemfile")
    prefix = "bundle exec " if bundler else ""
    if bundler:
        project.sheet.add("setup", "bundle install", "Gemfile")
    name = project.first(*RAKEFILES)
    text = project.text(name) if name else None
    if name and text is not None:
        offer_tasks(project.sheet, rake_tasks(text), lambda task: f"{prefix}rake {task}", name)
    if project.is_file(".rubocop.yml"):
        project.sheet.add_default("lint", f"{prefix}rubocop", ".rubocop.yml")
