"""The dashboard's history handlers: entries, one change, restore."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from serena_memory.core import names as N
from serena_memory.dashboard.api_base import (
    HISTORY_LIMIT,
    ApiBase,
    ApiError,
)
from serena_memory.history.restore import MemoryHistory


class HistoryApi(ApiBase):
    """The history of the memories and restoring from it."""

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
        from serena_memory.history.restore import unified_diff

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
