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
import threading
import time
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
from serena_memory.core import operation
from serena_memory.core.changes import Provenance, acting_as
from serena_memory.core.errors import (
    EXPECTED_ERRORS,
    ConfigError,
    IgnoredMemoryError,
    MemoryChangedError,
    MemoryExistsError,
    MemoryNotFoundError,
    ProposalError,
    ReadOnlyMemoryError,
    describe,
)
from serena_memory.core.secrets import SecretFoundError
from serena_memory.core.store import Context, MemoryStore
from serena_memory.dashboard.render import render_markdown
from serena_memory.dashboard.security import SecurityMiddleware
from serena_memory.history.engine import MemoryHistory
from serena_memory.integrity import service as integrity_api
from serena_memory.integrity.analysis import ENTRY_POINT

STATIC_DIR = Path(__file__).parent / "static"
MAX_BODY_BYTES = 8 * 1024 * 1024
# Above this many characters a memory is shown truncated (and not editable here):
# rendering and sending megabytes on every visit would keep the page and server busy.
DISPLAY_LIMIT = 200_000
LOCAL_GRAPH_CAP = 150  # nodes around one memory: more can't be read anyway
FULL_GRAPH_CAP = 1500  # nodes of the whole graph drawn at once, the most connected first
CHECK_PAGE = 50  # items of each report section per page
SEARCH_RESULTS = 20  # hits the search box shows: a screenful, ranked

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
        self._snapshot: integrity_api.Snapshot | None = None
        self._where: tuple[Path, Path] | None = None
        self._taken = 0.0
        self._dirty = False
        self._lock = threading.Lock()  # one refresh at a time
        self._refreshing = False

    def get(self, store: MemoryStore) -> integrity_api.Snapshot:
        where = (store.project_root, store.home)
        snapshot = self._snapshot
        if snapshot is None or self._dirty or where != self._where:
            return self._refresh(store, where)
        if time.monotonic() - self._taken > self.max_age and not self._refreshing:
            self._refreshing = True
            threading.Thread(target=self._refresh_quietly, args=(store, where), daemon=True).start()
        return snapshot

    def invalidate(self) -> None:
        self._dirty = True

    def _refresh(self, store: MemoryStore, where: tuple[Path, Path]) -> integrity_api.Snapshot:
        with self._lock:
            fresh = time.monotonic() - self._taken <= self.max_age
            if self._snapshot is not None and not self._dirty and where == self._where and fresh:
                return self._snapshot  # another request refreshed it meanwhile
            previous = self._snapshot if where == self._where else None
            self._dirty = False
            snapshot = integrity_api.load_snapshot(store, previous)
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


class DashboardApi:
    """The handlers, bound to where the project and the Serena home are."""

    def __init__(self, project: ProjectSource, home: Path | str | None) -> None:
        self._project = project
        self.home = Path(home) if home is not None else None
        self.snapshots = SnapshotCache()
        self._sections: tuple[object, dict[str, list[Any]]] | None = None
        self._code: tuple[object, list[dict[str, Any]]] | None = None

    # -- plumbing ------------------------------------------------------------------------
    def project_root(self) -> Path | None:
        source = self._project() if callable(self._project) else self._project
        return Path(source) if source is not None else None

    def store(self) -> MemoryStore:
        root = self.project_root()
        if root is None:
            raise ApiError(409, "no project is active yet; activate one in the agent first")
        # A person's tool that still honours read-only patterns, as the dashboard promises.
        return MemoryStore(
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
                return JSONResponse({"error": describe(exc)}, status_code=_status_for(exc))
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

    # -- memories ------------------------------------------------------------------------
    def state(self, request: Request, data: dict[str, Any]) -> Response:
        """Everything the sidebar needs: the project and every visible memory. Tagged, so
        a poll that finds nothing new costs the page nothing."""
        encoded = json.dumps(self.state_payload(), separators=(",", ":")).encode("utf-8")
        tag = hashlib.sha256(encoded).hexdigest()[:32]
        return conditional(request, tag, lambda: Response(encoded, media_type="application/json"))

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
        from serena_memory.core.proposals import pending
        from serena_memory.sync.merge import conflicts

        return {
            "project": {"root": str(root), "name": root.name},
            "global_folder": str(store.global_dir),
            "memories": memories,
            "sync_conflicts": [c.name for c in conflicts(store)],
            "proposals": len(pending(store)[0]),
        }

    def sync_conflict(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Both texts of a memory a sync met a conflict in, to show side by side."""
        from serena_memory.sync.merge import conflicts

        store = self.store()
        name = N.normalize_name(request.query_params.get("name", ""))
        found = next((c for c in conflicts(store) if c.name == name), None)
        if found is None:
            raise ApiError(404, f"memory '{name}' has no sync conflict")
        try:
            local: str | None = store.read(name)
        except MemoryNotFoundError:
            local = None
        from serena_memory.history.engine import unified_diff

        now = None if local is None else local.encode("utf-8")
        aside = found.remote_text.encode("utf-8")
        return {
            **found.to_dict(),
            "local_text": local,
            "read_only": store.is_read_only(name),
            # the same diff `conflicts --show` prints
            "diff": unified_diff(name, now, aside, "set aside", "in memory"),
        }

    def resolve_sync_conflict(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        from serena_memory.sync.merge import resolve

        keep = self.text_field(data, "keep")
        return {"message": resolve(self.store(), self.text_field(data, "name"), keep)}

    def read_memory(self, request: Request, data: dict[str, Any]) -> Response:
        """One memory for its page. Tagged with its version: the page's poll of an
        unchanged memory is a 304, however large the memory. Over the display limit, only
        the first part is sent and rendered, and the answer says so."""
        store = self.store()
        name, content, read_only = store.load(request.query_params.get("name", ""))
        version = MemoryStore.version_of(content)
        # the code moves on while the memory stays: its drift marks are part of the tag
        drift = [
            f.to_dict()
            for f in integrity_api.drift_findings(store, name, truncate_for_display(content))
        ]
        if drift:
            marks = json.dumps(drift, sort_keys=True).encode("utf-8")
            version += "-" + hashlib.sha256(marks).hexdigest()[:16]
        return conditional(
            request, version, lambda: self.memory_payload(store, name, content, read_only, drift)
        )

    def memory_payload(
        self,
        store: MemoryStore,
        name: str,
        content: str,
        read_only: bool,
        drift: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        from serena_memory.core.references import find_references

        snapshot = self.snapshots.get(store)
        visible = snapshot.analyzer.existing
        shown = truncate_for_display(content)
        targets = sorted({ref.target for ref in find_references(content)})
        return {
            "code_drift": drift or [],
            "name": name,
            "content": shown,
            "version": MemoryStore.version_of(content),
            "truncated": len(shown) < len(content),
            "size": len(content),
            "read_only": read_only,
            "global": N.is_global(name),
            "html": render_markdown(shown, visible.__contains__),
            "references": [{"name": t, "exists": t in visible} for t in targets],
            "backlinks": [b.to_dict() for b in snapshot.backlinks(name)],
        }

    def create_memory(self, request: Request, data: dict[str, Any]) -> JSONResponse:
        store = self.store()
        name = self.text_field(data, "name")
        content = self.text_field(data, "content")
        result = store.write_if_unchanged(
            name, content, None, allow_secret=data.get("allow_secret") is True
        )
        version = MemoryStore.version_of(content)
        return JSONResponse({"name": result.name, "version": version}, status_code=201)

    def save_memory(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        store = self.store()
        name = self.text_field(data, "name")
        content = self.text_field(data, "content")
        base = self.text_field(data, "base_version", optional=True)
        result = store.write_if_unchanged(
            name, content, base, allow_secret=data.get("allow_secret") is True
        )
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
        visible = self.snapshots.get(self.store()).analyzer.existing
        return {"html": render_markdown(self.text_field(data, "content"), visible.__contains__)}

    def search(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The search box: the hits of search.index, the ranking `serena memories search`
        and search_memories give, with where the words matched so the page can mark them."""
        from serena_memory.search.index import MAX_RESULTS_LIMIT, search_memories

        q = request.query_params
        if "q" not in q:
            raise ApiError(400, "give the words to search for as ?q=WORDS")
        limit = self.int_param(request, "max_results", SEARCH_RESULTS, 1, MAX_RESULTS_LIMIT)
        hits = search_memories(
            self.store(), q["q"], topic=q.get("topic"), scope=q.get("scope"), max_results=limit
        )
        return {"query": q["q"], "hits": [hit.to_dict() for hit in hits]}

    # -- integrity -----------------------------------------------------------------------
    def graph(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The whole graph, filtered (topic, reachability, broken only) and capped."""
        q = request.query_params
        reach = q.get("reach", "all")
        if reach not in ("all", "reachable", "unreachable"):
            raise ApiError(400, "'reach' must be all, reachable or unreachable")
        graph = self.snapshots.get(self.store()).graph
        return graph.filtered(
            topic=N.normalize_topic(q.get("topic", "")),
            reach=reach,
            broken_only=q.get("broken") == "1",
            cap=self.int_param(request, "cap", FULL_GRAPH_CAP, 1, FULL_GRAPH_CAP),
        )

    def local_graph(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """A memory with what it references and what references it, 1 or 2 steps out."""
        name = N.normalize_name(request.query_params.get("name", ""))
        depth = self.int_param(request, "depth", 1, 1, 2)
        graph = self.snapshots.get(self.store()).graph
        try:
            return graph.neighbourhood(name, depth, cap=LOCAL_GRAPH_CAP)
        except KeyError:
            raise ApiError(404, f"memory '{name}' not found") from None

    def topic_map(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Topics (and the memories directly in the topic asked for) with their counts."""
        topic = N.normalize_topic(request.query_params.get("topic", ""))
        return self.snapshots.get(self.store()).graph.topic_map(topic)

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

    def check(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The check report. With ``limit`` (the page), its lists are paged: each
        section's first ``limit`` items and its total; ``section`` and ``offset`` ask for
        another page of one section. Without, the whole report (for scripts)."""
        flags = request.query_params
        store = self.store()
        report = self.snapshots.get(store).check(
            include_unmarked=flags.get("include_unmarked") == "1",
            fuzzy=flags.get("fuzzy") == "1",
            reachability=flags.get("reachability") == "1",
        )
        report = integrity_api.with_sync_conflicts(store, report)
        wanted = flags.get("section")
        # the code is checked once per page load; turning a page of the code section shows
        # the list that load found, another section's page needs none
        code = (
            self.code_items(store, page_turn=wanted is not None)
            if flags.get("code") == "1" and wanted in (None, "code")
            else None
        )
        if "limit" not in flags and wanted is None:
            return report.to_dict() if code is None else {**report.to_dict(), "code": code}
        sections = self.report_sections(report)
        if code is not None:
            sections = {**sections, "code": code}
        limit = self.int_param(request, "limit", CHECK_PAGE, 1, 1000)
        offset = self.int_param(request, "offset", 0, 0, 10**9)
        if wanted is not None:
            if wanted not in sections:
                raise ApiError(400, f"no section '{wanted}' in this report")
            items = sections[wanted]
            return {
                "section": wanted,
                "offset": offset,
                "total": len(items),
                "items": items[offset : offset + limit],
            }
        summary: dict[str, Any] = {
            "clean": report.is_clean(),
            "scanned": report.scanned,
            "include_unmarked": report.include_unmarked,
            "fuzzy": report.fuzzy,
            "bare_high_count": len(report.bare_high),
        }
        if code is not None:
            summary["code_failing"] = sum(c["status"] in ("missing", "moved") for c in code)
        if report.unreachable is not None:
            summary["entry_point"] = ENTRY_POINT if report.entry_point_exists else None
        summary["sections"] = {
            key: {"total": len(items), "items": items[:limit]} for key, items in sections.items()
        }
        return summary

    def report_sections(self, report: Any) -> dict[str, list[Any]]:
        """The report's lists as JSON-ready items, kept for the report last paged."""
        if self._sections is not None and self._sections[0] is report:
            return self._sections[1]
        sections: dict[str, list[Any]] = {"stale": [s.to_dict() for s in report.stale]}
        if report.include_unmarked:
            sections["bare"] = [b.to_dict() for b in report.bare_high + report.bare_low]
            if report.fuzzy:
                sections["near_misses"] = [b.to_dict() for b in report.near_misses]
        if report.unreachable is not None:
            sections["unreachable"] = list(report.unreachable)
            sections["ignored_references"] = [r.to_dict() for r in report.ignored_references or ()]
        sections["unreadable"] = list(report.unreadable)
        sections["skipped"] = [f.to_dict() for f in report.skipped]
        sections["sync_conflicts"] = list(report.sync_conflicts)
        self._sections = (report, sections)
        return sections

    def code_items(self, store: MemoryStore, page_turn: bool = False) -> list[dict[str, Any]]:
        """The memories' mentions of code that drifted, as the Check page lists them. A
        page turn gets the list of the load it pages through while the memories are the
        same (a whole check per turn would be slow and could shift the pages)."""
        snapshot = self.snapshots.get(store)
        held = self._code
        if page_turn and held is not None and held[0] is snapshot:
            return held[1]
        report = integrity_api.run_code_check(store)
        items = [
            {**f.to_dict(), "target": f.target, "read_only": f.read_only} for f in report.findings
        ]
        self._code = (snapshot, items)
        return items

    def fix_code_reference(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Point one moved path of one memory at its new place (one history entry)."""
        memory = N.normalize_name(self.text_field(data, "memory"))
        mention = self.text_field(data, "mention")
        line = data.get("line")
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise ApiError(400, "'line' must be a line number (1 or more)")
        store = self.store()
        if store.is_read_only(memory):
            raise ApiError(
                403,
                f"memory '{memory}' is read-only (it matches read_only_memory_patterns): "
                "change it in an editor or lift the pattern",
            )
        fixed = integrity_api.fix_code_references(store, only=[(memory, line, mention)])
        if not fixed:
            raise ApiError(
                409,
                f"`{mention}` on line {line} of '{memory}' is no longer a moved path; "
                "check again to see what is left",
            )
        return {"memory": memory, "fixed": [f.to_dict() for f in fixed]}

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

    # -- history -------------------------------------------------------------------------
    def history(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """A memory's recorded changes (``?name=``, across its renames), or the recent
        changes of every memory; newest first, at most HISTORY_LIMIT."""
        store = self.store()
        raw = request.query_params.get("name", "")
        name = N.normalize_name(raw) if raw else None
        entries = MemoryHistory(store).entries(name)
        return {
            "name": name,
            "entries": [entry.to_dict() for entry in entries[:HISTORY_LIMIT]],
            "total": len(entries),
        }

    def history_change(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """What entry ``?rev=`` did to memory ``?name=``, as a unified diff."""
        from serena_memory.history.engine import unified_diff

        name = N.normalize_name(request.query_params.get("name", ""))
        rev = request.query_params.get("rev", "")
        if not rev:
            raise ApiError(400, "give the entry as ?rev=")
        history = MemoryHistory(self.store())
        _, after = history.content_at(name, rev)
        before = history.before(name, rev)
        return {"name": name, "rev": rev, "diff": unified_diff(name, before, after, rev)}

    def restore_memory(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Bring back a memory's text at ``rev`` (default: before its latest change, which
        brings back a deleted memory), as a new entry."""
        name = N.normalize_name(self.text_field(data, "name"))
        rev = self.text_field(data, "rev", optional=True)
        result = MemoryHistory(self.store()).restore(name, rev or None)
        return {"name": name, "changed": result.changed, "summary": result.summary()}

    # -- review mode (core/proposals.py) ---------------------------------------------------
    def proposals(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The agent's pending proposals, each with its diff against the memory now and
        whether that memory changed since (a conflict: it can't be accepted)."""
        from serena_memory.agent.proposal_views import proposal_diff
        from serena_memory.core import proposals as P

        store = self.store()
        found, skipped = P.pending(store)
        rows = []
        for proposal in found:
            _, conflict = P.state_of(store, proposal)
            rows.append(
                {
                    "id": proposal.id,
                    "memory": proposal.memory,
                    "action": proposal.action,
                    "new_name": proposal.new_name,
                    "describe": proposal.describe(),
                    "agent": proposal.agent,
                    "created": proposal.created,
                    "conflict": conflict,
                    "diff": proposal_diff(store, proposal),
                }
            )
        return {"proposals": rows, "skipped": [s.to_dict() for s in skipped]}

    def accept_proposal(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Make a proposal's change: one history entry naming the agent and the person."""
        from serena_memory.core import proposals as P

        done = P.accept(self.store(), self.text_field(data, "id"))
        return {"id": done.id, "summary": f"Accepted: {done.describe()}."}

    def reject_proposal(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        from serena_memory.core import proposals as P

        done = P.reject(self.store(), self.text_field(data, "id"))
        return {"id": done.id, "summary": f"Rejected: {done.describe()}."}

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
