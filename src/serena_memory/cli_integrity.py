"""Integrity commands (check, auto-prefix-references, backlinks, graph)."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Attach the integrity commands to the `memories` group."""
