"""Where a memory states a value, the words around it: two memories that say the same
words around a value and a different value there contradict each other, however the rest
of the sentence was reworded (a list item restated as a table row, a heading, a line of
a shell block or a longer sentence).

Each line (each sentence of a long one) is a *unit*: its words casefolded, markup and
the commonest small words left out, negations counted apart. Each value in a unit (a
word with a digit, code in backticks, a path, a flag, an identifier, `true`/`always`...)
is a *slot*, keyed three ways by its neighbours: the two words before it, the two after
it, the one before and the one after. Two slots of two memories with a key in common
and different values are compared closer (:func:`differ`): the values must be of one
kind (two versions, two identifiers, `true` and `false`), neither may be in the other
unit (a choice between two is no contradiction), and the units must share most of
their words. That leaves alone memories that merely mention the same tools.

Pure Python on purpose: a write's note reads a few memories without numpy.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from serena_memory.integrity.duplicates.text import MAX_STATEMENT_CHARS, NEGATIONS, fold

_SPLIT = re.compile(r"[\s|、，。（）：；「」【】]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")
_STRIP = ".,;:!?()[]{}\"'*_<>#→←—–=`"
_DIGIT = re.compile(r"\d")
_IDENTIFIER = re.compile(r"[a-z][A-Z]|\w[/.@:^~+]\w|^[-^~<>=+]|/")
_DATE = re.compile(r"\d{4}-\d\d-\d\d(?:[ T][\d:]+)?")
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)")
_TABLE_RULE = re.compile(r"^[\s|:-]+$")
_NUMBER = re.compile(r"[<>=^~v]*\d[\d.,:x]*([^\W\d_]{0,8}|%)\+?")
_FILE = re.compile(r"\w\.[a-z][a-z0-9]{0,4}$")
_LINK = re.compile(r"\]\([^)\s]*\)")
_MARKER = re.compile(r"^(?:[-*+>]|\d+[.)]|#+)[ \t]+")
_WORD = re.compile(r"[^\W_]")
SOURCE = frozenset(
    "c cpp c++ cs csharp dart go java javascript js jsx kotlin kt php py python rb ruby rust rs "
    "scala swift ts tsx typescript vue svelte sql graphql xml xaml html css scss".split()
)
"""Languages of fenced blocks that hold source code: its names are what it declares, not
values a memory states (shell, config and unlabelled blocks are read)."""
CITING = frozenset(
    "line lines issue pr session step phase part section chapter stage task sprint round "
    "milestone day week item figure table page rule no".split()
)
"""A number after these counts or cites where something is (`step 3`): not a value."""
SMALL = frozenset(
    "a an the is are be was to of in on at by for with and or it as via its this that".split()
)
"""Words too common to tell two contexts apart: left out of a unit's words."""
OPPOSITES = {
    frozenset(p)
    for p in (
        ("true", "false"),
        ("always", "never"),
        ("enabled", "disabled"),
        ("enable", "disable"),
        ("required", "optional"),
        ("allowed", "forbidden"),
        ("must", "may"),
        ("yes", "no"),
        ("on", "off"),
        ("sync", "async"),
        ("before", "after"),
        ("include", "exclude"),
        ("public", "private"),
    )
}
"""Words that say the opposite of each other: each is a value when its pair is."""
_POLAR = frozenset(w for p in OPPOSITES for w in p)
SLOT_MARK = 0x80000000
"""The middle column of a key row that holds a slot (``SLOT_MARK | unit``)."""
SHORT = 4
"""A unit of this many words or fewer (besides the value) must be all in the other."""
SHARED_SHARE = 0.5
"""Share of a longer unit's words (besides the value) the other must have."""


@dataclass(slots=True)
class Unit:
    """One line or sentence: where it is, its text, its words (in order, without small
    words and negations), which of them are values, and whether it is negated."""

    line: int
    text: str
    words: list[str]
    values: list[bool]
    negated: bool


def units(text: str) -> list[Unit]:
    """The units of a memory, line by line (a long line, sentence by sentence)."""
    found = []
    fenced = source = False
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        fence = _FENCE.match(line)
        if fence:
            fenced = not fenced
            source = fenced and line[fence.end() - fence.start() :].strip().casefold() in SOURCE
            continue
        if not line or source or _TABLE_RULE.match(line):
            continue
        for piece in _SENTENCE_END.split(line) if len(line) > 80 else (line,):
            if len(piece) <= MAX_STATEMENT_CHARS:
                unit = _unit(number, piece)
                if unit is not None:
                    found.append(unit)
    return found


def _unit(number: int, piece: str) -> Unit | None:
    """A unit of one line or sentence (None without two words and a value)."""
    piece = _LINK.sub("] ", _MARKER.sub("", piece))  # a link's text, not where it goes
    words: list[str] = []
    values: list[bool] = []
    negations = 0
    for i, part in enumerate(piece.split("`")):
        if i % 2 == 1 and i < piece.count("`"):  # code: one value, whatever its words
            code = " ".join(part.casefold().split())
            if code and not code.startswith("mem:"):
                words.append(code)
                values.append(not _DATE.fullmatch(code))
            continue
        for token in _SPLIT.split(part.replace("n't", " not")):
            word = token.strip(_STRIP)
            if not _WORD.search(word) or word.startswith("mem:"):
                continue
            folded = word.casefold()
            if folded in NEGATIONS:
                negations += 1
                continue
            if folded in SMALL:
                continue
            words.append(folded)
            values.append(is_value(word))
    if len(words) < 2 or not any(values):
        return None
    return Unit(number, " ".join(piece.split()), words, values, negations % 2 == 1)


def is_value(word: str) -> bool:
    """A word a restatement may change: with a digit, a path, a flag, a dotted name or
    an identifier (`camelCase`, `snake_case`), or one of two opposites."""
    if _DATE.fullmatch(word):
        return False  # when something was written or checked: no claim to contradict
    if _DIGIT.search(word) or "_" in word or _IDENTIFIER.search(word):
        return True
    return word.casefold() in _POLAR


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def slot_keys(found: list[Unit]) -> list[tuple[int, int, int]]:
    """One row per slot and way of keying it: (key of its neighbours, ``SLOT_MARK`` |
    its unit, key of its value)."""
    rows = []
    for u, unit in enumerate(found):
        words = unit.words
        n = len(words)
        for i, value in enumerate(unit.values):
            if not value or not i or CITING.intersection(words[max(i - 2, 0) : i]):
                continue  # the first word names what the line is about; `PR 12` cites
            if unit.values[i - 1] and kind(words[i - 1]) == kind(words[i]) == ("name", ""):
                continue  # one of a list of names (`MenuController, MenuService`)
            mark = SLOT_MARK | (u & 0x7FFFFFFF)
            held = _hash(words[i])
            before = words[i - 2 : i] if i >= 2 else ["^", *words[:i]]
            after = words[i + 1 : i + 3] if i + 3 <= n else [*words[i + 1 :], "$"]
            if len(before) == 2 and _telling(before):
                rows.append((_hash("<", *before), mark, held))
            if len(after) == 2 and _telling(after):
                rows.append((_hash(">", *after), mark, held))
            if 0 < i < n - 1 and _telling([words[i - 1], words[i + 1]]):
                rows.append((_hash("=", words[i - 1], words[i + 1]), mark, held))
    return rows


def value_of(unit: Unit, held: int) -> str | None:
    """The value of ``unit`` whose key (:func:`slot_keys`) is ``held``, if it has one."""
    return next(
        (w for w, v in zip(unit.words, unit.values, strict=True) if v and _hash(w) == held),
        None,
    )


def _telling(context: list[str]) -> bool:
    """Whether neighbours say what a value is about: one of them a word of 3+ letters."""
    return any(len(w) > 2 and not _DIGIT.search(w) for w in context)


def differ(a: Unit, b: Unit, value_a: str, value_b: str) -> bool:
    """Whether two units say the same but ``value_a`` in one and ``value_b`` in the
    other: values of one kind, neither in the other unit, the other values the same and
    the rest mostly shared (all of it, for a short unit)."""
    if value_a == value_b or a.negated != b.negated or kind(value_a) != kind(value_b):
        return False
    if value_a.rstrip("s") == value_b.rstrip("s") or _open(value_a) != _open(value_b):
        return False  # a plural; or `3.8+` holds for `3.10`: a bound and a value in it
    if _more_precise(value_a, value_b) or _more_precise(value_b, value_a):
        return False
    mine, theirs = set(a.words) - {value_a}, set(b.words) - {value_b}
    if value_b in mine or value_a in theirs:
        return False  # both named in one: a choice, or a change from one to the other
    mine_values = {w for w, v in zip(a.words, a.values, strict=True) if v} - {value_a}
    theirs_values = {w for w, v in zip(b.words, b.values, strict=True) if v} - {value_b}
    if not (mine_values <= theirs or theirs_values <= mine):
        return False  # more than one value differs: another statement
    smaller, larger = sorted((mine, theirs), key=len)
    shared = smaller & larger
    number = kind(value_a)[0] == "number"
    if len(smaller) < 2:  # `printWidth: 150`: only when what is set is a name of its own
        return number and smaller == larger and smaller <= mine_values
    if len(smaller) < (2 if number or kind(value_a)[0] == "flag" else 3):
        return False  # `Call X` / `Call Y`: too little said of a name to tell it apart
    if len(smaller) <= SHORT:
        return shared == smaller
    return len(shared) >= SHARED_SHARE * len(smaller)


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
    if "://" in value:
        return "url", ""
    if "/" in value.rstrip("/"):
        return "path", ""
    if _FILE.search(value):
        return "file", ""
    return "name", ""


def _open(value: str) -> bool:
    """Whether a value is a bound (`3.8+`, `>=1.2`, `^6`) rather than one value."""
    return value.endswith("+") or value.startswith((">", "<", "^", "~"))


def _more_precise(short: str, long: str) -> bool:
    """Whether ``long`` says ``short`` more precisely (`1.8` / `1.8.2`, `build.py` /
    `scripts/build.py`, `pytest` / `pytest -q`, `NetworkError` / `NetworkError: ...`)."""
    if long.startswith(short) and not long[len(short) : len(short) + 1].isalnum():
        return True
    return long.endswith("/" + short)
