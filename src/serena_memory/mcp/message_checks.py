"""Every incoming message checked before the SDK sees it, so a malformed one is answered.

The SDK's transports drop some malformed messages without an answer, which leaves a
client waiting forever: over stdio an unparsable line, a batch, a bare value, an id that
is null, fractional or boolean (read as a notification), a lone surrogate escape or
nesting deeper than its JSON parser allows; over streamable HTTP such bodies get -32602
with a pydantic dump. This module answers each with the JSON-RPC error the specification
names (-32700 parse error, -32600 invalid request, -32602 invalid params) and hands every
well-formed message on unchanged: the SDK answers those, never this module.

It wraps the SDK's documented streams and nothing else: over stdio it is the `stdin`
that `stdio_server` reads lines from, over HTTP a plain ASGI wrapper around the SDK's
Starlette app. Nothing here decodes a message with replacement characters: invalid UTF-8
is a parse error, never text written into a memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

# The SDK's JSON parser (pydantic-core) refuses more than 200 levels; deeper messages are
# refused here, where their id can still be read.
MAX_DEPTH = 200
# The SDK's own limit for a request body over streamable HTTP; stdio lines get the same.
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
LARGE_MESSAGE_BYTES = 64 * 1024

# `\uD800`-`\uDFFF` in a JSON line: a surrogate escape, alone or in a valid pair.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


@dataclass(frozen=True)
class Verdict:
    """What to do with one incoming message: hand it on, answer it, or drop it quietly
    (a malformed notification, which JSON-RPC never answers)."""

    answer: dict[str, Any] | None = None
    drop: bool = False

    @property
    def passes(self) -> bool:
        return self.answer is None and not self.drop


PASS = Verdict()
DROP = Verdict(drop=True)


def error_answer(request_id: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _refuse(code: int, message: str, request_id: object = None) -> Verdict:
    return Verdict(answer=error_answer(request_id, code, message))


def _plain_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _too_deep(message: object) -> bool:
    """Nesting deeper than MAX_DEPTH, walked without recursion."""
    stack: list[tuple[object, int]] = [(message, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items if isinstance(item, dict | list))
    return False


def _not_text(message: object) -> bool:
    """Some string (key or value) holds a lone surrogate, which is no Unicode text."""
    stack = [message]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


TOO_LARGE = _refuse(
    INVALID_REQUEST,
    f"the message is larger than {MAX_MESSAGE_BYTES // (1024 * 1024)} MB; send less at once",
)


@dataclass
class _Incoming:
    """One parsed message (any JSON value) with the figures the checks below ask about."""

    raw: bytes
    message: Any

    @property
    def has_id(self) -> bool:
        return "id" in self.message

    @property
    def answer_id(self) -> object:
        """The id an answer carries: the sender's, or null when it sent none."""
        return self.message.get("id") if self.has_id else None

    @property
    def is_response(self) -> bool:
        return "result" in self.message or "error" in self.message

    @cached_property
    def deep(self) -> bool:
        raw = self.raw
        return raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _too_deep(self.message)

    @cached_property
    def unreadable(self) -> bool:
        return _SURROGATE_ESCAPE.search(self.raw) is not None and _not_text(self.message)


def _well_formed_response(m: _Incoming) -> bool:
    """An answer to one of the server's requests: an id and a result object or a
    well-formed error (a whole-number code and a message)."""
    message = m.message
    if not m.has_id or ("result" in message) == ("error" in message) or m.deep or m.unreadable:
        return False
    error = message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return isinstance(message.get("result"), dict) or (
        isinstance(error, dict)
        and isinstance(code, int)
        and not isinstance(code, bool)
        and isinstance(error.get("message"), str)
    )


# How a refusal is addressed.
def _to_nobody(m: _Incoming, code: int, text: str) -> Verdict:
    return _refuse(code, text)


def _to_sender(m: _Incoming, code: int, text: str) -> Verdict:
    return _refuse(code, text, m.answer_id)


def _to_requester(m: _Incoming, code: int, text: str) -> Verdict:
    """A malformed response carries one of the server's ids, which the client never used."""
    return _refuse(code, text, None if m.is_response else m.answer_id)


def _params_problem(m: _Incoming, code: int, text: str) -> Verdict:
    """A notification is dropped; an id that is no text itself cannot be answered to."""
    if not m.has_id:
        return DROP
    if m.unreadable and _not_text(m.answer_id):
        return _refuse(PARSE_ERROR, text)
    return _refuse(code, text, m.answer_id)


@dataclass(frozen=True)
class _Check:
    """A message for which `refuses` holds gets the error `code` and `text`, addressed
    by `answer`."""

    refuses: Callable[[_Incoming], bool]
    code: int
    text: str
    answer: Callable[[_Incoming, int, str], Verdict] = _to_sender


_ENVELOPE = (
    _Check(
        lambda m: isinstance(m.message, list),
        INVALID_REQUEST,
        "batches are not supported; send one message at a time",
        _to_nobody,
    ),
    _Check(
        lambda m: not isinstance(m.message, dict),
        INVALID_REQUEST,
        "a message must be a JSON object",
        _to_nobody,
    ),
    _Check(
        lambda m: m.has_id and not _plain_id(m.message["id"]),
        INVALID_REQUEST,
        "the id must be a string or a whole number",
        _to_nobody,
    ),
    _Check(
        lambda m: m.message.get("jsonrpc") != "2.0",
        INVALID_REQUEST,
        'the message must have "jsonrpc": "2.0"',
    ),
)
_REQUEST = (
    _Check(
        lambda m: not isinstance(m.message["method"], str),
        INVALID_REQUEST,
        "the method must be a string",
    ),
    _Check(
        lambda m: m.is_response,
        INVALID_REQUEST,
        "a message is a request or a response, never both",
    ),
    _Check(
        lambda m: m.message.get("params") is not None and not isinstance(m.message["params"], dict),
        INVALID_PARAMS,
        "params must be a JSON object",
        _params_problem,
    ),
    _Check(
        lambda m: m.deep,
        INVALID_PARAMS,
        f"params are nested more than {MAX_DEPTH} levels deep",
        _params_problem,
    ),
    _Check(
        lambda m: m.unreadable,
        INVALID_PARAMS,
        "the message holds a lone UTF-16 surrogate escape (such as \\ud800), "
        "which is not text; send valid Unicode",
        _params_problem,
    ),
)
# Not a request or notification: it must be a response to one of the server's requests.
_RESPONSE = (
    _Check(
        lambda m: not _well_formed_response(m),
        INVALID_REQUEST,
        "a message must be a request (with a method) or a response (with a result or an error)",
        _to_requester,
    ),
)


def _parse(raw: bytes) -> Any:
    """The JSON value of a message, or the verdict on one that is no JSON at all."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return TOO_LARGE
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _refuse(PARSE_ERROR, f"parse error: the message is not valid UTF-8 ({exc.reason})")
    try:
        return json.loads(text)
    except RecursionError:
        return _refuse(INVALID_REQUEST, f"the message is nested more than {MAX_DEPTH} levels deep")
    except ValueError as exc:
        return _refuse(PARSE_ERROR, f"parse error: the message is not valid JSON ({exc})")


def check_message(raw: bytes) -> Verdict:
    """Judge one JSON-RPC message as received (a stdio line or an HTTP body): the first
    check of the tables above that refuses it answers."""
    parsed = _parse(raw)
    if isinstance(parsed, Verdict):
        return parsed
    incoming = _Incoming(raw, parsed)
    for check in _ENVELOPE:
        if check.refuses(incoming):
            return check.answer(incoming, check.code, check.text)
    for check in _REQUEST if "method" in parsed else _RESPONSE:
        if check.refuses(incoming):
            return check.answer(incoming, check.code, check.text)
    return PASS


# -- stdio -----------------------------------------------------------------------------------
class CheckedLines:
    """The lines of stdin that the SDK's `stdio_server(stdin=...)` reads, minus the malformed
    ones, which are answered through the SDK's own write stream (so answers never
    interleave on stdout)."""

    def __init__(self, binary_stdin: Any) -> None:
        import anyio

        self._stdin = binary_stdin
        self._answers: Any = None
        self._ready = anyio.Event()

    def answer_through(self, write_stream: Any) -> None:
        """Where error answers go: the write stream `stdio_server` yields."""
        self._answers = write_stream
        self._ready.set()

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        import anyio.to_thread

        while True:
            raw = await self._readline(MAX_MESSAGE_BYTES + 1)
            if not raw:
                raise StopAsyncIteration
            if len(raw) > MAX_MESSAGE_BYTES:
                if not raw.endswith(b"\n"):
                    await self._skip_rest_of_line()
                verdict = TOO_LARGE
            elif not raw.strip():
                continue
            elif len(raw) < LARGE_MESSAGE_BYTES:
                verdict = check_message(raw.rstrip(b"\r\n"))
            else:  # parsing megabytes takes a while: off the event loop
                verdict = await anyio.to_thread.run_sync(check_message, raw.rstrip(b"\r\n"))
            if verdict.passes:
                return raw.decode("utf-8")
            if verdict.answer is not None:
                await self._send(verdict.answer)

    async def _readline(self, limit: int) -> bytes:
        """One line, at most `limit` bytes, read in a worker thread (a blocking read).

        A server stopped while its client is still connected (Ctrl+C) does not wait for the
        next line: the read, which nothing can interrupt, is left behind, and the process
        ends without it (core/background.py)."""
        import anyio.to_thread

        line: bytes = await anyio.to_thread.run_sync(
            self._stdin.readline, limit, abandon_on_cancel=True
        )
        return line

    async def _skip_rest_of_line(self) -> None:
        while True:
            chunk = await self._readline(MAX_MESSAGE_BYTES)
            if not chunk or chunk.endswith(b"\n"):
                return

    async def _send(self, answer: dict[str, Any]) -> None:
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        await self._ready.wait()
        message = types.jsonrpc_message_adapter.validate_python(answer)
        await self._answers.send(SessionMessage(message))


# -- streamable HTTP ---------------------------------------------------------------------------
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class CheckedBodies:
    """ASGI wrapper around the SDK's streamable-HTTP app: each POSTed message is checked
    first; a malformed one is answered with status 400 and its JSON-RPC error, a malformed
    notification with 202 and nothing, and every other request reaches the SDK unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        import anyio.to_thread

        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            event = await receive()
            if event["type"] == "http.disconnect":
                return
            chunk = event.get("body", b"")
            size += len(chunk)
            if size <= MAX_MESSAGE_BYTES:
                chunks.append(chunk)
            if not event.get("more_body", False):
                break
        body = b"".join(chunks)
        if size > MAX_MESSAGE_BYTES:
            verdict = TOO_LARGE
        elif size < LARGE_MESSAGE_BYTES:
            verdict = check_message(body)
        else:
            verdict = await anyio.to_thread.run_sync(check_message, body)
        if verdict.answer is not None:
            await _respond(send, 400, json.dumps(verdict.answer).encode())
            return
        if verdict.drop:
            await _respond(send, 202, b"")
            return
        replayed = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _respond(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
