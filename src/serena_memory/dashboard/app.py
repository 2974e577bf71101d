"""The dashboard's Starlette application: static page plus a JSON API over the library.

Every handler is a thin translation between HTTP and :class:`MemoryStore` (and the
integrity module): names, read-only and ignored rules, reference rewriting and checks all
live in the library. The store is a person's (human context) that still honours the
read-only patterns, so what is read-only to the agent is read-only here too. Every failure
is worded by :func:`serena_memory.core.errors.describe`, as in the other front-ends.
"""

from __future__ import annotations

import hashlib
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

from serena_memory.core import names as N
from serena_memory.core.errors import (
    EXPECTED_ERRORS,
    ConfigError,
    IgnoredMemoryError,
    MemoryChangedError,
    MemoryExistsError,
    MemoryNotFoundError,
    ReadOnlyMemoryError,
    describe,
)
from serena_memory.core.store import Context, MemoryStore
from serena_memory.dashboard.render import render_markdown
from serena_memory.dashboard.security import SecurityMiddleware
from serena_memory.integrity import api as integrity_api

STATIC_DIR = Path(__file__).parent / "static"
MAX_BODY_BYTES = 8 * 1024 * 1024
# Above this many characters a memory is shown truncated (and not editable here):
# rendering and sending megabytes on every visit would keep the page and server busy.
DISPLAY_LIMIT = 200_000

ProjectSource = Path | str | Callable[[], Path | str | None]
Handler = Callable[[Request, dict[str, Any]], Any]


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra


def _status_for(exc: BaseException) -> int:
    if isinstance(exc, MemoryNotFoundError | IgnoredMemoryError):
        return 404
    if isinstance(exc, ReadOnlyMemoryError):
        return 403
    if isinstance(exc, MemoryExistsError | MemoryChangedError):
        return 409
    if isinstance(exc, ConfigError | OSError):
        return 500  # the project's files or the disk, not the request, need a fix
    return 400  # invalid names, failed edits, anything else the person can fix


def conditional(request: Request, etag: str, build: Callable[[], Any]) -> Response:
    """``304 Not Modified`` when the page already holds this ``etag`` (nothing is built),
    else the JSON ``build()`` returns, tagged. The page sends If-None-Match itself: every
    response is ``no-store``, so no browser cache is involved."""
    tag = f'"{etag}"'
    if tag in {t.strip() for t in request.headers.get("if-none-match", "").split(",")}:
        return Response(status_code=304, headers={"etag": tag})
    return JSONResponse(build(), headers={"etag": tag})


def truncate_for_display(content: str, limit: int = DISPLAY_LIMIT) -> str:
    """The first ``limit`` characters, cut at the last line end before it when there is
    one, so the shown part renders as it would in the whole memory."""
    if len(content) <= limit:
        return content
    cut = content.rfind("\n", 0, limit)
    return content[: cut + 1] if cut > limit // 2 else content[:limit]


class DashboardApi:
    """The handlers, bound to where the project and the Serena home are."""

    def __init__(self, project: ProjectSource, home: Path | str | None) -> None:
        self._project = project
        self.home = Path(home) if home is not None else None

    # -- plumbing ------------------------------------------------------------------------
    def project_root(self) -> Path | None:
        source = self._project() if callable(self._project) else self._project
        return Path(source) if source is not None else None

    def store(self) -> MemoryStore:
        root = self.project_root()
        if root is None:
            raise ApiError(409, "no project is active yet; activate one in the agent first")
        # A person's tool that still honours read-only patterns, as the dashboard promises.
        return MemoryStore(root, home=self.home, context=Context.HUMAN, protect_read_only=True)

    @staticmethod
    async def body(request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise ApiError(415, "send JSON (Content-Type: application/json)")
        raw = await request.body()
        if len(raw) > MAX_BODY_BYTES:
            raise ApiError(413, "request too large")
        try:
            data = json.loads(raw)
        except ValueError:
            raise ApiError(400, "the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return data

    @staticmethod
    def text_field(data: dict[str, Any], key: str, *, optional: bool = False) -> Any:
        value = data.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise ApiError(400, f"'{key}' must be a string")
        return value

    def wrap(self, handler: Handler, *, body: bool = False) -> Callable[[Request], Any]:
        """Parse the JSON body (for mutations), run the handler in a worker thread (the
        store blocks on file locks) and turn library errors into JSON with a status."""

        async def endpoint(request: Request) -> Response:
            try:
                data = await self.body(request) if body else {}
                result = await run_in_threadpool(handler, request, data)
            except ApiError as exc:
                return JSONResponse({"error": str(exc), **exc.extra}, status_code=exc.status)
            except MemoryChangedError as exc:
                return JSONResponse(
                    {
                        "error": str(exc),
                        "conflict": True,
                        "name": exc.name,
                        "current": exc.current,
                        "current_version": exc.current_version,
                    },
                    status_code=409,
                )
            except EXPECTED_ERRORS as exc:  # disk full, a pattern nested too deeply...
                return JSONResponse({"error": describe(exc)}, status_code=_status_for(exc))
            if isinstance(result, Response):
                return result
            return JSONResponse(result)

        return endpoint

    # -- memories ------------------------------------------------------------------------
    def state(self, request: Request, data: dict[str, Any]) -> Response:
        """Everything the sidebar needs: the project and every visible memory. Tagged, so
        a poll that finds nothing new costs the page nothing."""
        payload = self.state_payload()
        encoded = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        return conditional(request, hashlib.sha256(encoded).hexdigest()[:32], lambda: payload)

    def state_payload(self) -> dict[str, Any]:
        root = self.project_root()
        if root is None:
            return {"project": None, "memories": []}
        store = self.store()
        listing = store.list()
        read_only = set(listing.read_only_memories)
        memories = [
            {"name": name, "read_only": name in read_only, "global": N.is_global(name)}
            for name in listing.all
        ]
        return {
            "project": {"root": str(root), "name": root.name},
            "global_folder": str(store.global_dir),
            "memories": memories,
        }

    def read_memory(self, request: Request, data: dict[str, Any]) -> Response:
        """One memory for its page. Tagged with its version: the page's poll of an
        unchanged memory is a 304, however large the memory. Over the display limit, only
        the first part is sent and rendered, and the answer says so."""
        store = self.store()
        name, content, read_only = store.load(request.query_params.get("name", ""))
        version = MemoryStore.version_of(content)
        return conditional(
            request, version, lambda: self.memory_payload(store, name, content, read_only)
        )

    def memory_payload(
        self, store: MemoryStore, name: str, content: str, read_only: bool
    ) -> dict[str, Any]:
        from serena_memory.core.references import find_references

        visible = set(store.iter_all_names())
        shown = truncate_for_display(content)
        targets = sorted({ref.target for ref in find_references(content)})
        return {
            "name": name,
            "content": shown,
            "version": MemoryStore.version_of(content),
            "truncated": len(shown) < len(content),
            "size": len(content),
            "read_only": read_only,
            "global": N.is_global(name),
            "html": render_markdown(shown, visible.__contains__),
            "references": [{"name": t, "exists": t in visible} for t in targets],
            "backlinks": [b.to_dict() for b in integrity_api.backlinks(store, name)],
        }

    def create_memory(self, request: Request, data: dict[str, Any]) -> JSONResponse:
        store = self.store()
        name = self.text_field(data, "name")
        content = self.text_field(data, "content")
        result = store.write_if_unchanged(name, content, None)
        version = MemoryStore.version_of(content)
        return JSONResponse({"name": result.name, "version": version}, status_code=201)

    def save_memory(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        store = self.store()
        name = self.text_field(data, "name")
        content = self.text_field(data, "content")
        base = self.text_field(data, "base_version", optional=True)
        result = store.write_if_unchanged(name, content, base)
        return {
            "name": result.name,
            "version": MemoryStore.version_of(content),
            "created": result.created,
        }

    def delete_memory(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        store = self.store()
        name = store.delete(
            self.text_field(data, "name"), self.text_field(data, "base_version", optional=True)
        )
        return {"deleted": name}

    def rename_memory(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        store = self.store()
        result = store.rename(self.text_field(data, "old"), self.text_field(data, "new"))
        return {
            "old": result.old,
            "new": result.new,
            "references_rewritten": result.references_rewritten,
            "memories_rewritten": result.memories_rewritten,
            "read_only_skipped": result.read_only_skipped,
            "summary": result.summary(),
        }

    def render_preview(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        store = self.store()
        visible = set(store.iter_all_names())
        return {"html": render_markdown(self.text_field(data, "content"), visible.__contains__)}

    # -- integrity -----------------------------------------------------------------------
    def graph(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        return integrity_api.build_graph(self.store()).to_dict()

    def check(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        flags = request.query_params
        report = integrity_api.run_check(
            self.store(),
            include_unmarked=flags.get("include_unmarked") == "1",
            fuzzy=flags.get("fuzzy") == "1",
            reachability=flags.get("reachability") == "1",
        )
        return report.to_dict()

    def fix_reference(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        source = self.text_field(data, "source")
        old = self.text_field(data, "old")
        new = self.text_field(data, "new")
        count = integrity_api.fix_reference(self.store(), source, old, new)
        return {"source": source, "old": old, "new": new, "count": count}

    def auto_prefix(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        dry_run = data.get("dry_run", False)
        if not isinstance(dry_run, bool):
            raise ApiError(400, "'dry_run' must be true or false")
        report = integrity_api.auto_prefix(self.store(), dry_run=dry_run)
        return {**report.to_dict(), "text": report.to_text()}

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
            Route("/api/memory", w(self.create_memory, body=True), methods=["POST"]),
            Route("/api/memory", w(self.save_memory, body=True), methods=["PUT"]),
            Route("/api/delete", w(self.delete_memory, body=True), methods=["POST"]),
            Route("/api/rename", w(self.rename_memory, body=True), methods=["POST"]),
            Route("/api/render", w(self.render_preview, body=True), methods=["POST"]),
            Route("/api/graph", w(self.graph), methods=["GET"]),
            Route("/api/check", w(self.check), methods=["GET"]),
            Route("/api/fix-reference", w(self.fix_reference, body=True), methods=["POST"]),
            Route("/api/auto-prefix", w(self.auto_prefix, body=True), methods=["POST"]),
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
