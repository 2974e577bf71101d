"""`serena setup CLIENT`: register this install's MCP server with a coding agent's client."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from serena_memory.cli.common import OneOf

if TYPE_CHECKING:  # the setup code loads only when the command runs
    from serena_memory.setup.clients import Client, HttpServer, ServerCommand

CLIENT_KEYS = ("claude-code", "claude-desktop", "cursor", "codex", "vscode")


@click.command()
@click.argument("client", metavar="CLIENT", type=OneOf(CLIENT_KEYS))
@click.option(
    "--project",
    "-p",
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Serve this project folder. Claude Code, Cursor and VS Code then get the entry in "
    "the project's own file (.mcp.json, .cursor/mcp.json, .vscode/mcp.json), written for "
    "every clone: `serena` from the PATH, the project found where the client starts. The "
    "others get it in their user file, tied to this folder (with a warning).",
)
@click.option(
    "--url",
    default=None,
    metavar="URL",
    help="Connect to a server started with --transport streamable-http at URL (such as "
    "http://127.0.0.1:8000/mcp) instead of starting one. The entry carries the header "
    "'Authorization: Bearer TOKEN' with the token that server requires ($SERENA_MCP_TOKEN, "
    "else the one kept in $SERENA_HOME/mcp-token, created if needed) and goes into the "
    "user's file, made readable by its owner only.",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="With --url: a server started with --no-auth; the entry carries no token.",
)
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help="Print the entry instead of writing it, to paste by hand.",
)
def setup(
    client: str, project: Path | None, url: str | None, no_auth: bool, print_only: bool
) -> None:
    """Add serena-memory to CLIENT's MCP servers, keeping every other server.

    CLIENT is claude-code, claude-desktop, cursor, codex or vscode.

    The file as it was before the first setup is kept next to it with a .bak suffix; an
    entry that is already right changes nothing; a file that is not valid JSON (JSON with
    comments for VS Code) or TOML is refused untouched. SERENA_HOME, when set, is passed
    on to the server.
    """
    from serena_memory.setup.clients import CLIENTS, render_entry, setup_client, setup_warnings

    chosen = CLIENTS[client]
    root = project.resolve() if project is not None else None
    server = _server(chosen, root, url, no_auth)

    def warn() -> None:
        for warning in setup_warnings(chosen, server, root):
            click.echo(f"Warning: {warning}.", err=True)

    if print_only:
        warn()
        click.echo(f"# {chosen.config_file(root)}")
        click.echo(render_entry(chosen, server), nl=False)
        return
    result = setup_client(chosen, server, root, before_write=warn)
    if result.unchanged:
        click.echo(
            f"The serena-memory server in {result.path} is already set up for "
            f"{chosen.label}; nothing was changed."
        )
        return
    verb = "Updated" if result.replaced else "Added"
    click.echo(f"{verb} the serena-memory server in {result.path} for {chosen.label}.")
    if result.backup is not None:
        click.echo(f"The file as it was before the first setup is kept as {result.backup}.")
    if root is not None and chosen.key == "claude-code":
        click.echo(
            "Claude Code asks once, in this project, whether to use the servers of "
            ".mcp.json: approve serena-memory there."
        )
    click.echo(f"Restart {chosen.label} (or reload its MCP servers) to use it.")


def _server(
    chosen: Client, root: Path | None, url: str | None, no_auth: bool
) -> ServerCommand | HttpServer:
    """What the entry starts or connects to: the HTTP server at ``url``, the command every
    clone of the project runs, or this install's command."""
    from serena_memory.setup.clients import HttpServer, ServerCommand

    if url is not None:
        from serena_memory.setup.http_token import server_token

        return HttpServer.checked(url, None if no_auth else server_token().value)
    if no_auth:
        raise click.UsageError("--no-auth goes with --url")
    if root is not None and chosen.project_file is not None:
        return ServerCommand.for_every_clone(chosen)
    return ServerCommand.for_this_install(root, chosen)
