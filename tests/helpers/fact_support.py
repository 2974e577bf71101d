"""The fact sheet of a small real tree, written for one test: the helpers every fact test
shares."""

from __future__ import annotations

from pathlib import Path

from serena_memory.agent.project_facts import detect_facts
from serena_memory.agent.project_facts.sheet import FactSheet


def project(root: Path, tree: dict[str, str], *, checkout: bool = False) -> FactSheet:
    """Write ``tree`` (relative path -> text) below ``root`` and detect its facts. With
    ``checkout``, a file that starts with ``#!`` is executable, as git checks it out from
    a repository that keeps it so (the labelled repositories' convention)."""
    for rel, text in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if checkout and text.startswith("#!"):
            path.chmod(0o755)
    return detect_facts(root)


def checked_out(root: Path, tree: dict[str, str]) -> FactSheet:
    """:func:`project` with ``#!`` files executable."""
    return project(root, tree, checkout=True)
