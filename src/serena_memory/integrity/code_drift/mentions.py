"""What in a memory names code: file and folder paths and symbols (pure, no file access).

A memory is prose; most of its words are not claims about the code. To keep the findings
trustworthy only clear shapes count:

- inside a code span (`` `...` ``): a path (has a ``/``, starts with ``./``, or ends with a
  known file extension; ``:42``, ``:42-60``, ``#L42-L60`` and ``#anchor`` are cut off) or
  a symbol (``LoginService``, ``refresh_token()``, ``SessionStore.refresh``, ``getUser``);
  a span with a space (a command, a sentence), an option (``--strict``), a glob or a
  placeholder (``*``, ``<x>``, ``{x}``, ``$X``) is not a mention (:mod:`~serena_memory.
  integrity.code_drift.spans`);
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

import re
from dataclasses import dataclass, replace

from serena_memory.integrity.code_drift.elsewhere import may_be_elsewhere, said_elsewhere
from serena_memory.integrity.code_drift.examples import (
    PLACEHOLDER_NAME,
    PLACEHOLDER_PART,
    PROSE_PRODUCTS,
    is_example,
    may_be_made_up,
    may_give_examples,
    shows_style,
)
from serena_memory.integrity.code_drift.extensions import KNOWN_EXTENSIONS
from serena_memory.integrity.code_drift.fence_roles import CLOSE, IN, OPEN, fence_roles
from serena_memory.integrity.code_drift.fenced import (
    boxed,
    cargo_targets,
    cd_folder,
    cd_target,
    cloned_into,
    code_paths,
    command_names,
    imported,
    included,
    interpreter_script,
    jvm_name,
    normal_import,
    python_modules,
    read_as_prose,
    taken_folders,
    windows_paths,
    wrong_lines,
)
from serena_memory.integrity.code_drift.forms import (
    ALIAS,
    MEMBER,
    MODULE,
    PROSE_MODULE,
    RELATIVE,
    STEM,
    climbs,
    module_target,
)
from serena_memory.integrity.code_drift.line_text import (
    blanked,
    dotfile_names,
    dotted_word,
    pattern_end,
    without_urls,
)
from serena_memory.integrity.code_drift.negations import listed_gone, may_say_absent, said_absent
from serena_memory.integrity.code_drift.planned import planned_folders, under_any
from serena_memory.integrity.code_drift.sections import Section, drawn_under
from serena_memory.integrity.code_drift.spans import (
    IDENT,
    NODE,
    PATH,
    PROSE_LOCATION,
    is_statement,
    node_fields,
    path_fields,
    path_target,
    pattern_fields,
    span_fields,
    up_fields,
)
from serena_memory.integrity.code_drift.spans import (
    SYMBOL as SYMBOL,  # the kinds of a mention, named here for the modules above
)
from serena_memory.integrity.code_drift.stand_ins import built_from, stand_ins_on
from serena_memory.integrity.code_drift.statements import imported_names, package_members
from serena_memory.integrity.code_drift.trees import ListTree, drawn_entries, mapped_entries

CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_PROSE_PATH = re.compile(
    r"(?<![\w/.:~@$%-])((?:\./)?[\w.-]+(?:/[\w.-]+)+\.([A-Za-z0-9]+))"
    rf"({NODE})?({PROSE_LOCATION})?(?![A-Za-z0-9_/])"
)
_PROSE_NAME = re.compile(
    r"(?<![\w/.:~@$%-])([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*\.([A-Za-z][A-Za-z0-9]+))"
    rf"({NODE})?({PROSE_LOCATION})?(?![A-Za-z0-9_/-]|\.\w)"
)
"""A file name without a folder in prose (``PageLayout.tsx - the layout``); written
against a word of a script without spaces (``WORK_LOG.mdを更新``) too."""
_PROSE_FOLDER = re.compile(
    r"(?<![\w/.:~@$%-])((?:\./)?[\w.-]*[a-z][\w.-]*(?:/[\w.-]+)+/)(?![\w/{<$*])"
)
"""A folder in prose, two parts or more and its ``/`` at the end (``module-core/repo/``)."""
_FOLDER_END = re.compile(r"[\w.-]/(?:$|[\s).,;:])")
_IDENT_RE = re.compile(IDENT)


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
    planned: bool = False  # in a section that lays out work still to do: a claim only
    # when git knew the path (:mod:`~serena_memory.integrity.code_drift.planned`)
    inner: bool = False  # a name inside a span that holds a whole statement (`from .x
    # import *`): told only when git saw it go (:mod:`~serena_memory.integrity.
    # code_drift.within_statements`)
    bases: tuple[str, ...] = ()  # for a name written from a file (`./x`, `../x`, `from .
    # import x`): the folders of the files its memory names, where it may be written from
    shown: bool = False  # a name a prose list shows under a folder as an example or a
    # naming rule (`pages/` — modules named `NN_Icon_Title.py`): weak at its place too

    @property
    def words(self) -> list[str]:
        """A symbol's identifiers (``SessionStore.refresh`` -> both)."""
        return _IDENT_RE.findall(self.target)


def extract(text: str) -> list[Mention]:
    """Every mention of code in a memory's text, in order, but those the memory itself
    says are absent, removed or only planned (:mod:`code_negations`)."""
    found: list[Mention] = []
    fence = False
    block: list[tuple[int, str]] = []
    lists = ListTree()
    section = Section()
    examples: set[int] = set()  # the columns of the table under way headed "Example"
    header = ""
    lines = text.splitlines()
    roles = fence_roles(lines)
    for number, (line, role) in enumerate(zip(lines, roles, strict=True), start=1):
        if not fence and (line[:1] == "|" or (line[:1] == " " and line.lstrip()[:1] == "|")):
            if _TABLE_RULE.match(line) and header:
                examples = _example_columns(header)
            elif examples:
                found += _in_examples(_prose_line(number, line), line, examples)
                continue
            header = line
        elif header:
            header, examples = "", set()
        if role == CLOSE:
            fence = False
            found += _as_planned(section, drawn_under(section.folder, fenced_mentions(block)))
        elif role == OPEN:
            fence, block = True, []
        elif role == IN:
            block.append((number, line))
        else:
            section.read(line)
            listed = _listed(lists, number, line.rstrip(), _prose_line(number, line))
            found += _as_planned(section, listed)
    if fence:  # left open to the end, with no prose after it
        found += _as_planned(section, drawn_under(section.folder, fenced_mentions(block)))
    return _written_from(listed_gone(text, found, [role != "" for role in roles]))


_MAX_BASES = 32
"""The folders a relative name is tried from at most (a long memory names many)."""


def _written_from(found: list[Mention]) -> list[Mention]:
    """``found``, each name written from a file (``./escape.js``, ``../arguments/x.js``,
    ``from . import formatting``) given the folders of the files the memory names with
    their folder (``lib/arguments/command.js``): the file that writes it is most likely
    one of them (:func:`~serena_memory.integrity.code_drift.forms.written_from`)."""
    relative = [i for i, m in enumerate(found) if climbs(m.text, m.form) is not None]
    if not relative:
        return found
    folders: dict[str, None] = {}
    for m in found:
        if m.kind == PATH and not m.form and not m.placed and "/" in m.target.rstrip("/"):
            folders.setdefault(
                m.target.rstrip("/") if m.target.endswith("/") else m.target.rsplit("/", 1)[0]
            )
    bases = tuple(folders)[:_MAX_BASES]
    if not bases:
        return found
    out = list(found)
    for i in relative:
        out[i] = replace(found[i], bases=bases)
    return out


def _as_planned(section: Section, mentions: list[Mention]) -> list[Mention]:
    """``mentions``, their paths marked planned in a section that lays out work to do;
    none in a section about a folder outside the project."""
    if mentions and section.outside:
        return [m for m in mentions if m.kind != PATH]
    if not mentions or not section.planned:
        return mentions
    return [replace(m, planned=True) if m.kind == PATH else m for m in mentions]


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
            mentions = [
                replace(m, placed=placed[0], shown=m.weak) if m.text == name else m
                for m in mentions
            ]
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
    lines = dict(block)
    drawn = list(drawn_entries(block))
    planned = planned_folders(drawn, lines)
    out = [
        m
        for number, written, path in drawn
        if not under_any(path, planned) and not _drawn_absent(lines[number], written)
        for m in _drawn_name(number, written, path)
    ]
    out += _mapped(block)
    out += _block_lines(block, {m.line for m in out})
    wrong = wrong_lines(block) if out else set()
    if wrong:
        out = [m for m in out if m.line not in wrong]
    return sorted(out, key=lambda m: m.line)


def _drawn_name(number: int, written: str, path: str) -> list[Mention]:
    """A tree's name at its place; a bare one in a folder (``├── ChainSwitcher``, a
    component): a file of that stem there (:func:`_stem`)."""
    target, placed = path_target(written), path_target(path)
    if target is None:
        return _stem(number, written, path) if "/" in path else []
    if placed is None:
        return []
    return [Mention(number, written, PATH, target[0], weak=True, placed=placed[0])]


def _block_lines(block: list[tuple[int, str]], drawing: set[int]) -> list[Mention]:
    """The mentions of a fenced block's lines but its trees' names (``drawing``: the
    lines of a tree or a map), each path a command takes read from the folder a ``cd``
    moved into."""
    drawn, out = boxed(line for _number, line in block), []
    folder, cloned = "", False  # where the commands run: the root until a `cd`
    for number, line in block:
        found = _fenced_line(number, line, drawn, number in drawing)
        after = "" if cloned and cd_target(line) else cd_folder(line, folder)
        cloned = cloned_into(line, cloned)
        if after and after != folder and (into := cd_target(line)) and "/" in into:
            # `cd lumen-gcp/backend`: a folder of the project, told when git knew it
            found.append(Mention(number, into, PATH, after, weak=True))
        if "&&" in line:  # `cd web && npm test`: that one command runs in web/
            out += [_run_in(m, after) for m in found] if after else found
            continue
        out += [_run_in(m, folder) for m in found] if folder else found
        folder = after
    return out


def _drawn_absent(line: str, name: str) -> bool:
    """Whether a tree's line says its name is only planned or gone, in the comment after
    it (``02-planned.md    # never written``, ``old/   # removed``)."""
    if not may_say_absent(line):
        return False
    start = line.find(name)
    return start >= 0 and said_absent(line, start, start + len(name))


def _run_in(m: Mention, folder: str) -> Mention:
    """A path a command takes, read from the folder the block ``cd``-ed into (``cd
    backend`` then ``python3 test_fixes.py``: ``backend/test_fixes.py``; ``uvicorn
    app.main:app``: ``backend/app/main``)."""
    if m.kind != PATH or m.form not in ("", MODULE) or m.placed or m.target.startswith(folder):
        return m
    if m.text.startswith("."):  # `from .x import y`: written from its file, not the folder
        return m
    return replace(m, target=folder + m.target)


def _fenced_line(number: int, line: str, drawn: bool, in_tree: bool) -> list[Mention]:
    """The weak mentions of one line of a fenced block besides a tree's or a map's names
    (``drawn``: the block draws boxes; ``in_tree``: the line is a tree's or a map's)."""
    out = _loaded_code(number, line)
    if (read := read_as_prose(line, drawn)) is not None:
        return [replace(m, weak=True) for m in _line_mentions(number, read) if m.kind == PATH] + out
    if drawn or in_tree:
        return out
    if "\\" in line and (slashed := windows_paths(line)) != line:  # `git add src\a.py`
        found = _code_line_paths(number, slashed) + _command_arguments(number, slashed)
        back = [m if m.text in line else replace(m, text=m.text.replace("/", "\\")) for m in found]
        return back + out
    return _code_line_paths(number, line) + _command_arguments(number, line) + out


def _loaded_code(number: int, line: str) -> list[Mention]:
    """The project's code a fenced line loads or builds, whatever the block draws: the
    files its imports name, a JVM package, the modules Python imports from and the names
    it takes from them, cargo's targets (weak: a block may sketch code still to be
    written)."""
    out = [replace(m, weak=True) for spec in imported(line) for m in _imports(number, spec)]
    for name in included(line):
        out += [replace(Mention(number, *f[:7]), weak=True) for f in path_fields(name) or ()]
    if (jvm := jvm_name(line)) is not None and (module := module_target(jvm)) is not None:
        out.append(Mention(number, jvm, PATH, module, form=MODULE, weak=True))
    for name in python_modules(line):
        if (module := module_target(name.partition(":")[0])) is not None:
            out.append(Mention(number, name, PATH, module, form=MODULE, weak=True))
    if "import" in line:  # `from . import formatting`: a module of its package
        code = line.split(" #", 1)[0]
        members = package_members(code)
        out += [Mention(number, name, PATH, name, form=MEMBER, weak=True) for name in members]
        # `from pkg.mod import name`: a symbol of that module, told (as inside a code span
        # that holds a statement) only when git saw it renamed or removed
        out += [Mention(number, n, SYMBOL, n, inner=True) for n in imported_names(code)]
    out += [m for name, path in cargo_targets(line) for m in _stem(number, name, path)]
    return out


def _code_line_paths(number: int, line: str) -> list[Mention]:
    """The paths a fenced command or line of code names (weak), but loose ones: a word
    with neither extension nor ``/`` at its end is too often no file in code, unless a
    command that builds, tests or lists folders takes it (``dotnet test tests/App.Tests``)."""
    found = [f for t in code_paths(line) for f in path_fields(t) or pattern_fields(t)]
    script = interpreter_script(line)  # a claim, as a bare one is (`_command_arguments`)
    taken = taken_folders(line) if any(fields[3] for fields in found) else []
    return [
        replace(Mention(number, *fields[:7]), weak=fields[0] != script or fields[7:] == (True,))
        for fields in found
        if not fields[3] or fields[0] in taken  # loose: a folder a command takes
    ]


def _command_arguments(number: int, line: str) -> list[Mention]:
    """The bare file and folder names a fenced command takes as arguments, read from the
    root (``ran``): weak, but the script an interpreter runs when the name is not one that
    may be made up (the command says it is there)."""
    return [
        replace(Mention(number, *fields[:7]), weak=not run or fields[7], ran=True)
        for word, run in command_names(line)
        for fields in path_fields(word) or ()
        if len(fields) == 8
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
        return [Mention(number, *fields) for fields in up_fields(spec)]
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
        written = []
        for span in CODE_SPAN.finditer(line):
            spans.append(span.span())
            written.append(span.group(2))
            placed += [(*span.span(), m) for m in _classify(number, span.group(2))]
        if placed and (words := stand_ins_on(written)):
            placed = [p for p in placed if p[2].kind == PATH or not built_from(p[2].target, words)]
    if "/" in line or ("." in line and dotted_word(line)):  # what the prose may hold
        placed += _prose_mentions(number, line, spans)
    if placed and may_give_examples(line):
        placed = _weak_examples(line, placed)
    return _claimed(line, placed) if placed else []


def _claimed(line: str, placed: list[tuple[int, int, Mention]]) -> list[Mention]:
    """The mentions ``placed`` on a prose line but those it says are another project's
    ("a fork of Node `lib/path.js`") or absent, removed or only planned."""
    if may_be_elsewhere(line):
        placed = [(s, e, m) for s, e, m in placed if not said_elsewhere(line, s, e)]
    if not placed or not may_say_absent(line):
        return [m for _start, _end, m in placed]
    return [m for start, end, m in placed if not said_absent(line, start, end)]


def _weak_examples(
    line: str, placed: list[tuple[int, int, Mention]]
) -> list[tuple[int, int, Mention]]:
    """``placed``: paths given as examples (``e.g.``) weak, symbols showing a style dropped."""
    return [
        (start, end, replace(m, weak=True) if m.kind == PATH and is_example(line, start) else m)
        for start, end, m in placed
        if m.kind == PATH or not shows_style(line, start)
    ]


def _classify(number: int, content: str) -> list[Mention]:
    """The mentions a code span's ``content`` makes: none, a path or a symbol, or both
    for a path with a name after ``::`` (``tests/test_app.py::test_login``)."""
    found = [Mention(number, *fields) for fields in span_fields(content)]
    if not is_statement(content):
        return found
    # a line of code: the project's modules it imports (`require('./lib/x')`) too, and
    # each name in it is a part of the span, as weak as an example
    found += [m for spec in imported(content) for m in _imports(number, spec)]
    ran = interpreter_script(content)  # the script a command runs: a claim, as in a block
    return [
        m
        if m.kind == PATH and m.text == ran
        else replace(m, inner=True, weak=m.weak or m.kind == PATH)
        for m in found
    ]


def _prose_mentions(
    number: int, line: str, spans: list[tuple[int, int]]
) -> list[tuple[int, int, Mention]]:
    """Paths (``src/auth/login.py``) and file names (``PageLayout.tsx``) written in the
    prose of a line (its code spans and URLs blanked), each with where it is."""
    plain = without_urls(blanked(line, spans))
    return _prose_paths(number, plain) + _prose_modules(number, plain)


def _prose_paths(number: int, plain: str) -> list[tuple[int, int, Mention]]:
    """The paths and file names of a line's prose, each with where it is."""
    out = [(s, e, Mention(number, n, PATH, n)) for s, e, n in dotfile_names(plain)]
    patterns = [_PROSE_PATH] if "/" in plain else []
    if dotted_word(plain):
        patterns.append(_PROSE_NAME)
    for pattern in patterns:
        for match in pattern.finditer(plain):
            if pattern_end(plain, match):
                continue
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
        mentions = [Mention(number, *fields) for fields in up_fields(written)]
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
        node = node_fields(match.group(0), match.group(1) + match.group(3))
        return [Mention(number, *fields) for fields in node or ()]
    target = path_target(match.group(1))
    if target is None or target[1]:
        return []
    form = RELATIVE if match.group(1).startswith("./") else ""
    # (a file name in passing, outside code: a template's, an output's, a user's file
    # (`minijinja with base.html`, `generates sitemap.xml`), told when git knew it)
    weak = bare or may_be_made_up(target[0])
    return [Mention(number, match.group(0), PATH, target[0], form=form, weak=weak)]


def _is_prose_file_name(name: str, ext: str) -> bool:
    """Whether a bare name in prose is a file: a known extension of two letters or more
    (``math.h`` is more often the system's), not a naming rule or a product's name."""
    if len(ext) < 2 or name.lower() in PROSE_PRODUCTS or PLACEHOLDER_NAME.match(name):
        return False
    return "." not in name.split(".", 1)[0] and not name[0].isdigit()
