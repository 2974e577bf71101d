"""The recipes of a justfile (any of just's spellings), offered as ``just RECIPE`` by what
they run, and ``just`` alone for the default recipe."""

from __future__ import annotations

import posixpath
import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.recipes import Reader, Task, offer_runner_tasks

JUSTFILES = ("justfile", "Justfile", ".justfile", "JUSTFILE")
MAX_LINE = 500
# the name is matched whole (the lookahead), so a line without a colon fails in linear time
_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_\-]*)(?![A-Za-z0-9_\-])([^:]*):(?!=)")
_KEYWORDS = frozenset({"alias", "set", "export", "import", "mod", "unexport"})
_DEPENDENCY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
MAX_IMPORTS = 10
_QUOTED = re.compile(r""""[^"\n]*"|'[^'\n]*'""")
_IMPORT = re.compile(r"""^import\??[ \t]+["']([^"'\n]{1,200})["']""", re.M)
# `[group: 'check']`, `[group('check')]`, `[private, group("dev")]`
_GROUP = re.compile(r"""\bgroup\s*(?::\s*|\(\s*)["']([\w\- ]{1,40})["']""")


def just_tasks(
    text: str, needing: dict[str, str] | None = None
) -> tuple[dict[str, Task], str | None]:
    """The public recipes that take no required argument, in order, with what they run
    first and their lines, and the default recipe (``default``, else the first); into
    ``needing``, each public recipe taking one required argument -> that argument's name."""
    found: dict[str, Task] = {}
    first: str | None = None
    private = False
    group = ""
    for header, body in _blocks(text):
        if header.startswith("["):  # an attribute: `[private]`, `[group('ci')]`
            private = private or "private" in header
            named = _GROUP.search(header)
            group = named.group(1) if named else group
            continue
        recipe = _recipe(header, body)
        if recipe is not None:
            task, callable_bare = recipe
            task.group = group
            first = first or task.name
            if not private and callable_bare:
                _add(found, task)
            elif not private and needing is not None:
                argument = _one_required(header)
                if argument:
                    needing.setdefault(task.name, argument)
                    found.setdefault(task.name, task)
        private = False
        group = ""
    default = "default" if "default" in found else first
    return found, default


def _add(found: dict[str, Task], task: Task) -> None:
    """A recipe; one defined again for another system (``[unix]`` then ``[windows]``) runs
    the lines of both, each a spelling of the same work."""
    known = found.get(task.name)
    if known is None:
        found[task.name] = task
        return
    known.needs += [need for need in task.needs if need not in known.needs]
    known.lines += [line for line in task.lines if line not in known.lines]


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """Each line at the left margin (but blank lines and comments) with the indented lines
    after it (a recipe's body, but its comments; a line continued with ``\\`` joined to
    the next, one command)."""
    blocks: list[tuple[str, list[str]]] = []
    open_block = False
    for line in text.splitlines():
        stripped = line.strip()
        if line[:1] in (" ", "\t"):
            if open_block and stripped and not stripped.startswith("#"):
                _append(blocks[-1][1], stripped)
            continue
        open_block = bool(stripped) and not stripped.startswith("#")
        if open_block:
            blocks.append((line, []))
    return blocks


def _append(body: list[str], line: str) -> None:
    if body and body[-1].endswith("\\"):
        body[-1] = f"{body[-1][:-1].rstrip()} {line}"
    else:
        body.append(line)


def _recipe(header: str, body: list[str]) -> tuple[Task, bool] | None:
    """The recipe a line starts, with its dependencies and body, and whether it can run
    with no argument; None for a setting, an alias, an import or any other line."""
    match = _RECIPE.match(header) if len(header) <= MAX_LINE else None
    if match is None or match.group(1) in _KEYWORDS:
        return None
    after = header[match.end() :].split("#", 1)[0].split()
    needs = [word for word in after if _DEPENDENCY.match(word)]
    return Task(match.group(1), needs, body), _no_required_parameter(match.group(2))


def recipes(text: str) -> list[str]:
    """The public recipes that take no required argument, in order."""
    return list(just_tasks(text)[0])


def _parameters(parameters: str) -> list[str]:
    """A recipe's parameters, a quoted default being one word whatever its spaces
    (``*args="-x --ff tests"`` is one parameter, not four)."""
    return _QUOTED.sub("''", parameters).split()


def _no_required_parameter(parameters: str) -> bool:
    """``+args='x'`` and ``*rest`` need nothing; ``PATTERN`` does."""
    return all(word.startswith(("*", "$*")) or "=" in word for word in _parameters(parameters))


def _one_required(header: str) -> str | None:
    """The name of a recipe's one required parameter (``filter PATTERN:``), else None."""
    match = _RECIPE.match(header) if len(header) <= MAX_LINE else None
    words = _parameters(match.group(2)) if match else []
    required = [w for w in words if not w.startswith(("*", "$*", "+")) and "=" not in w]
    plain = len(required) == 1 and len(words) == 1 and required[0].isidentifier()
    return required[0] if plain else None


def with_imports(project: Project, text: str) -> str:
    """The justfile's text and the files it imports (``import 'just/test.just'``,
    ``import? ...``), whose recipes are its own; a few, one level, inside the project."""
    imported = [text]
    for path in _IMPORT.findall(text)[:MAX_IMPORTS]:
        rel = posixpath.normpath(path)
        if not rel.startswith(("..", "/", "~")) and "{{" not in rel:
            imported.append(project.text(rel) or "")
    return "\n".join(imported)


def read_justfile(project: Project) -> None:
    name = project.first(*JUSTFILES)
    text = project.text(name) if name else None
    if name is None or text is None:
        return
    text = with_imports(project, text)
    needing: dict[str, str] = {}
    every, default = just_tasks(text, needing)
    tasks = {recipe: task for recipe, task in every.items() if recipe not in needing}
    offer_runner_tasks(
        project.sheet,
        tasks,
        lambda recipe: f"just {recipe}",
        name,
        default=default,
        bare="just",
        read=project.text,
    )
    # the tests run on what one names (`filter PATTERN: cargo test {{PATTERN}}`): the
    # single-test form, spelt with the recipe's own name for its argument
    reader = Reader(every, calls={f"just {recipe}": recipe for recipe in every})
    for recipe, argument in needing.items():
        if reader.kind(recipe) == "test":
            project.sheet.add("test", f"just {recipe} {argument}", name)
            return
