"""Ruby projects: the tasks of a Rakefile (through Bundler when there is a Gemfile),
``bundle install``, and RSpec and RuboCop when they are configured."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import classify_name, is_never, offer_tasks
from serena_memory.agent.project_facts.recipes import line_kind

RAKEFILES = ("Rakefile", "rakefile", "Rakefile.rb")
MAX_LINE = 500
# `task :name`, `task "name"`, `task name: deps`, at the top level or in a namespace
_TASK = re.compile(r"""^(\s*)task[ (]+(?::(\w[\w:]*)|["'](\w[\w:\-]*)["']|(\w+):)""")
_NAMESPACE = re.compile(r"""^namespace[ (]+:?["']?(\w+)["']?\)?\s+do\b""")
# `task default: :test`, `task default: %i[spec rubocop]`, `task :default => [:test]`
_DEFAULT = re.compile(r"""^(?:multi)?task[ (]+(?:default:|:default\s*=>)\s*(.+)$""", re.M)
# the folders whose `.rake` files add tasks: Rake's own `rakelib/`, and those the Rakefile
# imports or loads (`Dir.glob("rake/**.rake").each { |f| import f }`,
# `Dir['tasks/**/*.rake'].each { |rake| load rake }`)
RAKELIB = "rakelib"
_IMPORTED = re.compile(r"""Dir(?:\.glob\(|\[)\s*["']([\w-]+)/\*\*?/?\*?\.rake["']""")
MAX_RAKE_FILES = 20
# the task classes that define a task: the name they give without one, and what it does
_LIBRARY_TASKS = {
    "Rake::TestTask": ("test", "test"), "Minitest::TestTask": ("test", "test"),
    "RSpec::Core::RakeTask": ("spec", "test"), "RuboCop::RakeTask": ("rubocop", "lint"),
    "Cucumber::Rake::Task": ("cucumber", "test"), "YARD::Rake::YardocTask": ("yard", "build"),
    "RDoc::Task": ("rdoc", "build"), "Rake::RDocTask": ("rdoc", "build"),  # its older name
}  # fmt: skip
_TASK_CLASSES = re.compile(
    rf"^\s*({'|'.join(re.escape(name) for name in _LIBRARY_TASKS)})"
    r"""\.(?:new|create)(?:[ (]\s*(?::["']?|["'])(\w[\w:]*))?"""
)
# the tasks a library adds by being required: Standard's check and its fixer
# (Bundler's gem tasks, `build`, `install`, `release`, pack and ship the gem: none)
_REQUIRED_TASKS = {"standard/rake": {"standard": "lint", "standard:fix": "format"}}
_REQUIRE = re.compile(r"""^require[ (]+["']([\w/]+)["']""")
# a task given a block (`task :steep do`, `task rbs: :compile do |t|`), at the top level or
# in a namespace: its body's `sh` lines say what a task named for a tool runs
_BLOCK_TASK = re.compile(
    r"""^(\s*)task[ (]+(?::(\w+)|["'](\w[\w-]*)["']|(\w+):)[^#]*\bdo\b(?:\s*\|[^|]*\|)?\s*$"""
)
# a command the body runs: `sh "steep check"`, or its words each quoted, `sh "steep",
# "check"` (no interpolation: `"#{...}"` is filled in when the task runs)
_SH = re.compile(
    r"""^\s*(?:sh|system)[ (]+((?:["'][^"'#{}]*["']\s*,\s*)*["'][^"'#{}]*["'])\s*\)?$"""
)
_QUOTED = re.compile(r"""["']([^"']*)["']""")
KINDS = frozenset({"setup", "test", "lint", "format", "typecheck", "build", "run"})


def rake_tasks(text: str) -> list[str]:
    """The tasks a Rakefile defines, ``namespace:name`` for those of a namespace."""
    return list(_scan(text))


def library_tasks(text: str) -> dict[str, str]:
    """The tasks a library defines (``Cucumber::Rake::Task.new(:features)``, ``require
    "standard/rake"``) by what the library does: their names need not say it."""
    return {name: kind for name, kind in _scan(text).items() if kind}


def _scan(text: str) -> dict[str, str | None]:
    """Each task the Rakefile defines, with its library's kind (None for a plain task)."""
    found: dict[str, str | None] = {}
    namespace = ""
    guarded = False  # in a top-level `begin ... rescue LoadError` (a library may be missing)
    for line in text.splitlines():
        if len(line) > MAX_LINE:
            continue
        opened = _NAMESPACE.match(line)
        if opened or line.startswith("end"):
            namespace = f"{opened.group(1)}:" if opened else ""
            guarded = False
            continue
        guarded = guarded or line.rstrip() == "begin"
        required = _REQUIRE.match(line.strip() if guarded else line)
        found.update(_REQUIRED_TASKS.get(required.group(1), {}) if required else {})
        name, kind = _task(line, namespace, guarded)
        if name and name != "default":
            found[name] = kind or found.get(name)
    return found


def _task(line: str, namespace: str, guarded: bool = False) -> tuple[str | None, str | None]:
    """The task a line defines: ``task :x`` at the top level (``ns:x`` indented in a
    namespace), or a task class's (``Rake::TestTask.new`` is ``test``, indented in a
    ``begin`` block too), with the kind of what the class runs."""
    match = _TASK.match(line)
    if match and (namespace or not match.group(1)):
        name = next(g for g in match.groups()[1:] if g)
        return (f"{namespace}{name}" if match.group(1) else name), None
    made = _TASK_CLASSES.match(line)
    if made is None or (bool(namespace) != line[:1].isspace() and not guarded):
        return None, None
    default, kind = _LIBRARY_TASKS[made.group(1)]
    return f"{namespace}{made.group(2) or default}", kind


def read_ruby(project: Project) -> None:
    bundler = project.is_file("Gemfile")
    prefix = "bundle exec " if bundler else ""
    if bundler:
        project.sheet.add("setup", "bundle install", "Gemfile")
    name = project.first(*RAKEFILES)
    text = project.text(name) if name else None
    if name and text is not None:
        text = with_rake_files(project, text)
        kind = default_kind(text)
        if kind:
            project.sheet.add(kind, f"{prefix}rake", name)
        offer_tasks(project.sheet, rake_tasks(text), lambda task: f"{prefix}rake {task}", name)
        for task, kind in {**library_tasks(text), **body_kinds(text)}.items():
            project.sheet.add(kind, f"{prefix}rake {task}", name)
    # RSpec's options file or its helper: the specs run with `rspec`
    rspec = project.first(".rspec", "spec/spec_helper.rb")
    if rspec:
        project.sheet.add_default("test", f"{prefix}rspec", rspec)
    if project.is_file(".rubocop.yml"):
        project.sheet.add_default("lint", f"{prefix}rubocop", ".rubocop.yml")


def with_rake_files(project: Project, text: str) -> str:
    """The Rakefile's text and that of the ``.rake`` files Rake loads with it, whose
    tasks are typed as its own (``rake rubocop:format_config``)."""
    found = [text]
    for folder in dict.fromkeys([RAKELIB, *_IMPORTED.findall(text)]):
        names = [n for n in project.listing(folder) if n.endswith(".rake")]
        found += [project.text(f"{folder}/{n}") or "" for n in sorted(names)[:MAX_RAKE_FILES]]
    return "\n".join(found)


def default_kind(text: str) -> str | None:
    """The kind of what a bare ``rake`` runs: its default task's, when every task the
    default names is of one kind (``task default: %i[test rubocop]`` tests)."""
    match = _DEFAULT.search(text)
    if match is None:
        return None
    names = re.findall(r"\w[\w:]*", match.group(1).removeprefix("%i").removeprefix("%w"))
    kinds = {classify_name(name) for name in names}
    return "test" if "test" in kinds else kinds.pop() if len(kinds) == 1 else None


def body_kinds(text: str) -> dict[str, str]:
    """The tasks named for nothing known (``rbs``, ``steep``) whose body's commands are of
    one kind: ``task :steep do sh "steep", "check" end`` type checks, as a Makefile's
    target is read by its recipe."""
    found: dict[str, str] = {}
    for name, commands in _bodies(text).items():
        if classify_name(name) is not None or is_never(name.rsplit(":", 1)[-1]):
            continue
        kinds = {line_kind(command) for command in commands} - {None}
        if len(kinds) == 1 and kinds <= KINDS:
            found[name] = kinds.pop() or ""
    return found


def _bodies(text: str) -> dict[str, list[str]]:
    """Each block task's commands, ``namespace:name`` for those of a namespace."""
    bodies: dict[str, list[str]] = {}
    namespace, task, end = "", "", ""
    for line in text.splitlines():
        opened = _NAMESPACE.match(line)
        if opened or line.startswith("end"):
            namespace = f"{opened.group(1)}:" if opened else ""
        block = _BLOCK_TASK.match(line)
        if block and (namespace or not block.group(1)):
            name = next(g for g in block.groups()[1:] if g)
            task, end = f"{namespace if block.group(1) else ''}{name}", f"{block.group(1)}end"
            bodies[task] = []
        elif task and line.rstrip() == end:
            task = ""
        elif task:
            bodies[task].append(line)
    return {name: _calls(lines) for name, lines in bodies.items()}


def _calls(lines: list[str]) -> list[str]:
    """The commands of a body's ``sh`` or ``system`` calls, their words joined; a call goes
    on on the next line when a line ends with a comma."""
    found: list[str] = []
    carried = ""
    for line in lines:
        carried = f"{carried} {line.strip()}" if carried else line
        if carried.rstrip().endswith(","):
            continue
        call = _SH.match(carried)
        if call:
            found.append(" ".join(_QUOTED.findall(call.group(1))))
        carried = ""
    return found
