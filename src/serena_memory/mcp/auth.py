"""The streamable-HTTP server's gate: every request carries the server's bearer token.

Host and Origin checks keep web pages out, but any process of any account on the machine
can open a connection to a loopback port. Without a credential, such a process could
switch the agent's project, read files through the exploration tools or plant a global
memory that every project's agent then reads. This ASGI wrapper sits in front of the
SDK's app and lets a request through only with ``Authorization: Bearer TOKEN``, compared
in constant time; anything else gets 401 with ``WWW-Authenticate: Bearer`` and one
sentence saying what to send.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

UNAUTHORIZED = (
    b"Unauthorized: send the header 'Authorization: Bearer TOKEN' with the token that "
    b"`serena start-mcp-server` printed (serena setup CLIENT --url URL writes it for you).\n"
)


class BearerAuth:
    """Lets a request reach ``app`` only when it carries ``Authorization: Bearer token``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # the transport has no websockets
            return
        if self._valid(scope):
            await self.app(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(UNAUTHORIZED)).encode()),
                    (b"www-authenticate", b"Bearer"),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": UNAUTHORIZED})

    def _valid(self, scope: Scope) -> bool:
        values = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        if len(values) != 1:  # none, or several that could be read either way
            return False
        scheme, _, credentials = values[0].strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        return hmac.compare_digest(credentials.strip(), self.expected)
