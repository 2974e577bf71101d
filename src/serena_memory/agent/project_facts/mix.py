"""Elixir projects: the aliases ``mix.exs`` defines (``mix assets.build``, a ``docs`` that
builds the JavaScript's docs too) and Mix's everyday commands, which every Elixir
contributor types whatever the project says: ``mix deps.get`` fetches the dependencies,
``mix compile`` builds, ``mix test`` tests, ``mix format`` formats (checked with
``--check-formatted``) and, with ExDoc among the dependencies, ``mix docs`` builds the docs
(with ExCoveralls, ``mix coveralls`` tests with coverage; with Credo, ``mix credo`` lints).
"""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import offer_tasks

MANIFEST = "mix.exs"
FORMATTER = ".formatter.exs"
MAX_LINE = 400
# the function returning the aliases (`defp aliases do`), by convention named so
_ALIASES_START = re.compile(r"^(\s*)defp?\s+aliases\b")
# an alias's key, one a line: `test: [...]`, `"assets.build": [...]`
_ALIAS = re.compile(r"""^\s*(?:"([\w.\-]+)"|([a-z_][\w.]*)):\s""")
_EX_DOC = re.compile(r"\{:ex_doc\b")
# ExCoveralls and Credo among the dependencies: `mix coveralls` tests with coverage,
# `mix credo` lints
_DEPENDENCY_TASKS = ((re.compile(r"\{:excoveralls\b"), "test", "mix coveralls"),
                     (re.compile(r"\{:credo\b"), "lint", "mix credo"))  # fmt: skip


def mix_aliases(text: str) -> list[str]:
    """The names of the aliases ``mix.exs``'s ``aliases`` function lists, in order."""
    found: list[str] = []
    indent: str | None = None
    for line in text.splitlines():
        if len(line) > MAX_LINE:
            continue
        if indent is None:
            start = _ALIASES_START.match(line)
            indent = start.group(1) if start else None
            continue
        if line.rstrip() == f"{indent}end":
            break
        alias = _ALIAS.match(line)
        if alias:
            found.append(alias.group(1) or alias.group(2))
    return found


def read_mix_aliases(project: Project) -> None:
    """Offer the aliases as tasks, by what their names say."""
    text = project.text(MANIFEST)
    if text is not None:
        offer_tasks(project.sheet, mix_aliases(text), lambda name: f"mix {name}", MANIFEST)


def read_mix(project: Project) -> None:
    """Mix's everyday commands, for a kind the project's own forms have not given yet."""
    text = project.text(MANIFEST)
    if text is None:
        return
    sheet = project.sheet
    sheet.add_default("setup", "mix deps.get", MANIFEST)
    sheet.add_default("build", "mix compile", MANIFEST)
    sheet.add_default("test", "mix test", MANIFEST)
    if project.is_file(FORMATTER):  # the formatter's settings: the code is kept formatted
        sheet.add_default("format", "mix format --check-formatted", FORMATTER)
        if "mix format" not in sheet.commands.get("format", []):
            sheet.add("format", "mix format", FORMATTER)  # the writing form, before a commit
    if _EX_DOC.search(text):
        sheet.add_default("build", "mix docs", MANIFEST)
    for dependency, kind, command in _DEPENDENCY_TASKS:
        if dependency.search(text):
            sheet.add_default(kind, command, MANIFEST)
