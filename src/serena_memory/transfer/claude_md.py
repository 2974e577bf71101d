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
from pathlib import Path

from serena_memory.transfer import markdown as md
from serena_memory.transfer.linking import render
from serena_memory.transfer.plan import ImportPlan, convention_for, reference
from serena_memory.transfer.sources import (
    Progress,
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
) -> ImportPlan:
    given = Path(path).expanduser()
    folder = SourceFolder(given.parent if given.is_file() else given, progress)
    plan = ImportPlan(fmt, str(given))
    files = [p for p in folder.walk((filename.lower(),)) if p.name == filename]
    if not files:
        raise SourceError(f"no {filename} in {folder.given}; give the folder that holds it")
    rels = [folder.rel(p) for p in files]
    texts = {rel: folder.read(p) for rel, p in zip(rels, files, strict=True)}
    imported: dict[str, str] = {}  # source path -> memory name
    pending: list[tuple[str, int]] = []

    def import_target(from_rel: str, token: str, depth: int) -> str | None:
        if token.startswith(("~", "/")):
            plan.warn(f"{from_rel}: @{token} is outside the source folder; left as text")
            return None
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(from_rel), token))
        if rel.startswith("../") or rel == "..":
            plan.warn(f"{from_rel}: @{token} leads outside the source folder; left as text")
            return None
        file = folder.given / rel
        if not file.is_file() and not file.is_symlink():
            return None  # an @mention, not a file
        if not folder.inside(file):
            plan.warn(f"{from_rel}: @{token} is a link out of the source folder; not read")
            return None
        if rel in texts and rel not in imported and rel in rels:
            return core_name(rel)
        if rel not in imported:
            if depth >= MAX_IMPORT_DEPTH:
                plan.warn(f"{from_rel}: @{token} is nested deeper than {MAX_IMPORT_DEPTH} imports")
                return None
            imported[rel] = f"{topic}/{path_name(rel)}"
            pending.append((rel, depth + 1))
        return imported[rel]

    def core_name(rel: str) -> str:
        where = posixpath.dirname(rel)
        return "core" if not where else f"{topic}/{path_name(where + '/x')[:-2]}/core"

    def resolver(from_rel: str, depth: int):
        def resolve(line: str) -> list[str]:
            found = []
            for token in md.at_imports(line):
                name = import_target(from_rel, token, depth)
                if name is not None:
                    found.append(name)
            return found

        return resolve

    for rel in rels:
        entry = core_name(rel)
        base = entry[: -len("core")]  # '' or 'TOPIC/dir/'
        parts: list[str] = []
        pre: str | None = None
        for section in md.sections(texts[rel]):
            text = render(section.text, resolver(rel, 0))
            if section.heading is None:
                pre = text
                continue
            name = None
            if not base:
                name = convention_for(section.heading)
            name = name or f"{base or topic + '/'}{slug(section.heading, 'section')}"
            parts.append(plan.add(name, text, f"{rel} § {section.heading}"))
        footer = "".join(f"- {reference(p)}\n" for p in parts)
        body = pre if pre is not None else f"Imported from {rel}.\n"
        if footer:
            body = body.rstrip("\n") + f"\n\nThe sections of {rel}:\n{footer}"
        plan.add(entry, body, rel)
    while pending:
        rel, depth = pending.pop(0)
        text = folder.read(folder.given / rel)
        plan.add(imported[rel], render(text, resolver(rel, depth)), f"{rel} (@import)")
    return plan
