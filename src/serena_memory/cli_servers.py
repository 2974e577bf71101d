"""Long-running commands: the MCP server and the dashboard."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Attach `start-mcp-server` and `dashboard` to the top-level group."""
    from serena_memory.dashboard import cli as dashboard_cli

    dashboard_cli.register(group)
