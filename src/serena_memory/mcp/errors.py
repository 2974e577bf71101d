"""Failures as the agent reads them: one sentence that says what went wrong and what to do.

Two kinds reach a tool's caller: an exception, worded by the error vocabulary every
front-end shares (:func:`serena_memory.core.errors.describe`), and arguments that don't
match a tool's parameters (`argument_problem`), which the SDK reports as a pydantic dump
with a link to pydantic's website; the agent gets a sentence instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError


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
