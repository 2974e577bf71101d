"""Pure helpers for `mem:NAME` references: finding and rewriting them in text.

A name is a run of ``[A-Za-z0-9_\\-/]``; a reference matches only a whole run, so
``mem:auth`` is not found inside ``mem:auth/login`` or ``mem:authx``, and ``mem:`` glued
to a preceding name character (``xmem:core``) is not a reference either. The target is
the whole run, trailing slash included (``mem:auth/`` names ``auth/``, which no memory
can have): serena-agent 2.1.0 reads references this way, and `check` must agree with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

NAME_CHAR_CLASS = r"[A-Za-z0-9_\-/]"
REFERENCE_PATTERN = re.compile(r"(?<!" + NAME_CHAR_CLASS + r")mem:(" + NAME_CHAR_CLASS + r"+)")


@dataclass(frozen=True)
class Reference:
    target: str
    start: int  # offset of "mem:" in the text
    end: int
    line: int  # 1-based


def find_references(text: str) -> Iterator[Reference]:
    line = 1
    last = 0
    for match in REFERENCE_PATTERN.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        yield Reference(match.group(1), match.start(), match.end(), line)


def referenced_names(text: str) -> set[str]:
    return {ref.target for ref in find_references(text)}


def can_be_referenced(name: str) -> bool:
    """Whether ``mem:NAME`` reads back as a reference to exactly ``name``: a name with any
    other character (``auth notes``, ``v1.2``) is cut short there, so no reference can
    name it."""
    return NAME_ONLY.fullmatch(name) is not None


NAME_ONLY = re.compile(NAME_CHAR_CLASS + r"+")


def count_references(text: str, name: str) -> int:
    """How many references name ``name`` whole (a longer target is another memory)."""
    if f"mem:{name}" not in text:
        return 0
    return sum(1 for ref in find_references(text) if ref.target == name)


def rewrite_references(text: str, old: str, new: str) -> tuple[str, int]:
    """Point every reference whose whole target is ``old`` at ``new``; returns (text, count).

    Only a reference's whole target counts: renaming ``auth notes`` leaves
    ``mem:auth notes`` alone, since that reference names ``auth``.
    """
    if f"mem:{old}" not in text:  # cheap pre-filter: most memories don't mention it
        return text, 0
    replacement = "mem:" + new
    count = 0

    def swap(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(1) != old:
            return match.group(0)
        count += 1
        return replacement

    return REFERENCE_PATTERN.sub(swap, text), count
