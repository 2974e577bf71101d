"""The import aliases a project's build defines (``@/pages/home`` for
``client/src/pages/home``): the ``paths`` of ``tsconfig.json`` and ``jsconfig.json``, and
the ``alias`` of a Vite or webpack configuration written plainly (``"@":
path.resolve(__dirname, "src")``). A mention through an alias is checked as the path it
stands for; one through no alias of the project (``@tanstack/query``) is a package's.

Only these few configuration files at the project's top are read, through the path gate;
a mentioned path is never opened.
"""

from __future__ import annotations

import json
import posixpath
import re

from serena_memory.integrity.code_drift.local_paths import read_small
from serena_memory.integrity.code_drift.project import ProjectFiles

TS_CONFIGS = ("tsconfig.json", "jsconfig.json", "tsconfig.app.json", "tsconfig.base.json")
BUILD_CONFIGS = tuple(
    f"{tool}.config.{ext}" for tool in ("vite", "webpack", "vitest") for ext in ("ts", "js", "mjs")
)
_JSONC = re.compile(r'("(?:\\.|[^"\\\n])*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)
"""A string (kept), or a comment or a trailing comma (dropped), in a tsconfig."""
_BUILD_ALIAS = re.compile(
    r"""["']?([@~#][\w-]*)["']?\s*:\s*(?:path\.)?(?:resolve|join)\(\s*[\w.]+\s*,"""
    r"""((?:\s*["'][\w./-]*["']\s*,?)+)\)"""
)
"""``"@": path.resolve(__dirname, "client", "src")``: the alias and its parts."""
_PART = re.compile(r"""["']([\w./-]*)["']""")

Aliases = list[tuple[str, str]]
"""(prefix as written, folder from the project's top), longest prefix first."""


def project_aliases(files: ProjectFiles) -> Aliases:
    """The aliases of the project's build configuration (none: no such file)."""
    found: dict[str, str] = {}
    for name in TS_CONFIGS:
        if name in files.files:
            found.update(_ts_paths(read_small(files, name) or ""))
    for name in BUILD_CONFIGS:
        if name in files.files:
            for alias, parts in _BUILD_ALIAS.findall(read_small(files, name) or ""):
                folder = _inside(posixpath.join(*_PART.findall(parts)))
                if folder is not None:
                    found.setdefault(alias + "/", folder)
    return sorted(found.items(), key=lambda item: -len(item[0]))


def _ts_paths(text: str) -> dict[str, str]:
    """The ``compilerOptions.paths`` of a tsconfig (comments and trailing commas allowed)
    as prefix -> folder, each of one target ending with ``/*``."""
    try:
        data = json.loads(_JSONC.sub(lambda m: m.group(1) or "", text))
        options = data.get("compilerOptions") or {}
        base = str(options.get("baseUrl") or ".")
        paths = options.get("paths") or {}
    except (ValueError, AttributeError):
        return {}
    out = {}
    for key, targets in paths.items() if isinstance(paths, dict) else ():
        if not (isinstance(key, str) and key.endswith("/*") and isinstance(targets, list)):
            continue
        first = targets[0] if targets else None
        if isinstance(first, str) and first.endswith("/*"):
            folder = _inside(posixpath.join(base, first[:-2]))
            if folder is not None:
                out[key[:-1]] = folder
    return out


def _inside(path: str) -> str | None:
    """A folder from the project's top ('' the top itself; None: outside the project)."""
    normal = posixpath.normpath(path)
    if normal.startswith(("..", "/")):
        return None
    return "" if normal == "." else normal + "/"


def expand(target: str, aliases: Aliases) -> str | None:
    """The path ``target`` stands for through the project's aliases (None: through none)."""
    for prefix, folder in aliases:
        if (target + "/").startswith(prefix):  # `@` (written `@/`) is the folder itself
            rest = target[len(prefix) :]
            if not {".", ".."}.isdisjoint(rest.split("/")):
                return None  # `@/../x` would leave the folder, perhaps the project
            return folder + rest
    return None
