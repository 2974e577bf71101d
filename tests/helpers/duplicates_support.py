"""Memory folders for the duplicate check's tests: a memory of a title and lines, and a
folder of such memories checked without the cache."""

from __future__ import annotations

from pathlib import Path

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates.features_cache import check_duplicates
from serena_memory.integrity.duplicates.findings import DuplicateReport


def memory(title: str, *lines: str) -> str:
    """A memory with a title, a line of its own and ``lines``."""
    return f"# {title}\n\nNotes about {title.lower()} kept for later.\n\n" + "\n".join(lines) + "\n"


def checked(tmp_path: Path, memories: dict[str, str]) -> DuplicateReport:
    """The duplicate check of a new project holding ``memories``."""
    project = tmp_path / "project"
    (project / ".serena" / "memories").mkdir(parents=True)
    store = MemoryStore(project)
    for name, text in memories.items():
        store.write(name, text)
    return check_duplicates(store, cache=False)
