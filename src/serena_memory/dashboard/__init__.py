"""The web dashboard: browse, edit, rename and check memories in a browser.

This package's top level stays light (the `serena` command imports its CLI hook); the web
stack is imported only when a dashboard actually starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from serena_memory.dashboard.app import ProjectSource


def start_dashboard_in_background(
    project_root: ProjectSource,
    home: str | Path | None = None,
    host: str = "127.0.0.1",
    port: int | None = None,
    open_browser: bool = False,
) -> str:
    """Start the dashboard in a daemon thread and return the URL to open (with its token).

    See :func:`serena_memory.dashboard.server.start_dashboard_in_background`.
    """
    from serena_memory.dashboard.server import start_dashboard_in_background as start

    return start(project_root, home=home, host=host, port=port, open_browser=open_browser)
