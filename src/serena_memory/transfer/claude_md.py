"""``CLAUDE.md`` and ``AGENTS.md``: the instruction files agents read, nested ones and the
files they pull in with ``@path``.

The top file's text before its first section becomes ``core`` (the entry point), and its
sections become memories: ``tech_stack``, ``suggested_commands``, ``conventions`` or
``task_completion`` when their heading says so, else ``TOPIC/<heading>``. A nested file
(``packages/api/CLAUDE.md``) becomes ``TOPIC/packages/api/core`` and its sections. A file
pulled in with ``@path`` becomes ``TOPIC/<path>`` whole, and the line naming it references
it; ``@imports`` are followed at most :data:`MAX_IMPORT_DEPTH` deep, each file once (a
cycle ends there), never out of the source folder.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import Path

from serena_memory.core.paths import MEMORY_SIZE_BUDGET
from serena_memory.transfer import markdown as md
from serena_memory.transfer.export import without_section
from serena_memory.transfer.linking import render
from serena_memory.transfer.plan import ImportPlan, convention_for, reference
from serena_memory.transfer.sources import (
    Progress,
    Reach,
    SourceError,
    SourceFolder,
    path_name,
    slug,
)

MAX_IMPORT_DEPTH = 5


def plan_instructions(
    path: str | Path,
    topic: str,
    progress: Progress | None = None,
    *,
    fmt: str = "claude-md",
    filename: str = "CLAUDE.md",
    reach: Reach | None = None,
) -> ImportPlan:
    given = Path(path).expanduser()
    folder = SourceFolder(given.parent if given.is_file() else given, progress, reach)
    plan = ImportPlan(fmt, str(given))
    files = [p for p in folder.walk((filename.lower(),)) if p.name == filename]
    if not files:
        raise SourceError(f"no {filename} in {folder.given}; give the folder that holds it")
    instructions = _Instructions(folder, plan, topic, files)
    for rel in instructions.rels:
        instructions.add_file(rel)
    instructions.add_imports()
    return plan


class _Instructions:
    """One import of instruction files: the files found, and the files their ``@path``
    lines pull in, each read once, in the order they were first named."""

    def __init__(self, folder: SourceFolder, plan: ImportPlan, topic: str, files: list[Path]):
        self.folder = folder
        self.plan = plan
        self.topic = topic
        self.rels = [folder.rel(p) for p in files]
        self.texts = {}
        for rel, path in zip(self.rels, files, strict=True):
            text, exported = without_section(folder.read(path))
            if exported:
                plan.warn(f"{rel}: the section `serena memories export` wrote is left out")
            self.texts[rel] = text
        self.imported: dict[str, str] = {}  # source path -> memory name
        self.pending: list[tuple[str, int]] = []  # (source path, import depth) to read

    def add_file(self, rel: str) -> None:
        """An instruction file's memories: its sections, then its entry memory (the text
        before the first section) referencing them."""
        if not self.texts[rel].strip():
            return  # nothing of the person's own (an exported section alone, or nothing)
        entry = self.core_name(rel)
        base = entry[: -len("core")]  # '' or 'TOPIC/dir/'
        parts: list[str] = []
        pre: str | None = None
        for section in md.sections(self.texts[rel]):
            text = render(section.text, self._resolver(rel, 0))
            if section.heading is None:
                pre = text
                continue
            name = self._section_name(base, section.heading)
            parts.append(self.plan.add(name, text, f"{rel} § {section.heading}"))
        footer = "".join(f"- {reference(p)}\n" for p in parts)
        body = pre if pre is not None else f"Imported from {rel}.\n"
        if footer:
            body = body.rstrip("\n") + f"\n\nThe sections of {rel}:\n{footer}"
        self.plan.add(entry, body, rel)

    def add_imports(self) -> None:
        """Every file pulled in with ``@path`` (those it pulls in join the queue): whole, or
        split at its headings when it is larger than a memory should be."""
        while self.pending:
            rel, depth = self.pending.pop(0)
            text = self.folder.read(self.folder.given / rel)
            name, resolve = self.imported[rel], self._resolver(rel, depth)
            parts = md.sections(text) if len(text) > MEMORY_SIZE_BUDGET else []
            if not any(part.heading is not None for part in parts):
                self.plan.add(name, render(text, resolve), f"{rel} (@import)")
                continue
            pre: str | None = None
            names: list[str] = []
            for part in parts:
                if part.heading is None:
                    pre = render(part.text, resolve)
                    continue
                section = f"{name}/{slug(part.heading, 'section')}"
                names.append(
                    self.plan.add(section, render(part.text, resolve), f"{rel} § {part.heading}")
                )
            body = (pre or f"Imported from {rel}.\n").rstrip("\n")
            footer = "".join(f"- {reference(n)}\n" for n in names)
            self.plan.add(name, f"{body}\n\nThe sections of {rel}:\n{footer}", f"{rel} (@import)")

    def core_name(self, rel: str) -> str:
        where = posixpath.dirname(rel)
        return "core" if not where else f"{self.topic}/{path_name(where + '/x')[:-2]}/core"

    def _section_name(self, base: str, heading: str) -> str:
        """A top file's section named like an onboarding memory becomes it; any other
        section is ``TOPIC/<heading>`` (or ``TOPIC/dir/<heading>`` in a nested file)."""
        name = None if base else convention_for(heading)
        return name or f"{base or self.topic + '/'}{slug(heading, 'section')}"

    def _resolver(self, from_rel: str, depth: int) -> Callable[[str], list[str]]:
        def resolve(line: str) -> list[str]:
            found = []
            for token in md.at_imports(line):
                name = self._import_target(from_rel, token, depth)
                if name is not None:
                    found.append(name)
            return found

        return resolve

    def _import_target(self, from_rel: str, token: str, depth: int) -> str | None:
        """The memory ``@token`` in ``from_rel`` leads to (queued to be read when new), or
        None when it is no file of the source folder or is nested too deep."""
        rel = self._source_file(from_rel, token)
        if rel is None:
            return None
        if rel in self.texts and rel not in self.imported:
            return self.core_name(rel)
        if rel not in self.imported:
            if depth >= MAX_IMPORT_DEPTH:
                self.plan.warn(
                    f"{from_rel}: @{token} is nested deeper than {MAX_IMPORT_DEPTH} imports"
                )
                return None
            self.imported[rel] = f"{self.topic}/{path_name(rel)}"
            self.pending.append((rel, depth + 1))
        return self.imported[rel]

    def _source_file(self, from_rel: str, token: str) -> str | None:
        """The source folder's file ``@token`` names, relative to the folder; None (with a
        warning when it leads out) when it names none."""
        if token.startswith(("~", "/")):
            self.plan.warn(f"{from_rel}: @{token} is outside the source folder; left as text")
            return None
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(from_rel), token))
        if rel.startswith("../") or rel == "..":
            self.plan.warn(f"{from_rel}: @{token} leads outside the source folder; left as text")
            return None
        file = self.folder.given / rel
        if not file.is_file() and not file.is_symlink():
            return None  # an @mention, not a file
        if not self.folder.inside(file):
            self.plan.warn(f"{from_rel}: @{token} is a link out of the source folder; not read")
            return None
        return rel
