"""cargo-xtask: a Rust workspace's own task runner, a crate that ``.cargo/config.toml``
aliases as ``cargo xtask`` (``xtask = "run --package xtask --"``). Its commands are the
variants of its clap ``Subcommand`` enum (``TestBackend`` is ``cargo xtask
test-backend``), or the names its ``main`` matches by hand (``"test-all" => test_all``),
offered by their name, else by their doc comment (``/// Check for unused dependencies``).
The Rust is read as text, never built."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.names import classify_name, words
from serena_memory.agent.project_facts.recipes import Task, offer_runner_tasks

SOURCE = ".cargo/config.toml"
MAX_FILES = 30
MAX_LINES = 5000
# where the crate is when the alias names its package, not its manifest
_FOLDERS = ("xtask", "crates/xtask", "tools/xtask")
_MANIFEST = re.compile(r"--manifest-path[= ](\S+)/Cargo\.toml")
_DERIVE = re.compile(r"^#\[derive\([^)]*\bSubcommand\b")
_ENUM = re.compile(r"^(?:pub(?:\([a-z]+\))?\s+)?enum\s+([A-Z]\w*)")
_VARIANT = re.compile(r"^([A-Z][A-Za-z0-9]*)\s*(?:[,({]|$)")
_RENAMED = re.compile(r"""\bname\s*=\s*"([a-z][a-z0-9-]{0,40})\"""")
_HIDDEN = re.compile(r"\bhide\s*=\s*true\b")
# `"test-all" => test_all,` or `"lint" | "l" => lint(),`: a name matched by hand
_ARM = re.compile(r"""^"([a-z][a-z0-9-]{0,40})"\s*(?:\|\s*"[^"\n]{0,40}"\s*){0,5}=>""")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# an xtask wraps cargo, whose `check` type checks (`cargo xtask check-backend crossterm`)
_CARGO_CHECK = "check"
_WORD = re.compile(r"[a-z]+")


def crate_folder(project: Project) -> str | None:
    """The xtask crate's folder, when ``.cargo/config.toml`` aliases ``xtask``."""
    alias = table(project.toml(".cargo/config.toml"), "alias").get("xtask")
    if isinstance(alias, list):
        alias = " ".join(str(word) for word in alias)
    if not isinstance(alias, str):
        return None
    named = _MANIFEST.search(alias)
    folders = (named.group(1).removeprefix("./"),) if named else _FOLDERS
    return next((f for f in folders if project.is_file(f"{f}/Cargo.toml")), None)


def kebab(variant: str) -> str:
    """clap's name of a variant: ``TestBackend`` is ``test-backend``, ``CI`` is ``ci``."""
    return _CAMEL.sub("-", variant).lower()


def subcommands(text: str) -> dict[str, Task]:
    """The variants of every ``Subcommand`` enum of one file, each labelled with its doc
    comment when its name says no kind; hidden ones left out."""
    tasks: dict[str, Task] = {}
    derived = False
    depth = 0
    doc: list[str] = []
    attributes: list[str] = []
    for raw in text.splitlines()[:MAX_LINES]:
        line = raw.strip()
        if depth == 0:
            if _DERIVE.match(line):
                derived = True
            elif derived and _ENUM.match(line) and "{" in line:
                depth = 1
                doc, attributes = [], []
            elif not line.startswith(("#[", "///", "//")):
                derived = False
            continue
        if depth == 1:
            if line.startswith("///"):
                doc.append(line.lstrip("/ "))
            elif line.startswith("#["):
                attributes.append(line)
            else:
                _add_variant(tasks, line, doc, attributes)
                if line and not line.startswith("//"):
                    doc, attributes = [], []
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            depth, derived = 0, False
    return tasks


def _add_variant(tasks: dict[str, Task], line: str, doc: list[str], attributes: list[str]) -> None:
    match = _VARIANT.match(line)
    if match is None:
        return
    said = " ".join(attributes)
    if _HIDDEN.search(said):
        return
    renamed = _RENAMED.search(said)
    name = renamed.group(1) if renamed else kebab(match.group(1))
    tasks[name] = Task(name, label=_label(name, " ".join(doc)))


def _label(name: str, doc: str) -> str:
    """The words the command's kind is read from: its name's, or its doc comment's when the
    name says nothing (``udeps``: "Check for unused dependencies"); a doc comment naming
    the tests among other things (``ci``: "Run CI checks (lint, build, test)") tests."""
    if words(name)[:1] == [_CARGO_CHECK]:
        return "typecheck"
    if classify_name(name) is not None or not doc:
        return name
    if {"test", "tests"} & set(_WORD.findall(doc.lower())):
        return "test"
    return doc if classify_name(doc) else name


def matched_names(text: str) -> dict[str, Task]:
    """The names a hand-written ``main`` matches (``"test-all" => test_all``)."""
    tasks: dict[str, Task] = {}
    for raw in text.splitlines()[:MAX_LINES]:
        match = _ARM.match(raw.strip())
        if match:
            name = match.group(1)
            tasks.setdefault(name, Task(name))
    return tasks


def read_xtask(project: Project) -> None:
    folder = crate_folder(project)
    if folder is None:
        return
    tasks: dict[str, Task] = {}
    files = sorted(n for n in project.listing(f"{folder}/src") if n.endswith(".rs"))
    for name in files[:MAX_FILES]:
        tasks.update(subcommands(project.text(f"{folder}/src/{name}") or ""))
    if not tasks:
        tasks = matched_names(project.text(f"{folder}/src/main.rs") or "")
    offer_runner_tasks(project.sheet, tasks, lambda name: f"cargo xtask {name}", SOURCE)
