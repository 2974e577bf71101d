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

from serena_memory.core import paths
from serena_memory.core.errors import MemoryTooLargeError

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


def rewrite_references(
    text: str, old: str, new: str, memory: str = "the memory"
) -> tuple[str, int]:
    """Point every reference whose whole target is ``old`` at ``new``; returns (text, count).

    Only a reference's whole target counts: renaming ``auth notes`` leaves
    ``mem:auth notes`` alone, since that reference names ``auth``. A rewrite that would
    make ``memory`` larger than a memory may be is refused (MemoryTooLargeError) before
    the new text is built.
    """
    if f"mem:{old}" not in text:  # cheap pre-filter: most memories don't mention it
        return text, 0
    _refuse_oversized(text, old, new, memory)
    replacement = "mem:" + new
    count = 0

    def swap(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(1) != old:
            return match.group(0)
        count += 1
        return replacement

    return REFERENCE_PATTERN.sub(swap, text), count


def _refuse_oversized(text: str, old: str, new: str, memory: str) -> None:
    """MemoryTooLargeError when pointing the references to ``old`` at the longer ``new``
    would make ``text`` larger than a memory may be: bounded first by every `mem:OLD`,
    then counted exactly (a longer target is another memory's)."""
    growth = paths.utf8_size(new) - paths.utf8_size(old)
    if growth <= 0:
        return
    size = paths.utf8_size(text)
    if size + text.count(f"mem:{old}") * growth <= paths.MAX_MEMORY_BYTES:
        return
    count = count_references(text, old)
    if size + count * growth > paths.MAX_MEMORY_BYTES:
        raise MemoryTooLargeError(
            f"pointing {count:,} reference(s) to '{old}' at '{new}' would make {memory} "
            f"{size + count * growth:,} bytes, more than the limit of "
            f"{paths.MAX_MEMORY_BYTES:,} bytes a memory may have, so nothing was changed; "
            f"choose a shorter name, or split {memory}"
        )
