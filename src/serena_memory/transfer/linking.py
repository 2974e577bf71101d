"""Links between source files become ``mem:`` references between the memories."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from serena_memory.transfer import markdown as md
from serena_memory.transfer.plan import ImportPlan, with_references

Resolver = Callable[[str], list[str]]  # a line -> the memories its links lead to


def relative_target(from_rel: str, target: str) -> str | None:
    """The source-relative path a link of file ``from_rel`` leads to; None for a web
    address, an anchor, or a path that leaves the source folder."""
    target = target.split("#", 1)[0].split("?", 1)[0]
    if not target or ":" in target or target.startswith(("/", "~")):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(from_rel), target))
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def markdown_links(from_rel: str, names: dict[str, str], plan: ImportPlan) -> Resolver:
    """Relative Markdown links to files of the import; one leading out of the source
    folder is left as text and noted."""

    def resolve(line: str) -> list[str]:
        found = []
        for target in md.links(line):
            rel = relative_target(from_rel, target)
            if rel is not None and rel in names:
                found.append(names[rel])
            elif rel is None and target.startswith(("../", "/", "~")):
                plan.warn(f"{from_rel}: the link {target!r} leads outside the source folder")
        return found

    return resolve


def render(text: str, resolve: Resolver) -> str:
    """The text as written, each line followed by the memories its links lead to (lines
    inside code blocks are left alone)."""
    code = md.code_lines(text)
    out = []
    for i, line in enumerate(text.splitlines(keepends=True)):
        if i in code:
            out.append(line)
            continue
        body = line.rstrip("\r\n")
        end = line[len(body) :]
        out.append(with_references(body, resolve(body)) + end)
    return "".join(out)


def front_matter_block(lines: list[str], what: str, summary: list[str]) -> str:
    """Front matter kept visibly: what it means in words, then as written."""
    text = "".join(lines)
    if not text.endswith("\n"):
        text += "\n"
    said = "".join(f"- {s}\n" for s in summary)
    return f"{what}:\n{said}\n```yaml\n{text}```\n\n"
