"""The MCP server, built from the tool modules on the official SDK and served over its
transports.

A thin layer. Every rule lives in the library (store, onboarding, modes, exploration);
the tool modules word what the agent reads; this module puts the tools the active modes
leave on the SDK's low-level `Server`, with the prompts (`prompts.py`) and the memories as
resources (`resources.py`). The SDK advertises exactly what is served. Every tool runs in a
worker thread so that a slow call (a write waiting for another process's lock, a long
search) never stalls other requests.

Why the low-level `Server` and not `MCPServer`'s decorators: a tool's failure reaches the
agent as one sentence of ours, where the high-level server prefixes "Error executing tool"
and hands on pydantic's dump of a bad argument; an argument no tool takes is named, where
the high-level server's argument models drop it in silence; and the listing is built once,
with schemas free of derived titles and the annotations each tool declares. The SDK's
`Tool.from_function` still derives each schema and validates the arguments.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from serena_memory import __version__
from serena_memory.core import operation
from serena_memory.core.changes import Provenance, acting_as
from serena_memory.history.notices import take_notices
from serena_memory.mcp import (
    tools_exploration,
    tools_history,
    tools_memories,
    tools_onboarding,
    tools_search,
)
from serena_memory.mcp.errors import argument_problem, for_agent, unknown_arguments
from serena_memory.mcp.prompts import Prompts
from serena_memory.mcp.resources import MemoryResources
from serena_memory.mcp.state import ServerState, client_provenance, create_state
from serena_memory.mcp.tool_declaration import ToolDeclaration

SERVER_NAME = "serena-memory"
DECLARED_TOOLS: tuple[ToolDeclaration, ...] = (
    *tools_memories.TOOLS,
    *tools_search.TOOLS,
    *tools_history.TOOLS,
    *tools_onboarding.TOOLS,
    *tools_exploration.TOOLS,
)


def _schema_source(declared: ToolDeclaration) -> Any:
    """The tool function without its first parameter (the state), for the SDK to derive
    the input schema and the argument validation from."""
    bound = functools.partial(declared.fn, None)
    bound.__name__ = declared.name  # type: ignore[attr-defined]  # the SDK names its model after it
    return bound


def _attributed(provenance: Provenance, fn: Any, *args: Any, **kwargs: Any) -> str:
    """Run a tool with its changes attributed; a history that could not be recorded in
    this request's operation is said once, after the answer (the change itself was made)."""
    with acting_as(provenance):
        text = fn(*args, **kwargs)
    notices = take_notices()
    if notices:
        text += "".join(f"\n\nNote: {notice}" for notice in notices)
    return text


def _failed(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def build_server(state: ServerState) -> Server[Any]:
    """A server offering exactly the tools the active modes leave."""
    offered = _offered_tools(state)
    listing = _listing(offered)
    handlers = _prompt_and_resource_handlers(state)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        return listing

    server: Server[Any] = Server(
        SERVER_NAME,
        title="Serena memory",
        version=__version__,
        instructions=state.instructions(),
        on_list_tools=list_tools,
        on_call_tool=_tool_caller(state, offered),
        **handlers,
    )
    _add_middleware(server, state)
    return server


def _offered_tools(state: ServerState) -> dict[str, tuple[ToolDeclaration, Tool]]:
    """Each tool the active modes leave, by name, with the SDK's view of its parameters."""
    offered: dict[str, tuple[ToolDeclaration, Tool]] = {}
    for declared in DECLARED_TOOLS:
        if state.enabled(declared.name):
            tool = Tool.from_function(
                _schema_source(declared),
                name=declared.name,
                description=declared.description,
                structured_output=False,
            )
            offered[declared.name] = (declared, tool)
    return offered


def _listing(offered: dict[str, tuple[ToolDeclaration, Tool]]) -> types.ListToolsResult:
    """The answer to `tools/list`, built once: it never changes while the server runs."""
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=declared.name,
                title=declared.title,
                description=declared.description,
                input_schema=without_titles(tool.parameters),
                annotations=types.ToolAnnotations(
                    read_only_hint=declared.read_only,
                    destructive_hint=None if declared.read_only else declared.destructive,
                    open_world_hint=False,
                ),
            )
            for declared, tool in offered.values()
        ]
    )


def without_titles(schema: Any) -> Any:
    """A JSON schema without the titles pydantic derives from names ("Memory Name" for
    memory_name): every client shows the name already, and every conversation pays for
    each character of the listing. Property names are kept, whatever they are called."""
    if isinstance(schema, list):
        return [without_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: without_titles(sub) for name, sub in value.items()}
        else:
            out[key] = without_titles(value)
    return out


def _tool_caller(state: ServerState, offered: dict[str, tuple[ToolDeclaration, Tool]]) -> Any:
    """The `tools/call` handler: arguments checked, the tool run off the event loop with
    its changes attributed to the client, every failure one sentence for the agent."""

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        entry = offered.get(params.name)
        if entry is None:  # the specification's answer to an unknown tool: invalid params
            names = ", ".join(offered) or "none"
            raise MCPError(
                types.INVALID_PARAMS,
                f"there is no tool '{params.name}' here; the tools are: {names}.",
            )
        declared, tool = entry
        unknown = unknown_arguments(declared.name, params.arguments or {}, tool.parameters)
        if unknown is not None:
            return _failed(unknown)
        try:
            arguments = tool.fn_metadata.validate_arguments(params.arguments or {})
        except ValidationError as exc:
            return _failed(argument_problem(declared.name, exc, tool.parameters))
        except Exception as exc:
            return _failed(for_agent(exc))
        run = functools.partial(
            _attributed, client_provenance(ctx, declared.name), declared.fn, state, **arguments
        )
        try:
            text = await anyio.to_thread.run_sync(run)
        except Exception as exc:
            return _failed(for_agent(exc, state.store))
        if not declared.read_only and state.after_write is not None:
            state.after_write()  # only schedules: the answer is not held up
        # what was done on the side (an interrupted rename finished): apart from the answer
        blocks = [text, *state.take_notices()]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=block) for block in blocks]
        )

    return call_tool


def _prompt_and_resource_handlers(state: ServerState) -> dict[str, Any]:
    """The prompts' handlers, and the memories as resources unless a mode hides them
    (with the lifespan that watches the folder for subscribers)."""
    prompts = Prompts(state)
    handlers: dict[str, Any] = {}
    if prompts.offered:
        handlers.update(on_list_prompts=prompts.list, on_get_prompt=prompts.get)
    if not state.enabled("read_memory"):
        return handlers
    resources = MemoryResources(state)
    handlers.update(
        on_list_resources=resources.list,
        on_list_resource_templates=resources.templates,
        on_read_resource=resources.read,
        on_subscribe_resource=resources.subscribe,
        on_unsubscribe_resource=resources.unsubscribe,
        on_subscriptions_listen=resources.listen,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(resources.watch)
            yield {}
            tasks.cancel_scope.cancel()

    handlers["lifespan"] = lifespan
    return handlers


def _add_middleware(server: Server[Any], state: ServerState) -> None:
    """One operation per request, and fresh instructions for each new session."""

    async def fresh_instructions(ctx: Any, call_next: Any) -> Any:
        """Each session is told about the memories as they are when it starts."""
        if ctx.method not in ("initialize", "server/discover"):
            return await call_next(ctx)
        server.instructions = await anyio.to_thread.run_sync(state.instructions)
        result = await call_next(ctx)
        if isinstance(result, dict) and "instructions" in result:
            result["instructions"] = server.instructions  # stdio's options predate it
        return result

    async def one_operation(ctx: Any, call_next: Any) -> Any:
        """Each request is one operation (core/operation.py): the settings are read once
        for it, and the notices it collects reach this client's answer and no other's."""
        with operation.operation():
            return await call_next(ctx)

    server.middleware.append(one_operation)
    server.middleware.append(fresh_instructions)


def create_server(
    project: str | Path | None = None,
    modes: Iterable[str] = (),
    *,
    home: Path | None = None,
    use_default_project: bool = True,
    context: str | None = None,
) -> tuple[ServerState, Server[Any]]:
    """The state and the server built on it (see `state.create_state`)."""
    state = create_state(
        project, modes, home=home, use_default_project=use_default_project, context=context
    )
    return state, build_server(state)


def run_stdio(server: Server[Any]) -> None:
    """Serve one client over stdin/stdout (the SDK's stdio transport) until stdin closes."""
    anyio.run(_serve_stdio, server)


async def _serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    from serena_memory.mcp.message_checks import CheckedLines

    lines = CheckedLines(sys.stdin.buffer)
    # `stdin` is documented as an async file of text lines; only its lines are read.
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.answer_through(write_stream)
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(server: Server[Any], host: str, port: int, token: str | None) -> None:
    """Serve every client at http://HOST:PORT/mcp (the SDK's streamable-HTTP app), only
    to requests carrying ``Authorization: Bearer TOKEN`` unless ``token`` is None."""
    import uvicorn

    from serena_memory.mcp.auth import BearerAuth
    from serena_memory.mcp.message_checks import CheckedBodies
    from serena_memory.serving import uvicorn_config

    app: Any = CheckedBodies(server.streamable_http_app(host=host))
    if token is not None:
        app = BearerAuth(app, token)  # outermost: nothing is read before the token is checked
    # bounded against idle and half-sent connections (serving.py)
    config = uvicorn_config(app, host=host, port=port, log_level="warning")
    anyio.run(uvicorn.Server(config).serve)
