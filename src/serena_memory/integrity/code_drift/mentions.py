"""What in a memory names code: file and folder paths and symbols (pure, no file access).

A memory is prose; most of its words are not claims about the code. To keep the findings
trustworthy only clear shapes count:

- inside a code span (`` `...` ``): a path (has a ``/``, starts with ``./``, or ends with a
  known file extension; ``:42``, ``:42-60``, ``#L42-L60`` and ``#anchor`` are cut off) or
  a symbol (``LoginService``, ``refresh_token()``, ``SessionStore.refresh``, ``getUser``);
  a span with a space (a command, a sentence), an option (``--strict``), a glob or a
  placeholder (``*``, ``<x>``, ``{x}``, ``$X``) is not a mention;
- in prose: only a path with a ``/`` and a known extension (``src/auth/login.py``);
- never: a URL, a ``mem:`` reference, an absolute path, a ``~`` path or a path that leaves
  the project with ``..`` (files outside the project are not this project's code), a
  single lowercase word (``git``, ``main``), an all-capitals word (``TODO``), a common
  product name (``GitHub``);
- fenced blocks (```` ``` ````, ``~~~``) hold commands, sample output and sketches of
  code to be written: only a drawn tree, a box diagram, a comment naming a file and an
  import of the project's code count, as weak claims (:mod:`~serena_memory.integrity.
  code_drift.fenced`).
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, replace

from serena_memory.integrity.code_drift.examples import (
    EXAMPLE_HINT,
    GENERIC_WORDS,
    ON_PATH,
    PLACEHOLDER_NAME,
    PLACEHOLDER_PART,
    PRODUCT_WORDS,
    PROSE_PRODUCTS,
    STAND_IN_WORD,
    is_example,
    may_be_made_up,
    placeholder_call,
)
from serena_memory.integrity.code_drift.extensions import EXTENSIONLESS_FILES, KNOWN_EXTENSIONS
from serena_memory.integrity.code_drift.fenced import (
    boxed,
    cargo_targets,
    code_paths,
    command_names,
    imported,
    jvm_name,
    normal_import,
    python_modules,
    read_as_prose,
    wrong_lines,
)
from serena_memory.integrity.code_drift.forms import (
    ALIAS,
    GLOB,
    MODULE,
    PROSE_MODULE,
    RELATIVE,
    STEM,
    UP,
    module_target,
)
from serena_memory.integrity.code_drift.line_text import blanked, dotted_word
from serena_memory.integrity.code_drift.negations import listed_gone, may_say_absent, said_absent
from serena_memory.integrity.code_drift.patterns import expansions, glob_folder
from serena_memory.integrity.code_drift.statements import imported_modules, statement_names
from serena_memory.integrity.code_drift.trees import ListTree, drawn_entries, mapped_entries

PATH = "path"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


SYMBOL = "symbol"

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+|\bwww\.\S+|\S+@\S+\.\w+")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_NODE = rf"::{_IDENT}(?:::{_IDENT})*(?:\[[^\]\s]*\]|\(\))?"
"""The test or symbol after a file, ``::``-separated (a pytest node id, ``path::name``)."""
_PROSE_LOCATION = r"(?::L?\d+(?:[-:,]L?\d+)*|#L\d+(?:-L?\d+)?)"
_PROSE_PATH = re.compile(
    r"(?<![\w/.:~@$%-])((?:\./)?[\w.-]+(?:/[\w.-]+)+\.([A-Za-z0-9]+))"
    rf"({_NODE})?({_PROSE_LOCATION})?(?![\w/])"
)
_PROSE_NAME = re.compile(
    r"(?<![\w/.:~@$%-])([A-Za-z_][\w-]*(?:\.[\w-]+)*\.([A-Za-z][A-Za-z0-9]+))"
    rf"({_NODE})?({_PROSE_LOCATION})?(?![\w/-]|\.\w)"
)
"""A file name without a folder in prose (``PageLayout.tsx - the layout``)."""
_PROSE_FOLDER = re.compile(
    r"(?<![\w/.:~@$%-])((?:\./)?[\w.-]*[a-z][\w.-]*(?:/[\w.-]+)+/)(?![\w/{<$*])"
)
"""A folder in prose, two parts or more and its ``/`` at the end (``module-core/repo/``)."""
_FOLDER_END = re.compile(r"[\w.-]/(?:$|[\s).,;:])")
_LOCATION = re.compile(r"(?::L?\d+(?:[-:,]L?\d+)*|#L\d+(?:C\d+)?(?:-L?\d+(?:C\d+)?)?|#[\w.-]*)$")
_LINE_WORDS = re.compile(
    r"(?:\s*,)?\s+\(?(?:lines?|l\.|ln\.?)\s*\d+(?:\s*(?:-|–|to)\s*\d+)?\)?$", re.IGNORECASE
)
"""A line written out after a path: ``login.py (line 3)``, ``login.py, lines 3-5``."""
_LINE_TAIL = 64
"""The end of a span where a line written out is looked for."""
_PATH_CHARS = re.compile(r"^(?:[\w.@+/-]|\[{1,2}(?:\.{3})?[\w-]+\]{1,2}|\([\w-]+\))+$")
"""A path's characters, a route's segments among them (``app/[id]/(shop)/page.tsx``)."""
_SYMBOL_SHAPE = re.compile(rf"^@?({_IDENT}(?:(?:\.|::|#){_IDENT})*)(\([^()]*\))?[;,]?$")
_IDENT_RE = re.compile(_IDENT)
_SPACE = re.compile(r"\s")
_NOT_A_NAME = re.compile(r"[*?<>{}$%=|,;'\"\[\]!^&]")
_CAMEL = re.compile(r"^[A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$")
_DRIVE = re.compile(r"^[A-Za-z]:")
_NUMBERS = re.compile(r"[\d.]+(/[\d.]+)+")
_SYMBOL_SEPARATOR = re.compile(r"\.|::|#")
_ALIASED = re.compile(r"^[@~][\w-]*/[\w.@+-]|^@[\w-]*/$")
"""A path through a build's alias (``@/pages/home``, ``~/lib/x``, the alias itself: ``@/``)
or a package's scope (``@tanstack/query``): the checker tells which from the aliases."""


@dataclass(frozen=True)
class Mention:
    """One name of code in a memory: ``line`` (1-based), ``text`` as written, ``kind``
    (``path`` or ``symbol``) and ``target``: the project-relative path (no ``./``, no line
    or anchor, ``/`` kept at the end of a folder) or the symbol's dotted name."""

    line: int
    text: str
    kind: str
    target: str
    loose: bool = False  # a path with neither extension nor trailing '/': kept only when
    # its first folder exists (``application/json`` is no path)
    rooted: bool = False  # written from the root, `/src/app.ts`: kept only when its first
    # folder is a top-level folder of the project (`/etc/hosts` is the machine's)
    where: str = ""  # a symbol written after its file (`tests/a.py::test_x`): that file
    form: str = ""  # how a file is named besides its path from the root or a suffix
    # (:mod:`~serena_memory.integrity.code_drift.forms`): a dotted module, `./x`, `../x`
    weak: bool = False  # a name that may be an example (in a fenced block, after "e.g.",
    # a library's `Name.js`): told only when git knew the file it names
    linked: bool = False  # a link's target, `[x](./y.md)`: read from the memory's folder
    placed: str = ""  # the path a drawn tree or a list of folders puts it at: checked
    # there when git knows a file there (:mod:`~serena_memory.integrity.code_drift.trees`)
    exact: bool = False  # its path from the root, never a suffix: a tree's name placed
    # below a top folder that is the project's own (``ichimi-server/`` then ``src/``)
    ran: bool = False  # a name a command takes from the folder it runs in (the root),
    # `python build.py`: the file there when git knew one there, else any of that name

    @property
    def words(self) -> list[str]:
        """A symbol's identifiers (``SessionStore.refresh`` -> both)."""
        return _IDENT_RE.findall(self.target)


def _has_extension(name: str) -> bool:
    stem, dot, ext = name.rpartition(".")
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
    named = _has_extension(last) or last in EXTENSIONLESS_FILES
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
    return named and not (last.startswith(".") and last.count(".") == 1)


def _within_project(body: str) -> str | None:
    """``body`` normalised; None when it leaves the project or a part is an option."""
    # normpath only changes a path with an empty, `.` or `..` part
    normal = posixpath.normpath(body) if ("//" in body or "/." in "/" + body) else body
    if normal.startswith(("..", "/", "-")) or normal == "." or "/-" in normal:
        return None
    return normal


def symbol_target(raw: str) -> str | None:
    """The dotted name of a code span that is a symbol, else None."""
    found = _SYMBOL_SHAPE.match(raw.strip())
    if not found:
        return None
    name, call = found.group(1), found.group(2)
    parts = _SYMBOL_SEPARATOR.split(name)
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


def extract(text: str) -> list[Mention]:
    """Every mention of code in a memory's text, in order, but those the memory itself
    says are absent, removed or only planned (:mod:`code_negations`)."""
    found: list[Mention] = []
    fence = False
    block: list[tuple[int, str]] = []
    lists = ListTree()
    examples: set[int] = set()  # the columns of the table under way headed "Example"
    header = ""
    lines = text.splitlines()
    for number, (line, role) in enumerate(zip(lines, _fence_roles(lines), strict=True), start=1):
        if not fence and (line[:1] == "|" or (line[:1] == " " and line.lstrip()[:1] == "|")):
            if _TABLE_RULE.match(line) and header:
                examples = _example_columns(header)
            elif examples:
                found += _in_examples(_prose_line(number, line), line, examples)
                continue
            header = line
        elif header:
            header, examples = "", set()
        if role == _CLOSE:
            fence = False
            found += fenced_mentions(block)
        elif role == _OPEN:
            fence, block = True, []
        elif role == _IN:
            block.append((number, line))
        else:
            found += _listed(lists, number, line.rstrip(), _prose_line(number, line))
    return listed_gone(text, found)


_OPEN, _IN, _CLOSE = "open", "in", "close"


def _fence_roles(lines: list[str]) -> list[str]:
    """Each line's part in a fenced block: it opens one, is in one, closes one, or is
    prose (''). A block the memory left open is closed where its prose goes on: before a
    heading (after a blank line) that the next fence follows right after it, or before
    the first such heading of a block a fence with a language ends (```` ```bash ````
    opens a block, it never closes one); else a fence closes the block."""
    roles = [""] * len(lines)
    fence: str | None = None
    start = 0
    for i, line in enumerate(lines):
        opened = _FENCE.match(line) if ("`" in line or "~" in line) else None
        if fence is None:
            if opened:
                fence, start, roles[i] = opened.group(1), i, _OPEN
            continue
        if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
            cut = _left_open(lines, start + 1, i, bool(line[opened.end() :].strip()))
            if cut is None:
                fence, roles[i] = None, _CLOSE
                continue
            roles[cut - 1] = _CLOSE  # the blank line before the heading
            roles[cut:i] = [""] * (i - cut)
            fence, start, roles[i] = opened.group(1), i, _OPEN
            continue
        roles[i] = _IN
    return roles


_MD_HEADING = re.compile(r"^#{1,6}\s+\S")


def _left_open(lines: list[str], first: int, end: int, info: bool) -> int | None:
    """Where the prose starts in a block (``lines[first:end]``) a fence at ``end`` shows
    was left open (None: the fence closes it)."""
    headings = [
        i for i in range(first + 1, end) if _MD_HEADING.match(lines[i]) and not lines[i - 1].strip()
    ]
    if not headings:
        return None
    if info:
        return headings[0]
    last = next((i for i in range(end - 1, first - 1, -1) if lines[i].strip()), None)
    return last if last == headings[-1] else None


def _prose_line(number: int, line: str) -> list[Mention]:
    """The mentions of a line outside fenced blocks, when it may hold any."""
    if "`" in line or "/" in line or ("." in line and dotted_word(line)):
        return _line_mentions(number, line)
    return []


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
"""The rule under a table's header: ``|------|:---:|``."""
_EXAMPLE_HEADER = re.compile(r"^\s*(?:\*\*)?(?:examples?|e\.g\.?)(?:\*\*)?\s*$", re.IGNORECASE)


def _example_columns(header: str) -> set[int]:
    """The columns of a table's ``header`` row headed "Example" (counted from 0)."""
    cells = header.strip().strip("|").split("|")
    return {i for i, cell in enumerate(cells) if _EXAMPLE_HEADER.match(cell)}


def _in_examples(mentions: list[Mention], line: str, columns: set[int]) -> list[Mention]:
    """A table row's ``mentions``, those in a column headed "Example" made weak: a naming
    rule's example (``| Files | kebab-case | `user-profile.tsx` |``) is a file only when
    git knew it."""
    if not mentions:
        return mentions
    row = line.strip()
    starts = [i for i, c in enumerate(row) if c == "|"]
    offset = 1 if row.startswith("|") else 0
    out = []
    for m in mentions:
        at = row.find(m.text)
        column = sum(1 for s in starts if s < at) - offset
        out.append(replace(m, weak=True) if at >= 0 and column in columns else m)
    return out


def _listed(lists: ListTree, number: int, line: str, mentions: list[Mention]) -> list[Mention]:
    """``mentions`` with the ones a list under a folder names put at their place, and its
    bare names as files of that stem there (:mod:`~serena_memory.integrity.code_drift.
    trees`)."""
    if not (lists.open or line.endswith(":") or ("/" in line and line.lstrip()[:1] in "-*+#")):
        return mentions
    for name, path, stem in lists.place(line):
        written = any(m.text == name and m.kind == PATH for m in mentions)
        if stem and not written:
            mentions = mentions + _stem(number, name, path)
        elif (placed := path_target(path)) is not None:
            mentions = [replace(m, placed=placed[0]) if m.text == name else m for m in mentions]
    return mentions


def _stem(number: int, name: str, path: str) -> list[Mention]:
    """A bare name a listing places in a folder: a file of that stem there, told only
    when git knew one (``smtop`` under ``src/bin/``)."""
    target = path_target(path) if _STEM_NAME.match(name) else None
    return [] if target is None else [Mention(number, name, PATH, target[0], form=STEM, weak=True)]


_STEM_NAME = re.compile(r"^[A-Za-z_][\w-]*$")


def fenced_mentions(block: list[tuple[int, str]]) -> list[Mention]:
    """The weak mentions of a fenced block's lines (:mod:`~serena_memory.integrity.
    code_drift.fenced`): the names of a drawn tree or a map, the files a box diagram
    or its comments name, the project's modules its imports load, cargo's targets its
    commands run, the paths its commands and code name; none on the lines under a
    comment that says they are what not to write ("// ❌ WRONG")."""
    out = [
        Mention(number, written, PATH, target[0], weak=True, placed=placed[0])
        for number, written, path in drawn_entries(block)
        if (target := path_target(written)) is not None
        and (placed := path_target(path)) is not None
    ]
    out += _mapped(block)
    drawn, drawing = boxed(line for _number, line in block), {m.line for m in out}
    for number, line in block:
        out += _fenced_line(number, line, drawn, number in drawing)
    wrong = wrong_lines(block) if out else set()
    if wrong:
        out = [m for m in out if m.line not in wrong]
    return sorted(out, key=lambda m: m.line)


def _fenced_line(number: int, line: str, drawn: bool, in_tree: bool) -> list[Mention]:
    """The weak mentions of one line of a fenced block besides a tree's or a map's names
    (``drawn``: the block draws boxes; ``in_tree``: the line is a tree's or a map's)."""
    out = [replace(m, weak=True) for spec in imported(line) for m in _imports(number, spec)]
    if (jvm := jvm_name(line)) is not None and (module := module_target(jvm)) is not None:
        out.append(Mention(number, jvm, PATH, module, form=MODULE, weak=True))
    for name in python_modules(line):
        if (module := module_target(name)) is not None:
            out.append(Mention(number, name, PATH, module, form=MODULE, weak=True))
    out += [m for name, path in cargo_targets(line) for m in _stem(number, name, path)]
    if (read := read_as_prose(line, drawn)) is not None:
        return [replace(m, weak=True) for m in _line_mentions(number, read) if m.kind == PATH] + out
    if drawn or in_tree:
        return out
    found = [f for t in code_paths(line) for f in _path_fields(t) or _pattern_fields(t)]
    named = [
        replace(Mention(number, *fields[:7]), weak=not run or fields[7], ran=True)
        for word, run in command_names(line)
        for fields in _path_fields(word) or ()
        if len(fields) == 8
    ]
    return [replace(Mention(number, *fields), weak=True) for fields in found if not fields[3]] + [
        *named,
        *out,
    ]


def _mapped(block: list[tuple[int, str]]) -> list[Mention]:
    """The names of a map drawn by indentation, at their places, and the stems its
    comments list (:func:`~serena_memory.integrity.code_drift.trees.mapped_entries`)."""
    out = []
    for number, written, path, stem in mapped_entries(block):
        if stem:
            out += _stem(number, written, path)
        elif (target := path_target(written)) and (placed := path_target(path)):
            out.append(Mention(number, written, PATH, target[0], weak=True, placed=placed[0]))
    return out


def _imports(number: int, spec: str) -> list[Mention]:
    """The mention an import of the project's code makes (``./x``, ``../x``, ``@/x``)."""
    if spec.startswith("../"):
        return [Mention(number, *fields) for fields in _up_fields(spec)]
    target = normal_import(spec)
    if not target or PLACEHOLDER_PART.search(target):
        return []
    form = RELATIVE if spec.startswith("./") else ALIAS
    return [Mention(number, spec, PATH, target, form=form)]


def _line_mentions(number: int, line: str) -> list[Mention]:
    """The mentions of one line outside fenced blocks: code spans, then paths and file
    names in the prose around them."""
    placed: list[tuple[int, int, Mention]] = []
    spans: list[tuple[int, int]] = []
    if "`" in line:
        for span in _CODE_SPAN.finditer(line):
            spans.append(span.span())
            placed += [(*span.span(), m) for m in _classify(number, span.group(2))]
    if "/" in line or ("." in line and dotted_word(line)):  # what the prose may hold
        placed += _prose_mentions(number, line, spans)
    if placed and (EXAMPLE_HINT.search(line) or ON_PATH.search(line)):
        placed = _weak_examples(line, placed)
    if not placed or not may_say_absent(line):
        return [m for _start, _end, m in placed]
    return [m for start, end, m in placed if not said_absent(line, start, end)]


def _weak_examples(
    line: str, placed: list[tuple[int, int, Mention]]
) -> list[tuple[int, int, Mention]]:
    """``placed``, the paths the line introduces as examples (``e.g.``) made weak."""
    return [
        (start, end, replace(m, weak=True) if m.kind == PATH and is_example(line, start) else m)
        for start, end, m in placed
    ]


def _classify(number: int, content: str) -> list[Mention]:
    """The mentions a code span's ``content`` makes: none, a path or a symbol, or both
    for a path with a name after ``::`` (``tests/test_app.py::test_login``)."""
    return [Mention(number, *fields) for fields in _span_fields(content)]


Fields = (
    tuple[str, str, str, bool, bool, str]
    | tuple[str, str, str, bool, bool, str, str]
    | tuple[str, str, str, bool, bool, str, str, bool]
)
"""A mention but its line: text, kind, target, loose, rooted, where (and form, weak)."""


@functools.lru_cache(maxsize=16_384)
def _span_fields(content: str) -> tuple[Fields, ...]:
    """What :func:`_classify` finds, whatever the line: the same spans (a file, a class)
    come back in many memories of a folder, and are read once."""
    raw = _span_name(content)
    if raw is None:
        return _statement_fields(content)
    node = _node_in_file(raw)
    if node is not None:
        return node
    if _not_a_name(raw):
        return _pattern_fields(raw)
    if raw.startswith("../"):
        return _up_fields(raw)
    if _ALIASED.match(raw):
        return ((raw, PATH, _LOCATION.sub("", raw).rstrip("/"), False, False, "", ALIAS),)
    path = _path_fields(raw)
    if path is not None:
        return path
    return _name_fields(raw)


def _pattern_fields(raw: str) -> tuple[Fields, ...]:
    """A glob as the folder it starts from (weak: `.githooks/**`), a brace pattern as
    each file it expands to (:mod:`~serena_memory.integrity.code_drift.patterns`)."""
    folder = glob_folder(raw)
    paths = [folder] if folder else expansions(raw)
    found = [p for p in map(path_target, paths) if p is not None and not p[1]]
    return tuple(
        (raw, PATH, p[0], False, False, "", GLOB if folder else "", bool(folder)) for p in found
    )


def _node_in_file(raw: str) -> tuple[Fields, ...] | None:
    """A node written after its file (``tests/a.py::test_x``; None: not one)."""
    if "::" not in raw:
        return None
    head = raw.split("::", 1)[0]
    if "/" in head or _has_extension(head):
        return _node_fields(raw, raw)
    return None


def _not_a_name(raw: str) -> bool:
    """Whether ``raw`` is no path nor name (a sentence, a placeholder)."""
    return bool(
        ("(" not in raw and _NOT_A_NAME.search(_LOCATION.sub("", raw)))
        or PLACEHOLDER_NAME.match(raw.rsplit("/", 1)[-1])
    )


def _path_fields(raw: str) -> tuple[Fields, ...] | None:
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


def _up_fields(raw: str) -> tuple[Fields, ...]:
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
    run = _RUNS.match(content.strip())
    if run is not None and (path := path_target(run.group(1))) is not None and not path[1]:
        found += ((run.group(1), PATH, path[0], False, False, "", "", True),)
    return found


_RUNS = re.compile(
    r"^(?:python3?|node|tsx|ts-node|bun|deno\s+run|bash|sh|zsh|pwsh|ruby|perl|php)\s+"
    r"((?:\./)?[\w.-]+(?:/[\w.-]+)*\.[A-Za-z]\w*)(?=\s|$)"
)
"""A command span that runs a file (`tsx ui.tsx -- <args>`, `python tools/gen.py`): the
file it runs, a weak claim."""


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


def _node_fields(written: str, raw: str) -> tuple[Fields, Fields] | None:
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


_NODE_ID = re.compile(rf"^(\S+?)::({_IDENT}(?:::{_IDENT})*)(?:\[[^\]]*\]|\(\))?{_PROSE_LOCATION}?$")


def _prose_mentions(
    number: int, line: str, spans: list[tuple[int, int]]
) -> list[tuple[int, int, Mention]]:
    """Paths (``src/auth/login.py``) and file names (``PageLayout.tsx``) written in the
    prose of a line (its code spans and URLs blanked), each with where it is."""
    plain = _without_urls(blanked(line, spans))
    return _prose_paths(number, plain) + _prose_modules(number, plain)


def _without_urls(plain: str) -> str:
    """``plain`` with its URLs blanked (their paths are another site's)."""
    if "://" in plain or "www." in plain or "@" in plain:
        for url in _URL.finditer(plain):
            plain = plain[: url.start()] + " " * (url.end() - url.start()) + plain[url.end() :]
    return plain


def _prose_paths(number: int, plain: str) -> list[tuple[int, int, Mention]]:
    """The paths and file names of a line's prose, each with where it is."""
    out: list[tuple[int, int, Mention]] = []
    patterns = [_PROSE_PATH] if "/" in plain else []
    if dotted_word(plain):
        patterns.append(_PROSE_NAME)
    for pattern in patterns:
        for match in pattern.finditer(plain):
            mentions = _prose_match(number, match, pattern is _PROSE_NAME)
            if plain.endswith("](", 0, match.start()):
                mentions = _linked(number, match.group(1), mentions)
            out += [(match.start(), match.end(), m) for m in mentions]
    if "/" in plain and _FOLDER_END.search(plain):
        for match in _PROSE_FOLDER.finditer(plain):
            target = path_target(match.group(1))
            if target is not None and not target[1]:
                m = Mention(number, match.group(1), PATH, target[0], weak=True)
                out.append((match.start(), match.end(), m))
    return out


def _linked(number: int, written: str, mentions: list[Mention]) -> list[Mention]:
    """The mentions of a link's target, marked as such; one that leaves its folder
    (``../docs/a.md``) is read below its ``..`` unless the memory's folder places it."""
    if not mentions and written.startswith("../"):
        mentions = [Mention(number, *fields) for fields in _up_fields(written)]
    return [replace(m, linked=True) for m in mentions]


def _prose_modules(number: int, plain: str) -> list[tuple[int, int, Mention]]:
    """The dotted modules a line's prose names (``from app.auth import``), each with
    where it is."""
    if "." not in plain or not ("from" in plain or "import" in plain or "module" in plain):
        return []
    out = []
    for match in PROSE_MODULE.finditer(plain):
        target = module_target(match.group(1))
        if target is not None:
            text = match.group(1)
            out.append(
                (match.start(1), match.end(1), Mention(number, text, PATH, target, form=MODULE))
            )
    return out


def _prose_match(number: int, match: re.Match[str], bare: bool) -> list[Mention]:
    """The mentions of one prose match: a path (and the name after its ``::``)."""
    if match.group(2).lower() not in KNOWN_EXTENSIONS:
        return []
    if bare and not _is_prose_file_name(match.group(1), match.group(2)):
        return []
    if match.group(3):
        node = _node_fields(match.group(0), match.group(1) + match.group(3))
        return [Mention(number, *fields) for fields in node or ()]
    target = path_target(match.group(1))
    if target is None or target[1]:
        return []
    form = RELATIVE if match.group(1).startswith("./") else ""
    weak = may_be_made_up(target[0])
    return [Mention(number, match.group(0), PATH, target[0], form=form, weak=weak)]


def _is_prose_file_name(name: str, ext: str) -> bool:
    """Whether a bare name in prose is a file: a known extension of two letters or more
    (``math.h`` is more often the system's), not a naming rule or a product's name."""
    if len(ext) < 2 or name.lower() in PROSE_PRODUCTS or PLACEHOLDER_NAME.match(name):
        return False
    return "." not in name.split(".", 1)[0] and not name[0].isdigit()
