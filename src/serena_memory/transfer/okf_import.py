"""An Open Knowledge Format (OKF v0.2) bundle in: each concept (every ``.md`` file but the
reserved ``index.md`` and ``log.md``) becomes the memory of its path below the topic.

A concept an export of ours wrote comes back as the memory it was, byte for byte (see
:mod:`.okf_concept`); one another tool wrote keeps its front matter whole, and each of its
links to a concept of the bundle (``/x.md`` from the bundle's root, or relative) is kept
and followed by the ``mem:`` reference it leads to. The bundle is read as any source is
(:mod:`.sources`): inside its folder, bounded, UTF-8; a link that leaves it stays text.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from serena_memory.core.references import can_be_referenced
from serena_memory.transfer import markdown as md
from serena_memory.transfer import okf_concept as C
from serena_memory.transfer.linking import render
from serena_memory.transfer.plan import ImportPlan
from serena_memory.transfer.sources import Progress, Reach, SourceError, SourceFolder


def plan_okf(
    path: str | Path, topic: str = "", progress: Progress | None = None, reach: Reach | None = None
) -> ImportPlan:
    folder = SourceFolder(Path(path).expanduser(), progress, reach)
    plan = ImportPlan("okf", str(folder.given))
    files = [f for f in folder.walk((".md",)) if f.name.lower() not in C.RESERVED]
    if not files:
        raise SourceError(f"no OKF concepts (*.md besides index.md and log.md) in {folder.given}")
    texts = {folder.rel(f): folder.read(f) for f in files}
    names = {rel: _name(rel, text, topic) for rel, text in texts.items()}
    for rel, text in texts.items():
        keys = C.split_front_matter(text)[0]
        if not str(keys.get("type") or "").strip():
            plan.warn(
                f"{rel} has no front matter with a type (no OKF concept); imported as written"
            )
        memory, _ = C.memory_text(text, rel, names)
        if keys.get(C.MARK) is None:
            memory = _with_references(memory, rel, names, plan)
        name = plan.free_name(names[rel])  # as written: no line end added (a round trip)
        plan.memories[name] = memory
        plan.origins[name] = rel
    return plan


def _name(rel: str, text: str, topic: str) -> str:
    """The memory a concept becomes: the name our mark gives it, else its path (``.md``
    dropped), below the topic."""
    keys = C.split_front_matter(text)[0]
    mark = keys.get(C.MARK)
    given = mark.get("name") if isinstance(mark, dict) else None
    name = given if isinstance(given, str) and given.strip() else rel[: -len(".md")]
    return f"{topic}/{name}" if topic else name


def _with_references(text: str, rel: str, names: dict[str, str], plan: ImportPlan) -> str:
    """A foreign concept's links to concepts of the bundle, each followed by its reference;
    a link that leaves the bundle is left as text and noted."""

    def resolve(line: str) -> list[str]:
        found = []
        for target in md.links(line):
            joined = C.bundle_target(rel, target)
            if joined is not None and joined in names and can_be_referenced(names[joined]):
                found.append(names[joined])
            elif joined is None and _leaves(rel, target):
                plan.warn(f"{rel}: the link {target!r} leads outside the bundle; left as text")
        return found

    _, block, body = C.split_front_matter(text)
    return block + render(body, resolve)


def _leaves(rel: str, target: str) -> bool:
    """Whether a link is a path out of the bundle (not a web address or an anchor)."""
    plain = target.split("#", 1)[0]
    if not plain or ":" in plain:
        return False
    base = "" if plain.startswith("/") else posixpath.dirname(rel)
    return posixpath.normpath(posixpath.join(base, plain.lstrip("/"))).startswith(
        ".."
    ) or plain.startswith("~")
