"""The dashboard's gatekeeper: token, Host and Origin checks on every request.

The dashboard writes files on a developer's machine, so a web page the developer happens
to visit must not be able to drive it:
- a random token per run, given once in the printed URL; the page keeps it in its own
  origin's storage and sends it in a header with every API call. No cookie: cookies
  ignore ports, so a cookie for 127.0.0.1 would reach every other server on that address,
  while storage and custom headers stay with the dashboard's own origin (scheme, host and
  port). Only the page shell and its static code, which hold no data, are served without
  the token;
- the Host header must name the address the server is bound to, which defeats DNS
  rebinding (a foreign name resolving to 127.0.0.1);
- a state-changing request must carry the dashboard's own Origin (CSRF).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from urllib.parse import parse_qsl

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# the page shell and its code: no memory, no name, nothing about the project
PUBLIC_PATHS = frozenset({"/", "/favicon.ico"})
PUBLIC_PREFIX = "/static/"
TOKEN_PARAM = "token"
TOKEN_HEADER = "x-serena-token"

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


def new_token() -> str:
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def host_for_url(host: str) -> str:
    """``::1`` -> ``[::1]``: the form a Host header and a URL use."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def allowed_host_headers(host: str, port: int) -> frozenset[str] | None:
    """The Host header values that address this server; None: any (wildcard bind)."""
    if is_wildcard(host):
        return None
    names = {host_for_url(host)}
    if is_loopback(host):
        # the bound literal plus the name "localhost", which no outside DNS can rebind
        names.add("localhost")
        if host.lower() == "localhost":
            names |= {"127.0.0.1", "[::1]"}
    return frozenset(f"{name.lower()}:{port}" for name in names)


class SecurityMiddleware:
    """Pure ASGI middleware so that nothing, static files included, skips the checks."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str,
        allowed_hosts: Iterable[str] | None,
    ) -> None:
        self.app = app
        self.token = token
        self.allowed_hosts = None if allowed_hosts is None else frozenset(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            return
        send = _with_security_headers(send)
        headers = Headers(scope=scope)
        host = headers.get("host", "").lower()
        if self.allowed_hosts is not None and host not in self.allowed_hosts:
            await _plain(send, 421, "Misdirected request: unknown Host header.")
            return
        method = scope["method"].upper()
        if method not in SAFE_METHODS:
            origin = headers.get("origin", "")
            if not host or origin.lower() != f"http://{host}":
                await _plain(send, 403, "Forbidden: cross-origin request refused.")
                return
        path = scope["path"]
        public = method in ("GET", "HEAD") and (
            path in PUBLIC_PATHS or (path.startswith(PUBLIC_PREFIX) and ".." not in path)
        )
        if not public and not (
            self._valid(headers.get(TOKEN_HEADER)) or self._valid(self._query_token(scope))
        ):
            await _plain(
                send,
                401,
                "Unauthorized: open the dashboard with the URL (including ?token=...) "
                "that `serena dashboard` printed.",
            )
            return
        await self.app(scope, receive, send)

    def _valid(self, candidate: str | None) -> bool:
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "replace"), self.token.encode("utf-8"))

    @staticmethod
    def _query_token(scope: Scope) -> str | None:
        """``?token=`` on an API call, for scripts (the page sends the header)."""
        query = scope.get("query_string", b"").decode("latin-1")
        return dict(parse_qsl(query, keep_blank_values=True)).get(TOKEN_PARAM)


def _with_security_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for key, value in SECURITY_HEADERS.items():
                if key not in headers:
                    headers[key] = value
        await send(message)

    return wrapped


async def _plain(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
