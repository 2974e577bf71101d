"""Long-running commands: the MCP server (and, next to it, the dashboard).

Nothing heavy is imported at module level: the MCP SDK, starlette and uvicorn are loaded
inside the command that needs them, so `serena memories ...` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from serena_memory.agent import tools as T
from serena_memory.agent.contexts import DEFAULT_CONTEXT
from serena_memory.cli.common import OneOf, WholeNumber, background_stopped, say, tell_project
from serena_memory.core import background, operation

if TYPE_CHECKING:  # the MCP stack loads only when the server starts
    from mcp.server.lowlevel import Server

    from serena_memory.mcp.state import ServerState
    from serena_memory.setup.http_token import Token

TRANSPORTS = ("stdio", "streamable-http")
PORT = WholeNumber(0, 65535)


def no_effect_here(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """Serena's options for its code tools, in a client entry written for serena-agent:
    accepted, and said once to have no effect on memories (stdout may be the transport)."""
    if value is not None:
        click.echo(f"Note: {param.opts[0]} is serena-agent's and has no effect here.", err=True)


@click.command(name="start-mcp-server")
@click.option(
    "--project",
    "-p",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The project folder (default: found from the current folder, as git finds a "
    "repository). Without this option the agent can also switch projects with the "
    f"{T.ACTIVATE_PROJECT} tool.",
)
@click.option(
    "--project-from-cwd",
    is_flag=True,
    help="Find the project from the current folder: the nearest folder upward holding "
    ".serena/, else the top of the git work tree, else the current folder. For clients "
    "that start servers in the project's folder.",
)
@click.option(
    "--mode",
    "modes",
    multiple=True,
    metavar="NAME",
    help="A mode on top of base_modes, in place of default_modes (repeatable): "
    "no-memories, no-onboarding, onboarding, one of Serena's mode names (no effect on "
    "memories), or a mode file $SERENA_HOME/modes/NAME.yml.",
)
@click.option(
    "--add-mode",
    "added_modes",
    multiple=True,
    metavar="NAME",
    help="A mode added to all the others (repeatable), as the project's added_modes.",
)
@click.option(
    "--context",
    metavar="NAME",
    default=DEFAULT_CONTEXT,
    show_default=True,
    help="The kind of client: coding (Claude Code, Codex, Cursor, VS Code, Gemini CLI: "
    "it has file tools of its own, so only the memory and onboarding tools are offered) "
    "or desktop (Claude Desktop: the read-only file tools list_dir, find_file, "
    "search_for_pattern and read_file too). `serena setup CLIENT` writes the one that fits. "
    "Serena's context names work too (claude-code, codex, ide, vscode, ...: coding; "
    "desktop-app, chatgpt, agent: desktop).",
)
@click.option(
    "--transport",
    type=OneOf(TRANSPORTS),
    default="stdio",
    show_default=True,
    help="stdio for a client that starts the server; streamable-http to serve a URL.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for streamable-http.")
@click.option(
    "--port", type=PORT, default=8000, show_default=True, help="Port for streamable-http."
)
@click.option(
    "--dashboard/--no-dashboard",
    default=True,
    show_default=True,
    help="Serve the memories dashboard next to the server (its URL goes to stderr).",
)
@click.option(
    "--dashboard-port",
    type=PORT,
    default=None,
    help="Port of the dashboard (default: 24282 or the next free one).",
)
@click.option("--open-browser", is_flag=True, help="Open the dashboard in a web browser.")
@click.option("--project-file", "project_file", hidden=True, default=None)
@click.argument("project_arg", required=False, default=None, metavar="")
@click.option("--enable-web-dashboard", "serena_dashboard", type=bool, hidden=True)
@click.option("--open-web-dashboard", "serena_open", type=bool, hidden=True)
@click.option("--language-backend", callback=no_effect_here, expose_value=False, hidden=True)
@click.option("--agent-interface", callback=no_effect_here, expose_value=False, hidden=True)
@click.option("--enable-gui-log-window", callback=no_effect_here, expose_value=False, hidden=True)
@click.option("--log-level", callback=no_effect_here, expose_value=False, hidden=True)
@click.option("--trace-lsp-communication", callback=no_effect_here, expose_value=False, hidden=True)
@click.option("--tool-timeout", callback=no_effect_here, expose_value=False, hidden=True)
@click.option(
    "--rotate-token",
    is_flag=True,
    help="streamable-http: replace the stored token ($SERENA_HOME/mcp-token) with a new "
    "random one; clients set up with the old one must be set up again.",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="streamable-http: answer requests without the token. Any process or account on "
    "this machine can then use the server.",
)
def start_mcp_server(
    project: Path | None,
    project_from_cwd: bool,
    modes: tuple[str, ...],
    added_modes: tuple[str, ...],
    context: str,
    transport: str,
    host: str,
    port: int,
    dashboard: bool,
    dashboard_port: int | None,
    open_browser: bool,
    rotate_token: bool,
    no_auth: bool,
    **serena_agent: Any,
) -> None:
    """Start the MCP server that gives an agent its memories.

    Register it with an MCP client as the command `serena start-mcp-server` (stdio), or
    start it with --transport streamable-http and give the client the URL
    http://HOST:PORT/mcp and the header `Authorization: Bearer TOKEN` it prints (the token
    is $SERENA_MCP_TOKEN, else the one kept in $SERENA_HOME/mcp-token, created once);
    `serena setup CLIENT --url URL` writes both into CLIENT's configuration. An entry
    written for serena-agent works unchanged (docs/mcp.md, "Beside serena-agent").
    """
    from serena_memory.mcp.state import create_state

    project, dashboard, open_browser = _as_serena_agent_meant(
        project, dashboard, open_browser, **serena_agent
    )
    if project is not None and project_from_cwd:
        raise click.UsageError("give either --project or --project-from-cwd, not both")
    if no_auth and rotate_token:
        raise click.UsageError("give either --no-auth or --rotate-token, not both")
    state = create_state(project, modes, context=context, added_modes=added_modes)
    token = None
    if transport != "stdio":
        check_port_free(host, port)  # a start that fails says only why
        token = None if no_auth else _http_token(state.home, rotate_token)
    if state.choice is not None:
        tell_project(state.choice, state.home)
    from serena_memory.mcp import server as mcp_server

    server = mcp_server.build_server(state)
    with background_stopped():  # whenever the client hangs up, nothing is left running
        # Services started next to the server (the dashboard) hook in here, sharing `state`.
        auto = start_auto_sync(state)
        state.prepare_search_in_background()
        if dashboard:
            start_side_services(state, port=dashboard_port, open_browser=open_browser)
        try:
            if transport == "stdio":
                with operation.outside():  # each request opens its own operation
                    mcp_server.run_stdio(server)
                return
            _serve_http(server, host, port, token)
        finally:
            if auto is not None:
                auto.finish()  # writes not pushed yet are pushed before the server ends


def _as_serena_agent_meant(
    project: Path | None,
    dashboard: bool,
    open_browser: bool,
    *,
    project_file: str | None,
    project_arg: str | None,
    serena_dashboard: bool | None,
    serena_open: bool | None,
) -> tuple[Path | None, bool, bool]:
    """The project, dashboard and browser options, with serena-agent's spellings of them
    (a project as the last argument or --project-file, --enable-web-dashboard BOOL,
    --open-web-dashboard BOOL) taken as ours."""
    given = [p for p in (project, project_file, project_arg) if p is not None]
    if len({str(p) for p in given}) > 1:
        raise click.UsageError("give the project folder once (--project)")
    dashboard = dashboard if serena_dashboard is None else serena_dashboard
    return (Path(given[0]) if given else None), dashboard, open_browser or bool(serena_open)


def _http_token(home: Path | None, rotate: bool) -> Token:
    """The bearer token HTTP clients must send (see `setup.http_token.server_token`)."""
    from serena_memory.setup.http_token import server_token

    return server_token(home, rotate=rotate)


def _serve_http(server: Server[Any], host: str, port: int, token: Token | None) -> None:
    """Serve over streamable HTTP, after saying where and how clients authenticate."""
    from serena_memory.mcp import server as mcp_server

    url = f"http://{host_for_url(host)}:{port}/mcp"
    click.echo(f"Serving MCP over streamable HTTP at {url}", err=True)
    if token is None:
        click.echo(
            "Warning: --no-auth: any process or account on this machine can use this "
            "server (read files, switch its project, write memories).",
            err=True,
        )
    else:
        click.echo(token.header, err=True)
        click.echo(
            f"Clients send that header with every request (token from {token.source}; "
            f"serena setup CLIENT --url {url} writes both).",
            err=True,
        )
    with operation.outside():  # each request opens its own operation
        mcp_server.serve_http(server, host, port, None if token is None else token.value)


def host_for_url(host: str) -> str:
    """``::1`` -> ``[::1]``: the form a URL uses."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def start_auto_sync(state):
    """With `memory_sync: auto`: pull now, push after the agent's writes, in the
    background (sync/auto.py)."""
    from serena_memory.sync.auto import start_auto_sync as start

    auto = start(lambda: state.store)
    if auto is not None:
        state.after_write = auto.changed
        click.echo("Syncing memories automatically (memory_sync: auto).", err=True)
    return auto


def check_port_free(host: str, port: int) -> None:
    """Fail with one clear line, before anything starts, when the address is taken."""
    import socket

    from serena_memory.core.errors import MemoryStoreError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise MemoryStoreError(f"can't listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        if sys.platform != "win32":  # there it would let a second server take the port
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise MemoryStoreError(
                f"can't listen on {host}:{port}: {exc.strerror or exc}; "
                "is another server running there? Choose another --port"
            ) from None


def start_side_services(state: ServerState, *, port: int | None, open_browser: bool) -> None:
    """Start the dashboard next to the MCP server, on loopback, following the project the
    agent activates.

    It starts in a thread of its own so the web stack loads while the MCP server answers
    its first requests, and it reports only on stderr: stdout belongs to the stdio
    transport. A dashboard that can't start costs a warning, never the MCP server.
    """
    if not state.enabled(T.READ_MEMORY.name):
        return  # no-memories mode: there is nothing to show

    def project_root() -> Path | None:
        store = state.store
        return store.layout.project_root if store is not None else None

    def run() -> None:
        from serena_memory.core.errors import describe
        from serena_memory.dashboard import start_dashboard_in_background

        try:
            url = start_dashboard_in_background(
                project_root,
                home=state.home,
                port=port,
                open_browser=open_browser,
            )
        except Exception as exc:  # noqa: BLE001 - the MCP server must keep running
            say(f"Dashboard not started: {describe(exc)}", err=True)
            return
        click.echo(f"Memories dashboard: {url}", err=True)

    background.start(run, name="serena-dashboard")
