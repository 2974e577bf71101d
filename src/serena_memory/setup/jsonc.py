"""JSON with comments, as VS Code reads its `mcp.json`: `//` and `/* */` comments and
trailing commas are allowed. Read by blanking them out (strings are respected, so a `//`
inside a URL stays) and parsing what remains as JSON; changed by editing the text in
place, so every comment, blank line and layout the person chose stays where it was.

Blanking keeps every character's position (a comment becomes spaces, its newlines stay),
so an error's line number is the line in the person's file, and a position found in the
blanked text is the same position in the original.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\n]+)
    | (?P<line>//[^\n]*)
    | (?P<block>/\*.*?\*/)
    | (?P<string>"(?:[^"\\\n]|\\.)*")
    | (?P<punct>[{}\[\]:,])
    | (?P<other>[^\s{}\[\]:,"/]+)
    """,
    re.VERBOSE | re.DOTALL,
)


class JsoncError(ValueError):
    """Text that is not JSON with comments; ``line`` is where (1-based)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def blank_comments(text: str) -> str:
    """``text`` with its comments and trailing commas replaced by spaces (newlines kept):
    plain JSON if ``text`` is JSON with comments, every position unchanged."""
    out: list[str] = []
    pending_comma: int | None = None  # index in ``out`` of a comma that may be trailing
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            line = text.count("\n", 0, pos) + 1
            what = "an unfinished comment" if text.startswith("/*", pos) else "a stray character"
            if text.startswith('"', pos):
                what = "an unfinished string"
            raise JsoncError(f"{what} at line {line}", line)
        kind, token = match.lastgroup, match.group()
        if kind in ("line", "block"):
            out.append(_blank(token))
        elif kind == "space":
            out.append(token)
        else:
            if pending_comma is not None and token in ("}", "]"):
                out[pending_comma] = " "  # a trailing comma: JSON has none
            pending_comma = len(out) if token == "," else None
            out.append(token)
        pos = match.end()
    return "".join(out)


def loads(text: str, parse: Any = json.loads) -> Any:
    """The value of JSON-with-comments ``text``, read by ``parse`` (default json.loads)
    from the blanked text."""
    return parse(blank_comments(text))


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"\s*")


def _members(plain: str, start: int) -> tuple[list[tuple[str, int, int, int]], int]:
    """The members of the object whose ``{`` is at ``start`` in blanked text ``plain``:
    (key, key start, value start, value end) each, and the index of its ``}``."""
    members: list[tuple[str, int, int, int]] = []
    pos = _SPACE.match(plain, start + 1).end()  # type: ignore[union-attr]
    if plain[pos] == "}":
        return members, pos
    while True:
        key_start = pos
        key, pos = _DECODER.raw_decode(plain, pos)
        pos = _SPACE.match(plain, pos).end()  # type: ignore[union-attr]
        pos = _SPACE.match(plain, pos + 1).end()  # type: ignore[union-attr]  # past ':'
        value_start = pos
        _value, pos = _DECODER.raw_decode(plain, pos)
        members.append((key, key_start, value_start, pos))
        pos = _SPACE.match(plain, pos).end()  # type: ignore[union-attr]
        if plain[pos] == ",":
            pos = _SPACE.match(plain, pos + 1).end()  # type: ignore[union-attr]
        if plain[pos] == "}":
            return members, pos


def _indent_of(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t]*", text[line_start:]).group()  # type: ignore[union-attr]


def _render(value: Any, indent: str) -> str:
    """``value`` as JSON, its inner lines indented below a line indented by ``indent``."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def set_member(text: str, path: tuple[str, str], value: Any) -> str:
    """``text`` (JSON with comments holding an object) with ``value`` at ``path`` (an
    object's key, then a key in it), the object created if absent; only that member's
    text changes, so every comment and the layout stay."""
    plain = blank_comments(text)
    outer, inner = path
    top = _SPACE.match(plain).end()  # type: ignore[union-attr]
    members, close = _members(plain, top)
    found = next((m for m in members if m[0] == outer), None)
    if found is None:
        return _insert(text, plain, members, close, outer, {inner: value})
    _key, _ks, value_start, _ve = found
    entries, inner_close = _members(plain, value_start)
    current = next((m for m in entries if m[0] == inner), None)
    if current is None:
        return _insert(text, plain, entries, inner_close, inner, value)
    _k, key_start, start, end = current
    return text[:start] + _render(value, _indent_of(text, key_start)) + text[end:]


def _insert(
    text: str,
    plain: str,
    members: list[tuple[str, int, int, int]],
    close: int,
    key: str,
    value: Any,
) -> str:
    """Add ``"key": value`` as the last member of the object whose ``}`` is at ``close``,
    laid out as its other members are (one per line, or all on one line)."""
    name = json.dumps(key, ensure_ascii=False)
    if members:
        _k, key_start, _vs, last_end = members[-1]
        indent = _indent_of(text, key_start)
        line_start = plain.rfind("\n", 0, key_start) + 1
        own_line = not plain[line_start:key_start].strip()
        member = f"{name}: {_render(value, indent)}"
        line_end = text.find("\n", last_end)
        rest = text[last_end:line_end]
        if own_line and line_end != -1 and close > line_end and "/*" not in rest:
            # after the last member's line, so a comment ending that line stays with it
            comma = "," in re.split(r"//|/\*", rest, maxsplit=1)[0]  # kept if trailing
            return (
                text[:last_end]
                + ("" if comma else ",")
                + rest
                + f"\n{indent}{member}"
                + ("," if comma else "")
                + text[line_end:]
            )
        sep = f",\n{indent}" if own_line else ", "
        return text[:last_end] + sep + member + text[last_end:]
    outer = _indent_of(text, close)
    indent = outer + "  "
    before = text[:close].rstrip(" \t")
    return before + f"\n{indent}{name}: {_render(value, indent)}\n{outer}" + text[close:]
