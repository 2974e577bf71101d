"""What every dashboard handler shares: the store of the active project, the request's
JSON, errors with an HTTP status, cached integrity snapshots."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from serena_memory.core import background
from serena_memory.core.changes import Provenance
from serena_memory.core.errors import (
    ConfigError,
    IgnoredMemoryError,
    MemoryChangedError,
    MemoryExistsError,
    MemoryNotFoundError,
    ProposalError,
    ReadOnlyMemoryError,
)
from serena_memory.core.store import Context, MemoryStore
from serena_memory.integrity.plugins.base import CheckOptions, DashboardSection
from serena_memory.integrity.references.check_report import ENTRY_POINT
from serena_memory.integrity.references.snapshot import Snapshot
from serena_memory.wiring import build_store

STATIC_DIR = Path(__file__).parent / "static"
MAX_BODY_BYTES = 8 * 1024 * 1024
# Above this many characters a memory is shown truncated (and not editable here):
# rendering and sending megabytes on every visit would keep the page and server busy.
DISPLAY_LIMIT = 200_000
LOCAL_GRAPH_CAP = 150  # nodes around one memory: more can't be read anyway
FULL_GRAPH_CAP = 1500  # nodes of the whole graph drawn at once, the most connected first
CHECK_PAGE = 50  # items of each report section per page
UNUSED_DAYS = 30  # the Check page's unused memories: unread this many days, unless asked
MAX_UNUSED_DAYS = 36500
SEARCH_RESULTS = 20  # hits the search box shows: a screenful, ranked

ProjectSource = Path | str | Callable[[], Path | str | None]
Handler = Callable[[Request, dict[str, Any]], Any]


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra


def status_for(exc: BaseException) -> int:
    if isinstance(exc, MemoryNotFoundError | IgnoredMemoryError):
        return 404
    if isinstance(exc, ReadOnlyMemoryError):
        return 403
    if isinstance(exc, MemoryExistsError | MemoryChangedError | ProposalError):
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
    body = build()
    response = body if isinstance(body, Response) else JSONResponse(body)
    response.headers["etag"] = tag
    return response


def truncate_for_display(content: str, limit: int = DISPLAY_LIMIT) -> str:
    """The first ``limit`` characters, cut at the last line end before it when there is
    one, so the shown part renders as it would in the whole memory."""
    if len(content) <= limit:
        return content
    cut = content.rfind("\n", 0, limit)
    return content[: cut + 1] if cut > limit // 2 else content[:limit]


class SnapshotCache:
    """The integrity snapshot of the current store, shared by every request.

    Answers come from the last snapshot; one older than ``max_age`` seconds is refreshed in
    a background thread (only the changed files are read again), so a page never waits
    for a large project to be re-read. After the dashboard itself changed something, the
    next request waits for a fresh snapshot, so the page shows its own change at once.
    """

    def __init__(self, max_age: float = 5.0) -> None:
        self.max_age = max_age
        self._snapshot: Snapshot | None = None
        self._where: tuple[Path, Path] | None = None
        self._taken = 0.0
        self._dirty = False
        self._lock = threading.Lock()  # one refresh at a time
        self._refreshing = False

    def get(self, store: MemoryStore) -> Snapshot:
        where = (store.layout.project_root, store.layout.home)
        snapshot = self._snapshot
        if snapshot is None or self._dirty or where != self._where:
            return self._refresh(store, where)
        if time.monotonic() - self._taken > self.max_age and not self._refreshing:
            self._refreshing = True
            background.start(self._refresh_quietly, store, where, name="dashboard-snapshot")
        return snapshot

    def names(self, store: MemoryStore) -> frozenset[str]:
        """Every visible memory's name: the snapshot's when there is one (refreshed as
        :meth:`get` does), else the folder's names alone, without reading every memory."""
        if (
            self._snapshot is None
            or self._dirty
            or (store.layout.project_root, store.layout.home) != self._where
        ):
            return frozenset(store.scan().files)
        return self.get(store).analyzer.existing

    def invalidate(self) -> None:
        self._dirty = True

    def _refresh(self, store: MemoryStore, where: tuple[Path, Path]) -> Snapshot:
        with self._lock:
            fresh = time.monotonic() - self._taken <= self.max_age
            if self._snapshot is not None and not self._dirty and where == self._where and fresh:
                return self._snapshot  # another request refreshed it meanwhile
            previous = self._snapshot if where == self._where else None
            self._dirty = False
            snapshot = Snapshot.refresh(store, previous)
            snapshot.graph.sources_of(ENTRY_POINT)  # built here, not in a request
            self._snapshot, self._where, self._taken = snapshot, where, time.monotonic()
            return snapshot

    def _refresh_quietly(self, store: MemoryStore, where: tuple[Path, Path]) -> None:
        try:
            self._refresh(store, where)
        except Exception:  # noqa: BLE001, S110 - a request refreshing later reports it
            pass
        finally:
            self._refreshing = False


HISTORY_LIMIT = 200  # entries one history answer holds (the page shows the newest)


class ApiBase:
    """Where the project and the Serena home are, and reading a request."""

    def __init__(self, project: ProjectSource, home: Path | str | None) -> None:
        self._project = project
        self.home = Path(home) if home is not None else None
        self.snapshots = SnapshotCache()
        self._sections: tuple[object, dict[str, list[Any]]] | None = None
        # each check's findings of the last page load, for its page turns
        self._held: dict[str, tuple[object, CheckOptions, DashboardSection]] = {}

    def project_root(self) -> Path | None:
        source = self._project() if callable(self._project) else self._project
        return Path(source) if source is not None else None

    def store(self) -> MemoryStore:
        root = self.project_root()
        if root is None:
            raise ApiError(409, "no project is active yet; activate one in the agent first")
        # A person's tool that still honours read-only patterns, as the dashboard promises.
        return build_store(
            root,
            home=self.home,
            context=Context.HUMAN,
            protect_read_only=True,
            provenance=Provenance.os_user("dashboard"),
        )

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

    @staticmethod
    def int_param(request: Request, key: str, default: int, low: int, high: int) -> int:
        raw = request.query_params.get(key)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise ApiError(400, f"'{key}' must be a whole number") from None
        if not low <= value <= high:
            raise ApiError(400, f"'{key}' must be between {low} and {high}")
        return value
