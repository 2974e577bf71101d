"""Reading a project's own files for the fact sheet: every one is untrusted.

A file is read only when it is a regular file inside the project (a cloned repository's
``Makefile -> ~/.aws/credentials`` would land in the facts) and at most ``MAX_SMALL_FILE``
bytes; bytes that are not UTF-8 are replaced; YAML is parsed with the safe loader and
walked with a node budget (an alias bomb or a self-referencing node costs nothing); a file
that can't be parsed becomes a note on the sheet, never an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

from serena_memory.agent.project_facts.sheet import FactSheet

MAX_SMALL_FILE = 512 * 1024
MAX_YAML_NODES = 50_000


class Project:
    """The project's root, read through the same gate for every reader."""

    def __init__(self, root: Path, sheet: FactSheet) -> None:
        self.root = root
        self.sheet = sheet
        self._texts: dict[str, str | None] = {}
        self._tables: dict[str, dict[str, Any]] = {}
        self._yamls: dict[str, Any] = {}

    @cached_property
    def real_root(self) -> str:
        return os.path.realpath(self.root)

    def is_file(self, rel: str) -> bool:
        return (self.root / rel).is_file()

    def is_dir(self, rel: str) -> bool:
        return (self.root / rel).is_dir()

    def first(self, *names: str) -> str | None:
        """The first of ``names`` that is a file of the project."""
        return next((name for name in names if self.is_file(name)), None)

    def text(self, rel: str) -> str | None:
        """The file's text, or None when it is missing, too large or leads out."""
        if rel not in self._texts:
            self._texts[rel] = self._read(rel)
        return self._texts[rel]

    def _read(self, rel: str) -> str | None:
        from serena_memory.core.errors import MemoryStoreError
        from serena_memory.core.paths import is_inside, read_regular_file

        path = self.root / rel
        real = os.path.realpath(path)
        if not is_inside(real, (self.real_root,)) or not os.path.isfile(real):
            return None
        if os.path.getsize(real) > MAX_SMALL_FILE:
            self.sheet.notes.append(f"`{rel}` is over {MAX_SMALL_FILE // 1024} KiB; not read.")
            return None
        try:
            data = read_regular_file(real, (self.real_root,), rel, MAX_SMALL_FILE)
        except (OSError, MemoryStoreError):
            return None
        return data.decode("utf-8", errors="replace")

    def toml(self, rel: str) -> dict[str, Any]:
        """The file's TOML table, or an empty one (a parse error becomes one note)."""
        if rel not in self._tables:
            self._tables[rel] = self._toml(rel)
        return self._tables[rel]

    def _toml(self, rel: str) -> dict[str, Any]:
        import tomllib

        text = self.text(rel)
        if text is None:
            return {}
        try:
            return tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            self.sheet.notes.append(f"`{rel}` could not be parsed ({exc}).")
            return {}

    def yaml(self, rel: str) -> Any:
        """The file's YAML data, or None (a parse error becomes one note); parsed once, as
        a workflow is read for the workflows it calls, then for its steps."""
        if rel not in self._yamls:
            self._yamls[rel] = self._yaml(rel)
        return self._yamls[rel]

    def _yaml(self, rel: str) -> Any:
        import yaml

        text = self.text(rel)
        if text is None:
            return None
        try:
            return yaml.safe_load(text)
        except (yaml.YAMLError, RecursionError, ValueError):
            self.sheet.notes.append(f"`{rel}` is not valid YAML.")
            return None

    def listing(self, rel: str) -> list[str]:
        """The names in the folder ``rel`` (inside the project), sorted."""
        folder = self.root / rel
        real = os.path.realpath(folder)
        from serena_memory.core.paths import is_inside

        if not is_inside(real, (self.real_root,)) or not folder.is_dir():
            return []
        try:
            return sorted(os.listdir(real))[:500]
        except OSError:
            return []


def table(data: Any, *keys: str) -> dict[str, Any]:
    """``data[k1][k2]...`` when every step is a table, else an empty one."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def walk(node: Any, budget: int = MAX_YAML_NODES) -> Iterator[tuple[Any, Any]]:
    """Every (key, value) pair of the mappings inside ``node``, breadth first; each node is
    visited once (YAML aliases share nodes) and at most ``budget`` nodes are visited."""
    seen: set[int] = set()
    queue = [node]
    while queue and budget > 0:
        item = queue.pop(0)
        if id(item) in seen:
            continue
        seen.add(id(item))
        budget -= 1
        if isinstance(item, dict):
            for key, value in item.items():
                yield key, value
                if isinstance(value, dict | list):
                    queue.append(value)
        elif isinstance(item, list):
            queue.extend(v for v in item if isinstance(v, dict | list))
