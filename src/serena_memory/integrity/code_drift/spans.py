"""What a code span of a memory names (pure, no file access): a path of the project
(``src/auth/login.py``, ``./x``, ``../lib/x.js``, a glob's folder, ``@/alias/x``), a symbol
(``LoginService``, ``refresh_token()``, ``SessionStore.refresh``), a dotted module, a
test after its file (``tests/a.py::test_x``), the names a line of code in a span makes,
or nothing (a sentence, a placeholder, a URL). Each as the fields of a mention but its
line (:data:`Fields`), for :mod:`~serena_memory.integrity.code_drift.mentions` to place.
"""

from __future__ import annotations

import functools
import posixpath
import re

from serena_memory.integrity.code_drift.examples import (
    GENERIC_WORDS,
    PLACEHOLDER_NAME,
    PLACEHOLDER_PART,
    PRODUCT_WORDS,
    STAND_IN_WORD,
    may_be_made_up,
    placeholder_call,
)
from serena_memory.integrity.code_drift.extensions import (
    DATA_EXTENSIONS,
    DOTFILE_NAMES,
    EXTENSIONLESS_FILES,
    KNOWN_EXTENSIONS,
)
from serena_memory.integrity.code_drift.fenced import interpreter_script, ran_files
from serena_memory.integrity.code_drift.forms import (
    ALIAS,
    GLOB,
    MEMBER,
    MODULE,
    RELATIVE,
    STEM,
    UP,
    module_target,
)
from serena_memory.integrity.code_drift.patterns import expansions, glob_folder
from serena_memory.integrity.code_drift.statements import (
    imported_modules,
    package_members,
    statement_names,
)

PATH = "path"
SYMBOL = "symbol"

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
NODE = rf"::{IDENT}(?:::{IDENT})*(?:\[[^\]\s]*\]|\(\))?"
"""The test or symbol after a file, ``::``-separated (a pytest node id, ``path::name``)."""
PROSE_LOCATION = r"(?::L?\d+(?:[-:,]L?\d+)*|#L\d+(?:-L?\d+)?)"

_LOCATION = re.compile(r"(?::L?\d+(?:[-:,]L?\d+)*|#L\d+(?:C\d+)?(?:-L?\d+(?:C\d+)?)?|#[\w.-]*)$")
_LINE_WORDS = re.compile(
    r"(?:\s*,)?\s+\(?(?:lines?|l\.|ln\.?)\s*\d+(?:\s*(?:-|–|to)\s*\d+)?\)?$", re.IGNORECASE
)
"""A line written out after a path: ``login.py (line 3)``, ``login.py, lines 3-5``."""
_LINE_TAIL = 64
"""The end of a span where a line written out is looked for."""
_PATH_CHARS = re.compile(
    r"^(?:[\w.@+/-]|(?<![^/])\$(?=\.[A-Za-z])|\[{1,2}(?:\.{3})?[\w-]+\]{1,2}|\([\w-]+\))+$"
)
"""A path's characters, a route's segments among them (``app/[id]/(shop)/page.tsx``, a
catch-all route's ``$.ts``: a ``$`` that is a file's whole stem stands for nothing)."""
_SYMBOL_SHAPE = re.compile(rf"^@?({IDENT}(?:(?:\.|::|#){IDENT})*)(\([^()]*\))?[;,]?$")
_IDENT_RE = re.compile(IDENT)
_SPACE = re.compile(r"\s")
_NOT_A_NAME = re.compile(r"[*?<>{}%=|,;'\"\[\]!^&]|\$(?!\.[A-Za-z])|(?<=[^/])\$")
_CAMEL = re.compile(r"^[A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$")
_DRIVE = re.compile(r"^[A-Za-z]:")
_NUMBERS = re.compile(r"[\d.]+(/[\d.]+)+")
_SYMBOL_SEPARATOR = re.compile(r"\.|::|#")
_ALIASED = re.compile(r"^[@~][\w-]*/[\w.@+-]|^@[\w-]*/$")
"""A path through a build's alias (``@/pages/home``, ``~/lib/x``, the alias itself: ``@/``)
or a package's scope (``@tanstack/query``): the checker tells which from the aliases."""


def _has_extension(name: str) -> bool:
    """Whether a name ends with a known extension, written as extensions are: lower case
    or capitals (`.md`, `.MD`, `.R`), not a capital then lower case (`wg.Go`, `t.Run`: a
    method called on a variable)."""
    stem, dot, ext = name.rpartition(".")
    if ext[:1].isupper() and ext[1:].islower():
        return False
    return bool(dot and stem and stem != "." and ext.lower() in KNOWN_EXTENSIONS)


def path_target(raw: str) -> tuple[str, bool] | None:
    """(project-relative target, loose) for a code span that is a path, else None.
    Paths that leave the project (absolute, ``~``, ``..``) are None: never looked at."""
    text = _path_text(raw)
    if text is None:
        return None
    folder = text.endswith("/")
    dotted = text.startswith("./")
    body = text.rstrip("/")
    last = body.rsplit("/", 1)[-1]
    named = _named(body, last)
    if not ("/" in body or folder or dotted or _is_file_name(last, named)):
        return None
    if PLACEHOLDER_NAME.match(last) or PLACEHOLDER_PART.search(body):
        return None  # a naming rule (`PascalCase.tsx`, `PRP-XXX-name.md`), not a file
    normal = _within_project(body)
    if normal is None:
        return None
    loose = not (folder or named or dotted)
    if loose and _NUMBERS.fullmatch(normal):
        return None  # a date or a ratio
    return (normal + "/" if folder else normal), loose


def _named(body: str, last: str) -> bool:
    """Whether a path's last part is a file's name: a known extension or name, or a
    database file's with a folder before it (``database/events.db``)."""
    if _has_extension(last) or last in EXTENSIONLESS_FILES:
        return True
    if last[:1] == "." and last[1:] in DOTFILE_NAMES:
        return True  # `.prettierrc`
    return "/" in body and "." in last and last.rpartition(".")[2].lower() in DATA_EXTENSIONS


def _path_text(raw: str) -> str | None:
    """A code span's text without its line or anchor, when it has the characters of a
    path, names more than ``.`` or ``..`` and does not start outside the project (``/``,
    ``~``, a drive) or as an option."""
    text = raw.strip()
    if not text or text.startswith(("/", "~", "\\", "-", "mem:")) or _DRIVE.match(text):
        return None
    text = _LOCATION.sub("", text) if ("#" in text or ":" in text) else text
    if not text or not _PATH_CHARS.match(text) or text.rstrip("/") in ("", ".", ".."):
        return None
    return text


def _is_file_name(last: str, named: bool) -> bool:
    """Whether a bare word (no ``/``) is a file name: only with a known extension or name
    (``login.py``, ``Makefile``; ``named``), and ``.md`` is an extension, not a file."""
    one_dot = last.startswith(".") and last.count(".") == 1
    return named and not (one_dot and last[1:] not in DOTFILE_NAMES)


def _within_project(body: str) -> str | None:
    """``body`` normalised; None when it leaves the project or a part is an option."""
    # normpath only changes a path with an empty, `.` or `..` part
    normal = posixpath.normpath(body) if ("//" in body or "/." in "/" + body) else body
    if normal.startswith(("..", "/", "-")) or normal == "." or "/-" in normal:
        return None
    return normal


_COMMIT_TITLE = re.compile(
    r"^(?:feat|fix|docs|chore|refactor|test|perf|ci|build|style|revert)(?:\([^)\n]*\))?!?:"
)
"""A commit title's form (``feat(isX): ...``): how commits are named, no call."""

LANGUAGE_GLOBALS = frozenset(
    [
        "Object",
        "Array",
        "String",
        "Number",
        "Boolean",
        "Symbol",
        "BigInt",
        "Math",
        "JSON",
        "Promise",
        "Date",
        "RegExp",
        "Map",
        "Set",
        "WeakMap",
        "WeakSet",
        "Reflect",
        "Proxy",
        "Intl",
        "Error",
        "TypeError",
        "ArrayBuffer",
        "DataView",
        "Atomics",
        "URL",
        "URLSearchParams",
        "console",
        "globalThis",
        "window",
        "document",
        "navigator",
        "Buffer",
        "process",
        "str",
        "bytes",
        "dict",
        "list",
        "set",
        "tuple",
        "int",
        "float",
        "object",
        "type",
    ]
)
"""Objects every program of a language has (JavaScript's globals, Python's built-in types):
`Object.fromEntries` or `str.removeprefix` is the language's, not the project's."""


def _language_own(parts: list[str]) -> bool:
    """Whether a dotted name is the language's own: a global's member, or a method of a
    built-in's prototype (``String.prototype.replaceAll``)."""
    return parts[0] in LANGUAGE_GLOBALS or (len(parts) > 2 and parts[1] == "prototype")


def symbol_target(raw: str) -> str | None:
    """The dotted name of a code span that is a symbol, else None."""
    found = _SYMBOL_SHAPE.match(raw.strip())
    if not found:
        return None
    name, call = found.group(1), found.group(2)
    parts = _SYMBOL_SEPARATOR.split(name)
    if len(parts) > 1 and _language_own(parts):
        return None
    if any(len(p) < 2 for p in parts) and not call:
        return None
    if call is not None or len(parts) > 1:
        return None if placeholder_call(parts, call) else _dotted_name(parts, call)
    return parts[0] if _is_symbol_word(parts[0]) else None


def _dotted_name(parts: list[str], call: str | None) -> str | None:
    """A call or a dotted name; ``foo.bar`` in prose is more often a domain or a key than
    code (None)."""
    lower = all(p.islower() and "_" not in p for p in parts)
    if len(parts) == 2 and not call and lower:
        return None
    return ".".join(parts)


def _is_symbol_word(word: str) -> bool:
    """Whether one word names a symbol: snake_case or camelCase, and not a product's name,
    an all-capitals word or a generic word (``true``, ``self``, ``TODO``)."""
    if word in PRODUCT_WORDS or word.isupper() or word.lower() in GENERIC_WORDS:
        return False
    if STAND_IN_WORD.match(word):
        return False
    if _PRIVATE.match(word):
        return True  # `_native`, `__init__`: no word of prose starts with `_`
    rest = word[1:]  # ASCII (the symbol's shape): a letter after the first is upper
    return "_" in word.strip("_") or bool(rest != rest.lower() and _CAMEL.match(word))


_PRIVATE = re.compile(r"^_+[A-Za-z][A-Za-z0-9]{2,}_*$")


Fields = (
    tuple[str, str, str, bool, bool, str]
    | tuple[str, str, str, bool, bool, str, str]
    | tuple[str, str, str, bool, bool, str, str, bool]
)
"""A mention but its line: text, kind, target, loose, rooted, where (and form, weak)."""


@functools.lru_cache(maxsize=16_384)
def span_fields(content: str) -> tuple[Fields, ...]:
    """What :func:`_classify` finds, whatever the line: the same spans (a file, a class)
    come back in many memories of a folder, and are read once."""
    if _COMMIT_TITLE.match(content.strip()):
        return ()
    raw = _span_name(content)
    if raw is None:
        spaced = _spaced_path(content.strip()) if " " in content else None
        return _statement_fields(content) if spaced is None else spaced
    node = _node_in_file(raw)
    if node is not None:
        return node
    if _not_a_name(raw):
        return pattern_fields(raw)
    if raw.startswith("../"):
        return up_fields(raw)
    if _ALIASED.match(raw):  # `~/../x` leaves the alias's folder: no path of the project
        target = _LOCATION.sub("", raw).rstrip("/")
        if {".", ".."}.isdisjoint(target.split("/")):
            return ((raw, PATH, target, False, False, "", ALIAS),)
        return ()
    path = path_fields(raw)
    if path is not None:
        return path
    return _name_fields(raw)


def is_statement(content: str) -> bool:
    """Whether a code span holds a line of code or a command rather than one name: the
    names found in it are parts of it (:func:`_statement_fields`)."""
    return not _COMMIT_TITLE.match(content.strip()) and _span_name(content) is None


def pattern_fields(raw: str) -> tuple[Fields, ...]:
    """A glob as the folder it starts from (weak: `.githooks/**`), a brace pattern as
    each file it expands to (:mod:`~serena_memory.integrity.code_drift.patterns`)."""
    folder = glob_folder(raw)
    paths = [folder] if folder else expansions(raw)
    found = [p for p in map(path_target, paths) if p is not None and not p[1]]
    return tuple(
        (raw, PATH, p[0], False, False, "", GLOB if folder else "", bool(folder)) for p in found
    )


def _node_in_file(raw: str) -> tuple[Fields, ...] | None:
    """A node written after its file (``tests/a.py::test_x``; None: not one), or a
    function or class after one ``:`` (``tasks/run.py:_start()``): the file is claimed."""
    if "::" not in raw:
        return _member_of_file(raw) or _module_called(raw)
    head = raw.split("::", 1)[0]
    if "/" in head or _has_extension(head):
        return node_fields(raw, raw)
    return None


_MEMBER_OF_FILE = re.compile(
    rf"^((\S+?):(?!(?:lines?|func|function|method|symbol|name)\b){IDENT}(?:\.{IDENT})*)(?:\(\))?$"
)


_NAME_CHAR = r"[^/`\\\"';|&<>$=*?]"
_SPACED_PATH = re.compile(rf"^[\w.-]+(?:/[\w.-]+)*/([\w(]{_NAME_CHAR}*\s{_NAME_CHAR}*)$")


def _spaced_path(content: str) -> tuple[Fields, ...] | None:
    """A path whose file's name has spaces (``doc/20251121_Emergent Perceptual Haze
    (EPH).md``): folders without spaces, one name with a known extension at its end and
    none before it (``src/main.py data.txt`` is a command's arguments), no option."""
    found = _SPACED_PATH.match(content)
    if found is None or " -" in found.group(1):
        return None
    words = found.group(1).split()
    if not _has_extension(words[-1]) or any(_has_extension(w) for w in words[:-1]):
        return None
    normal = _within_project(content)
    return None if normal is None else ((content, PATH, normal, False, False, ""),)


_MODULE_CALL = re.compile(rf"^((?:[\w.-]+/)+[\w-]+)\.({IDENT})\(\)$")


def _module_called(raw: str) -> tuple[Fields, ...] | None:
    """``app/core/logger.setup_logging()``: a function called from the module the path
    before its ``.`` names, a file of that stem (any extension); weak, told only when git
    knew such a file (``window/location.reload()`` names none)."""
    found = _MODULE_CALL.match(raw)
    if found is None or _has_extension(raw.rsplit("/", 1)[-1][:-2]):
        return None
    if _within_project(found.group(1)) is None:
        return None
    return ((raw[:-2], PATH, found.group(1), False, False, "", STEM, True),)


def _member_of_file(raw: str) -> tuple[Fields, ...] | None:
    """``tasks/run.py:_start()`` or ``run.py:Runner.start``: the file a function or class is
    written after (one ``:``, as a line number is), a claim of the file alone."""
    found = _MEMBER_OF_FILE.match(raw)
    if found is None or not _has_extension(found.group(2).rsplit("/", 1)[-1]):
        return None  # a stand-in after the `:` (`name.py:lines`) is no function
    path = path_target(found.group(2))
    if path is None or path[1] or path[0].endswith("/"):
        return None
    return ((found.group(1), PATH, path[0], False, False, "", "", may_be_made_up(path[0])),)


def _not_a_name(raw: str) -> bool:
    """Whether ``raw`` is no path nor name (a sentence, a placeholder)."""
    return bool(
        ("(" not in raw and _NOT_A_NAME.search(_LOCATION.sub("", raw)))
        or PLACEHOLDER_NAME.match(raw.rsplit("/", 1)[-1])
    )


def path_fields(raw: str) -> tuple[Fields, ...] | None:
    """``raw`` as a path of the project, or rooted at it (``/src/app.py``; None: not one)."""
    path = path_target(raw)
    if path is not None:
        form = RELATIVE if raw.startswith("./") else ""
        return ((raw, PATH, path[0], path[1], False, "", form, may_be_made_up(path[0])),)
    if raw.startswith("/") and not raw.startswith("//"):
        rooted = path_target(raw[1:])
        if rooted is not None and "/" in rooted[0].rstrip("/"):
            return ((raw, PATH, rooted[0], rooted[1], True, ""),)
    return None


def _name_fields(raw: str) -> tuple[Fields, ...]:
    """``raw`` as a symbol, a module, both or neither."""
    symbol = symbol_target(raw)
    module = module_target(raw)
    found: tuple[Fields, ...] = () if symbol is None else ((raw, SYMBOL, symbol, False, False, ""),)
    if module is not None:
        found += ((raw, PATH, module, False, False, "", MODULE),)
    return found


def up_fields(raw: str) -> tuple[Fields, ...]:
    """A path written from the file that imports it, ``../lib/x.js``: what it names
    below the ``..`` (a file or folder), checked as a suffix."""
    rest = raw
    while rest.startswith("../"):
        rest = rest[3:]
    path = path_target(rest)
    if path is None or path[1] or rest.startswith("."):
        return ()
    return ((raw, PATH, path[0], False, False, "", UP),)


def _statement_fields(content: str) -> tuple[Fields, ...]:
    """A span with spaces that is a line of code: a signature or an import names code all
    the same (:mod:`~serena_memory.integrity.code_drift.statements`)."""
    if " " not in content.strip() or "`" in content:
        return ()
    found: tuple[Fields, ...] = tuple(
        (text, SYMBOL, name, False, False, "") for text, name in statement_names(content)
    )
    for module in imported_modules(content):
        target = module_target(module)
        if target is not None:
            found += ((module, PATH, target, False, False, "", MODULE),)
    found += _ran_fields(content)
    for name in package_members(content):
        found += ((name, PATH, name, False, False, "", MEMBER),)
    moved = _GIT_MOVE.match(content.strip())
    for written in moved.groups() if moved is not None else ():
        path = path_target(written)
        if path is not None and not path[1]:
            found += ((written, PATH, path[0], False, False, "", "", True),)
    return found


_GIT_MOVE = re.compile(r"^git\s+mv\s+(?:-[\w-]+\s+){0,3}([\w./@+-]+)\s+([\w./@+-]+)$")
"""A file moved by ``git mv old new``: both names are the project's files (weak)."""


def _ran_fields(content: str) -> tuple[Fields, ...]:
    """The files a command span runs (``python tools/gen.py``, ``uv run pytest
    tests/test_a.py``: :func:`~serena_memory.integrity.code_drift.fenced.ran_files`), weak
    claims but the script an interpreter runs and a test runner's file with a folder
    (:func:`~serena_memory.integrity.code_drift.fenced.interpreter_script`); a test's node
    id names its file and its test."""
    found: tuple[Fields, ...] = ()
    script = interpreter_script(content)  # a claim, as in a fenced block
    for written in ran_files(content):
        node = _node_in_file(written)
        if node is not None:
            found += node
        elif (path := path_target(written)) is not None and not path[1]:
            weak = written != script or may_be_made_up(path[0])
            found += ((written, PATH, path[0], False, False, "", "", weak),)
    return found


def _span_name(content: str) -> str | None:
    """A code span's text as a name (a line written out after it cut off), or None when
    it can't be one: a command or sentence (a space), a URL, an address."""
    raw = content.strip()
    if " " in raw:
        # only the end can be a line written out: looked for there, so a span of many
        # spaces costs no more than its length
        tail = raw[-_LINE_TAIL:]
        found = _LINE_WORDS.search(tail)
        if found is not None:
            raw = raw[: len(raw) - len(tail) + found.start()].rstrip()
    if not raw or _SPACE.search(raw) or ("://" in raw or "@" in raw[1:] or "www." in raw):
        return None
    return raw


def node_fields(written: str, raw: str) -> tuple[Fields, Fields] | None:
    """A path and the name after its ``::`` (a pytest node id, ``path::Class::method``,
    parameters in ``[...]`` and a location dropped): both are claims."""
    found = _NODE_ID.match(raw)
    if found is None:
        return None
    path = path_target(found.group(1))
    if path is None or path[1] or path[0].endswith("/"):
        return None
    name = found.group(2).replace("::", ".")
    at = path[0]
    return (written, PATH, at, False, False, ""), (written, SYMBOL, name, False, False, at)


_NODE_ID = re.compile(rf"^(\S+?)::({IDENT}(?:::{IDENT})*)(?:\[[^\]]*\]|\(\))?{PROSE_LOCATION}?$")
