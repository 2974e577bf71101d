"""Names and texts as a terminal shows them: never a control sequence.

A memory's name is a file name, and a cloned repository or a sync remote chooses file
names, file contents, commit authors and summaries. Printed as they are, an ESC or a C1
control (``\\x9b``) starts a sequence that changes the window title, clears the screen or
rewrites what was printed; a carriage return overwrites a line; a bidi override (U+202E)
or a zero-width space makes one name look like another. The command line passes every
name and every such text through here (the dashboard escapes HTML, the MCP server writes
JSON to a program, not to a terminal).

Cheap to import: ``re`` and ``str`` methods only.
"""

from __future__ import annotations

import json
import re

# Kept by escape_text besides newline and tab: spaces other than " " (a no-break space in
# French text) and the zero-width joiners, which join emoji and the letters of several
# scripts. None of them moves the cursor or reorders text.
_TEXT_KEPT = frozenset("\u200c\u200d")
_LINE_BREAKS = frozenset("\u2028\u2029")
# Characters JSON leaves raw with ensure_ascii off that are not printable (C1 controls,
# DEL, format and separator characters, lone surrogates): C0 and the backslash are already
# escaped by json.dumps, so they are not matched.
_NOT_ASCII = re.compile(r"[^\x00-\x7e]|\x7f")


def counted(number: int, singular: str, plural: str = "") -> str:
    """``1 memory``, ``2 memories``: a count as a person writes it (not ``memory(ies)``)."""
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    """Python's own escape for one character: ``\\n``, ``\\x1b``, ``\\u202e``,
    ``\\U000e0001``."""
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape_line(text: str) -> str:
    """A name, an author or a summary as one safe line that reads back exactly.

    Every character that is not printable (``str.isprintable``: controls, newline and tab
    included, format characters such as bidi overrides and zero-width spaces, separators
    other than the space, lone surrogates standing for file-name bytes that are not
    UTF-8) becomes its Python escape, and a backslash is doubled; so two different names
    never look alike, and ``codecs.decode(shown.encode('ascii', 'backslashreplace'),
    'unicode_escape')`` gives the name back."""
    if text.isprintable() and "\\" not in text:
        return text  # nearly every name: no copy
    return "".join("\\\\" if c == "\\" else c if c.isprintable() else _escaped(c) for c in text)


def _text_safe(char: str) -> bool:
    return (
        char.isprintable()
        or char in "\n\t"
        or char in _TEXT_KEPT
        or (char.isspace() and ord(char) >= 0xA0 and char not in _LINE_BREAKS)
    )


def escape_text(text: str) -> str:
    """A text of several lines (a memory's content, a message quoting names) for a terminal.

    Newlines, tabs, the carriage return of a CRLF line end, spaces of every kind and the
    zero-width joiners stay; every other character that is not printable (C0 and C1
    controls, DEL, a lone carriage return, bidi controls, zero-width spaces, line and
    paragraph separators, lone surrogates) becomes its Python escape, as in
    :func:`escape_line`. Backslashes stay as written, so the text reads as its author wrote
    it; it is not reversible (a written ``\\x1b`` looks like an escaped ESC), which is why
    the exact text goes to a pipe and to ``--json``."""
    if text.isprintable():
        return text
    # line by line: most lines of a long report are plain, and a str method over a line
    # is far cheaper than a look at each character
    lines = text.split("\n")
    last = len(lines) - 1
    out: list[str] = []
    for number, line in enumerate(lines):
        crlf = number < last and line.endswith("\r")
        body = line[:-1] if crlf else line
        if not body.replace("\t", " ").isprintable():
            body = "".join(c if _text_safe(c) else _escaped(c) for c in body)
        out.append(body + "\r" if crlf else body)
    return "\n".join(out)


def escape_json(dumped: str) -> str:
    """JSON made by ``json.dumps(..., ensure_ascii=False)`` with every character that is
    not printable written as a ``\\uXXXX`` escape (C1 controls, DEL, bidi and zero-width
    characters, lone surrogates), which json.dumps leaves raw: the same data to a JSON
    parser, nothing that steers a terminal. Other characters stay readable."""

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        if char.isprintable():
            return char
        return json.dumps(char)[1:-1]  # ensure_ascii: \\u escapes, surrogate pairs

    return _NOT_ASCII.sub(escape, dumped)
