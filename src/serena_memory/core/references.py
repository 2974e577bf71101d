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


def _whole_reference(name: str) -> re.Pattern[str]:
    return re.compile(
        r"(?<!" + NAME_CHAR_CLASS + r")mem:" + re.escape(name) + r"(?!" + NAME_CHAR_CLASS + r")"
    )


def count_references(text: str, name: str) -> int:
    if f"mem:{name}" not in text:
        return 0
    return len(_whole_reference(name).findall(text))


def rewrite_references(text: str, old: str, new: str) -> tuple[str, int]:
    """Replace every whole-name ``mem:old`` with ``mem:new``; returns (text, count)."""
    if f"mem:{old}" not in text:  # cheap pre-filter: most memories don't mention it
        return text, 0
    replacement = "mem:" + new
    return _whole_reference(old).subn(lambda _m: replacement, text)
