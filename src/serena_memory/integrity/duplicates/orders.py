"""Steps said in two orders: "Type-check → Test: `deno task check` then `deno task test`"
/ "Run `deno task test` first, then `deno task check`", "Domain -> Application ->
Infrastructure -> UI" / "UI -> Application -> Domain -> Infrastructure". An order is a
fact of its own: two memories that put the same two steps the other way round disagree,
however the rest of the sentence was said.

An *ordered pair* is two steps a line joins by an order word: an arrow (`->`, `→`, `=>`:
the words on its two sides), `then` or `before` (the code on its two sides, within
:data:`NEAR` tokens), `after` (the same, the other way). Each is a row keyed by the two
steps in either order, its value column which comes first (:func:`held_of`). Two lines
conflict when they hold one pair in two orders and neither holds both (a cycle, a loop:
"build -> test -> build"). Not read: source code blocks.
"""

from __future__ import annotations

import re
import zlib

from serena_memory.integrity.duplicates.slots import SLOT_MARK, stated_lines

_ARROWS = frozenset(("->", "→", "=>", "⇒", "➜"))
_FORWARD = frozenset(("then", "before"))
_BACKWARD = frozenset(("after",))
NEAR = 5
"""Tokens on each side of `then`, `before` or `after` where a step in code is looked for."""
MAX_PAIRS = 12
"""Ordered pairs of one line read at most (a long chain is read in part)."""
ORDER_PIECE = 5
"""The piece bits of an order row's place: its line, read again whole to compare."""
_TOKEN = re.compile(r"`[^`\n]+`|[^\s`]+")
_STRIP = ".,;:!?()[]{}\"'*<>|#（）、，。："
_MAYBE = re.compile(r"->|→|=>|⇒|➜|\bthen\b|\bbefore\b|\bafter\b")
_ARROW = re.compile(r"[→⇒➜]|=>")
_LINES = (1 << 27) - 1
_SALT = "\x1eorder"


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def held_of(first: str, second: str) -> int:
    """The value column of an order row: which step comes first, salted apart."""
    return _hash(_SALT, first, second)


def _step(token: str, last: bool) -> str:
    """A token as a step: code as written (spaced once), a word casefolded and bare; of
    a word glued to Chinese or Japanese text (`順序（Domain`), its Latin part next to the
    arrow (the ``last`` one before it)."""
    if token.startswith("`"):
        return " ".join(token.strip("`").casefold().split())
    latin = _LATIN.findall(token)
    if latin and not _LATIN.fullmatch(token.strip(_STRIP)):
        return latin[-1 if last else 0].casefold()
    return token.strip(_STRIP).casefold()


def pairs(line: str) -> list[tuple[str, str]]:
    """The ordered pairs of a line: (what comes first, what comes after)."""
    tokens = _TOKEN.findall(line)
    found: list[tuple[str, str]] = []
    for at, token in enumerate(tokens):
        word = token.strip(_STRIP).casefold() if not token.startswith("`") else ""
        if token in _ARROWS:
            first = _step(tokens[at - 1], last=True) if at else ""
            second = _step(tokens[at + 1], last=False) if at + 1 < len(tokens) else ""
        elif word in _FORWARD or word in _BACKWARD:
            first, second = _code_near(tokens, at, -1), _code_near(tokens, at, 1)
            if word in _BACKWARD:
                first, second = second, first
        else:
            continue
        if first and second and first != second and _WORDY.search(first + second):
            found.append((first, second))
    return found[:MAX_PAIRS]


_WORDY = re.compile(r"[^\W\d_]")
_LATIN = re.compile(r"[A-Za-z][\w.-]*")
_PLAIN = re.compile(r"[a-z]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
_ORDER_WORDS = frozenset(("then", "before", "after", "first"))


def _code_near(tokens: list[str], at: int, step: int) -> str:
    """The nearest code within :data:`NEAR` tokens of ``at`` on one side, or ''."""
    for i in range(at + step, at + step * (NEAR + 1), step):
        if not 0 <= i < len(tokens):
            break
        if tokens[i].startswith("`"):
            return _step(tokens[i], last=True)
    return ""


def order_keys(text: str) -> list[tuple[int, int, int]]:
    """One row per ordered pair of each line (but in source blocks). Only the lines a
    search finds an order word in are read token by token."""
    if _MAYBE.search(text) is None:
        return []
    rows = []
    for number, said, fenced in stated_lines(text):
        if not (said.count("`") >= 4 or "->" in said or _ARROW.search(said)):
            continue  # `then`, `before` and `after` order steps in code only
        if _MAYBE.search(said) is None:
            continue
        where = SLOT_MARK | fenced << 30 | (number & _LINES) << 3 | ORDER_PIECE
        for first, second in set(pairs(said)):
            key = _hash(_SALT, *sorted((first, second)))
            rows.append((key, where, held_of(first, second)))
    return sorted(rows)


def contradict(line_a: str, line_b: str) -> tuple[str, str] | None:
    """The pair two lines put in two orders, neither holding both, and (for steps that
    are plain words: `domain`, `ui`) a word of context in common besides the steps, so
    that a chain of layers' dependencies is not read against their migration order:
    (as the first says it, as the second says it)."""
    pa, pb = pairs(line_a), pairs(line_b)
    for first, second in sorted(set(pa)):
        if (second, first) in pb and (second, first) not in pa and (first, second) not in pb:
            steps = {s for pair in (*pa, *pb) for s in pair}
            coded = any(f"`{s}" in line_a.casefold() for s in (first, second))
            if coded or (_context(line_a) & _context(line_b)) - steps:
                return f"{first} before {second}", f"{second} before {first}"
    return None


def _context(line: str) -> set[str]:
    """A line's words of three letters or more, and each two characters of its Chinese
    or Japanese text (which has no spaces)."""
    folded = line.casefold()
    words = {w for w in _PLAIN.findall(folded) if len(w) > 2 and w not in _ORDER_WORDS}
    for run in _CJK.findall(folded):
        words.update(run[i : i + 2] for i in range(len(run) - 1))
    return words
