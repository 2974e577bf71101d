"""Running the dashboard: bind a socket, serve with uvicorn in the foreground or a thread.

The socket is bound before the app is built, so the app knows the real port (port 0 or a
fallback) for its Host check and the printed URL is always the one that works.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
import webbrowser
from pathlib import Path

from serena_memory.core import background
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.process import PROCESS
from serena_memory.dashboard.app import ProjectSource, create_app
from serena_memory.dashboard.security import (
    allowed_host_headers,
    host_for_url,
    is_loopback,
    is_wildcard,
    new_token,
)
from serena_memory.serving import uvicorn_config

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 24282
PORT_ATTEMPTS = 20


def bind_socket(host: str, port: int | None) -> socket.socket:
    """Bind ``host:port``. ``None``: the default port, or the next free one after it;
    ``0``: any free port; any other number: exactly that one."""
    candidates = range(DEFAULT_PORT, DEFAULT_PORT + PORT_ATTEMPTS) if port is None else [port]
    bare = host.strip("[]")
    try:
        infos = socket.getaddrinfo(bare, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise MemoryStoreError(f"can't bind the dashboard to {host!r}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    last: OSError | None = None
    for candidate in candidates:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((address[0], candidate, *address[2:]))
            sock.listen(128)
            sock.setblocking(False)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
            if exc.errno != errno.EADDRINUSE:
                break
    where = f"port {port}" if port is not None else f"ports {DEFAULT_PORT}-{candidate}"
    reason = last.strerror if last else "unknown error"
    raise MemoryStoreError(
        f"can't start the dashboard on {host} ({where}): {reason}; choose another with --port"
    )


class DashboardServer:
    """One dashboard: a bound socket, a token and a uvicorn server around the app."""

    def __init__(
        self,
        project: ProjectSource,
        *,
        home: str | Path | None = None,
        host: str = DEFAULT_HOST,
        port: int | None = None,
        token: str | None = None,
    ) -> None:
        import uvicorn

        self.host = host
        self.token = token or new_token()
        self.socket = bind_socket(host, port)
        self.port: int = self.socket.getsockname()[1]
        self.app = create_app(
            project,
            home=home,
            token=self.token,
            allowed_hosts=allowed_host_headers(host, self.port),
        )
        config = uvicorn_config(  # bounded against idle and half-sent connections
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            server_header=False,
        )
        self.server = uvicorn.Server(config)
        self.thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        shown = "127.0.0.1" if is_wildcard(self.host) else host_for_url(self.host)
        return f"http://{shown}:{self.port}"

    @property
    def url(self) -> str:
        """The URL to open: it carries the token once; the page keeps it in its own origin's
        storage and takes it out of the address bar."""
        return f"{self.base_url}/?token={self.token}"

    @property
    def exposed(self) -> bool:
        return not is_loopback(self.host)

    def serve_forever(self) -> None:
        """Serve in the calling thread until Ctrl+C."""
        self.server.run(sockets=[self.socket])

    def start(self) -> str:
        """Serve in a daemon thread; returns the URL once the server accepts requests."""
        self.thread = background.start(
            lambda: asyncio.run(self.server.serve(sockets=[self.socket])),
            name=f"serena-dashboard-{self.port}",
        )
        while not self.server.started:
            if not self.thread.is_alive():
                raise MemoryStoreError("the dashboard server stopped while starting")
            self.thread.join(0.01)
        return self.url

    def exit_soon(self) -> None:
        """Ask the serving thread to end (uvicorn's documented flag); it ends within a tenth
        of a second once no request is under way."""
        self.server.should_exit = True

    def stop(self) -> None:
        self.exit_soon()
        if self.thread is not None:
            self.thread.join(10)
        self.socket.close()


class _Started(list[DashboardServer]):
    """The dashboards this process started in the background."""


def start_dashboard_in_background(
    project_root: ProjectSource,
    home: str | Path | None = None,
    host: str = DEFAULT_HOST,
    port: int | None = None,
    open_browser: bool = False,
) -> str:
    """Start a dashboard next to another server (the MCP server) and return its URL.

    ``project_root`` may be a callable returning the current project (or None before one
    is activated), so the dashboard follows project switches. Nothing is printed: a stdio
    MCP server owns stdout, so the caller decides where the URL goes (stderr, a log).
    """
    server = DashboardServer(project_root, home=home, host=host, port=port)
    url = server.start()
    PROCESS.owned(_Started).append(server)
    background.on_stop(server.exit_soon)  # when the other server ends
    if open_browser:
        open_in_browser(url)
    return url


def open_in_browser(url: str) -> None:
    """Open the URL without blocking (some browsers block the caller until they exit)."""
    background.start(webbrowser.open, url, name="open-browser")


def stop_background_dashboards() -> None:
    """Stop every dashboard started by :func:`start_dashboard_in_background`."""
    started = PROCESS.owned(_Started)
    while started:
        started.pop().stop()
