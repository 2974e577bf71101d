"""Whether two slots that met (:mod:`.slots`) say one thing two ways: values of one kind,
neither in the other unit, no other value of the kind apart, and the rest mostly shared
(all of it, for a short unit). Each rule that tells them apart has its reason in words
(:func:`why_not`), for whoever tunes them."""

from __future__ import annotations

import re
from collections.abc import Callable

from serena_memory.core.filler_words import FILLER
from serena_memory.integrity.duplicates.slots import OPPOSITES, Unit, kind, nearby

_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
_ZEROS = re.compile(r"(?<!\d)0+(?=\d)")
_BOUND = re.compile(r"(?:[<>]=?|\^|~)\s*\d")
SHORT = 4
"""A unit of this many words or fewer (besides the value) must be all in the other."""
MIN_SHARED_NUMBER = 4
"""Words two units with numbers (or flags) apart must share, one of them the word after
both (its unit: `512 bytes`), however the rest was reworded."""
SHARED_SHARE = 0.5
"""Share of a longer unit's words (besides the value) the other must have."""


def _near(words: list[str], values: list[bool], i: int, step: int) -> str | None:
    """The nearest word to ``words[i]`` on one side that is no value of its kind (what
    is set, `TIMEOUT=30`; not the next of a list, `3.11, 3.12`), or None at the end."""
    sort = kind(words[i])
    j = i + step
    while 0 <= j < len(words) and values[j] and kind(words[j]) == sort:
        j += step
    return words[j] if 0 <= j < len(words) else None


def differ(a: Unit, b: Unit, value_a: str, value_b: str) -> bool:
    """Whether two units say the same but ``value_a`` in one and ``value_b`` in the
    other: values of one kind, neither in the other unit, no other value of the kind
    apart, and the rest mostly shared (all of it, for a short unit)."""
    return why_not(a, b, value_a, value_b) is None


def why_not(a: Unit, b: Unit, value_a: str, value_b: str) -> str | None:
    """Why two units with ``value_a`` and ``value_b`` do not contradict each other (None
    when they do): what :func:`differ` tells, in words, for whoever tunes it."""
    return _reason(_Pair(a, b, value_a, value_b))


def _reason(pair: _Pair) -> str | None:
    """:func:`why_not` of a pair already read."""
    for rule, reason in _RULES:
        if rule(pair):
            return reason
    return _too_little_shared(pair)


_REWORDED = frozenset(
    (
        "no word next to the one value next to the other",
        "one word besides the value",
        "too little said of a name to tell it apart (`Call X`, `Call Y`)",
        "a short unit not all in the other",
        "too few words in common",
        "a command not all in the other",
    )
)
"""The reasons of :func:`why_not` that only say the words around the value were
reworded: :func:`restated` looks at the words near it instead."""


def restated(a: Unit, b: Unit, value_a: str, value_b: str) -> bool:
    """Whether two units that met by a word near their values (not next to them) say one
    thing two ways: values that could be one thing changed (:func:`_one_thing_changed`),
    and :func:`differ`, or only reworded around the value (:data:`_REWORDED`) with a word
    near both values (for a bare count, the word after it), no other value of the kind
    apart, and two words of four letters or more in common (all of the shorter unit's,
    for a quantity or a URL: `Server at http://localhost:3000` in a longer line)."""
    if not _one_thing_changed(kind(value_a)[0], value_a, value_b):
        return False
    pair = _Pair(a, b, value_a, value_b)
    reason = _reason(pair)
    if reason is None or reason not in _REWORDED:
        return reason is None
    if _bare_count(value_a) or _bare_count(value_b):
        near = any(side > 0 and _counted(w) for side, w in pair.near)  # said after it
    else:
        near = bool(nearby(a, value_a) & nearby(b, value_b))
    if _another_differs(pair) or not near:
        return False
    smaller, larger = sorted((_prose_words(a), _prose_words(b)), key=len)
    shared = {w for w in smaller & larger if len(w) > 3}  # `one`, `per`: no subject
    whole = bool(shared) and shared == smaller and pair.sort[0] in (*_QUANTITIES, "url")
    return len(shared) >= 2 or whole


def _counted(word: str | None) -> bool:
    """Whether the word after a bare count may be what it counts (`3 workers`): not a
    filler word (`V = 0 must be avoided`, `Beispiel 1789 muss ablesbar sein`: a verb after
    two numbers of two sentences ties nothing)."""
    return word is not None and word not in FILLER


def _prose_words(unit: Unit) -> set[str]:
    """The words of a unit that are no value."""
    return {w for w, v in zip(unit.words, unit.values, strict=True) if not v}


def _one_thing_changed(sort: str, value_a: str, value_b: str) -> bool:
    """Whether two values could be one thing said two ways, read from the values alone
    (the words around them were reworded): a quantity, a setting or a URL may change; a
    name only to a variant of itself; a path only where it ends (`~/.config/a.yaml` /
    `/etc/a.yaml`); a pattern (`apply-*.ts`) or a package never."""
    if "*" in value_a + value_b or value_a[0] == "@" or value_b[0] == "@":
        return False  # a pattern, or a package (`@scope/name`: its folder is no other place)
    if sort in ("name", "file"):
        return _variant(value_a, value_b)
    if sort == "path":
        if not (_LETTER.search(value_a) and _LETTER.search(value_b)):
            return False  # `9/10`: a rating
        return value_a.rstrip("/").rsplit("/", 1)[-1] == value_b.rstrip("/").rsplit("/", 1)[-1]
    return True


def _variant(value_a: str, value_b: str) -> bool:
    """Whether two names are one versioned name changed in a part (`glm-4-flash` /
    `glm-4-plus`, `bun@1.3.11` / `bun@1.2.19`): both with a digit, their first four
    characters alike."""
    digits = _DIGIT.search(value_a) and _DIGIT.search(value_b)
    return bool(digits) and value_a[:4] == value_b[:4]


def _bare_count(value: str) -> bool:
    """Whether a value is a count alone (`3`, `12`, `90%`, `800+`; not a version): what
    it counts is the word right after it (`3 workers`); a word before it mostly cites
    (`Pattern 4`) or rates (`Coverage 90%`)."""
    if value[0] == "0" and value[1:2].isdigit():
        return False  # `002`: a code with its zeros, not a count
    return "." not in value and not any(c.isalpha() for c in value)


class _Pair:
    """Two units and their values, as :func:`why_not`'s rules read them: the kind of the
    values, each unit's other words, and the words next to the values in both."""

    def __init__(self, a: Unit, b: Unit, value_a: str, value_b: str) -> None:
        self.a, self.b, self.value_a, self.value_b = a, b, value_a, value_b
        self.sort = kind(value_a)
        self.mine, self.theirs = set(a.words) - {value_a}, set(b.words) - {value_b}
        self.near = _neighbours(a, value_a) & _neighbours(b, value_b)


def _same_or_unlike(p: _Pair) -> bool:
    """The same value twice says nothing new; values of two kinds are not one changed."""
    return p.value_a == p.value_b or p.sort != kind(p.value_b)


def _not_opposites(p: _Pair) -> bool:
    """`true` / `off` are words of two settings, not one set two ways."""
    return p.sort[0] == "opposite" and frozenset((p.value_a, p.value_b)) not in OPPOSITES


def _two_places(p: _Pair) -> bool:
    """Paths alike neither at their start nor at their end are two places, each said."""
    return p.sort[0] == "path" and not _akin(p.value_a, p.value_b)


def _plural_or_bound(p: _Pair) -> bool:
    """`test` / `tests`, `ADR-3` / `ADR-003` are one value; `3.8+` holds `3.10`."""
    return _plain(p.value_a) == _plain(p.value_b) or _open(p.value_a) != _open(p.value_b)


def _one_more_precise(p: _Pair) -> bool:
    """`1.8` / `1.8.2`: one says the other, more precisely."""
    return _more_precise(p.value_a, p.value_b) or _more_precise(p.value_b, p.value_a)


def _both_in_one(p: _Pair) -> bool:
    """A unit that holds both values chooses between them or tells a change from one to
    the other: what the other unit says is no contradiction of it."""
    if p.value_b in p.mine or p.value_a in p.theirs:
        return True
    return _said_in(p.value_a, p.b) or _said_in(p.value_b, p.a)


def _no_neighbour(p: _Pair) -> bool:
    """Values with no word next to them alike are said of two things."""
    return not p.near


def _another_differs(p: _Pair) -> bool:
    """Another value of the kind apart on both sides: the units say two statements (two
    versions of two tools), not one with one value changed."""
    mine_values = {w for w, v in zip(p.a.words, p.a.values, strict=True) if v} - {p.value_a}
    theirs_values = {w for w, v in zip(p.b.words, p.b.values, strict=True) if v} - {p.value_b}
    only_mine = any(kind(w) == p.sort for w in mine_values - p.theirs)
    return only_mine and any(kind(w) == p.sort for w in theirs_values - p.mine)


_RULES: tuple[tuple[Callable[[_Pair], bool], str], ...] = (
    (_same_or_unlike, "the same value, or values of two kinds"),
    (_not_opposites, "two words of opposites that are not each other's"),
    (_two_places, "two paths with neither their first nor their last part alike: two places"),
    (_plural_or_bound, "a plural, or a bound and a value in it (`3.8+`, `3.10`)"),
    (_one_more_precise, "one says the other more precisely"),
    (_both_in_one, "both values in one unit: a choice, or a change from one to the other"),
    (_no_neighbour, "no word next to the one value next to the other"),
    (_another_differs, "another value of the kind differs: another statement"),
)
""":func:`why_not`'s rules about the values and the words next to them, in order: the
first that holds is the reason; when none does, what the units share decides."""
_QUANTITIES = ("number", "flag", "opposite")
"""Sorts of value that are a quantity or a setting: said with fewer words around them."""


def _too_little_shared(p: _Pair) -> str | None:
    """Why two units do not share words enough to say the same but for the value (None
    when they do): a quantity with the word after it and :data:`MIN_SHARED_NUMBER` words
    in common does; a unit of one word or two besides the value needs them all."""
    smaller, larger = sorted((p.mine, p.theirs), key=len)
    shared = smaller & larger
    number = p.sort[0] in _QUANTITIES
    after = {w for side, w in p.near if side > 0}
    if number and after and len(shared) >= MIN_SHARED_NUMBER:
        return None  # `512 bytes` / `2048 bytes`: one quantity, with a word more in common
    if len(smaller) < 2:  # `Port: 8084` / `| Port | 8080 |`
        ok = number and smaller == larger
        return None if ok else "one word besides the value"
    if len(smaller) == 2 and not number and smaller != larger:
        return "too little said of a name to tell it apart (`Call X`, `Call Y`)"
    return _too_little_of_longer(p, smaller, shared, number)


def _too_little_of_longer(
    p: _Pair, smaller: set[str], shared: set[str], number: bool
) -> str | None:
    """The rest of :func:`_too_little_shared`, for units of two words or more besides the
    value: a command must be all in the other (said exactly), a short unit all but a
    word for a quantity, a longer one :data:`SHARED_SHARE` of its words."""
    if p.a.code and p.b.code:
        return None if shared == smaller else "a command not all in the other"
    if len(smaller) <= SHORT:  # of four words, one may be said otherwise, by a quantity
        enough = len(shared) >= min(len(smaller), SHORT - 1 if number else SHORT)
        return None if enough else "a short unit not all in the other"
    if len(shared) < SHARED_SHARE * len(smaller):
        return "too few words in common"
    return None


def _said_in(value: str, unit: Unit) -> bool:
    """Whether a value (a name of four letters or more) is in a unit's text, within a
    word (`WebGL` in `WebGL-based`)."""
    return len(value) > 3 and kind(value)[0] != "number" and value in unit.text.casefold()


def _akin(path_a: str, path_b: str) -> bool:
    """Whether two paths start or end alike (`backend/a.Tests`, `backend/a.UnitTests`):
    one place said two ways, not two places."""
    parts_a = [p for p in path_a.split("/") if p.strip(".~")]
    parts_b = [p for p in path_b.split("/") if p.strip(".~")]
    if not parts_a or not parts_b:
        return False
    return parts_a[0] == parts_b[0] or parts_a[-1] == parts_b[-1]


def _plain(value: str) -> str:
    """A value as said either way: without a plural's `s` or leading zeros (`ADR-003`)."""
    return _ZEROS.sub("", value.rstrip("s"))


def _neighbours(unit: Unit, value: str) -> set[tuple[int, str | None]]:
    """The words next to each place ``value`` is in ``unit`` (the nearest that is no
    value), with their side."""
    found = set()
    for i, word in enumerate(unit.words):
        if word == value:
            found |= {(side, _near(unit.words, unit.values, i, side)) for side in (-1, 1)}
    return {(side, word) for side, word in found if word is not None}


def _open(value: str) -> bool:
    """Whether a value is a bound (`3.8+`, `>=1.2`, `^6`) rather than one value."""
    return value.endswith("+") or _BOUND.match(value) is not None


def _more_precise(short: str, long: str) -> bool:
    """Whether ``long`` says ``short`` more precisely (`1.8` / `1.8.2`, `build.py` /
    `scripts/build.py`, `pytest` / `pytest -q`, `NetworkError` / `NetworkError: ...`)."""
    if long.startswith(short) and not long[len(short) : len(short) + 1].isalnum():
        return True
    return long.endswith("/" + short)
