"""Where a memory states a value, the words around it: two memories that say the same
words around a value and a different value there contradict each other, however the rest
of the sentence was reworded (a list item restated as a table row, a heading, a line of
a shell block or a longer sentence). The conflicts of :mod:`.text`'s statements need the
same words throughout; these need the words next to the value and most of the others.

Each line (each sentence of a long one) is a *unit*: its words casefolded, markup and
the commonest small words left out, negations counted apart. Each value in a unit but
its first word (a word with a digit, code in backticks, a path, a flag, an identifier,
what a `KEY=value` sets) is a *slot*, keyed by a word next to it with a min-hash of the
unit's other words (or all of them), and by the words on both sides: a few integers per
slot, posted with the statements' keys, so that only slots that meet are compared.
Those are compared closer (:func:`.slot_compare.differ`): the values must be of one kind (two
versions, two flags of one name, two URLs of one host), neither may be in the other unit
(a choice between two is no contradiction), no other value of the kind may differ on
both sides, and the units must share most of their words. That leaves alone memories
that merely mention the same tools, lists of names, records and examples. A slot is keyed
too by each word near its value (:func:`window`): slots that meet only so are read by
:func:`.slot_compare.restated`, looser about the words, stricter about the values.

Pure Python on purpose: a write's note reads a few memories without numpy, and a unit
compared is read again from its line alone (:func:`unit_at`).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from serena_memory.integrity.duplicates.text import MAX_STATEMENT_CHARS, NEGATIONS

_SPLIT = re.compile(r"[\s|、，。（）：；「」【】]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")
_STRIP = ".,;:!?()[]{}\"'*_<>#→←—–=`"
_DIGIT = re.compile(r"\d")
_IDENTIFIER = re.compile(r"[a-z][A-Z]|\w[/.@:^~+]\w|^[-^~<>=+]|/")
_DATE = re.compile(r"\d{4}-\d\d-\d\d(?:[ T][\d:]+)?")
_TABLE_RULE = re.compile(r"^[\s|:-]+$")
_NUMBER = re.compile(r"[<>=^~v]*\d[\d.,:]*([^\W\d_]{0,8}|%)\+?")
_FILE = re.compile(r"\w\.[a-z][a-z0-9]{0,4}$")
_LINK = re.compile(r"\]\([^)\s]*\)")
_MARKER = re.compile(r"^(?:[-*+>]|\d+[.)]|#+)[ \t]+")
_SETTING = re.compile(r"([A-Za-z_][\w.]*)\s*=\s*[\"']?([^\s=\"']+)[\"']?")
_SOURCE_SETTING = re.compile(
    r"[\"']?(?:[a-z]+[A-Z]\w*|[A-Za-z]+[_.-]\w[\w.-]*)[\"']?\s*[:=]\s*"
    r"(?:\d[\w.]*|[\"'][^\"'\s]{1,40}[\"']|true|false)[,;]?"
)
"""A setting in source code: a name of joined words (``printWidth``, ``min_sdk``; a plain
word such as ``duration`` is too common a name to tell one setting), set to a literal."""
_ALTERNATIVES = re.compile(r"[^\W\d_]+(?:/[^\W\d_]+)+")
_EXAMPLE = re.compile(
    r"\$|\{\w*\}|<\w+>|\byyyy|\bnnn|\bpath/to/|\bfoo\b"
    r"|(?<![^\W_])example(?![^\W_])"  # a name's part too: `sp_example.sql`, `example-app`
)
_SERIAL = re.compile(r"[#-]?\d{7,}|[0-9a-f]{7,40}", re.IGNORECASE)
_TICKET = re.compile(r"[A-Za-z]{2,}-\d+")  # `ADR-037`, `PRP-22`: a record cited
_CAMEL = re.compile(r"[a-z][A-Z]")
_MEM_SPAN = re.compile(r"`mem:[^`]*`")
_MAYBE = re.compile(r"[`\d_/=@^~+<>]|[a-z][A-Z]|\w[.:]\w|(?<!\S)--?\w")
_WORD = re.compile(r"[^\W_]")
_NUMBER_PAREN = re.compile(r"(\d)\((?=[^\W\d])")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


SOURCE = _words(
    """c cpp c++ cs csharp dart go java javascript js jsx kotlin kt php py python rb ruby
    rust rs scala swift ts tsx typescript vue svelte sql graphql xml xaml html css scss"""
)
"""Languages of fenced blocks that hold source code: its names are what it declares, not
values a memory states (shell, config and unlabelled blocks are read)."""
CITING = _words(
    """line lines issue pr session step phase part section chapter stage task sprint round
    milestone day week item figure table page rule no batch attempt iteration run"""
)
"""A number after these counts or cites where something is (`step 3`): not a value."""
SMALL = _words(
    """a an the is are be was to of in on at by for with and or it as via its this that"""
)
"""Words too common to tell two contexts apart: left out of a unit's words."""
OPPOSITES = {
    frozenset(p)
    for p in (
        ("true", "false"),
        ("yes", "no"),
        ("enabled", "disabled"),
        ("on", "off"),
    )
}
"""Values that say the opposite of each other, as a setting holds them (`isolate:
true`, `CI=false`): a value only where something is set (``KEY=value``, a code span);
in prose they are words (`always`/`never` are too common in sentences that agree)."""
_POLAR = frozenset(w for p in OPPOSITES for w in p)
_NAME = ("name", "")
MAX_CELLS = 3
"""A table row with more separators inside (four cells or more) is a record, not read."""
SKETCH = 2
"""Min-hashes of a unit's words each slot is keyed by: units with a third of their words
in common meet about twice in three times."""
_MASK = (1 << 64) - 1
_MIXES = [
    (0x9E3779B97F4A7C15, 0x632BE59BD9B4E019),
    (0xBF58476D1CE4E5B9, 0x94D049BB133111EB),
    (0xD6E8FEB86659FD93, 0xA0761D6478BD642F),
]
SLOT_MARK = 0x80000000
TOKEN = 0xFFFFFFFF  # the middle column of a word's row (see .features): never a slot's
_LINES = (1 << 26) - 1
NEARBY = 1 << 29
"""Bit of a slot row's middle column: the row keys the slot by a word near its value
(:data:`WINDOW`), not by the words next to it; such a slot is compared more loosely
(:func:`.slot_compare.restated`)."""
WINDOW = 3
"""Words on each side of a value (past values of its kind) that also key its slot: a
restatement in other words keeps a word near the value (`default config path: X`, `X is
the config file's default`), if not the one next to it."""
_NEARBY_SALT = 0x3C6EF372FE94F82B
_SORTS = {"number": 0x51, "flag": 0x52, "url": 0x53, "path": 0x54, "file": 0x55, "opposite": 0x56}
"""The middle column of a key row that holds a slot (``SLOT_MARK | unit``)."""


@dataclass(slots=True)
class Unit:
    """One line or sentence: where it is, its text, its words (in order, without small
    words and negations), which of them are values, and whether it is negated."""

    line: int
    said: str  # as written (its text, spaced once, is :attr:`text`)
    words: list[str]
    values: list[bool]
    negated: bool
    code: bool = False  # a line of a fenced block: a command or a setting, said exactly
    piece: int = 0  # which sentence of its line

    @property
    def text(self) -> str:
        """Its text, spaced once (made when it is compared, not for every unit)."""
        return " ".join(self.said.split())

    @property
    def where(self) -> int:
        """Where the unit is, in a key row's middle column (:func:`unit_at` reads it)."""
        return SLOT_MARK | self.code << 30 | (self.line & _LINES) << 3 | self.piece


def stated_lines(text: str) -> list[tuple[int, str, bool]]:
    """(number, line stripped, whether inside a fenced block) of each line of a memory
    that may state values: fence lines are left out, and of a block of source code every
    line but a setting of a literal (``printWidth: 120,``, ``minSdk = 26``): a value the
    project is configured with, whichever language writes it. A list, not a generator:
    each rule reads them all."""
    stated = []
    fenced = source = False
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if line[:3] in ("```", "~~~"):
            fenced = not fenced
            source = fenced and line[3:].strip().casefold() in SOURCE
        elif not source:
            stated.append((number, line, fenced))
        elif _SOURCE_SETTING.fullmatch(line):
            stated.append((number, line.rstrip(",;"), fenced))
    return stated


def units(text: str) -> list[Unit]:
    """The units of a memory, line by line (a long line, sentence by sentence)."""
    found = []
    for number, line, fenced in stated_lines(text):
        if line:
            found.extend(_line_units(number, line, fenced))
    return found


def unit_at(lines: list[str], where: int) -> Unit | None:
    """The unit at ``where`` (:attr:`Unit.where`) of a memory's ``lines``, read from its
    line alone: what a slot's check needs, without reading the whole memory again."""
    number = where >> 3 & _LINES
    if not 0 < number <= len(lines) or where >= TOKEN:
        return None
    piece = where & 7
    return next(
        (
            u
            for u in _line_units(number, lines[number - 1].strip(), bool(where >> 30 & 1))
            if u.piece == piece
        ),
        None,
    )


def _line_units(number: int, line: str, code: bool) -> list[Unit]:
    """The units of one line (stripped), of a fenced block when ``code``."""
    if not line or line[:3] in ("```", "~~~") or (line[0] in "|:-" and _TABLE_RULE.match(line)):
        return []
    if line.startswith("|") and line.strip("|").count("|") >= MAX_CELLS:
        return []  # a row of a record's fields (an audit's, a log's): no statement
    found = []
    pieces = _SENTENCE_END.split(line) if len(line) > 80 else (line,)
    for at, piece in enumerate(pieces[:8]):
        if len(piece) <= MAX_STATEMENT_CHARS:
            unit = _unit(number, piece)
            if unit is not None:
                unit.code, unit.piece = code, at
                found.append(unit)
    return found


def _unit(number: int, piece: str) -> Unit | None:
    """A unit of one line or sentence (None without two words and a value)."""
    if _holds_no_value(piece):
        return None
    piece = _unmarked(piece)
    words: list[str] = []
    values: list[bool] = []
    negations = 0
    parts = piece.split("`")
    closed = len(parts) - (len(parts) % 2 == 0)  # an unpaired backtick opens no code
    for i, part in enumerate(parts):
        if i % 2 == 1 and i < closed:  # code: one value, whatever its words
            _code(" ".join(part.casefold().split()), words, values)
        else:
            negations += _prose(part, words, values)
    if len(words) < 2 or not any(values):
        return None
    return Unit(number, piece, words, values, negations % 2 == 1)


def _holds_no_value(piece: str) -> bool:
    """Whether a piece can hold no value a restatement may change, told before its words
    are read: nothing a value could be in it (a `mem:` reference is none), found with
    one search, or it is a record's own metadata (`**Atomicity**: 88% **Category**:
    Git`)."""
    if _MAYBE.search(_MEM_SPAN.sub("", piece) if "`mem:" in piece else piece) is None:
        return True
    return piece.count("**:") + piece.count(":**") >= 2


def _unmarked(piece: str) -> str:
    """A piece without its list or heading marker, and with a link's text only (not where
    it goes): neither is part of what the line says."""
    if piece[0] in "-*+>#" or piece[0].isdigit():
        piece = _MARKER.sub("", piece)
    if "](" in piece:
        piece = _LINK.sub("] ", piece)
    return piece


def _prose(part: str, words: list[str], values: list[bool]) -> int:
    """The words of prose (outside backticks) added to ``words`` and ``values``; how many
    negations it holds (counted apart, not words of the unit)."""
    negations = 0
    if "(" in part:
        part = _NUMBER_PAREN.sub(r"\1 (", part)  # `26(Android 8.0)`: the number, then a note
    for raw in _SPLIT.split(part.replace("n't", " not")):
        negations += _add_word(raw.strip(_STRIP), words, values)
    return negations


def _add_word(original: str, words: list[str], values: list[bool]) -> int:
    """One word of prose (as written) added to ``words`` and ``values``, unless it is a
    small word, a negation (1 is returned: it is counted, not kept) or holds no letter
    or digit; `KEY=value` adds what is set and its value."""
    word = original.casefold()
    if not word or word in SMALL:
        return 0
    if word.isalpha():  # most words: no pattern to try
        if word in NEGATIONS:
            return 1
        value = _camel(word, original)
    elif _WORD.search(word) and not word.startswith("mem:"):
        setting = _SETTING.fullmatch(word)
        if setting:
            words.extend(setting.groups())
            values.extend((True, True))
            return 0
        value = is_value(word, _camel(word, original))
    else:
        return 0
    words.append(word)
    values.append(value)
    return 0


def _camel(word: str, original: str) -> bool:
    """Whether a word is `camelCase` as written (``original``): a name, a value; `The`,
    `API` are words."""
    camel = word != original and not (original.istitle() or original.isupper())
    return camel and _CAMEL.search(original) is not None


def _code(code: str, words: list[str], values: list[bool]) -> None:
    """Code in backticks: one value (`KEY=value`: what is set, then its value; a quoted
    literal, `"24.11"`, is its value)."""
    if len(code) > 2 and code[0] == code[-1] and code[0] in "\"'":
        code = code[1:-1]
    setting = _SETTING.fullmatch(code)
    if setting:
        words.extend(setting.groups())
        values.extend((True, True))
    elif code and not code.startswith("mem:"):
        words.append(code)
        values.append(not (_DATE.search(code) or _EXAMPLE.search(code)))


def is_value(word: str, camel: bool = False) -> bool:
    """A word a restatement may change: with a digit, a path, a flag, a dotted name or
    an identifier (`snake_case`; `camelCase` when ``camel``, the word as written); not
    a date, a placeholder, a serial or a ticket."""
    if (
        _DATE.search(word)
        or _EXAMPLE.search(word)
        or _SERIAL.fullmatch(word)
        or _TICKET.fullmatch(word)
    ):
        return False  # a date, a placeholder (`$PR`, `{name}`) or a serial: no claim
    if "/" in word and _ALTERNATIVES.fullmatch(word):
        return False  # `entry/exit`, `prod/dev`: words, not a path
    return bool(camel or _DIGIT.search(word) or "_" in word or _IDENTIFIER.search(word))


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def slot_keys(found: list[Unit]) -> list[tuple[int, int, int]]:
    """One row per slot, per word next to it and per word of a sample of its unit's
    (:data:`SKETCH` min-hashes of the unit's other words, and all of them), and one of
    the words on both sides: (key, where its unit is, key of its value). Two slots meet
    when a word next to each is the same and their units hold words enough alike to
    share a min-hash, or when the words on both sides are the same."""
    rows: list[tuple[int, int, int]] = []
    seen: dict[str, tuple[int, ...]] = {}  # a word's hash, then its min-hash values
    for unit in found:
        if not any(unit.values[1:]):
            continue  # a value first only: what the line is about
        _hash_words(unit.words, seen)
        distinct = {w: seen[w][0] for w in unit.words}
        if len(distinct) >= 2:
            rows.extend(_unit_keys(unit, distinct, seen))
    return rows


def _hash_words(words: list[str], seen: dict[str, tuple[int, ...]]) -> None:
    """Each word not yet ``seen``: its hash, then its :data:`SKETCH` min-hash values,
    made once for all the units of a memory."""
    for w in words:
        if w not in seen:
            h = _hash(w)
            seen[w] = (h, *(((h * m + c) & _MASK) for m, c in _MIXES[:SKETCH]))


def _unit_keys(
    unit: Unit, distinct: dict[str, int], seen: dict[str, tuple[int, ...]]
) -> list[tuple[int, int, int]]:
    """The rows of :func:`slot_keys` of one unit (of two distinct words or more)."""
    words = unit.words
    total = sum(distinct.values())
    # per min-hash, its two smallest words: a slot's sketch leaves its own word out
    least = [sorted((seen[w][k], w) for w in distinct)[:2] for k in range(1, SKETCH + 1)]
    sorts = [kind(w) if v else None for w, v in zip(words, unit.values, strict=True)]
    hashes = [distinct[w] for w in words]
    rows: list[tuple[int, int, int]] = []
    for i in range(1, len(words)):
        if _no_slot(words, sorts, i):
            continue
        word = words[i]
        held = distinct[word]
        sketch = [(total - held) & _MASK]  # the other words, in any order
        sketch += [two[1][0] if two[0][1] == word else two[0][0] for two in least]
        rows.extend(_slot_rows(hashes, sorts, i, sketch, unit.where))
    return rows


def _no_slot(words: list[str], sorts: list[tuple[str, str] | None], i: int) -> bool:
    """Whether ``words[i]`` is no slot: no value; a number that cites (`PR 12`, `step
    3`); or one of a list of names (`MenuController, MenuService`), no claim of its own."""
    sort = sorts[i]
    if sort is None or words[i - 1] in CITING or (i > 1 and words[i - 2] in CITING):
        return True
    return sort == _NAME and sorts[i - 1] == _NAME


def _slot_rows(
    hashes: list[int], sorts: list[tuple[str, str] | None], i: int, sketch: list[int], where: int
) -> list[tuple[int, int, int]]:
    """The rows of slot ``i`` (of a unit's word ``hashes``): per side with a word, one per
    value of its ``sketch`` keyed by that word (salted by the value's sort, so that two
    kinds of value never meet); then one keyed by the words on both sides."""
    salt = _SORTS.get(sorts[i][0], 0)  # type: ignore[index]  # a slot: never None
    held = hashes[i]
    rows = []
    both = salt
    for side in (-1, 1):
        near = _beside(hashes, sorts, i, side)
        both = (both * 0xD6E8FEB86659FD93 + near + side) & _MASK
        if near:
            base = (near ^ salt) * 0x9E3779B97F4A7C15
            for k, mixed in enumerate(sketch):
                key = ((base + mixed) * 0xBF58476D1CE4E5B9 + k) & _MASK
                rows.append((key >> 32, where, held))
    rows.append((((both * 0x94D049BB133111EB) & _MASK) >> 32, where, held))  # both sides
    for j in window(sorts, i):
        key = (((hashes[j] ^ salt) + _NEARBY_SALT) * 0x94D049BB133111EB) & _MASK
        rows.append((key >> 32, where | NEARBY, held))
    return rows


def window(sorts: list[tuple[str, str] | None], i: int) -> list[int]:
    """Where the words near word ``i`` are: up to :data:`WINDOW` on each side, past the
    values of its kind (a list of them is one place)."""
    found = []
    for step in (-1, 1):
        j, taken = i + step, 0
        while 0 <= j < len(sorts) and taken < WINDOW:
            if sorts[j] != sorts[i]:
                found.append(j)
                taken += 1
            j += step
    return found


def nearby(unit: Unit, value: str) -> set[str]:
    """The words near each place ``value`` is in ``unit`` (:func:`window`), but short ones
    (two letters say too little to tie two statements)."""
    sorts = [kind(w) if v else None for w, v in zip(unit.words, unit.values, strict=True)]
    return {
        unit.words[j]
        for i, word in enumerate(unit.words)
        if word == value
        for j in window(sorts, i)
        if len(unit.words[j]) > 2 and unit.words[j] != value
    }


def _beside(hashes: list[int], sorts: list[tuple[str, str] | None], i: int, side: int) -> int:
    """The hash of the word next to word ``i`` on one ``side``, past the next values of
    its kind (`3.11, 3.12`: one list), or 0 at the end."""
    j = i + side
    while 0 <= j < len(hashes) and sorts[j] == sorts[i]:
        j += side
    return hashes[j] if 0 <= j < len(hashes) else 0


def value_of(unit: Unit, held: int) -> str | None:
    """The value of ``unit`` whose key (:func:`slot_keys`) is ``held``, if it has one."""
    return next(
        (w for w, v in zip(unit.words, unit.values, strict=True) if v and _hash(w) == held),
        None,
    )


def kind(value: str) -> tuple[str, str]:
    """What sort of value a word is, for two values to be compared: a number (with its
    unit), a flag (with its name), a URL, a path, a file, one of two opposites or a
    name."""
    if value in _POLAR:
        return "opposite", ""
    number = _NUMBER.fullmatch(value)
    if number:
        return "number", number.group(1)
    if value.startswith("-"):
        return "flag", value.split("=", 1)[0] if "=" in value else value
    if "://" in value:  # of one host: `localhost:3000/a` and `localhost:3001/a` too
        return "url", value.split("://", 1)[1].split("/", 1)[0].split(":", 1)[0]
    if "/" in value.rstrip("/"):
        return "path", ""
    if _FILE.search(value):
        return "file", ""
    return "name", ""
