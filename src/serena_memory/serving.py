"""Serving HTTP with uvicorn when any local process may open connections.

Any process of any account can connect to a loopback port. Without bounds, a process
that opens a thousand connections and sends half a request line on each holds a file
descriptor per connection for as long as it likes: uvicorn's keep-alive timeout runs only
between requests, and h11 has no timeout of its own for a request's headers, so the
server soon can't accept anyone ("Too many open files"), token or not.

Two bounds keep an authenticated client answered whatever such a process does:

- a connection reaches uvicorn only once its request's headers are complete. Until
  then it waits here, at most ``HEADER_SECONDS``, and at most a fixed number of
  connections wait per server (a share of the open-files limit): past it, the
  connection that has waited longest is closed, so waiting connections can't use up
  the process's descriptors;
- each connection serves one request (every response says ``Connection: close``), so
  no connection goes back to waiting for headers once it is past this gate.

Everything else is uvicorn's own documented settings: ``limit_concurrency`` answers 503
past a number of connections in a request, ``h11_max_incomplete_event_size`` bounds the
size of the headers, ``backlog`` the connections not yet accepted (and how many are
accepted at once).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Message]], Send], Awaitable[None]
]

HEADER_SECONDS = 10.0
HEADER_BYTES = 64 * 1024  # headers past this size go to h11, which refuses them
END_OF_HEADERS = re.compile(rb"\n\r?\n")  # the blank line that ends them, as h11 finds it


def open_files_limit() -> int:
    """The process's soft limit on open files (descriptors); 512, Windows' default for
    the C runtime, where there is no such limit to read."""
    try:
        import resource
    except ImportError:  # Windows
        return 512
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 16


def waiting_bound() -> int:
    """How many connections may wait for their headers at once, per server: an eighth of
    the open-files limit (two servers share a process), between 16 and 128."""
    return max(16, min(128, open_files_limit() // 8))


def concurrency_bound() -> int:
    """uvicorn's ``limit_concurrency``: a quarter of the open-files limit, at least 32."""
    return max(32, open_files_limit() // 4)


def uvicorn_config(app: ASGIApp, **settings: Any) -> Any:
    """A ``uvicorn.Config`` serving ``app`` behind the bounds above."""
    import uvicorn

    return uvicorn.Config(
        OneRequestPerConnection(app),
        http=header_gate(),
        limit_concurrency=concurrency_bound(),
        # also how many connections asyncio accepts in one go, before any protocol
        # (and so the gate) sees one: it bounds the burst past the waiting bound
        backlog=waiting_bound(),
        h11_max_incomplete_event_size=HEADER_BYTES,
        **settings,
    )


class OneRequestPerConnection:
    """ASGI middleware: every response carries ``Connection: close``, after which uvicorn
    closes the connection (its h11 protocol honours the header)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"
                ]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive, closing)


def header_gate() -> type[asyncio.Protocol]:
    """An ``http=`` protocol class for one uvicorn server: each server gets its own, so
    each has its own count of waiting connections."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: dict[HeaderGate, None] = {}  # insertion order: the longest waiting first

    class Gate(HeaderGate):
        inner_class = H11Protocol
        queue = waiting

    return Gate


class HeaderGate(asyncio.Protocol):
    """Holds a new connection until its request's headers are complete, then hands the
    connection and what it received to uvicorn's protocol (``inner_class``).

    uvicorn builds it as it builds its own protocols, with keyword arguments it passes on
    unchanged; it then sees only the asyncio protocol calls of a connection whose headers
    arrived. Where uvicorn falls short (no bound on the time a request's headers take),
    this class answers by closing the connection.
    """

    inner_class: Callable[..., asyncio.Protocol]
    queue: dict[HeaderGate, None]

    def __init__(self, **settings: Any) -> None:
        self.settings = settings
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.received = bytearray()
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        while len(self.queue) >= waiting_bound():
            oldest = next(iter(self.queue))
            oldest.give_up()
        self.queue[self] = None
        self.timer = asyncio.get_running_loop().call_later(HEADER_SECONDS, self.give_up)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)
            return
        start = max(0, len(self.received) - 2)  # the blank line may straddle two reads
        self.received += data
        if END_OF_HEADERS.search(self.received, start) or len(self.received) > HEADER_BYTES:
            self._hand_over()

    def _hand_over(self) -> None:
        self._stop_waiting()
        assert self.transport is not None
        self.inner = self.inner_class(**self.settings)
        self.inner.connection_made(self.transport)
        received, self.received = bytes(self.received), bytearray()
        self.inner.data_received(received)

    def give_up(self) -> None:
        """Close a connection whose headers didn't come in time, or that waited longest
        when too many wait."""
        self._stop_waiting()
        if self.transport is not None:
            self.transport.abort()  # nothing to say to a client that sent no request

    def _stop_waiting(self) -> None:
        self.queue.pop(self, None)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        if self.inner is not None:
            self.inner.connection_lost(exc)

    def eof_received(self) -> bool | None:
        if self.inner is not None:
            return self.inner.eof_received()
        return None  # the transport closes itself

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()
