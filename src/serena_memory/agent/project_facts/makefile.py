"""The targets of a Makefile, offered as ``make TARGET`` by what they run (their names when
their recipes say nothing), and ``make`` alone for the default goal."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Reader, Task, offer_runner_tasks

MAKEFILES = ("GNUmakefile", "Makefile", "makefile")
MAX_LINE = 500
# `name other: prerequisites`, not `NAME := value` nor `name::` (both checked on a short line)
# (every name is matched whole, so a line without a colon fails in linear time)
_NAME = r"[A-Za-z0-9][A-Za-z0-9_\-]*(?![A-Za-z0-9_\-])"
_TARGETS = re.compile(rf"^({_NAME}(?:[ \t]+{_NAME})*)[ \t]*:")
_PREREQUISITE = re.compile(rf"^{_NAME}$")
# a rule for a file (a path or a variable), not a special target such as `.PHONY`
_FILE_TARGET = re.compile(r"^([^\s:=#.%][^\s:=#%]*)[ \t]*:(?![:=])")
_PATTERN = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*-%)[ \t]*:(?![:=])")
_CONDITIONAL = re.compile(r"^(ifn?def|ifn?eq|else|endif)\b")
MAX_INCLUDES = 10
_INCLUDE = re.compile(r"^-?include[ \t]+([^\n#]{1,300})", re.M)
_DEFAULT_GOAL = re.compile(r"^\.DEFAULT_GOAL\s*:?=\s*(\S+)", re.M)
# `NAME = value`, `NAME := value`, `NAME ?= value` (not `+=`, `!=` nor `export NAME = ...`)
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:=|:=|::=|\?=)(.*)$")
_VARIABLE_WORD = re.compile(r"^(?:\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$\{([A-Za-z_][A-Za-z0-9_]*)\})$")
MAX_VALUE = 80


def make_tasks(text: str) -> tuple[dict[str, Task], str | None]:
    """The plain targets of a Makefile, in order (no patterns, files or variables), with
    their prerequisites and recipe lines, and the default goal."""
    tasks: dict[str, Task] = {}
    first: str | None = None
    current: list[Task] = []
    values = literal_variables(text)
    for line, in_recipe in _lines(text):
        if in_recipe:
            for task in current:
                task.lines.append(_with_values(line, values))
        elif line and line[0] not in " \t#" and not _CONDITIONAL.match(line):
            # blank lines, comments and conditionals go on with a rule
            current = _rule(line, tasks) or _pattern(line, tasks)
            if first is None and not current:
                current = _file_goal(line, tasks)
            if first is None and current and not current[0].name.endswith("%"):
                first = current[0].name  # make's default goal is never a pattern
    goal = _DEFAULT_GOAL.search(text)
    default = goal.group(1) if goal else first
    return tasks, default or None


def literal_variables(text: str) -> dict[str, str]:
    """The Makefile's variables set once, outside any conditional, to words with no
    variable, function or shell in them (``sources = pydantic_settings tests``)."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    depth = 0
    for line in text.splitlines():
        if _CONDITIONAL.match(line):
            depth += line.startswith("if") - line.startswith("endif")
            continue
        match = _ASSIGNMENT.match(line) if len(line) <= MAX_LINE else None
        if match is None:
            continue
        name, value = match.group(1), match.group(2).split("#", 1)[0].strip()
        if name in seen or depth or set("$`\\") & set(value) or len(value) > MAX_VALUE:
            found.pop(name, None)
        else:
            found[name] = value
        seen.add(name)
    return found


def _with_values(line: str, values: dict[str, str]) -> str:
    """A recipe line with its arguments that are literal variables written out (``ruff
    check $(sources)`` is ``ruff check pydantic_settings tests``); the program it runs is
    left as it is."""
    words = line.split(" ")
    for index, word in enumerate(words[1:], 1):
        match = _VARIABLE_WORD.match(word)
        if match and (match.group(1) or match.group(2)) in values:
            words[index] = values[match.group(1) or match.group(2)]
    return " ".join(words)


def _lines(text: str) -> Iterator[tuple[str, bool]]:
    """Each line, and whether it is a recipe's (a tab first); a recipe line continued with a
    backslash comes whole."""
    continued = ""
    for line in text.splitlines():
        if not line.startswith("\t"):
            continued = ""
            yield line, False
            continue
        body = continued + line.strip()
        continued = body[:-1] + " " if body.endswith("\\") else ""
        if not continued:
            yield body, True


def _rule(line: str, tasks: dict[str, Task]) -> list[Task]:
    """The targets a rule line names, added to ``tasks`` with its prerequisites; none for a
    variable (``NAME := value``), a double-colon rule or any other line."""
    match = _TARGETS.match(line) if len(line) <= MAX_LINE and ":" in line else None
    if match is None or line[match.end() : match.end() + 1] in ("=", ":"):
        return []
    # `clean: ## Remove all build artifacts`: a comment, no prerequisites
    needs = line[match.end() + 1 :].split("#", 1)[0].split(";", 1)[0].split("|", 1)[0].split()
    named = []
    for name in match.group(1).split():
        task = tasks.setdefault(name, Task(name))
        task.needs.extend(n for n in needs if _PREREQUISITE.match(n) and n != name)
        task.makes_files = task.makes_files or any("/" in n or "$" in n for n in needs)
        named.append(task)
    return named


def _pattern(line: str, tasks: dict[str, Task]) -> list[Task]:
    """A pattern rule for names (``check-%:``): ``make check-full`` runs its recipe, whatever
    the stem; kept under its pattern, which no one types."""
    match = _PATTERN.match(line) if len(line) <= MAX_LINE else None
    if match is None:
        return []
    task = tasks.setdefault(match.group(1), Task(match.group(1)))
    return [task]


def _file_goal(line: str, tasks: dict[str, Task]) -> list[Task]:
    """The first rule when it makes a file (``bin/gh$(EXE): script/build``): the default
    goal, which ``make`` alone builds."""
    match = _FILE_TARGET.match(line) if len(line) <= MAX_LINE else None
    if match is None:
        return []
    task = Task(match.group(1), makes_files=True, file_goal=True)
    tasks[task.name] = task
    return [task]


def make_targets(text: str) -> list[str]:
    """The plain targets of a Makefile, in order."""
    return [name for name, task in make_tasks(text)[0].items() if _is_typed(task)]


def _is_typed(task: Task) -> bool:
    return not task.file_goal and not task.name.endswith("%")


def with_includes(project: Project, text: str) -> str:
    """The Makefile's text and the files it ``include``s (``include tools/make/test.mk``),
    whose targets are its own: plain paths inside the project, a few, one level."""
    found = [text]
    for words in _INCLUDE.findall(text)[:MAX_INCLUDES]:
        for path in words.split()[:MAX_INCLUDES]:
            rel = posixpath.normpath(path)
            if not rel.startswith(("..", "/", "~")) and not set("$*?[") & set(rel):
                found.append(project.text(rel) or "")
    return "\n".join(found)


def read_makefile(project: Project, installs_project: bool) -> None:
    name = project.first(*MAKEFILES)
    text = project.text(name) if name else None
    if name is None or text is None:
        return
    text = with_includes(project, text)
    tasks, default = make_tasks(text)
    reader = Reader(tasks, installs_project)
    for target in tasks:
        if target.endswith("-%"):
            project.sheet.patterns[f"make {target[:-1]}"] = reader.kind(target)
    offer_runner_tasks(
        project.sheet,
        tasks,
        lambda target: f"make {target}",
        name,
        default=default,
        bare="make",
        installs_project=installs_project,
        read=project.text,
    )


DOCS_FOLDERS = ("docs", "doc")


def read_sphinx_makefile(project: Project) -> None:
    """Sphinx's Makefile in the docs' folder builds the HTML docs (``cd docs && make
    html``), unless the sheet shows a docs build already (``tox -e docs``, ``make docs``)."""
    sheet = project.sheet
    if any(_builds_docs(command) for command in sheet.commands.get("build", [])):
        return
    for folder in DOCS_FOLDERS:
        text = project.text(f"{folder}/Makefile") if project.is_dir(folder) else None
        if text and ("SPHINXBUILD" in text or "sphinx-build" in text):
            sheet.add("build", f"cd {folder} && make html", f"{folder}/Makefile")
            return


def _builds_docs(command: str) -> bool:
    words = set(re.split(r"[\s:/=\-]+", command.lower()))
    return bool(words & {"docs", "doc", "html", "sphinx", "dirhtml"})
