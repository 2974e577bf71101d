"""The dashboard's Starlette application: static page plus a JSON API over the library.

Every handler is a thin translation between HTTP and :class:`MemoryStore` (and the
integrity module): names, read-only and ignored rules, reference rewriting and checks all
live in the library. The store is a person's (human context) that still honours the
read-only patterns, so what is read-only to the agent is read-only here too. Every failure
is worded by :func:`serena_memory.core.errors.describe`, as in the other front-ends.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from serena_memory.core import operation
from serena_memory.core.changes import Provenance, acting_as
from serena_memory.core.errors import (
    EXPECTED_ERRORS,
    MemoryChangedError,
    describe,
)
from serena_memory.core.secrets import SecretFoundError
from serena_memory.dashboard.api_base import (
    STATIC_DIR,
    ApiError,
    Handler,
    ProjectSource,
    status_for,
)
from serena_memory.dashboard.api_history import HistoryApi
from serena_memory.dashboard.api_integrity import IntegrityApi
from serena_memory.dashboard.api_memories import MemoryApi
from serena_memory.dashboard.api_review import ReviewApi
from serena_memory.dashboard.security import SecurityMiddleware


class DashboardApi(MemoryApi, IntegrityApi, HistoryApi, ReviewApi):
    """The handlers, bound to where the project and the Serena home are."""

    def wrap(self, handler: Handler, *, body: bool = False) -> Callable[[Request], Any]:
        """Parse the JSON body (for mutations), run the handler in a worker thread (the
        store blocks on file locks) and turn library errors into JSON with a status. Each
        request is one operation (core/operation.py); what it must tell (a history that
        could not be recorded, an interrupted rename finished) is in its JSON answer as
        ``notices``, which the page shows."""

        async def endpoint(request: Request) -> Response:
            with operation.operation() as opened:
                response = await answer(request)
            notices = opened.take(operation.DONE) + opened.take(operation.HISTORY)
            return with_notices(response, notices) if notices else response

        async def answer(request: Request) -> Response:
            try:
                data = await self.body(request) if body else {}
                try:
                    result = await run_in_threadpool(self.attributed, handler, request, data)
                finally:
                    if body:  # a change: the next answer must show it
                        self.snapshots.invalidate()
            except ApiError as exc:
                return JSONResponse({"error": str(exc), **exc.extra}, status_code=exc.status)
            except SecretFoundError as exc:  # the page asks the person to confirm
                first = exc.findings[0]
                return JSONResponse(
                    {
                        "error": describe(exc),
                        "secret": True,
                        "line": first.line,
                        "kind": first.kind,
                    },
                    status_code=422,
                )
            except MemoryChangedError as exc:
                return JSONResponse(
                    {
                        "error": describe(exc),
                        "conflict": True,
                        "name": exc.name,
                        "current": exc.current,
                        "current_version": exc.current_version,
                    },
                    status_code=409,
                )
            except EXPECTED_ERRORS as exc:  # disk full, a pattern nested too deeply...
                return JSONResponse({"error": describe(exc)}, status_code=status_for(exc))
            if isinstance(result, Response):
                return result
            return JSONResponse(result)

        return endpoint

    @staticmethod
    def attributed(handler: Handler, request: Request, data: dict[str, Any]) -> Any:
        """Run a handler with its changes attributed, in the history, to the person at the
        dashboard and to what they did (``save-memory``, ``fix-reference``...)."""
        action = getattr(handler, "__name__", "").replace("_", "-")
        with acting_as(Provenance.os_user("dashboard", action)):
            return handler(request, data)

    # -- pages -----------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    async def favicon(self, request: Request) -> Response:
        return Response(status_code=204)

    def routes(self) -> list[Route | Mount]:
        w = self.wrap
        return [
            Route("/", self.index, methods=["GET"]),
            Route("/favicon.ico", self.favicon, methods=["GET"]),
            Route("/api/state", w(self.state), methods=["GET"]),
            Route("/api/memory", w(self.read_memory), methods=["GET"]),
            Route("/api/backlinks", w(self.backlinks), methods=["GET"]),
            Route("/api/memory", w(self.create_memory, body=True), methods=["POST"]),
            Route("/api/memory", w(self.save_memory, body=True), methods=["PUT"]),
            Route("/api/delete", w(self.delete_memory, body=True), methods=["POST"]),
            Route("/api/rename", w(self.rename_memory, body=True), methods=["POST"]),
            Route("/api/render", w(self.render_preview, body=True), methods=["POST"]),
            Route("/api/graph", w(self.graph), methods=["GET"]),
            Route("/api/graph/local", w(self.local_graph), methods=["GET"]),
            Route("/api/graph/topics", w(self.topic_map), methods=["GET"]),
            Route("/api/history", w(self.history), methods=["GET"]),
            Route("/api/history/change", w(self.history_change), methods=["GET"]),
            Route("/api/restore", w(self.restore_memory, body=True), methods=["POST"]),
            Route("/api/proposals", w(self.proposals), methods=["GET"]),
            Route("/api/proposals/accept", w(self.accept_proposal, body=True), methods=["POST"]),
            Route("/api/proposals/reject", w(self.reject_proposal, body=True), methods=["POST"]),
            Route("/api/check", w(self.check), methods=["GET"]),
            Route("/api/search", w(self.search), methods=["GET"]),
            Route("/api/sync-conflict", w(self.sync_conflict), methods=["GET"]),
            Route(
                "/api/sync-conflict/resolve",
                w(self.resolve_sync_conflict, body=True),
                methods=["POST"],
            ),
            Route("/api/fix-reference", w(self.fix_reference, body=True), methods=["POST"]),
            Route("/api/auto-prefix", w(self.auto_prefix, body=True), methods=["POST"]),
            Route(
                "/api/fix-code-reference",
                w(self.fix_code_reference, body=True),
                methods=["POST"],
            ),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ]


def create_app(
    project: ProjectSource,
    *,
    home: Path | str | None,
    token: str,
    allowed_hosts: frozenset[str] | None,
) -> Starlette:
    """The whole dashboard, wrapped in the security checks."""
    api = DashboardApi(project, home)
    app = Starlette(routes=api.routes())
    app.add_middleware(
        SecurityMiddleware,
        token=token,
        allowed_hosts=allowed_hosts,
    )
    app.state.api = api
    return app


def with_notices(response: Response, notices: list[str]) -> Response:
    """A JSON object answer with ``notices`` added (other answers are left as they are:
    a page, a file, an unchanged poll)."""
    if not isinstance(response, JSONResponse):
        return response
    data = json.loads(bytes(response.body))
    if not isinstance(data, dict):
        return response
    data["notices"] = [*data.get("notices", []), *notices]
    fresh = JSONResponse(data, status_code=response.status_code)
    for key, value in response.headers.items():
        if key.lower() not in ("content-length", "content-type"):
            fresh.headers[key] = value
    return fresh
