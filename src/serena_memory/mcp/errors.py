"""Failures as the agent reads them: one sentence that says what went wrong and what to do.

Two kinds reach a tool's caller: an exception, worded by the error vocabulary every
front-end shares (:func:`serena_memory.core.errors.describe`) with what to do named as a
tool (`for_agent`), and arguments that don't match a tool's parameters
(`argument_problem`, `unknown_arguments`), which the SDK reports as a pydantic dump with a
link to pydantic's website, or not at all; the agent gets a sentence instead.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from serena_memory.agent import tools as T
from serena_memory.core.errors import MemoryNotFoundError, Remedy, describe

if TYPE_CHECKING:
    from pydantic import ValidationError

    from serena_memory.core.store import MemoryStore


_JSON_TYPES = {
    "string": "text",
    "integer": "a whole number",
    "boolean": "true or false",
    "number": "a number",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def _expected(schema: dict[str, Any]) -> str:
    """What a parameter takes, in words, from its JSON schema."""
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kinds = [schema] if "type" in schema else list(schema.get("anyOf", []))
    words = [_JSON_TYPES.get(k.get("type", ""), str(k.get("type"))) for k in kinds if "type" in k]
    return " or ".join(words) or "a valid value"


def _given(value: object) -> str:
    """What the caller sent: short plain values as they are, anything else by its kind."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else "a long text"
    if isinstance(value, int | float):
        return repr(value) if len(repr(value)) <= 20 else "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def argument_problem(tool: str, exc: ValidationError, schema: dict[str, Any]) -> str:
    """The first argument error of a call, as one sentence naming the argument, what was
    wrong and what is expected."""
    error = exc.errors(include_url=False)[0]
    name = ".".join(str(part) for part in error["loc"]) or "arguments"
    top = str(error["loc"][0]) if error["loc"] else ""
    properties = schema.get("properties", {})
    expected = _expected(properties.get(top, {}))
    description = properties.get(top, {}).get("description")
    if error["type"] == "missing":
        problem = "is missing"
    elif error["type"] in ("recursion_loop", "json_invalid"):
        problem = "could not be read"
    else:
        problem = f"was {_given(error.get('input'))}"
    what = f": {description[:1].lower()}{description[1:].rstrip('.')}" if description else ""
    return f"argument '{name}' of {tool} {problem}; expected {expected}{what}."


_TOOLS_FOR = {"history": T.MEMORY_HISTORY.name, "list": T.LIST_MEMORIES.name}


def agent_wording(remedy: Remedy) -> str:
    """A remedy as the tool an agent calls; operations no tool offers are the person's."""
    if remedy.option:
        return f"`{remedy.option}: true`"
    tool = _TOOLS_FOR.get(remedy.operation)
    if tool is None:
        memory = f" {remedy.memory}" if remedy.memory else ""
        return f"the user's command `serena memories {remedy.operation}{memory}`"
    return f"the {tool} tool" + (f" (memory_name '{remedy.memory}')" if remedy.memory else "")


def for_agent(exc: BaseException, store: MemoryStore | None = None) -> str:
    """The one sentence an agent reads for ``exc``, what to do named as a tool; a memory
    that is not found comes with the closest existing names, as on the command line."""
    message = describe(exc, agent_wording)
    if store is None or not isinstance(exc, MemoryNotFoundError) or not exc.name:
        return message
    from serena_memory.integrity.references.missing_names import closest_names, renamed_note

    try:
        renamed = renamed_note(store, exc.name)
        if renamed:
            return f"{message.rstrip('.')}: {renamed}; read it under that name."
        close = closest_names(store, exc.name)
    except Exception:  # the hint is a courtesy: the error itself stands
        return message
    if not close:
        return message
    quoted = " or ".join(f"'{name}'" for name in close)
    return f"{message.rstrip('.')}; did you mean {quoted}?"


def unknown_arguments(tool: str, given: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """One sentence for arguments a tool does not take (a typo such as `max_result` would
    otherwise be dropped silently), naming the ones it takes; None when all are known."""
    known = list(schema.get("properties", {}))
    unknown = [name for name in given if name not in known]
    if not unknown:
        return None
    name = unknown[0]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    takes = ", ".join(known) if known else "none"
    return f"{tool} has no argument '{name}'; {hint}its arguments are: {takes}."
