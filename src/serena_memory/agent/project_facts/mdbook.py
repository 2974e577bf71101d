"""An mdBook manual (a ``book.toml`` at the root or in one top-level folder): built with
``mdbook build`` and previewed with ``mdbook serve``, in its folder."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project

BOOK = "book.toml"


def read_mdbook(project: Project) -> None:
    """Offer the book's two commands when the project has exactly one book: several (a
    book per language, the examples of mdBook itself) leave the choice to the reader."""
    folders = [""] if project.is_file(BOOK) else []
    folders += [
        name
        for name in project.listing(".")
        if not name.startswith(".") and project.is_file(f"{name}/{BOOK}")
    ]
    if len(folders) != 1:
        return
    prefix = f"cd {folders[0]} && " if folders[0] else ""
    source = f"{folders[0]}/{BOOK}" if folders[0] else BOOK
    project.sheet.add_default("build", f"{prefix}mdbook build", source)
    project.sheet.add_default("run", f"{prefix}mdbook serve", source)
