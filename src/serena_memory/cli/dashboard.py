"""`serena dashboard`: the dashboard on its own, in the foreground.

Importing this module stays cheap: the web stack is imported when the command runs.
"""

from __future__ import annotations

from pathlib import Path

import click

from serena_memory.cli.common import (
    PROJECT_ARG,
    PROJECT_OPTION,
    WholeNumber,
    background_stopped,
    open_store,
    say,
)
from serena_memory.core import operation

DEFAULT_PORT = 24282  # mirrored from server.py, which can't be imported here cheaply


@click.command()
@PROJECT_ARG
@PROJECT_OPTION
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Anything but loopback exposes your memories to the network "
    "(still behind the token).",
)
@click.option(
    "--port",
    type=WholeNumber(0, 65535),
    default=None,
    help=f"Port to listen on (default: {DEFAULT_PORT} or the next free one; 0: any free).",
)
@click.option("--open-browser", is_flag=True, help="Open the dashboard in the default browser.")
def dashboard(project: Path | None, host: str, port: int | None, open_browser: bool) -> None:
    """Browse, edit, rename and check the memories of PROJECT in a browser."""
    from serena_memory.dashboard.server import DashboardServer, open_in_browser

    store = open_store(project)  # refuses a missing folder or a broken configuration
    server = DashboardServer(
        store.layout.project_root, home=store.layout.home, host=host, port=port
    )
    if server.exposed:
        click.echo(
            f"Warning: listening on {host}, not loopback: anyone who can reach this machine "
            "and has the token can change your memories.",
            err=True,
        )
    say(f"Serena dashboard for {store.layout.project_root}")
    click.echo(f"Open {server.url}")
    click.echo("Press Ctrl+C to stop.")
    from serena_memory.search import preparing

    with background_stopped():
        if open_browser:
            open_in_browser(server.url)
        preparing.start(store)  # the search box's meaning vectors, made while it answers by words
        with operation.outside():  # each request opens its own operation
            server.serve_forever()
