"""A rule turned around in other words: "Agents must NOT run `hms`" / "it's fine for the
agent to run `hms` itself", "Never use `drizzle-kit push`" / "it is fine to run `npx
drizzle-kit push`", "Do not use `seed_dev` as a test fixture" / "Use `seed_dev` as the
base fixture". One memory forbids an action on a thing, another tells to do it (or allows it); the
sentences share little else, so no statement or slot rule aligns them.

A *policy row* is one per action a clause names: a verb of what is done to a project
(:data:`VERBS`, `run`, `use`, `edit`, `migrate`, `mock`...: a general list, not of any
memory's words) and each thing after it in its clause, keyed by the verb and that thing,
its value column whether the clause forbids it (:func:`held_of`). A clause forbids when
a negation comes just before the verb, at its start or after a modal (`never run`, `do
not use`, `agents must not run`), or when a clause of a negation alone comes before
(`**Don't:** run`); it tells or allows when the verb, as a rule says it (`run`, not
`runs` or `running`), opens it (an imperative), follows a modal (`may`, `should`,
`always`), or follows `to` in a clause that allows it (`it is fine to run`). Anything
else is a description ("the hook runs it", "it doesn't use sudo"), not a rule. Two lines
conflict when one forbids and the other tells one verb on one specific thing: code (a
span, without the runner before it: `npx drizzle-kit push` is `drizzle-kit push`), a
path, a file or a name with an underscore; plain words (and a label like `P1`) are too
common to tell one thing (`delete the results`). Not read: a clause that narrows (`if`, `when`,
`unless`, `only`, `instead`, `without`...: "run it only when asked" is a condition, not
the rule turned around), source code blocks. The check's key groups leave out an action
a memory both forbids and tells (a nuance: "never in CI; locally, run it") and one many
memories hold (a field).
"""

from __future__ import annotations

import re
import zlib

from serena_memory.integrity.duplicates.slots import SLOT_MARK, SMALL, stated_lines
from serena_memory.integrity.duplicates.text import fold


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CLASSES = {
    "use": "use run call execute invoke",
    "edit": "edit modify change touch",
    "commit": "commit",
    "push": "push",
    "merge": "merge",
    "rebase": "rebase",
    "migrate": "migrate",
    "mock": "mock stub",
    "install": "install",
    "add": "add",
    "delete": "delete remove drop",
    "import": "import",
    "start": "start launch",
    "deploy": "deploy",
    "hardcode": "hardcode",
    "throw": "throw raise",
    "catch": "catch swallow",
    "bypass": "bypass skip disable",
    "upgrade": "upgrade bump update",
    "expose": "expose",
}
"""Verbs of what is done to a project, by what they do (`run` and `use` one thing)."""


def _forms(verb: str) -> set[str]:
    """A verb's usual forms: `run`, `runs`, `running`, `edited`, `editing`."""
    stem = verb[:-1] if verb.endswith("e") else verb
    double = verb + verb[-1] if re.fullmatch(r"[a-z]*[^aeiou][aeiou][bdgmnpt]", verb) else verb
    return {verb, verb + "s", verb + "es", stem + "ing", stem + "ed", double + "ing", double + "ed"}


VERBS = {f: name for name, verbs in _CLASSES.items() for v in verbs.split() for f in _forms(v)}
BASES = frozenset(v for verbs in _CLASSES.values() for v in verbs.split())
"""The verbs as a rule says them (`run`, not `running`)."""
NEGATING = _words("not never no avoid forbidden prohibited nunca")
"""Words just before a verb that forbid the action (`don't` reads as `do not`)."""
MODAL = _words("may can should must always please will shall")
RUNNERS = _words("npx bunx pnpx uvx sudo")
"""Words before a command in code that run it (`npx drizzle-kit push` is the command)."""
"""Words before a verb that tell or allow the action."""
ALLOWING = _words("fine ok okay allowed safe free encouraged expected preferred")
"""Words of a clause that allow the action after `to`."""
NARROWING = _words(
    "instead rather unless only except but although whether how if when without until either"
)
"""Words that make a clause a choice, a condition or a question: not read."""
COMMON = _words(
    """this that these those them it its any all every each some other others code file
    files test tests change changes thing things something anything everything here there
    directly itself themselves yourself freely always first again before after later
    locally local manually automatically instead when then just also only still ever
    project repo repository work task tasks step steps time fine okay allowed"""
)
"""Words after a verb that name no specific thing."""
NEAR = 6
"""Tokens after a verb read for what it is done to."""
BEFORE = 3
"""Tokens before a verb in which a negation forbids it."""
MIN_PLAIN = 4
"""Letters of a plain word that names a thing."""
POLICY_PIECE = 6
"""The piece bits of a policy row's place: its line, read again whole to compare."""
_SENTENCE = re.compile(r"[.;!?]\s")
_CLAUSE = re.compile(r"[:—–]\s|\s[—–-]{1,2}\s|\(|\)|\*\*:?\s")
_TOKEN = re.compile(r"`[^`]+`|[^\s`]+")
_SPECIFIC = re.compile(r"\w[./_@]\w")
_STRIP = ".,;:!?()[]{}\"'*<>"
_MARKS = "-+#>|*"
_LINES = (1 << 27) - 1
_SALT = "\x1epolicy"
_NAMED = re.compile(r"\w[./_@]\w")
"""Anything specific a line may hold (found before its words are read)."""
_WORD = re.compile(r"[a-z]+")


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def held_of(forbidden: bool) -> int:
    """The value column of a policy row: forbidden or not, salted apart from others."""
    return _hash(_SALT, "not" if forbidden else "")


def _things(tokens: list[str], start: int) -> list[tuple[str, bool]]:
    """What the verb before ``start`` is done to: code (a span, without the runner before
    it: `npx drizzle-kit push` is `drizzle-kit push`), a path's file or a named thing
    (specific), or a plain word of :data:`MIN_PLAIN` letters (not specific)."""
    found: list[tuple[str, bool]] = []
    for token in tokens[start : start + NEAR]:
        if token.startswith("`"):
            code = _code(token)
            if len(code) > 1:
                found.append((code, True))
            continue
        word = token.strip(_STRIP)
        specific = bool(_SPECIFIC.search(word))
        word = word.rstrip("/").rsplit("/", 1)[-1].casefold() if specific else word.casefold()
        if word in NEGATING or word in VERBS:
            break  # another action
        named = specific and len(word) > 1 or word.isalpha() and len(word) >= MIN_PLAIN
        if named and word not in COMMON and word not in SMALL:
            found.append((word, specific))
    return found


def _code(token: str) -> str:
    """Code as a thing: without the runner before it, a lone path as its file."""
    words = token.strip("`").casefold().split()
    while words and words[0] in RUNNERS:
        words.pop(0)
    if len(words) == 1:
        words = [words[0].rstrip("/").rsplit("/", 1)[-1]]
    return " ".join(words)


def _said(bare: list[str], at: int) -> bool | None:  # noqa: PLR0911
    """Whether the verb at ``at`` is forbidden (True), told or allowed (False), or
    merely described (None: "the hook runs it", "it does not use sudo")."""
    word = bare[at]
    before = [w for w in bare[max(0, at - BEFORE) : at] if w.strip(_MARKS)]
    negation = next((i for i in range(len(before) - 1, -1, -1) if before[i] in NEGATING), None)
    if negation is not None:  # `never run`, `do not run`, `agents must not run`
        lead = before[:negation]
        return True if not lead or lead[-1] in MODAL or lead[-1] == "do" else None
    if word not in BASES:
        return None  # `running`, `used`, `runs`: a subject or a description
    if not before or before[-1].isdigit():  # an imperative; a list's number is no word
        return False
    if MODAL & set(before):
        return False
    return False if before[-1] == "to" and ALLOWING & set(bare) else None


def actions(line: str) -> list[tuple[str, str, bool, bool]]:
    """The actions a line names: (verb, thing, specific, forbidden) for each verb of
    :data:`VERBS` and thing after it in its clause; none in a clause that narrows
    (:data:`NARROWING`: "if it is slow, run it" is a condition). A clause of a negation
    alone (`**Don't:**`) forbids the next one."""
    found = []
    for sentence in _SENTENCE.split(fold(line)):
        carried = False
        for clause in _CLAUSE.split(sentence):
            tokens = _TOKEN.findall(clause)
            bare = [t.strip(_STRIP).strip(_MARKS) for t in tokens]
            words = [w for w in bare if w]
            if words and set(words) <= NEGATING | {"do"}:
                carried = True
                continue
            if not NARROWING & set(words):
                found += _clause_actions(tokens, bare, carried)
            carried = False
    return found


def _clause_actions(
    tokens: list[str], bare: list[str], carried: bool
) -> list[tuple[str, str, bool, bool]]:
    """The actions of one clause (``carried``: a clause before forbade them)."""
    found = []
    for at, word in enumerate(bare):
        verb = VERBS.get(word)
        if verb is None or tokens[at].startswith("`"):
            continue
        forbidden = _said(bare, at)
        if forbidden is None:
            continue  # a description, not a rule
        found += [(verb, t, s, forbidden or carried) for t, s in _things(tokens, at + 1)]
    return found


def policy_keys(text: str) -> list[tuple[int, int, int]]:
    """One row per action on a specific thing of each line (but in source blocks). Only
    the lines that hold something specific (code, a path, a file or a name with an
    underscore) and a verb's form are read clause by clause: most lines hold neither."""
    rows = []
    for number, said, fenced in stated_lines(text):
        if not ("`" in said or _NAMED.search(said)):
            continue
        if VERBS.keys().isdisjoint(_WORD.findall(said.casefold())):
            continue
        where = SLOT_MARK | fenced << 30 | (number & _LINES) << 3 | POLICY_PIECE
        keys = {(_hash(_SALT, v, t), held_of(f)) for v, t, s, f in actions(said) if s}
        rows += [(key, where, held) for key, held in sorted(keys)]
    return rows


def contradict(line_a: str, line_b: str, held_a: int, held_b: int) -> tuple[str, str] | None:
    """The action one line forbids and the other tells, when they share its verb and a
    specific thing: (what the first says, what the second says)."""
    if held_a == held_b:
        return None
    a, b = actions(line_a), actions(line_b)
    for verb in sorted({v for v, *_ in a} & {v for v, *_ in b}):
        thing = _shared_thing(a, b, verb)
        if thing is not None:
            forbidden = next(f for v, t, _s, f in a if (v, t) == (verb, thing))
            said = f"{verb} {thing}"
            return ("not " + said, said) if forbidden else (said, "not " + said)
    return None


def _shared_thing(a: list[tuple[str, str, bool, bool]], b: list, verb: str) -> str | None:
    """The first specific thing both lines do ``verb`` to, one forbidding, or None."""
    things_a = {t for v, t, s, _f in a if v == verb and s}
    things_b = {t for v, t, s, _f in b if v == verb and s}
    return next((t for t in sorted(things_a & things_b) if _opposed(a, b, verb, t)), None)


def _opposed(a: list[tuple[str, str, bool, bool]], b: list, verb: str, thing: str) -> bool:
    """Whether one line only forbids ``verb`` on ``thing`` and the other only tells it
    (a line that does both says a nuance: "never in CI; locally, run it")."""
    said_a = {f for v, t, _s, f in a if (v, t) == (verb, thing)}
    said_b = {f for v, t, _s, f in b if (v, t) == (verb, thing)}
    return len(said_a) == 1 == len(said_b) and said_a != said_b
