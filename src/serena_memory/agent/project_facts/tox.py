"""tox environments (``tox.ini``, ``[tool.tox]`` of pyproject.toml, or its
``legacy_tox_ini``): ``tox`` runs the tests, ``tox -e NAME`` the other environments
(not the tests of one Python version: ``tox`` runs those)."""

from __future__ import annotations

import configparser
import os
import re
from typing import Any

from serena_memory.agent.project_facts.ci import ci_paths
from serena_memory.agent.project_facts.commands import canonical
from serena_memory.agent.project_facts.docs import SOURCE as DOCS
from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.names import classify_name
from serena_memory.agent.project_facts.parts import offer_parts
from serena_memory.agent.project_facts.recipes import NEVER, Reader, Task

MAX_ENVIRONMENTS = 200
_BRACES = re.compile(r"\{([^{}]*)\}")
_TESTS = "test"
_FACTOR_LINE = re.compile(r"^([\w.!-]+(?:,[\w.!-]+)*):\s+(.+)$")
_VERSION_FACTOR = re.compile(r"^(py|pypy)?\d[\d.]*t?$")
DEFAULT_VERSION_FILES = (".python-version", ".python-version-default")
_VERSION_LINE = re.compile(r"^\s*(3\.\d+)")
# a factor naming a CPython version: `py313`, `3.13`, `py3.13`
_NUMBERED = re.compile(r"^(?:py)?(3)\.?(\d{1,2})$")
_TOX_RUN = re.compile(r"\btox r(?:un)? ")
_TOX_E = re.compile(r"\btox -e ")
MAX_CI_READ = 20
# the version of a dependency a factor names after it: `django52`, `pipmain`, `piplowest`
_DEPENDENCY_VERSION = re.compile(r"^(?:\d+|main|master|latest|lowest|supported|min|max|dev)$")
# tox's substitutions for the environment's interpreter and its scripts' folder
_ENV_PYTHON = re.compile(r"\{env_?python\}")
_ENV_PROGRAMS = re.compile(r"(?<!\S)\{env_?bin_?dir\}[/\\]")
# tox's reference to another section's setting: `{[testenv:flake8]commands}`
_REFERENCE = re.compile(r"^\{\[([\w:.-]{1,80})\]([\w-]{1,40})\}$")
MAX_REFERENCE_DEPTH = 3
# a check of the package's metadata before it is uploaded (`python setup.py check -r -s`,
# `twine check dist/*`): an environment that only builds and checks so lints the package
_METADATA_CHECK = re.compile(
    r"^(?:python3?\s{1,8}(?:\S{0,200}/)?setup\.py\s{1,8}check"
    r"|(?:python3?\s{1,8}-m\s{1,8})?twine\s{1,8}check)\b"
)


def expand(name: str) -> list[str]:
    """``lint-{ruff,pre-commit}`` -> ``lint-ruff``, ``lint-pre-commit`` (bounded)."""
    names = [name.strip()]
    for _ in range(4):
        grown = []
        for item in names:
            match = _BRACES.search(item)
            if match is None:
                grown.append(item)
                continue
            for choice in _choices(match.group(1)):
                grown.append(item[: match.start()] + choice.strip() + item[match.end() :])
        names = grown[:MAX_ENVIRONMENTS]
    return [n.strip("-") for n in names if n and "{" not in n]


def _choices(group: str) -> list[str]:
    """The choices of ``{a,b}``, and of a range such as ``{0-5}``."""
    found: list[str] = []
    for choice in group.split(",")[:20]:
        low, dash, high = choice.strip().partition("-")
        if dash and low.isdigit() and high.isdigit() and int(high) - int(low) < 20:
            found.extend(str(n) for n in range(int(low), int(high) + 1))
        else:
            found.append(choice)
    return found


def split_list(text: str) -> list[str]:
    """An env_list's names: split at commas and line ends outside braces."""
    names, depth, current = [], 0, ""
    for char in text[:20_000]:
        depth += (char == "{") - (char == "}")
        if char in ",\n" and depth <= 0:
            names.append(current)
            current = ""
        else:
            current += char
    names.append(current)
    return [n.strip() for n in names if n.strip() and not n.strip().startswith("#")]


def ini_environments(text: str) -> dict[str, list[str]]:
    """Each environment of a tox.ini with its command lines (the base ``[testenv]``'s
    for an environment that has none of its own)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    names: list[str] = []
    for key in ("envlist", "env_list"):
        if parser.has_option("tox", key):
            for part in split_list(parser.get("tox", key)):
                names.extend(expand(part))
    own = _sections(parser, names)
    # the base's lines that name no factor run in every environment: the tests, whatever
    # the name (`lint` in the list with no section of its own is known by its name); an
    # environment whose name says nothing (`pytest6`, a pinned dependency) runs them all
    every = _ini_lines(parser, "testenv")
    base = [line for line in every if _FACTOR_LINE.match(line)]
    return {name: _for_factors(own.get(name, _base_for(name, base, every)), name) for name in names}


def _sections(parser: configparser.RawConfigParser, names: list[str]) -> dict[str, list[str]]:
    """The command lines of each ``[testenv:NAME]`` that has its own, its names added to
    ``names``: a section setting only deps or variables runs the base's commands; one
    named for a factor of the list's (``[testenv:default]`` of ``py310-default``) with no
    commands of its own sets that factor up."""
    own: dict[str, list[str]] = {}
    factors = {factor for name in names if "-" in name for factor in name.split("-")}
    for section in parser.sections():
        if not section.startswith("testenv:"):
            continue
        commands = parser.has_option(section, "commands")
        for name in expand(section.removeprefix("testenv:")):
            if commands or name in names or name not in factors:
                names.append(name)
            if commands:
                own[name] = _ini_lines(parser, section)
    return own


def _base_for(name: str, factored: list[str], every: list[str]) -> list[str]:
    return factored if classify_name(name) is not None else every


def _for_factors(lines: list[str], name: str) -> list[str]:
    """The lines that run in environment ``name``: ``lint: flake8`` only where the name
    has the factor ``lint``, ``!lint: pytest`` only where it has not."""
    factors = set(name.split("-"))
    kept = []
    for line in lines:
        match = _FACTOR_LINE.match(line)
        if match is None:
            kept.append(line)
            continue
        for condition in match.group(1).split(","):
            wanted = condition.removeprefix("!")
            if (wanted in factors) != condition.startswith("!"):
                kept.append(match.group(2))
                break
    return kept


def _ini_lines(parser: configparser.RawConfigParser, section: str, depth: int = 0) -> list[str]:
    """A section's command lines, a line ``{[testenv:flake8]commands}`` replaced by that
    section's (tox's substitution: ``[testenv:linters]`` runs each linter's commands)."""
    if not parser.has_option(section, "commands"):
        return []
    text = parser.get(section, "commands").replace("\\\n", " ")
    lines: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        reference = _REFERENCE.match(line)
        if reference and reference.group(2) == "commands":
            if depth < MAX_REFERENCE_DEPTH and parser.has_section(reference.group(1)):
                lines += _ini_lines(parser, reference.group(1), depth + 1)
        elif line and not line.startswith(("#", ";")):
            lines.append(without_tox_paths(line))
    return lines


def toml_environments(tox: dict[str, Any]) -> dict[str, list[str]]:
    legacy = tox.get("legacy_tox_ini")
    if isinstance(legacy, str):
        return ini_environments(legacy)
    names: list[str] = []
    listed = tox.get("env_list") or tox.get("envlist")
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict):
            names.extend(_product(item.get("product")))
    names.extend(n for n in table(tox, "env") if isinstance(n, str))
    own = [n for n in names if "commands" in table(tox, "env", n)]
    # `[env_run_base]` runs in every environment with no commands of its own, as the
    # ini's base does (an environment named for a kind is known by its name)
    base = _toml_lines(table(tox, "env_run_base"))
    return {
        name: _toml_lines(table(tox, "env", name))
        if name in own
        else (base if classify_name(name) is None else [])
        for name in names[:MAX_ENVIRONMENTS]
    }


def _product(groups: Any) -> list[str]:
    """tox.toml's generated names: ``{product = [{prefix = "min-3.", start = 10, stop =
    12}]}`` is ``min-3.10``, ``min-3.11``; lists of factors are joined with ``-``."""
    names = [""]
    for group in groups if isinstance(groups, list) else []:
        if isinstance(group, list):
            factors = [f for f in group if isinstance(f, str)]
        elif isinstance(group, dict):
            factors = _range_factors(group)
        else:
            return []
        names = [f"{n}-{f}" if n else f for n in names for f in factors][:MAX_ENVIRONMENTS]
    return [n for n in names if n]


def _range_factors(group: dict[str, Any]) -> list[str]:
    prefix, start, stop = group.get("prefix", ""), group.get("start"), group.get("stop")
    if not (isinstance(start, int) and isinstance(stop, int) and isinstance(prefix, str)):
        return []
    return [f"{prefix}{n}" for n in range(start, min(stop, start + 20))]


def _toml_lines(env: dict[str, Any]) -> list[str]:
    """``commands = [["pytest", "-v", {replace = "posargs"}]]`` as ``pytest -v``."""
    commands = env.get("commands")
    lines = []
    for command in commands if isinstance(commands, list) else []:
        if isinstance(command, list):
            lines.append(" ".join(w for w in command if isinstance(w, str)))
    return [without_tox_paths(line) for line in lines if line]


def without_tox_paths(line: str) -> str:
    """A command line without the options that name tox's own folders
    (``--cov-report=xml:{toxworkdir}/coverage.xml``): they say where a report goes, not
    what runs, and can't be typed outside tox; the environment's own Python and programs
    (``{envpython} -m doc8``, ``{envbindir}/pytest``) are those a person runs in it."""
    line = _ENV_PROGRAMS.sub("", _ENV_PYTHON.sub("python", line))
    return " ".join(w for w in line.split() if not (w.startswith("-") and "{" in w))


def one_per_version_group(names: list[str], default: str = "") -> list[str]:
    """``3.10-mypy``, ``3.11-mypy``... stand for one task: the one with no version, else
    the one of the project's ``default`` Python (``3.14``), else the first, is kept."""
    kept: dict[str, str] = {}
    for name in names:
        rest = "-".join(f for f in name.split("-") if not _VERSION_FACTOR.match(f))
        if name == rest:
            kept[rest] = name  # `stress` stands for `stress-py3.14` too
        elif default and _runs_on(name, default) and kept.get(rest) != rest:
            kept[rest] = name
        else:
            kept.setdefault(rest, name)
    return list(kept.values())


def _runs_on(name: str, version: str) -> bool:
    """Whether ``name`` (``3.14-tests``, ``py314-mypy``) is an environment of ``version``."""
    plain = version.replace(".", "")
    return any(f in (version, f"py{version}", f"py{plain}") for f in name.split("-"))


def default_python(project: Project) -> str:
    """The version the project develops on (``.python-version``, or the
    ``.python-version-default`` its tox environments read): ``3.14``."""
    for name in DEFAULT_VERSION_FILES:
        text = project.text(name) if project.is_file(name) else None
        match = _VERSION_LINE.match(text or "")
        if match:
            return match.group(1)
    return ""


def newest_version(names: list[str]) -> str:
    """The newest Python a list of environments names (``py313`` of ``py{39,313}``:
    ``3.13``), standing for the default when the project names none: its quickest run."""
    found: list[tuple[int, int]] = []
    for name in names:
        for factor in name.split("-"):
            match = _NUMBERED.match(factor)
            if match:
                found.append((int(match.group(1)), int(match.group(2))))
    if not found:
        return ""
    major, minor = max(found)
    return f"{major}.{minor}"


def _newest_unless_typed(names: list[str], offered: list[str]) -> str:
    """The version whose tests the docs already run (``tox -e py312``), else the newest
    listed: the project's quick run."""
    for command in offered:
        found = command.split()
        if found[:1] == ["tox"] and "-e" in found[:-1]:
            typed = newest_version([found[found.index("-e") + 1]])
            if typed:
                return typed
    return newest_version(names)


def spelling(project: Project) -> str:
    """``tox run -e`` where the project's docs and CI type tox 4's ``run`` more often than
    the older ``tox -e`` (what a contributor copies), else ``tox -e``, which every tox
    version runs. The contributor guide's tox commands, where it types any, decide alone:
    a person copies the guide's ``tox``, not CI's ``tox run -e ssl``."""
    sheet = project.sheet
    offered = sheet.offered()
    guide = [c for c in offered if c.split()[:1] == ["tox"] and sheet.sources.get(c) == DOCS]
    if guide:
        runs = sum(bool(_TOX_RUN.search(f"{c} ")) for c in guide)
        return "tox run -e" if runs * 2 > len(guide) else "tox -e"
    typed = [*offered]
    typed += [project.text(path) or "" for path in ci_paths(project)[:MAX_CI_READ]]
    runs = sum(len(_TOX_RUN.findall(text)) for text in typed)
    older = sum(len(_TOX_E.findall(text)) for text in typed)
    return "tox run -e" if runs > older else "tox -e"


def read_tox(project: Project, pyproject: dict[str, Any]) -> None:
    """``tox``, then each environment by what its commands run (its name when they say
    nothing), and each tool of an environment that runs several kinds."""
    defined = _defined_environments(project, pyproject)
    if defined is None:
        return
    source, found = defined
    sheet = project.sheet
    run = spelling(project)
    # the default environments in the same tox as the others: `tox run` beside `tox run -e`
    sheet.add(_TESTS, run.removesuffix(" -e"), source)
    listed = list(found)[:MAX_ENVIRONMENTS]
    typed = [c for bucket in sheet.commands.values() for c in bucket]
    default = default_python(project) or _newest_unless_typed(listed, typed)
    names = one_per_dependency(one_per_version_group(listed, default))
    reader = Reader({name: Task(name, lines=found[name]) for name in names})
    alone = alone_in_group(listed)
    for name in names:
        kind = _metadata_kind(reader.kind(name), name, reader, found[name])
        if kind is not None and _is_offered(kind, name, default, sheet.commands, alone):
            command = f"{run} {name}"
            if canonical(command) not in {canonical(c) for c in sheet.offered()}:
                sheet.add(kind, command, source)
            offer_parts(sheet, reader.body_kinds(name), source)


def _metadata_kind(kind: str | None, name: str, reader: Reader, lines: list[str]) -> str | None:
    """A lint for an environment that builds the package only to check its metadata
    (``pip wheel .`` then ``twine check``, ``python setup.py check -r -s``): what it
    reports is the package's description, no build a person keeps. An environment named a
    build stays one (``build``: ``pyproject-build`` then ``twine check``). One named for a
    maintainer (``pypi-description``, ``packaging``) whose lines ship nothing is read by
    them: a build where one builds with a build tool, else a lint."""
    if not any(_METADATA_CHECK.match(line) for line in lines) or classify_name(name) == "build":
        return kind
    if kind in (None, "build", "setup"):
        return "lint"
    kinds = {reader.body_line_kind(line) for line in lines}
    if kind != NEVER or NEVER in kinds:
        return kind
    return "build" if "build" in kinds else "lint"


def _defined_environments(
    project: Project, pyproject: dict[str, Any]
) -> tuple[str, dict[str, list[str]]] | None:
    """(file, environments) of the file tox reads them from: ``tox.ini`` first, then
    ``tox.toml``, then pyproject.toml's ``[tool.tox]``; None for a project without tox."""
    if project.is_file("tox.ini"):
        return "tox.ini", ini_environments(project.text("tox.ini") or "")
    if project.is_file("tox.toml"):
        return "tox.toml", toml_environments(project.toml("tox.toml"))
    if "tox" in table(pyproject, "tool"):
        return "pyproject.toml", toml_environments(table(pyproject, "tool", "tox"))
    return None


def one_per_dependency(names: list[str]) -> list[str]:
    """``py314-django52``, ``py314-django60``, ``py314-djangomain`` are one task run
    against each version of a dependency: the first listed stands for them."""
    kept: list[str] = []
    for name in names:
        if not any(_other_dependency_version(name, known) for known in kept):
            kept.append(name)
    return kept


def _other_dependency_version(name: str, known: str) -> bool:
    """Whether the two names differ in one factor only, each a dependency's name followed
    by a version (``django52``, ``pipmain``, ``piplowest``)."""
    ours, theirs = name.split("-"), known.split("-")
    differ = [(a, b) for a, b in zip(ours, theirs, strict=False) if a != b]
    if len(ours) != len(theirs) or len(differ) != 1:
        return False
    first, second = differ[0]
    prefix = os.path.commonprefix([first, second])
    rests = (first[len(prefix) :], second[len(prefix) :])
    return (
        len(prefix) >= 3 and prefix.isalpha() and all(_DEPENDENCY_VERSION.match(r) for r in rests)
    )


def alone_in_group(names: list[str]) -> set[str]:
    """The environments of one version whose other factors no other version has
    (``py310-pytestmain``, ``py310-lower-bounds`` beside ``py{310,311,312}``): a run of its
    own (the newest pytest, the oldest dependencies), not one version's share of a matrix."""
    groups: dict[str, list[str]] = {}
    for name in (n for n in names if "," not in n):  # a section of several: `[testenv:a,b]`
        rest = "-".join(f for f in name.split("-") if not _VERSION_FACTOR.match(f))
        groups.setdefault(rest, []).append(name)
    alone = (found for rest, found in groups.items() if rest and found != [rest])
    return {found[0] for found in alone if len(found) == 1}


def _is_offered(
    kind: str, name: str, default: str, commands: dict[str, list[str]], alone: set[str]
) -> bool:
    """Whether an environment of ``kind`` is offered: a kind the sheet lists, no set-up
    (tox sets up its own environments), and not one Python version's tests but the
    default's (``tox`` runs every version's tests; the default's alone is a quicker run),
    or a run of its own on one version only."""
    per_version = any(_VERSION_FACTOR.match(f) for f in name.split("-"))
    other = per_version and not (default and _runs_on(name, default)) and name not in alone
    return kind in commands and kind != "setup" and not (kind == _TESTS and other)
