"""tox environments (``tox.ini``, ``[tool.tox]`` of pyproject.toml, or its
``legacy_tox_ini``): ``tox`` runs the tests, ``tox -e NAME`` the other environments
(not the tests of one Python version: ``tox`` runs those)."""

from __future__ import annotations

import configparser
import re
from typing import Any

from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.names import classify_name

MAX_ENVIRONMENTS = 200
_BRACES = re.compile(r"\{([^{}]*)\}")
_TESTS = "test"
_VERSION_FACTOR = re.compile(r"^(py|pypy)?\d[\d.]*t?$")


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


def ini_environments(text: str) -> list[str]:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    names: list[str] = []
    for key in ("envlist", "env_list"):
        if parser.has_option("tox", key):
            for part in split_list(parser.get("tox", key)):
                names.extend(expand(part))
    for section in parser.sections():
        if section.startswith("testenv:"):
            names.extend(expand(section.removeprefix("testenv:")))
    return names


def toml_environments(tox: dict[str, Any]) -> list[str]:
    legacy = tox.get("legacy_tox_ini")
    if isinstance(legacy, str):
        return ini_environments(legacy)
    names: list[str] = []
    listed = tox.get("env_list") or tox.get("envlist")
    if isinstance(listed, list):
        names.extend(n for n in listed if isinstance(n, str))
    names.extend(n for n in table(tox, "env") if isinstance(n, str))
    return names


def one_per_version_group(names: list[str]) -> list[str]:
    """``3.10-mypy``, ``3.11-mypy``... stand for one task: the first of them is kept."""
    kept: dict[str, str] = {}
    for name in names:
        rest = "-".join(f for f in name.split("-") if not _VERSION_FACTOR.match(f))
        kept.setdefault(rest, name)
    return list(kept.values())


def read_tox(project: Project, pyproject: dict[str, Any]) -> None:
    if project.is_file("tox.ini"):
        source, names = "tox.ini", ini_environments(project.text("tox.ini") or "")
    elif project.is_file("tox.toml"):
        source, names = "tox.toml", toml_environments(project.toml("tox.toml"))
    elif "tox" in table(pyproject, "tool"):
        source, names = "pyproject.toml", toml_environments(table(pyproject, "tool", "tox"))
    else:
        return
    project.sheet.add(_TESTS, "tox", source)
    for name in one_per_version_group(names[:MAX_ENVIRONMENTS]):
        kind = classify_name(name)
        per_version = any(_VERSION_FACTOR.match(f) for f in name.split("-"))
        if kind not in (None, "setup") and not (kind == _TESTS and per_version):
            project.sheet.add(kind, f"tox -e {name}", source)
