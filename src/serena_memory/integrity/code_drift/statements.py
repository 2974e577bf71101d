"""The names of code a code span with spaces still makes when it is a line of code: a
signature (``_escape(s: str) -> str``, ``def load(path, *, strict=False)``) names its
function; a Python import (``from ._speedups import _escape``, ``try: import orjson as
json``) names its module and what it imports. Any other span with a space is a command or
a sentence, and names nothing (pure, no file access).
"""

from __future__ import annotations

import re

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = rf"{_IDENT}(?:\.{_IDENT})*"

_SIGNATURE = re.compile(
    rf"^(?:(?:async\s+)?(?:def|function|fn|func)\s+|class\s+)?({_DOTTED})"
    r"\(([^()`]*(?:\([^()`]*\)[^()`]*)*)\)"  # the parameters, one level of parentheses inside
    r"\s*(?:(?:->|:)\s*[^\s:][^`]*?)?:?\s*$"
)
"""A function's or class's signature, its return type or base after it."""

_GUARD = re.compile(r"^(?:try|else|finally|except(?:\s+[\w.]+(?:\s+as\s+\w+)?)?)\s*:\s*")
"""``try:`` or ``except ImportError:`` written before an import on the same line."""
_FROM_IMPORT = re.compile(
    rf"^from\s+(\.*(?:{_DOTTED})?)\s+import\s+(?:\*|\(?\s*({_IDENT}(?:\s+as\s+{_IDENT})?"
    rf"(?:\s*,\s*{_IDENT}(?:\s+as\s+{_IDENT})?)*)\s*,?\s*\)?)\s*;?$"
)
"""``from pkg.mod import a, b as c`` or ``from .mod import *``: the module, the names."""
_AS = rf"(?:\s+as\s+{_IDENT})?"
_IMPORT = re.compile(rf"^import\s+({_DOTTED}{_AS}(?:\s*,\s*{_DOTTED}{_AS})*)\s*;?$")
_ASSIGNMENT = re.compile(rf"^({_IDENT}\.{_DOTTED})\s*=\s*({_IDENT}\.{_DOTTED});?$")
"""One attribute set to another (``pkg._escape = mod._escape``), both dotted."""
_ALIAS = re.compile(rf"\s+as\s+{_IDENT}$")
_LABELLED_CALL = re.compile(
    rf"^(?:(?:const|let|var)\s+)?{_IDENT}\s*(?::|=)\s*({_DOTTED}\([^()`]*\)),?$"
)
"""A call given to a key or a variable (``headers: f(a, b)``, ``x = f(y)``): the call."""
_GENERIC = frozenset(["self", "cls", "this", "args", "kwargs"])


def statement_names(content: str) -> list[tuple[str, str]]:
    """(text as written, dotted name) of each name of code in a code span that is a
    signature or one or more Python imports (``;``-separated); none for any other span."""
    text = content.strip()
    labelled = _LABELLED_CALL.match(text)
    if labelled is not None:  # `headers: mergeHeaders(a, b)`: the call names its function
        text = labelled.group(1)
    signature = _SIGNATURE.match(text)
    if signature is not None:
        name = signature.group(1)
        return [(text, name)] if not _is_keyword(name) else []
    assigned = _ASSIGNMENT.match(text)
    if assigned is not None:  # `pkg._escape = mod._escape`: both sides name code
        return [(assigned.group(1), assigned.group(1)), (assigned.group(2), assigned.group(2))]
    block = _BLOCK.match(text)
    names: list[tuple[str, str]] = []
    for part in (block.group(1) if block else text).split(";"):
        found = _import_names(_GUARD.sub("", part.strip()))
        if found is None:
            found = _called(part.strip())
        if found is None:
            return []  # one part is no import nor call: a sentence or a command
        names += found
    return names


_BLOCK = re.compile(r"^\{(.*)\}$")
"""A block of statements written in braces, ``{ assertString(str); ... }``."""
_CALL = re.compile(
    rf"^(?:(?:return|await|yield|const\s+{_IDENT}\s*=|let\s+{_IDENT}\s*=)\s*)?({_DOTTED})"
    r"\([^()`]*(?:\([^()`]*\)[^()`]*)*\)$"
)
"""A statement that calls a function (``assertString(str)``, ``return load(path)``)."""
_ELIDED = frozenset(["...", "…", "// ...", "/* ... */"])


def _called(statement: str) -> list[tuple[str, str]] | None:
    """The function a statement of a block calls, as written (None: it calls none);
    none for code left out (``...``) or a language's own word (``print(x)``)."""
    if statement in _ELIDED:
        return []
    found = _CALL.match(statement)
    if found is None:
        return None
    name = found.group(1)
    head, dot, rest = name.partition(".")
    if dot and head in _GENERIC:  # `this.render()`: the method's own name
        name = rest
    return [] if _is_keyword(name) or name in _GENERIC else [(name, name)]


# documentation tools' directives that render a module's docs: mkdocstrings' `::: pkg.mod`
# and Sphinx's `.. automodule:: pkg.mod` name the module as an import would
_DOC_DIRECTIVE = re.compile(r"^(?::::|\.\.\s+auto(?:module|class|function)::)\s+([A-Za-z_][\w.]*)$")


def imported_modules(content: str) -> list[str]:
    """The modules a code span of Python imports names, as written (``from ..utils
    import x`` -> ``..utils``), or that a documentation directive renders (``:::
    pkg.mod``); none for any other span."""
    directive = _DOC_DIRECTIVE.match(content.strip())
    if directive is not None:
        return [directive.group(1)]
    out: list[str] = []
    for part in content.strip().split(";"):
        statement = _GUARD.sub("", part.strip())
        found = _FROM_IMPORT.match(statement)
        if found is not None:
            out.append(found.group(1))
            continue
        found = _IMPORT.match(statement)
        if found is None:
            return [] if statement else out
        out += [_ALIAS.sub("", n.strip()) for n in found.group(1).split(",")]
    return [m for m in out if m.strip(".")]


def package_members(content: str) -> list[str]:
    """The modules an import takes by name from its own package (``from . import
    formatting, termui``; ``try:`` before it allowed): each name in lowercase, as a module
    is named, may be one of that package's files. Only from ``.``: from ``..`` the folder
    is too far from where the memory places it."""
    out: list[str] = []
    for part in content.strip().split(";"):
        found = _FROM_IMPORT.match(_GUARD.sub("", part.strip()))
        if found is not None and found.group(1) == "." and found.group(2):
            names = (_ALIAS.sub("", n.strip()) for n in found.group(2).split(","))
            out += [n for n in names if n and n == n.lower() and n not in _GENERIC]
    return out


def imported_names(line: str) -> list[str]:
    """The names a line of Python takes from a dotted or relative module (``from
    itsdangerous.encoding import want_bytes, Signer as S`` -> ``want_bytes``, ``Signer``):
    the symbols of that module it claims; none for ``*``, ``from . import x`` (its modules)
    or any other line."""
    found = _FROM_IMPORT.match(_GUARD.sub("", line.strip()))
    if found is None or not found.group(2) or not found.group(1).strip("."):
        return []
    names = (_ALIAS.sub("", n.strip()) for n in found.group(2).split(","))
    return [n for n in names if n and n not in _GENERIC]


def _import_names(statement: str) -> list[tuple[str, str]] | None:
    """The module and the names of one import statement (None: it is none)."""
    if not statement:
        return []
    found = _FROM_IMPORT.match(statement)
    if found is not None:
        module = found.group(1).lstrip(".")
        names = found.group(2) or ""  # `import *`: the module alone
        named = [_ALIAS.sub("", n.strip()) for n in names.split(",") if n.strip()]
        out = [(found.group(1), module)] if module else []
        return out + [(n, n) for n in named if n not in _GENERIC]
    found = _IMPORT.match(statement)
    if found is not None:
        modules = [_ALIAS.sub("", n.strip()) for n in found.group(1).split(",")]
        return [(m, m) for m in modules]
    return None


def _is_keyword(name: str) -> bool:
    """Words that open a statement, never a function's name (``if (x)``, ``print``)."""
    return name in _KEYWORDS


_KEYWORDS = frozenset(
    [
        "if",
        "elif",
        "while",
        "for",
        "switch",
        "catch",
        "return",
        "print",
        "assert",
        "with",
        "not",
        "and",
        "or",
        "in",
        "is",
        "lambda",
        "yield",
        "await",
        "new",
        "typeof",
        "sizeof",
        "require",
        "import",
        "super",
    ]
)
