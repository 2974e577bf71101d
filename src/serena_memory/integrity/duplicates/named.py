"""Values said of a name, however the sentence around them was reworded: `Go 1.21+` /
`| Language | Go 1.22+ |`, "PostgreSQL 18" / "runs against PostgreSQL 17", `--port 8004`
/ `--port 8000`, `http://localhost:1420` / "serves it at localhost:5173". A restatement
keeps what the value is of (the tool, the setting, the host) and says the rest in its
own words, so these are aligned by that name alone, not by the words of the line
(:mod:`.slots` needs most of those).

A *named value* is a number said of the word before it: a version (`python 3.10`), or a
whole number after a setting's name (`--port 8000`, `line-length 100`), a proper name
(`Java 17`, `Min SDK 26`) or the key of its line (`**black**: 100`), but not a count
(`13 files`), a score in brackets, a number a word cites (`PEP 668`, `#2222`), a result
(`Processed = 0`) nor one of a tally; the version a package is pinned to (`bun@1.3.11`);
or the port of a URL with its host and path. Each
is one row like a slot's (:mod:`.slots`), keyed by its name and its number's unit, whose
value column is the value's own hash salted apart (:func:`held_of`): :func:`value_named`
finds it again, and tells a named row from a slot row. The check's key groups already
leave out a name a memory gives two values or more (a list, a history), a name three
memories or more give values of their own (a count that moves on) and a name many
memories hold (a field); :func:`contradict` compares what is left.
"""

from __future__ import annotations

import re
import zlib
from typing import NamedTuple

from serena_memory.integrity.duplicates.coverage import coverage_bar
from serena_memory.integrity.duplicates.rates import rate_limit
from serena_memory.integrity.duplicates.slots import CITING, SMALL, Unit, kind

_PORT = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?([a-z0-9.-]+):(\d{2,5})(/[^\s?#]*)?")
_DIGIT = re.compile(r"\d")
_PIN = re.compile(r"(@?[a-z][\w.-]*(?:/[\w.-]+)?)@[\^~=v]?(\d+(?:\.\d+){1,3})")
"""A package pinned to a version (`bun@1.3.11`, `@scope/pkg@2.0`): a value of its name."""
_REQUIREMENT = re.compile(r"([a-z][\w.-]*[a-z0-9])(==|~=|>=)(\d+(?:\.\d+){0,3})")
"""A package as a requirements file pins it, written in prose (`fastapi==0.111.0`,
`django>=4.2`): a value of its name, the lower end of a range after ``>=`` or ``~=``."""
_SWITCH = frozenset(("true", "false"))
"""The values of a switch (`NLP_ENABLED=true`): a value of the setting set to it."""
_DEPENDENCY = re.compile(r"([a-z][\w.-]*[a-z])\s+([\^~]|[<>]=?|==?)?(\d+(?:\.\d+){1,3})")
"""A package and its version, alone in a span of code (`graphview ^1.5.0`)."""
_RANGE = re.compile(
    r"""(?:["']?([a-z][\w.-]*)["']?\s*[:=]\s*)?["']?"""
    r"""(>=?\s*\d+(?:\.\d+){0,2}),?\s*(<=?\s*\d+(?:\.\d+){0,2})["',]?"""
)
"""A range of versions, maybe set to a name (`>=3.11, <3.15`, `"node": ">=22 <25"`)."""
_SETTING_NAME = re.compile(r"-{0,2}[a-z][\w.-]*")
_SPACE = re.compile(r"[\s*_`|:]+")
_JOINED = re.compile(r"[a-z]{2,20}(?:[-_][a-z]{2,20}){1,3}")
"""A setting's name of words joined by `-` or `_` (`line-length`, `print_width`)."""
_JOINERS = re.compile(r"[-_]")
_CAMEL = re.compile(r"[a-z][A-Z]")
_MARKS = "`*'\""
_GAP = re.compile(r"[`*'\"]{0,3}\s{0,3}[:=|]?\s{0,3}[`*'\"]{0,3}")
"""What may stand between a setting's name and its value (`` `timeout`: 1800``)."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


NAMELESS = _words(
    """than over under above below least most about around up from until upto max min
    maximum minimum default defaults limit value version versions set use uses using
    requires needs need pins pinned target targets at between within every each per only
    just also now then x times top last first next all story epic ticket chapter release
    count counts total number pep rfc iso adr cve rc code exit returns returned -eq -ne
    -gt -ge -lt -le"""
)
"""Words before a number that say how it is bounded or used, not what it is of: what
bounds it, a count or a result (`Total`, `rc=1`), a standard cited (`PEP 668`)."""
UNITLESS = _words(
    """and or but if when then so the a an of to in on at by for with as is are be was were
    it its this that these those times x more less fewer inside into onto from via through
    within across under behind beside alongside during until since locally only"""
)
"""Words after a number that are no unit of it."""
_SALT = "\x1enamed"
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?e[+-]?\d+")
_DIGITS = re.compile(r"\d[\d.,:e]*")
_AT_LEAST = ("以上", "以下", "未満", "以降")
"""Japanese and Chinese bounds after a number (`3.11以上`: 3.11 or more)."""
_LATER = frozenset(("newer", "later", "higher", "above", "greater", "more", "minimum", "onwards"))
"""Words of a bound said after a number (`3.10 or newer`, `1.23 minimum`)."""
_LEAST = re.compile(r"\bminimum\b|\bat least\b|最小|最低|최소", re.IGNORECASE)
"""Words before a version that make it a bound: the minimum version is that version
or a later one (`Minimum macOS: 14.0`, `最小デプロイメントターゲット: macOS 14.0`)."""
_CLAUSE_ENDS = frozenset(";,)、，。；）：")
TITLED = 0.7
"""Share of a text's longer words with a capital that makes it a title (of
:data:`MIN_TITLED` or more: `| Database | PostgreSQL 18 |` is a key and its value)."""
MIN_TITLED = 3
MAX_NUMBERS = 3
"""Numbers in one unit that make it a tally (:func:`named_values`)."""


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def held_of(word: str) -> int:
    """The value column of a named row: the value's hash, salted apart from a slot's (a
    slot's `fielded` place never hides a named row, nor the reverse)."""
    return _hash(_SALT, word)


class Named(NamedTuple):
    """A value said of a name: the name, the value's word as the unit holds it, its
    number, its unit (`hz`, `文字`, `port`, or the word after a key's number: `lines`
    of `Functions: ~50 lines`) and whether it is a bound (`3.10+`, `3.11以上`, `3.10
    or newer`)."""

    name: str
    word: str
    number: str
    unit: str
    bound: bool
    joined: bool = False  # said of a joined name (`printWidth`, `line-length`)


def named_values(unit: Unit) -> list[Named]:
    """The named values of a unit: each number with the word before it (no digit in
    it, no citing word), each URL's port with its host and path. None in a tally
    (:data:`MAX_NUMBERS` numbers or more: `Critical 0, High 13, Medium 37`, `AM=1.0,
    NBFM=1.5, WBFM=2.0`), a record of counts, not facts each said once."""
    words, values = unit.words, unit.values
    numbered = [i for i, w in enumerate(words) if values[i] and _numeric(w)]
    found: list[Named] = []
    for i in range(len(words)):
        if values[i]:
            found.extend(_of_word(unit, i, numbered))
    switched = [_switched(unit, i) for i, w in enumerate(words) if w in _SWITCH]
    switched += [_set_in_code(unit, w) for w in words if w.endswith(("true", "false"))]
    found += [named for named in switched if named is not None]
    return found + _gated(unit, numbered) + _rated(unit) + _barred(unit)


def _of_word(unit: Unit, i: int, numbered: list[int]) -> list[Named]:
    """The named values the value ``unit.words[i]`` says (see :func:`named_values`)."""
    word = unit.words[i]
    pin = _PIN.fullmatch(word)
    if pin is not None:  # `bun@1.3.11`: the version bun is pinned to
        return [Named(f"pin {pin.group(1)}", word, pin.group(2), "", False)]
    required = _REQUIREMENT.fullmatch(word)
    if required is not None:  # `fastapi==0.111.0`: the version fastapi is pinned to
        name, mark, version = required.groups()
        return [Named(f"pin {name}", word, version, "", mark != "==")]
    if " " in word:  # code: `"packageManager": "bun@1.2.19"`, `graphview ^1.5.0`
        return _in_code(word, unit.words[i - 1] if i else "")
    port = _PORT.fullmatch(word)
    if port is not None and ("://" in word or port.group(1) == "localhost"):
        host = f"url {port.group(1)}{port.group(3) or ''}"
        return [Named(host, word, port.group(2), "port", False)]
    if i not in numbered:
        return []
    named = _number_named(unit, i) if len(numbered) < MAX_NUMBERS else None
    compound = _compound_named(unit, i, len(numbered) < MAX_NUMBERS)
    return [n for n in (named, compound) if n is not None]


def _in_code(code: str, before: str) -> list[Named]:
    """The versions a span of code gives a package, however the span goes on: the one it
    is pinned to (`"packageManager": "bun@1.2.19"`, `npm i -g pnpm@9.1.0`), the one
    after its name alone (`graphview ^1.5.0`, a dependency as a manifest lists it) and
    the two ends of a range, of the name in the span or of the word ``before`` it
    (`"node": ">=22 <25"`, "Python: `>=3.11, <3.15`")."""
    pins = _PIN.finditer(code)
    found = [Named(f"pin {m.group(1)}", m.group(0), m.group(2), "", False) for m in pins]
    dependency = _DEPENDENCY.fullmatch(code)
    if dependency is not None:
        word = (dependency.group(2) or "") + dependency.group(3)
        number, _suffix, bound = _parts(word)
        found.append(Named(f"of {dependency.group(1)}", word, number, "", bound))
    ranged = _RANGE.fullmatch(code)
    name = (ranged.group(1) or before).removeprefix("requires-") if ranged else ""
    if ranged is not None and _names(name):
        for end, unit in ((ranged.group(2), "from"), (ranged.group(3), "below")):
            found.append(Named(f"of {name}", end, _parts(end)[0], unit, True))
    return found


def _switched(unit: Unit, i: int) -> Named | None:
    """The switch ``unit.words[i]`` (`true`, `false`) as the value of the setting before
    it, when that is a setting's name (`NLP_ENABLED`, `strictMode`, `use_cache`) set to it
    as written (`NLP_ENABLED=true`, `strict: false`) or given it as its default
    (`` `NLP_ENABLED` default false``); not a word of prose ("is true")."""
    if not i:
        return None
    name = unit.words[i - 1]
    if name in ("default", "defaults") and i > 1:
        name = unit.words[i - 2]
    elif not _SET_SWITCH.search(unit.said.casefold()):
        return None
    if not _setting_name(unit.said, name):
        return None
    return Named(f"of {name}", unit.words[i], unit.words[i], "", False)


def _set_in_code(unit: Unit, word: str) -> Named | None:
    """A switch set in one span of code (`` `SMTP_SECURE: true` ``): a value of its name."""
    set_to = _SWITCH_SPAN.fullmatch(word)
    if set_to is None or not _setting_name(unit.said, set_to.group(1)):
        return None
    return Named(f"of {set_to.group(1)}", set_to.group(2), set_to.group(2), "", False)


def _setting_name(said: str, name: str) -> bool:
    """Whether ``name`` is written as a setting's, not as a word of prose: joined by ``_``
    or ``-`` (`NLP_ENABLED`, `use-cache`; capitals too, as an environment's variables
    are) or by case where ``said`` writes it (`strictMode`)."""
    if _JOINED.fullmatch(name) or "_" in name:
        return True
    at = said.casefold().find(name)
    return at >= 0 and _CAMEL.search(said, at, at + len(name)) is not None


_SWITCH_SPAN = re.compile(r"([a-z][\w.-]*)\s?[:=]\s?(true|false)")
_SET_SWITCH = re.compile(r"[\w.-][`'\"]?\s?[=:]\s?[`'\"]?(?:true|false)\b")
"""A switch set as written: `NLP_ENABLED=true`, `strict: false`, `"cache": true`."""


def _barred(unit: Unit) -> list[Named]:
    """The coverage a line requires (:mod:`.coverage`), as a value of the bar of the
    parts it names."""
    bar = coverage_bar(unit.said)
    if bar is None:
        return []
    number, parts = bar
    return [Named(f"coverage bar {parts}", f"{number}%", number, "%", False)]


def _rated(unit: Unit) -> list[Named]:
    """The rate limit a line says (:mod:`.rates`), as a value of the name `rate limit`
    per its span of time."""
    rate = rate_limit(unit.said)
    if rate is None:
        return []
    number, span = rate
    return [Named("rate limit", f"{number}/{span}", number, span, False)]


def _gated(unit: Unit, numbered: list[int]) -> list[Named]:
    """The one percentage of a unit said of each command in it: a threshold a command
    enforces ("Coverage is enforced at 80% via `composer run coverage:check`" /
    "`composer run coverage:check` fails below 90%"), however the rest is worded."""
    shares = [i for i in numbered if unit.words[i].endswith("%")]
    if len(shares) != 1:
        return []
    word = unit.words[shares[0]]
    number, _unit, bound = _parts(word)
    commands = [w for i, w in enumerate(unit.words) if unit.values[i] and " " in w]
    return [Named(f"gate {command}", word, number, "%", bound) for command in commands]


def _numeric(word: str) -> bool:
    """Whether a word is a number (with its unit or bound), as :func:`.slots.kind`
    tells, or in scientific notation (`30e6`)."""
    return kind(word)[0] == "number" or _SCIENTIFIC.fullmatch(word) is not None


def _number_named(unit: Unit, i: int) -> Named | None:
    """The number ``unit.words[i]`` (not the first word) with the word before it as its
    name, when the number is said of it (:func:`_said_of`), or None."""
    words, word = unit.words, unit.words[i]
    if not i or _DIGIT.search(word) is None or _plain(words[i - 1]) in CITING:
        return None
    if not _names(words[i - 1]) or _annotated(unit, word):
        return None
    number, suffix, bound = _parts(word)
    after = words[i + 1] if i + 1 < len(words) else ""
    counted = (
        not suffix and after.isalpha() and after not in UNITLESS and not _clause_ends(unit, word)
    )
    if not _said_of(unit, i, word, counted):
        return None
    bound = _bounded(unit, word, bound or after in _LATER)  # `3.10 or newer`
    version = "." in number.strip(".") or bound
    unit_said = after if counted and not version else suffix
    return Named(f"of {words[i - 1]}", word, number, unit_said, bound)


def _compound_named(unit: Unit, i: int, alone: bool) -> Named | None:
    """The number ``unit.words[i]`` as a value of a setting named by two words, however
    they are joined: `printWidth: 120`, `print_width = 120`, `line-length 119`, "print
    width 100", `**Min SDK**: 24`, "Line length: 100 characters". The name is the words
    joined without case or marks (`printwidth`), so a restatement that spells its name
    another way meets it; two names said in words are left to :func:`_number_named`
    (:func:`contradict`). Not a count (`5 required`; but a key's value with its unit:
    `Line length: 100 characters`), a result (`Files Fixed: 59`) nor a script's variable
    (`REAL_EXIT=1`, in capitals). In a tally (not ``alone``), only a setting's: a line
    of settings (`retry_after` 3600, `tries = 1`, `timeout` 1800) says each of them."""
    words, word = unit.words, unit.words[i]
    if not i or _annotated(unit, word) or _plain(words[i - 1]) in CITING:
        return None
    name = words[i - 1]
    if _joined(unit.said, name) and _set_to(unit, name, word, alone):
        spelled, joined = _JOINERS.sub("", name), True
    elif not alone:
        return None
    elif i == 2 and _two_words(unit, i) and _keyed(unit, name):  # `Line length: 100 chars`
        spelled, joined = words[0] + name, False
    elif i >= 2 and _two_words(unit, i) and _ends_clause(unit, i):  # "print width 100, LF"
        spelled, joined = words[i - 2] + name, False
    else:
        return None
    number, suffix, bound = _parts(word)
    return Named(f"set {spelled}", word, number, suffix, _bounded(unit, word, bound), joined)


def _set_to(unit: Unit, name: str, word: str, alone: bool) -> bool:
    """Whether a setting's ``name`` is set to the number ``word`` as written: the one
    right after the other (marks aside: `` `timeout` 1800``, `priority=5`, `"printWidth":
    120`; not `` `main` at 598``), the number counting nothing after it (`32 parallel
    subagents`) and, in a tally (not ``alone``), ending its clause (not `python-tests
    498.52 / 475.00`: a sum)."""
    said = unit.said.casefold()
    at = said.find(name)
    while at >= 0:
        end = at + len(name)
        gap = _GAP.match(said, end)
        if gap is not None and said.startswith(word, gap.end()):
            rest = said[gap.end() + len(word) :].lstrip(_MARKS)
            after = rest.split(maxsplit=1)[0] if rest.strip() else ""
            if after.isalpha() and after not in UNITLESS and after not in SMALL:
                return False
            return alone or not after or after[0] in _CLAUSE_ENDS or after[0] == "."
        at = said.find(name, end)
    return False


def _joined(said: str, name: str) -> bool:
    """Whether ``name`` is written in ``said`` as a setting's name: words joined by case
    or a mark (`printWidth`, `line-length`, `min_sdk`), code (`` `timeout` ``) or set
    (`priority=5`); not in capitals (a script's variable, `REAL_EXIT=1`) nor a letter
    (`n=6`, a sample's size)."""
    at = said.casefold().find(name)
    if at < 0 or len(name) < 3 or not (_JOINED.fullmatch(name) or name.isalpha()):
        return False
    written = said[at : at + len(name)]
    if written.isupper():
        return False
    around = said[at - 1 : at] + said[at + len(name) : at + len(name) + 1]
    return bool(
        _JOINED.fullmatch(name) or _CAMEL.search(written) or around == "``" or around[1:] == "="
    )


def _two_words(unit: Unit, i: int) -> bool:
    """Whether the two words before ``i`` are plain words that can name a setting
    together (`print width`, `min sdk`, `line length`: the first may be a word that
    cites alone), not values nor small words."""
    pair = unit.words[i - 2 : i]
    return not any(unit.values[i - 2 : i]) and all(
        w.isalpha() and w not in UNITLESS and not w.endswith("ed") for w in pair
    )


def _ends_clause(unit: Unit, i: int) -> bool:
    """Whether the number at ``i`` ends its unit or its clause (`print width 100, LF`):
    nothing after it that it counts."""
    return i + 1 == len(unit.words) or _clause_ends(unit, unit.words[i])


def _bounded(unit: Unit, word: str, bound: bool) -> bool:
    """Whether a number is a bound: said as one (`3.10+`, `3.10 or newer`), or a version
    the line calls a minimum before it (`Minimum macOS: 14.0`)."""
    if bound or "." not in word.strip("."):
        return bound
    at = unit.said.casefold().find(word)
    return at > 0 and _LEAST.search(unit.said, 0, at) is not None


def _parts(word: str) -> tuple[str, str, bool]:
    """A number's digits, its unit and whether it is a bound: `>=20` (20, '', bound),
    `3.11以上` (3.11, '', bound), `88文字` (88, 文字), `~50` (50, '')."""
    bound = word[0] in "^<>=" or word.endswith("+")
    for mark in _AT_LEAST:
        if mark in word:
            word, bound = word[: word.index(mark)], True
    match = _DIGITS.search(word)
    if match is None:
        return word, "", bound
    return match.group(0).rstrip("."), word[match.end() :].rstrip("+"), bound


def _annotated(unit: Unit, word: str) -> bool:
    """Whether a number is said in brackets (`Testing (88%)`, `Use Cases (4)`), a score
    or a count noted beside a title, or cites an issue (`PR #2222`): not a value of it."""
    at = unit.said.casefold().find(word)
    return at > 0 and unit.said[at - 1] in "(#"


def _clause_ends(unit: Unit, word: str) -> bool:
    """Whether a number ends its clause (`line-length 119; isort ...`): the word after
    it is no unit of it."""
    at = unit.said.casefold().find(word)
    return at >= 0 and unit.said[at + len(word) : at + len(word) + 1] in _CLAUSE_ENDS


def _said_of(unit: Unit, i: int, word: str, counted: bool) -> bool:
    """Whether a number is said of the name before it: a version (`3.10`, `^1.2`), or a
    number that counts nothing after it (`13 files` counts files, not documentation)
    after what the line is about (`black: 100`), a setting's name (`line-length 100`) or
    a proper name (`Java 17`, `PostgreSQL 18`; not `samples (~3s)`)."""
    if "." in word.strip(".") or word[0] in "^<>=":
        return True  # a version, or a bound of one (not `~3s`: about three seconds)
    name = unit.words[i - 1]
    if counted:  # `13 files`; but a key's number with its unit: `Functions: ~50 lines`
        return i == 1 and _keyed(unit, name)
    if not name.isalpha():
        return _SETTING_NAME.fullmatch(name) is not None
    if unit.code:  # `Processed = 0`, `first: 3` in a script: its variables, not settings
        return False
    return _proper(unit.said, name) or (i == 1 and _keyed(unit, name))


def _keyed(unit: Unit, name: str) -> bool:
    """Whether the line is set out as ``name: value`` (`**black**: 100`, `| Port | 8080
    |`, `Commits = 38`): the number is the value of that key."""
    said = unit.said.casefold()
    at = said.find(name)
    rest = said[at + len(name) : at + len(name) + 4].lstrip("*`'\" ")
    return at >= 0 and rest[:1] in (":", "|", "=", "：")


def _proper(said: str, name: str) -> bool:
    """Whether ``name`` is written with a capital inside the text (`PostgreSQL`, `SDK`),
    not only where a sentence starts, nor in a title whose words all have one
    (`Template Sync Verification 95`)."""
    if _titled(said):
        return False
    at = said.casefold().find(name)
    while at >= 0:
        written = said[at : at + len(name)]
        if written != written.lower() and (at > 0 and said[:at].strip(" *|`")):
            return True
        at = said.casefold().find(name, at + 1)
    return False


def _titled(said: str) -> bool:
    """Whether most longer words of a text start with a capital: a title, whose capitals
    say nothing of a name."""
    longer = [w for w in _SPACE.split(said) if len(w) > 3 and w.isalpha()]
    capital = sum(w[0].isupper() for w in longer)
    return len(longer) >= MIN_TITLED and capital >= TITLED * len(longer)


def _names(word: str) -> bool:
    """Whether a word before a number can be what the number is of (a tool, a setting,
    a flag): no digit, not a word that bounds or cites it, nor what was done (`Sessions
    Analyzed: 2`, `Processed = 0`: a result counted, not a setting)."""
    return (
        _DIGIT.search(word) is None
        and not (word.isalpha() and word.endswith("ed"))
        and word not in NAMELESS
        and word not in CITING
        and word not in SMALL
        and len(word.strip("-")) > 1
    )


def named_keys(found: list[Unit]) -> list[tuple[int, int, int]]:
    """One row per named value of each unit: (key of its name and unit, where its unit
    is, :func:`held_of` its word); but a value the memory also says more precisely
    (`Python 3`, then `Python 3.10+`): the precise one is what it says."""
    said: dict[int, list[tuple[int, Named]]] = {}
    for unit in found:
        for named in named_values(unit):
            said.setdefault(_hash(_SALT, named.name, named.unit), []).append((unit.where, named))
    rows = []
    for key, places in said.items():
        said_less = {p for _where, named in places for p in _less_precise(named.number)}
        for where, named in places:
            if named.number not in said_less:
                rows.append((key, where, _held(named)))
    return rows


def _less_precise(number: str) -> list[str]:
    """What ``number`` says more precisely (`22.12.0`: `22`, `22.12`): one set of these
    per name tells each value a memory also says more precisely, in time linear in
    its values (a name said thousands of times is read once each)."""
    parts = number.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def value_named(unit: Unit, held: int) -> Named | None:
    """The named value of ``unit`` whose row holds ``held``, if any."""
    return next((nv for nv in named_values(unit) if _held(nv) == held), None)


def _held(named: Named) -> int:
    """The value column of a named value, with its name: a URL's port by its number
    (`localhost:1420` and `http://localhost:1420` say one port), any other by its word.
    The name keeps apart two values of one word a line says of two names (`coverage gate
    90%` is the coverage bar and the threshold of a command: each row finds its own)."""
    said = named.number if named.unit == "port" else named.word
    return held_of(f"{named.name}\x1f{said}")


def contradict(a: Unit, b: Unit, va: Named, vb: Named) -> bool:
    """Whether two named values of one name say two values of it: of one unit, both
    bounds or neither, of one shape (:func:`_one_shape`), neither saying the other more
    precisely, and neither unit holding the other's value (a choice or a change)."""
    if va.name != vb.name or va.unit != vb.unit or va.bound != vb.bound:
        return False
    if va.name.startswith("set ") and not (va.joined or vb.joined):
        return False  # two names in words meet by their words (`of width`), not here
    na, nb = va.number, vb.number
    if na == nb or _more_precise(na, nb) or _more_precise(nb, na) or not _one_shape(na, nb):
        return False
    return not (_holds(b, va.word, na) or _holds(a, vb.word, nb))


def _one_shape(a: str, b: str) -> bool:
    """Whether two numbers can be one thing said twice: as many parts (`3.10` / `3.9`,
    not `10.5` / `15`: a version then and now), and whole numbers of about one size
    (`8084` / `8080`, `88` / `100`; not `16` / `5432`: a version and a port)."""
    if a.count(".") != b.count("."):
        return False
    if a.isdigit() and b.isdigit():
        return abs(len(a) - len(b)) <= 1
    return True


def _holds(unit: Unit, word: str, number: str) -> bool:
    return any(w == word or _parts(w)[0] == number for w in unit.words if _DIGIT.search(w))


def _more_precise(short: str, long: str) -> bool:
    """`22` / `22.12.0`: one says the other, more precisely."""
    return long.startswith(short + ".")


def _plain(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word
