"""Names in a memory that look like paths of the project but are not its code: folders
the project's own scripts create on a developer's machine (``venv/`` made by
``scripts/install``), and the project's own name (``# Commander.js — core``). A missing
mention of either is no drift.

Only a few small files the project tracks are read (its scripts, ``package.json``,
``pyproject.toml``), through the path gate; a mentioned path is never opened.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.paths import read_regular_file
from serena_memory.integrity.code_drift.project import ProjectFiles

SCRIPT_FOLDERS = ("scripts/", "script/", "bin/", "tools/")
"""Top-level folders whose files are the project's own scripts."""
SCRIPT_FILES = frozenset({"Makefile", "makefile", "GNUmakefile", "justfile", "Justfile"})
SCRIPT_EXTENSIONS = (".sh", ".bash", ".ps1")
MAX_SCRIPTS = 40
MAX_SCRIPT_BYTES = 256 * 1024

_ASSIGN = re.compile(
    r"^[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)[ \t]*:?=[ \t]*[\"']?([\w./-]+)[\"']?[ \t]*$",
    re.MULTILINE,
)
"""A variable set to one plain word: ``VENV="venv"``, ``BUILD := build``."""
_CREATES = re.compile(r"(-m[ \t]+venv|\bvirtualenv|\buv[ \t]+venv|\bmkdir)[ \t]+([^\n;&|#)]*)")
"""A command that makes a folder, and its words: ``python -m venv "$VENV"``, ``virtualenv
-p python3 env``, ``mkdir -p build dist``."""
_VALUE_OPTIONS = frozenset({"-p", "--python", "--prompt"})
"""Options of a virtualenv's command whose value is the next word, not a folder."""
_VARIABLE = re.compile(r"^\$\{?\(?([A-Za-z_]\w*)\)?\}?$")


def created_folders(files: ProjectFiles) -> frozenset[str]:
    """The folders (project-relative, no trailing ``/``) the project's scripts create."""
    created: set[str] = set()
    for rel in _scripts(files):
        text = read_small(files, rel)
        if text is None:
            continue
        values = dict(_ASSIGN.findall(text))
        for found in _CREATES.finditer(text):
            venv = not found.group(1).endswith("mkdir")
            args = _arguments(found.group(2), venv)
            if venv:
                args = args[-1:]  # a virtualenv's folder is its last word
            for arg in args:
                variable = _VARIABLE.match(arg)
                if variable is not None:
                    arg = values.get(variable.group(1), "")
                folder = _folder(arg)
                if folder:
                    created.add(folder)
    return frozenset(created)


def _arguments(words: str, venv: bool) -> list[str]:
    """The words of a command that are not options nor (for a virtualenv's command)
    options' values, unquoted."""
    out: list[str] = []
    skip = False
    for word in words.split():
        word = word.strip("\"'")
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = venv and word in _VALUE_OPTIONS
        elif word:
            out.append(word)
    return out


def _scripts(files: ProjectFiles) -> list[str]:
    """The project's scripts: the files of its script folders, its make and just files,
    its top-level shell scripts (the first :data:`MAX_SCRIPTS`, in order)."""
    found = [
        p
        for p in sorted(files.files)
        if p.startswith(SCRIPT_FOLDERS)
        and p.count("/") == 1
        or ("/" not in p and (p in SCRIPT_FILES or p.endswith(SCRIPT_EXTENSIONS)))
    ]
    return found[:MAX_SCRIPTS]


def _folder(arg: str) -> str:
    """A created folder as a project path ('' for one outside it or not plain)."""
    arg = arg.strip().rstrip("/")
    while arg.startswith("./"):
        arg = arg[2:]
    if not arg or arg.startswith(("/", "~", "$", "-")) or ".." in arg.split("/"):
        return ""
    return arg


def read_small(files: ProjectFiles, rel: str) -> str | None:
    """A small text file of the project ('' or None when it can't be read safely)."""
    path = os.path.join(files.root, rel)
    try:
        if os.path.islink(path):
            return None
        data = read_regular_file(path, (files.root,), f"file {rel}", MAX_SCRIPT_BYTES)
    except (OSError, MemoryStoreError):
        return None
    if b"\0" in data[:4096]:
        return None
    return data.decode("utf-8", "replace")


def is_created(target: str, created: Iterable[str]) -> bool:
    """Whether the path ``target`` is a created folder or lies in one."""
    bare = target.rstrip("/")
    return any(bare == c or bare.startswith(c + "/") for c in created)


def project_names(files: ProjectFiles) -> frozenset[str]:
    """The project's names, folded (:func:`fold`): its folder's, and the ones its
    ``package.json``, ``pyproject.toml``, ``Cargo.toml`` and ``pubspec.yaml`` give."""
    names = {fold(os.path.basename(files.root))}
    if "package.json" in files.files:
        text = read_small(files, "package.json")
        try:
            data = json.loads(text or "{}")
        except ValueError:
            data = {}
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            names.add(fold(data["name"].rsplit("/", 1)[-1]))
    names |= _manifest_names(files)
    return frozenset(n for n in names if n)


def _manifest_names(files: ProjectFiles) -> set[str]:
    """The names ``pyproject.toml``, ``Cargo.toml`` and ``pubspec.yaml`` give, folded."""
    names = set()
    for rel, table in (("pyproject.toml", "project"), ("Cargo.toml", "package")):
        if rel in files.files:
            try:
                data = tomllib.loads(read_small(files, rel) or "")
            except (tomllib.TOMLDecodeError, ValueError):
                continue
            section = data.get(table)
            if isinstance(section, dict) and isinstance(section.get("name"), str):
                names.add(fold(section["name"]))
    if "pubspec.yaml" in files.files:  # Dart's manifest: its `name:` line
        found = _PUBSPEC_NAME.search(read_small(files, "pubspec.yaml") or "")
        if found is not None:
            names.add(fold(found.group(1)))
    return names


_PUBSPEC_NAME = re.compile(r"^name:\s*['\"]?([\w-]+)['\"]?\s*(?:#.*)?$", re.MULTILINE)


_SUFFIXES = (".js", ".ts", ".py", ".rs", ".go", ".rb", ".io")


def fold(name: str) -> str:
    """A project's name as compared: lowercase, without a language suffix (``.js``) or
    the ``-``, ``_`` and ``.`` in it (``Commander.js`` and ``commander`` are one name)."""
    name = name.strip().lower()
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return re.sub(r"[-_.]", "", name)


def is_project_name(target: str, names: frozenset[str]) -> bool:
    """Whether a mention with no folder (``Commander.js``) is the project's name."""
    return "/" not in target.rstrip("/") and fold(target.rstrip("/")) in names
