"""Ruby projects: the tasks of a Rakefile (through Bundler when there is a Gemfile),
``bundle install``, and RuboCop when it is configured."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import classify_name, offer_tasks

RAKEFILES = ("Rakefile", "rakefile", "Rakefile.rb")
MAX_LINE = 500
# `task :name`, `task "name"`, `task name: deps`, at the top level or in a namespace
_TASK = re.compile(r"""^(\s*)task[ (]+(?::(\w[\w:]*)|["'](\w[\w:\-]*)["']|(\w+):)""")
_NAMESPACE = re.compile(r"""^namespace[ (]+:?["']?(\w+)["']?\)?\s+do\b""")
# `task default: :test`, `task default: %i[spec rubocop]`, `task :default => [:test]`
_DEFAULT = re.compile(r"""^task[ (]+(?:default:|:default\s*=>)\s*(.+)$""", re.M)
# the task classes that define a task, and the name they give without one
_TASK_CLASSES = re.compile(
    r"^(Rake::TestTask|Minitest::TestTask|RSpec::Core::RakeTask|RuboCop::RakeTask)"
    r"""\.(?:new|create)(?:\(\s*:?["']?(\w[\w:]*))?"""
)
_DEFAULT_NAMES = {"Rake::TestTask": "test", "Minitest::TestTask": "test",
                  "RSpec::Core::RakeTask": "spec", "RuboCop::RakeTask": "rubocop"}  # fmt: skip


def rake_tasks(text: str) -> list[str]:
    """The tasks a Rakefile defines, ``namespace:name`` for those of a namespace."""
    found: list[str] = []
    namespace = ""
    for line in text.splitlines():
        if len(line) > MAX_LINE:
            continue
        opened = _NAMESPACE.match(line)
        if opened or line.startswith("end"):
            namespace = f"{opened.group(1)}:" if opened else ""
            continue
        name = _task_name(line, namespace)
        if name:
            found.append(name)
    return [name for name in dict.fromkeys(found) if name != "default"]


def _task_name(line: str, namespace: str) -> str | None:
    """The task a line defines: ``task :x`` at the top level (``ns:x`` indented in a
    namespace), or a task class's (``Rake::TestTask.new`` is ``test``)."""
    match = _TASK.match(line)
    if match and (namespace or not match.group(1)):
        name = next(g for g in match.groups()[1:] if g)
        return f"{namespace}{name}" if match.group(1) else name
    made = _TASK_CLASSES.match(line)
    return made.group(2) or _DEFAULT_NAMES[made.group(1)] if made else None


def read_ruby(project: Project) -> None:
    bundler = project.is_file("Gemfile")
    prefix = "bundle exec " if bundler else ""
    if bundler:
        project.sheet.add("setup", "bundle install", "Gemfile")
    name = project.first(*RAKEFILES)
    text = project.text(name) if name else None
    if name and text is not None:
        kind = default_kind(text)
        if kind:
            project.sheet.add(kind, f"{prefix}rake", name)
        offer_tasks(project.sheet, rake_tasks(text), lambda task: f"{prefix}rake {task}", name)
    if project.is_file(".rubocop.yml"):
        project.sheet.add_default("lint", f"{prefix}rubocop", ".rubocop.yml")


def default_kind(text: str) -> str | None:
    """The kind of what a bare ``rake`` runs: its default task's, when every task the
    default names is of one kind (``task default: %i[test rubocop]`` tests)."""
    match = _DEFAULT.search(text)
    if match is None:
        return None
    names = re.findall(r"\w[\w:]*", match.group(1).removeprefix("%i").removeprefix("%w"))
    kinds = {classify_name(name) for name in names}
    return "test" if "test" in kinds else kinds.pop() if len(kinds) == 1 else None
