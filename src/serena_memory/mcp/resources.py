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

from collections import Counter
from typing import Any
from urllib.parse import quote, unquote

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError

from serena_memory.core.changes import Provenance, acting_as
from serena_memory.core.errors import (
    IgnoredMemoryError,
    MemoryNotFoundError,
    MemoryStoreError,
)
from serena_memory.core.names import normalize_name
from serena_memory.core.store import MemoryStore, version_of
from serena_memory.mcp.errors import for_agent
from serena_memory.mcp.state import ServerState, client_provenance

SCHEME = "memory://"
TEMPLATE = SCHEME + "{name}"
MIME_TYPE = "text/markdown"
PAGE_SIZE = 500
WATCH_INTERVAL_SECONDS = 1.0
FULL_ROUND_TICKS = 30
"""Every this many rounds the watched memories are read even when the folder watch saw
nothing change (a memory may be a link to a file outside the watched folders)."""
MAX_SUBSCRIPTIONS_PER_CLIENT = 1000
"""The most memories one client may watch, by `resources/subscribe` or in one listen."""
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
        raise MCPError(types.INVALID_PARAMS, for_agent(exc)) from None


def _read_as(who: Provenance, store: MemoryStore, name: str) -> str:
    """A resource read is the client's read of the memory (announced with its name)."""
    with acting_as(who):
        return store.read(name)


def _version(store: MemoryStore, name: str) -> str | None:
    try:
        return version_of(store.read(name, announce=False))
    except (MemoryStoreError, OSError):
        return None


class _Client:
    """One client's subscriptions the old way (`resources/subscribe`), and the session to
    notify it through (the latest request's: each request gets its own, all of them
    reaching the same connection)."""

    def __init__(self, key: object, session: Any) -> None:
        self.key = key  # held, so its id is not reused while the client is known
        self.session = session
        self.uris: set[str] = set()


def _client_key(ctx: Any) -> object:
    """What stays the same across the requests of one client: the `initialize` params its
    connection keeps (the SDK builds a new session object per request); the session
    itself for a client that sent none."""
    params = ctx.session.client_params
    return ctx.session if params is None else params


class MemoryResources:
    """The resource handlers of one server, and the watch behind its subscriptions."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self.bus)
        self._clients: dict[int, _Client] = {}  # id of the client's key -> its subscriptions
        self._listening: Counter[str] = Counter()  # uri -> open listen streams asking for it
        self._versions: dict[str, str | None] = {}
        self._folder_watch: Any = None
        self._quiet_ticks = 0

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
            who = client_provenance(ctx, "resources/read")
            text = await anyio.to_thread.run_sync(_read_as, who, store, name)
        except (MemoryNotFoundError, IgnoredMemoryError) as exc:
            raise MCPError(RESOURCE_NOT_FOUND, for_agent(exc)) from None
        except Exception as exc:
            raise MCPError(types.INTERNAL_ERROR, for_agent(exc)) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=MIME_TYPE, text=text)]
        )

    async def subscribe(self, ctx: Any, params: types.SubscribeRequestParams) -> Any:
        """Watch a memory for this client; subscribing again changes nothing."""
        memory_name(params.uri)
        key = _client_key(ctx)
        client = self._clients.get(id(key))
        if client is None:
            client = self._clients[id(key)] = _Client(key, ctx.session)
        client.session = ctx.session
        if params.uri not in client.uris:
            if len(client.uris) >= MAX_SUBSCRIPTIONS_PER_CLIENT:
                raise MCPError(types.INVALID_PARAMS, _too_many(len(client.uris) + 1))
            client.uris.add(params.uri)
        await self._remember(params.uri)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Any, params: types.UnsubscribeRequestParams) -> Any:
        key = _client_key(ctx)
        client = self._clients.get(id(key))
        if client is not None:
            client.uris.discard(params.uri)
            if not client.uris:
                del self._clients[id(key)]
        return types.EmptyResult()

    async def listen(self, ctx: Any, params: types.SubscriptionsListenRequestParams) -> Any:
        """The SDK's listen handler, with the memories it asks for watched meanwhile."""
        uris = sorted(
            {u for u in params.notifications.resource_subscriptions or () if u.startswith(SCHEME)}
        )
        if len(uris) > MAX_SUBSCRIPTIONS_PER_CLIENT:
            raise MCPError(types.INVALID_PARAMS, _too_many(len(uris)))
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
        uris = set(self._listening)
        for client in self._clients.values():
            uris |= client.uris
        return uris

    def subscriptions(self) -> int:
        """How many (client, memory) subscriptions the old way are held."""
        return sum(len(client.uris) for client in self._clients.values())

    async def watch(self) -> None:
        """Forever: notify subscribers of every watched memory whose text changed. Each
        watched memory is read once per round, however many clients watch it, all in one
        worker thread; where the folder watch (inotify) can tell nothing changed in the
        memory folders, a round reads nothing, except one every `FULL_ROUND_TICKS`
        (a memory that is a link to a file elsewhere changes unseen by the folder watch)."""
        try:
            while True:
                await anyio.sleep(WATCH_INTERVAL_SECONDS)
                await self._round()
        finally:
            if self._folder_watch is not None:
                self._folder_watch.close()

    async def _round(self) -> None:
        watched = self.watched()
        for uri in list(self._versions):
            if uri not in watched:
                del self._versions[uri]
        if not watched or self.state.store is None:
            return
        store = self.state.store
        if not await anyio.to_thread.run_sync(self._maybe_changed, store):
            return
        names = {uri: memory_name(uri) for uri in sorted(watched)}
        now = await anyio.to_thread.run_sync(_versions, store, names)
        for uri, version in now.items():
            if uri in self._versions and self._versions[uri] == version:
                continue
            self._versions[uri] = version
            await self._notify(uri)

    def _maybe_changed(self, store: MemoryStore) -> bool:
        """False only when the folder watch is sure nothing changed since the last round."""
        from serena_memory.core.watch import FolderWatch, folders_below

        self._quiet_ticks += 1
        if self._folder_watch is None:
            self._folder_watch = FolderWatch.create() or False
        if self._folder_watch is False:
            return True
        roots = [str(store.layout.memories_dir), str(store.layout.global_dir)]
        self._folder_watch.cover(folders_below(roots))
        if self._folder_watch.changed() or self._quiet_ticks >= FULL_ROUND_TICKS:
            self._quiet_ticks = 0
            return True
        return False

    async def _notify(self, uri: str) -> None:
        await self.bus.publish(ResourceUpdated(uri))
        for key, client in list(self._clients.items()):
            if uri not in client.uris:
                continue
            try:
                await client.session.send_resource_updated(uri)
            except Exception:  # the client went away: forget its subscriptions
                self._clients.pop(key, None)


def _versions(store: MemoryStore, names: dict[str, str]) -> dict[str, str | None]:
    return {uri: _version(store, name) for uri, name in names.items()}


def _too_many(wanted: int) -> str:
    return (
        f"a client may watch at most {MAX_SUBSCRIPTIONS_PER_CLIENT} memories and this would "
        f"make {wanted}; unsubscribe from some first, or ask for fewer"
    )
