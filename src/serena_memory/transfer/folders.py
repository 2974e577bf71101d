"""Sources that are folders of Markdown files: Cursor rules, a Cline memory bank, Claude
Code's auto memory and Basic Memory notes. One file becomes one memory under the topic;
the files a format gives a meaning to map to the onboarding's memories."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from serena_memory.transfer import markdown as md
from serena_memory.transfer.linking import front_matter_block, markdown_links, render
from serena_memory.transfer.plan import ImportPlan, reference
from serena_memory.transfer.sources import Progress, Reach, SourceError, SourceFolder, path_name

MAX_SHOWN_VALUE = 300  # characters of a front-matter value said in words

# Cline's memory bank: its core files, each with the memory it becomes ('' + the topic).
CLINE_FILES = {
    "projectbrief.md": "core",
    "productcontext.md": "/product_context",
    "activecontext.md": "/active_context",
    "systempatterns.md": "/system_patterns",
    "techcontext.md": "tech_stack",
    "progress.md": "/progress",
}


def _front(lines: list[str] | None) -> dict[str, Any]:
    """The front matter's mapping, or {} when it is none (or not YAML)."""
    if not lines:
        return {}
    try:
        data = yaml.safe_load("".join(lines[1:-1]))
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _shown(value: object) -> str:
    """A front-matter value in words: strings, booleans, numbers and lists of them."""
    if isinstance(value, list):
        text = ", ".join(str(v) for v in value[:50] if isinstance(v, str | int | float | bool))
    elif isinstance(value, str | int | float | bool):
        text = str(value)
    else:
        text = ""
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN_VALUE else text[: MAX_SHOWN_VALUE - 3] + "..."


def _folder(
    path: str | Path, inner: str, progress: Progress | None, reach: Reach | None
) -> SourceFolder:
    """The source folder: ``path`` itself, or its ``inner`` folder when it holds one (a
    link out of ``reach`` refused, never followed)."""
    given = Path(path).expanduser()
    if inner and (given / inner).is_dir():
        given = given / inner
    return SourceFolder(given, progress, reach or Reach.named(path))


def plan_cursor_rules(
    path: str | Path, topic: str, progress: Progress | None = None, reach: Reach | None = None
) -> ImportPlan:
    folder = _folder(path, ".cursor/rules", progress, reach)
    plan = ImportPlan("cursor-rules", str(folder.given))
    files = list(folder.walk((".mdc", ".md")))
    if not files:
        raise SourceError(f"no Cursor rules (*.mdc) in {folder.given}")
    names = {folder.rel(f): f"{topic}/{path_name(folder.rel(f))}" for f in files}
    for file in files:
        rel = folder.rel(file)
        front, body = md.split_front_matter(folder.read(file))
        meta = _front(front)
        summary = []
        if meta.get("alwaysApply") is True:
            summary.append("always applied (alwaysApply: true)")
        globs = _shown(meta.get("globs"))
        if globs:
            summary.append(f"applied to files matching: {globs} (globs)")
        description = _shown(meta.get("description"))
        if description:
            summary.append(f"applied when the agent finds it relevant: {description} (description)")
        if not summary and front:
            summary.append("applied only when mentioned (no globs, no alwaysApply)")
        head = (
            front_matter_block(front, f"Cursor rule {rel}", summary)
            if front
            else f"Cursor rule {rel}.\n\n"
        )
        plan.add(names[rel], head + render(body, markdown_links(rel, names, plan)), rel)
    return plan


def plan_cline(
    path: str | Path, topic: str, progress: Progress | None = None, reach: Reach | None = None
) -> ImportPlan:
    folder = _folder(path, "memory-bank", progress, reach)
    plan = ImportPlan("cline-memory-bank", str(folder.given))
    files = list(folder.walk((".md",)))
    if not files:
        raise SourceError(f"no memory bank files (*.md) in {folder.given}")
    names = {}
    for file in files:
        rel = folder.rel(file)
        mapped = CLINE_FILES.get(rel.lower())
        if mapped is None:
            names[rel] = f"{topic}/{path_name(rel)}"
        else:
            names[rel] = topic + mapped if mapped.startswith("/") else mapped
    _plan_files(plan, folder, files, names, entry=names.get("projectbrief.md"))
    return plan


def claude_project_folder(project: str | Path, home: str | Path | None = None) -> Path:
    """Where Claude Code keeps a project's auto memory: its path with every character that
    is not a letter or digit made ``-``, under ``~/.claude/projects``."""
    real = os.path.realpath(project)
    mangled = re.sub(r"[^A-Za-z0-9]", "-", real)
    return Path(home or Path.home()) / ".claude" / "projects" / mangled / "memory"


def plan_auto_memory(
    path: str | Path, topic: str, progress: Progress | None = None, reach: Reach | None = None
) -> ImportPlan:
    given = Path(path).expanduser()
    if not (given / "MEMORY.md").is_file() and claude_project_folder(given).is_dir():
        # Claude Code's own place for this project's memory, found from the project's
        # real path (nothing in the project can point it elsewhere)
        given = claude_project_folder(given)
        reach = Reach.named(given)
    folder = SourceFolder(given, progress, reach)
    plan = ImportPlan("claude-auto-memory", str(folder.given))
    files = list(folder.walk((".md",)))
    if not files:
        raise SourceError(f"no auto memory (MEMORY.md and topic files) in {folder.given}")
    names = {
        folder.rel(f): f"{topic}/core"
        if folder.rel(f) == "MEMORY.md"
        else f"{topic}/{path_name(folder.rel(f))}"
        for f in files
    }
    _plan_files(plan, folder, files, names, entry=names.get("MEMORY.md"))
    return plan


def plan_basic_memory(
    path: str | Path, topic: str, progress: Progress | None = None, reach: Reach | None = None
) -> ImportPlan:
    folder = _folder(path, "", progress, reach)
    plan = ImportPlan("basic-memory", str(folder.given))
    files = list(folder.walk((".md",)))
    if not files:
        raise SourceError(f"no notes (*.md) in {folder.given}")
    names: dict[str, str] = {}
    by_title: dict[str, str] = {}
    texts: dict[str, tuple[list[str] | None, str]] = {}
    for file in files:
        rel = folder.rel(file)
        names[rel] = f"{topic}/{path_name(rel)}"
        front, body = md.split_front_matter(folder.read(file))
        texts[rel] = (front, body)
        meta = _front(front)
        keys = [Path(rel).stem, _shown(meta.get("title")), _shown(meta.get("permalink"))]
        for key in keys:
            if key:
                by_title.setdefault(key.lower(), names[rel])
    for rel, (front, body) in texts.items():
        meta = _front(front)
        links = markdown_links(rel, names, plan)

        def resolve(line: str, rel: str = rel, links=links) -> list[str]:
            found = links(line)
            for target in md.wiki_links(line):
                name = by_title.get(target.lower()) or by_title.get(target.lower().split("/")[-1])
                if name is not None:
                    found.append(name)
                else:
                    plan.warn(f"{rel}: [[{target}]] names no note of the folder; left as text")
            return found

        summary = [
            f"{key}: {_shown(meta.get(key))}"
            for key in ("title", "type", "tags", "permalink")
            if _shown(meta.get(key))
        ]
        head = front_matter_block(front, f"Basic Memory note {rel}", summary) if front else ""
        plan.add(names[rel], head + render(body, resolve), rel)
    return plan


def _plan_files(
    plan: ImportPlan,
    folder: SourceFolder,
    files: list[Path],
    names: dict[str, str],
    entry: str | None,
) -> None:
    """One memory per file, its links made references; the entry memory lists the rest."""
    rendered = {}
    for file in files:
        rel = folder.rel(file)
        rendered[rel] = render(folder.read(file), markdown_links(rel, names, plan))
    others = [names[r] for r in rendered if names[r] != entry]
    for rel, text in rendered.items():
        if names[rel] == entry and others:
            listed = "".join(f"- {reference(n)}\n" for n in others)
            text = text.rstrip("\n") + f"\n\nImported with it from {folder.given.name}:\n{listed}"
        plan.add(names[rel], text, rel)
