"""Memories as MCP resources: `memory://NAME`, for clients that let a person attach a
memory to a conversation, and for agents that want to be told when one changes.

Listing pages through the names (at 10,000 memories one answer would be megabytes);
reading goes through the store like the `read_memory` tool, so ignored memories and the
path gate hold the same way. A client may subscribe to memories, on either protocol era
(`resources/subscribe`, or `subscriptions/listen` through the SDK's `ListenHandler`); the
watched memories are then compared every second, so a change made by any tool, the
command line, the dashboard or an editor is notified the same way.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any
from urllib.parse import quote, unquote

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError

from serena_memory.core.errors import (
    IgnoredMemoryError,
    MemoryNotFoundError,
    MemoryStoreError,
    describe,
)
from serena_memory.core.names import normalize_name
from serena_memory.core.store import MemoryStore
from serena_memory.mcp.state import ServerState

SCHEME = "memory://"
TEMPLATE = SCHEME + "{name}"
MIME_TYPE = "text/markdown"
PAGE_SIZE = 500
WATCH_INTERVAL_SECONDS = 1.0
RESOURCE_NOT_FOUND = -32002
"""The error code the MCP specification gives for an unknown resource (the SDK's types
define no constant for it)."""


def memory_uri(name: str) -> str:
    return SCHEME + quote(name, safe="/")


def memory_name(uri: str) -> str:
    """The memory a `memory://` URI names, through the name gate; -32602 otherwise."""
    if not uri.startswith(SCHEME):
        raise MCPError(types.INVALID_PARAMS, f"'{uri}' is not a memory resource; use memory://NAME")
    try:
        return normalize_name(unquote(uri[len(SCHEME) :]))
    except MemoryStoreError as exc:
        raise MCPError(types.INVALID_PARAMS, describe(exc)) from None


def _version(store: MemoryStore, name: str) -> str | None:
    try:
        return store.version_of(store.read(name))
    except (MemoryStoreError, OSError):
        return None


class MemoryResources:
    """The resource handlers of one server, and the watch behind its subscriptions."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self.bus)
        self._sessions: dict[str, list[Any]] = {}  # uri -> sessions subscribed the old way
        self._listening: Counter[str] = Counter()  # uri -> open listen streams asking for it
        self._versions: dict[str, str | None] = {}

    async def list(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        store = self.state.require_store()
        names = (await anyio.to_thread.run_sync(store.list)).all
        start = 0
        if params is not None and params.cursor:
            if not params.cursor.isdigit() or int(params.cursor) > len(names):
                raise MCPError(types.INVALID_PARAMS, f"'{params.cursor}' is not a cursor here")
            start = int(params.cursor)
        page = names[start : start + PAGE_SIZE]
        following = start + PAGE_SIZE
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=memory_uri(n), name=n, title=n, mime_type=MIME_TYPE)
                for n in page
            ],
            next_cursor=str(following) if following < len(names) else None,
        )

    async def templates(self, ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=TEMPLATE,
                    name="memory",
                    title="A memory",
                    description="A memory by name, e.g. memory://core or memory://auth/login.",
                    mime_type=MIME_TYPE,
                )
            ]
        )

    async def read(self, ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        name = memory_name(params.uri)
        store = self.state.require_store()
        try:
            text = await anyio.to_thread.run_sync(store.read, name)
        except (MemoryNotFoundError, IgnoredMemoryError) as exc:
            raise MCPError(RESOURCE_NOT_FOUND, describe(exc)) from None
        except Exception as exc:
            raise MCPError(types.INTERNAL_ERROR, describe(exc)) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=MIME_TYPE, text=text)]
        )

    async def subscribe(self, ctx: Any, params: types.SubscribeRequestParams) -> Any:
        memory_name(params.uri)
        sessions = self._sessions.setdefault(params.uri, [])
        if ctx.session not in sessions:
            sessions.append(ctx.session)
        await self._remember(params.uri)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Any, params: types.UnsubscribeRequestParams) -> Any:
        sessions = self._sessions.get(params.uri, [])
        if ctx.session in sessions:
            sessions.remove(ctx.session)
        if not sessions:
            self._sessions.pop(params.uri, None)
        return types.EmptyResult()

    async def listen(self, ctx: Any, params: types.SubscriptionsListenRequestParams) -> Any:
        """The SDK's listen handler, with the memories it asks for watched meanwhile."""
        uris = [
            u for u in params.notifications.resource_subscriptions or () if u.startswith(SCHEME)
        ]
        for uri in uris:
            self._listening[uri] += 1
            await self._remember(uri)
        try:
            return await self._listen(ctx, params)
        finally:
            self._listening.subtract(uris)
            self._listening += Counter()  # drops the counts that reached zero

    async def _remember(self, uri: str) -> None:
        if uri not in self._versions:
            store = self.state.require_store()
            self._versions[uri] = await anyio.to_thread.run_sync(_version, store, memory_name(uri))

    def watched(self) -> set[str]:
        return set(self._sessions) | set(self._listening)

    async def watch(self) -> None:
        """Forever: notify subscribers of every watched memory whose text changed."""
        while True:
            await anyio.sleep(WATCH_INTERVAL_SECONDS)
            watched = self.watched()
            for uri in list(self._versions):
                if uri not in watched:
                    del self._versions[uri]
            if not watched or self.state.store is None:
                continue
            store = self.state.store
            for uri in sorted(watched):
                now = await anyio.to_thread.run_sync(_version, store, memory_name(uri))
                if uri in self._versions and self._versions[uri] == now:
                    continue
                self._versions[uri] = now
                await self._notify(uri)

    async def _notify(self, uri: str) -> None:
        await self.bus.publish(ResourceUpdated(uri))
        for session in list(self._sessions.get(uri, ())):
            try:
                await session.send_resource_updated(uri)
            except Exception:  # the client went away: forget its subscriptions
                for sessions in self._sessions.values():
                    with contextlib.suppress(ValueError):
                        sessions.remove(session)
