"""One command said twice with one option set two ways: `mvn clean package -P prod` /
`mvn clean package -P production`, `npm run deploy -- --require-approval never` /
`... --require-approval broadening`, `uvicorn app --port 8004` / `--port 8000`, in a code
span or a line of a shell block, whatever the prose around it. An option's argument is
often a plain word (`prod`, `never`) that :mod:`.slots` does not take for a value, and
a code span is one word of a unit there; here a command is read token by token.

A *command* is code of three tokens or more (a shell comment left out): a line of a
fenced block, or code in backticks. Each of its option arguments (the token after a
flag) is a row like a slot's (:mod:`.slots`): keyed by the command with that token left
out, its value column the token's hash salted apart (:func:`held_of`). Two commands
meet when all their other tokens are the same; the check's key groups leave out a
command a memory gives two ways (a list of variants) and one three memories give three
ways; :func:`contradict` tells the rest.
"""

from __future__ import annotations

import re
import zlib

from serena_memory.integrity.duplicates.slots import Unit, kind

MIN_TOKENS = 3
"""Tokens of a command: `npm test` is a name more than a command with options."""
MAX_TOKENS = 16
"""Tokens of a command read at most: a longer line is a script, not one command."""
_CODE = re.compile(r"`([^`\n]+)`")
_COMMENT = re.compile(r"\s#.*$")
_PLACEHOLDER = re.compile(r"[$<>{}\[\]*]|\.\.\.")
_PARTS = re.compile(r"[/.]+")
_WORD = re.compile(r"[^\W_]")
_SALT = "\x1ecommand"


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def held_of(token: str) -> int:
    """The value column of a command's row: the token's hash, salted apart from a
    slot's and a named value's."""
    return _hash(_SALT, token)


def comment_of(unit: Unit) -> str:
    """What a shell line's comment says (`# Quick validation`), '' without one."""
    found = _COMMENT.search(unit.said) if unit.code else None
    return "" if found is None else " ".join(found.group(0).split()).casefold()


def commands_of(unit: Unit) -> list[list[str]]:
    """The commands of a unit, each as its tokens (casefolded): the unit's line when it
    is a line of a fenced block, else each code span of it."""
    said = unit.said.strip()
    codes = [_COMMENT.sub("", said)] if unit.code else _CODE.findall(said)
    found = []
    for code in codes:
        tokens = code.casefold().split()
        if MIN_TOKENS <= len(tokens) <= MAX_TOKENS and tokens[0][:1].isalpha():
            found.append(tokens)
    return found


def _options(tokens: list[str]) -> list[int]:
    """Where a command's option arguments are: each token after a flag (`prod` of `-P
    prod`) but a flag itself (`-i` / `-file` are two options, not one set two ways), a
    quoted text (`grep -r "pattern"`: what is searched, an example), a placeholder
    (`<file>`, `$PR`) and marks alone (`\\`)."""
    found = []
    for j in range(1, len(tokens)):
        token = tokens[j]
        if not tokens[j - 1].startswith("-") or token.startswith(("-", '"', "'")):
            continue
        if _WORD.search(token) is not None and _PLACEHOLDER.search(token) is None:
            found.append(j)
    return found


def command_keys(found: list[Unit]) -> list[tuple[int, int, int]]:
    """One row per option of each command of each unit: (key of the command without it,
    where its unit is, :func:`held_of` the option)."""
    rows = []
    for unit in found:
        for tokens in commands_of(unit):
            for j in _options(tokens):
                key = _hash(_SALT, *tokens[:j], "\x00", *tokens[j + 1 :])
                rows.append((key, unit.where, held_of(tokens[j])))
    return rows


def option_held(unit: Unit, held: int) -> tuple[list[str], int] | None:
    """The command of ``unit`` and the place of its option whose row holds ``held``."""
    for tokens in commands_of(unit):
        for j in _options(tokens):
            if held_of(tokens[j]) == held:
                return tokens, j
    return None


def contradict(ua: Unit, ub: Unit, a: tuple[list[str], int], b: tuple[list[str], int]) -> bool:
    """Whether two commands are one with one option set two ways: the same tokens but
    that one, neither saying the other more precisely (`--check` / `--check-only`),
    neither command holding the other's option, and no two comments telling two uses
    (`--level 1 # Quick validation` / `--level 4 # Pattern conformance`)."""
    (ta, ja), (tb, jb) = a, b
    ca, cb = comment_of(ua), comment_of(ub)
    if ca and cb and ca != cb:
        return False
    if len(ta) != len(tb) or ja != jb:
        return False
    va, vb = ta[ja], tb[jb]
    if va == vb or va in tb or vb in ta or _more_precise(va, vb) or _more_precise(vb, va):
        return False
    if kind(va) != kind(vb) or _two_places(va, vb) or _one_lists_more(va, vb):
        return False
    return ta[:ja] == tb[:jb] and ta[ja + 1 :] == tb[jb + 1 :]


def _more_precise(short: str, long: str) -> bool:
    """`--check` / `--check-only`, `1.8` / `1.8.2`: one says the other more precisely
    (`prod` / `production` are two words)."""
    return long.startswith(short) and not long[len(short) : len(short) + 1].isalnum()


def _two_places(va: str, vb: str) -> bool:
    """Two paths alike neither at their start nor at their end (`-p .git/scratch` / `-p
    /home/x/worktrees`): two places, each said for its case."""
    parts_a = [p for p in _PARTS.split(va) if p]
    parts_b = [p for p in _PARTS.split(vb) if p]
    if len(parts_a) < 2 and len(parts_b) < 2:
        return False
    return not parts_a or not parts_b or (parts_a[0] != parts_b[0] and parts_a[-1] != parts_b[-1])


def _one_lists_more(va: str, vb: str) -> bool:
    """A list that holds the other (`--json createdat` / `--json databaseid,createdat`):
    more fields asked, not another setting."""
    items_a, items_b = set(va.split(",")), set(vb.split(","))
    return (len(items_a) > 1 or len(items_b) > 1) and (items_a <= items_b or items_b <= items_a)


def said(tokens: list[str], j: int) -> str:
    """The option of a command as the finding shows it (with its flag)."""
    if tokens[j].startswith("-") or j == 0:
        return tokens[j]
    return f"{tokens[j - 1]} {tokens[j]}"
