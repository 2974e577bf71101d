"""The dashboard's memory handlers: the listing, one memory, its changes, search."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from serena_memory.core import names as N
from serena_memory.core.errors import (
    MemoryNotFoundError,
)
from serena_memory.core.store import MemoryStore, version_of
from serena_memory.dashboard.api_base import (
    SEARCH_RESULTS,
    ApiBase,
    ApiError,
    conditional,
    truncate_for_display,
)
from serena_memory.dashboard.render import render_markdown
from serena_memory.integrity.code_drift.read_note import drift_findings


class MemoryApi(ApiBase):
    """Reading and changing memories."""

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
        from serena_memory.sync.conflicts import conflicts

        return {
            "project": {"root": str(root), "name": root.name},
            "global_folder": str(store.layout.global_dir),
            "memories": memories,
            "sync_conflicts": [c.name for c in conflicts(store)],
            "proposals": len(pending(store)[0]),
        }

    def sync_conflict(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Both texts of a memory a sync met a conflict in, to show side by side."""
        from serena_memory.sync.conflicts import conflicts

        store = self.store()
        name = N.normalize_name(request.query_params.get("name", ""))
        found = next((c for c in conflicts(store) if c.name == name), None)
        if found is None:
            raise ApiError(404, f"memory '{name}' has no sync conflict")
        try:
            local: str | None = store.read(name, announce=False)
        except MemoryNotFoundError:
            local = None
        from serena_memory.history.restore import unified_diff

        now = None if local is None else local.encode("utf-8")
        aside = found.remote_text.encode("utf-8")
        return {
            **found.to_dict(),
            "local_text": local,
            "read_only": store.access().is_read_only(name),
            # the same diff `conflicts --show` prints
            "diff": unified_diff(name, now, aside, "set aside", "in memory"),
        }

    def resolve_sync_conflict(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        from serena_memory.sync.conflicts import resolve

        keep = self.text_field(data, "keep")
        return {"message": resolve(self.store(), self.text_field(data, "name"), keep)}

    def read_memory(self, request: Request, data: dict[str, Any]) -> Response:
        """One memory for its page. Tagged with its version: the page's poll of an
        unchanged memory is a 304, however large the memory. Over the display limit, only
        the first part is sent and rendered, and the answer says so."""
        store = self.store()
        # a read when the page opens, not when it polls
        opened = "if-none-match" not in request.headers
        name, content, read_only = store.load(request.query_params.get("name", ""), announce=opened)
        version = version_of(content)
        # the code moves on while the memory stays: its drift marks are part of the tag
        drift = [f.to_dict() for f in drift_findings(store, name, truncate_for_display(content))]
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
        from serena_memory.agent.trust import trust_line
        from serena_memory.core.lifecycle import read_note
        from serena_memory.core.references import find_references
        from serena_memory.history.recording import keeps_history_of

        # the names alone, not every memory read: the backlinks, which need those, are a
        # request of their own, so a memory of a large folder shows at once
        visible = self.snapshots.names(store)
        shown = truncate_for_display(content)
        targets = sorted({ref.target for ref in find_references(content)})
        return {
            "code_drift": drift or [],
            "name": name,
            "content": shown,
            "version": version_of(content),
            "truncated": len(shown) < len(content),
            "size": len(content),
            "read_only": read_only,
            "global": N.is_global(name),
            "undoable": keeps_history_of(store.settings, name),  # a delete can be undone
            "html": render_markdown(shown, visible.__contains__),
            "references": [{"name": t, "exists": t in visible} for t in targets],
            "usage": _usage(store, name),
            # what `read_memory` tells the agent: deprecated or stale, and how far to trust it
            "lifecycle": read_note(store, content),
            "trust": trust_line(store, name, content, bool(drift)),
        }

    def backlinks(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The memories that refer to one, with the lines: every memory is read for them
        (once, then only the changed ones), so the page asks after showing the memory."""
        store = self.store()
        name = N.normalize_name(request.query_params.get("name", ""))
        found = self.snapshots.get(store).backlinks(name)
        return {"name": name, "backlinks": [b.to_dict() for b in found]}

    def create_memory(self, request: Request, data: dict[str, Any]) -> JSONResponse:
        store = self.store()
        name = self.text_field(data, "name")
        content = self.text_field(data, "content")
        result = store.write_if_unchanged(
            name, content, None, allow_secret=data.get("allow_secret") is True
        )
        version = version_of(content)
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
            "version": version_of(content),
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
        visible = self.snapshots.names(self.store())
        return {"html": render_markdown(self.text_field(data, "content"), visible.__contains__)}

    def search(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The search box: the hits of search.index, the ranking `serena memories search`
        and search_memories give, with where the words matched so the page can mark them."""
        from serena_memory.search.index import search_memories
        from serena_memory.search.query import MAX_RESULTS_LIMIT

        q = request.query_params
        if "q" not in q:
            raise ApiError(400, "give the words to search for as ?q=WORDS")
        limit = self.int_param(request, "max_results", SEARCH_RESULTS, 1, MAX_RESULTS_LIMIT)
        hits = search_memories(
            self.store(), q["q"], topic=q.get("topic"), scope=q.get("scope"), max_results=limit
        )
        return {"query": q["q"], **hits.to_dict()}


def _usage(store: MemoryStore, name: str) -> dict[str, Any] | None:
    """A memory's reads on this machine; None when they can't be read now (the page
    shows the memory without them)."""
    from serena_memory.usage.report import memory_usage

    try:
        return memory_usage(store, name)
    except OSError:
        return None
