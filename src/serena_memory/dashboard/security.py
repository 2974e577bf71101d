"""The dashboard's gatekeeper: token, Host and Origin checks on every request.

The dashboard writes files on a developer's machine, so a web page the developer happens
to visit must not be able to drive it:
- a random token per run, given once in the printed URL and then kept in an HttpOnly,
  SameSite=Strict cookie (no other site can send or read it);
- the Host header must name the address the server is bound to, which defeats DNS
  rebinding (a foreign name resolving to 127.0.0.1);
- a state-changing request must carry the dashboard's own Origin (CSRF).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, quote, urlencode

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
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


def cookie_name(port: int) -> str:
    # Cookies are not isolated by port: two dashboards on 127.0.0.1 must not share one.
    return f"serena_dashboard_{port}"


class SecurityMiddleware:
    """Pure ASGI middleware so that nothing, static files included, skips the checks."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str,
        port: int,
        allowed_hosts: Iterable[str] | None,
    ) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie_name(port)
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
        query = scope.get("query_string", b"").decode("latin-1")
        params = parse_qsl(query, keep_blank_values=True)
        given = dict(params).get(TOKEN_PARAM)
        if given is not None and self._valid(given):
            if method == "GET" and not scope["path"].startswith("/api/"):
                # Trade the token in the URL for a cookie, then drop it from the address bar
                rest = urlencode([(k, v) for k, v in params if k != TOKEN_PARAM])
                location = quote(scope["path"]) + (f"?{rest}" if rest else "")
                await _redirect_with_cookie(send, location, self._set_cookie())
                return
        elif not (self._valid(headers.get(TOKEN_HEADER)) or self._valid(self._cookie(headers))):
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

    def _cookie(self, headers: Headers) -> str | None:
        raw = headers.get("cookie")
        if not raw:
            return None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(raw)
        except Exception:
            return None
        morsel = jar.get(self.cookie)
        return morsel.value if morsel else None

    def _set_cookie(self) -> str:
        return f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"


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


async def _redirect_with_cookie(send: Send, location: str, cookie: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", location.encode("latin-1")),
                (b"set-cookie", cookie.encode("latin-1")),
                (b"content-length", b"0"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
