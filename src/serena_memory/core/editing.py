"""Pure edit logic: replace a needle in a memory's text, literally or by regex.

Kept free of I/O so the rules (no match, several matches, ambiguous multi-line matches,
``$!N`` group insertion) can be property-tested on strings alone.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from serena_memory.core import paths
from serena_memory.core.display import counted
from serena_memory.core.errors import EditError, MemoryTooLargeError, PatternError, Remedy

if TYPE_CHECKING:
    from serena_memory.core.patterns import OutsidePattern

_GROUP_REF = re.compile(r"\$!(\d+)")


class EditMode(StrEnum):
    LITERAL = "literal"
    REGEX = "regex"


def parse_mode(mode: str | EditMode) -> EditMode:
    try:
        return EditMode(str(mode).lower())
    except ValueError:
        raise EditError(f"unknown edit mode {mode!r}; use 'literal' or 'regex'") from None


def apply_edit(
    text: str,
    needle: str,
    repl: str,
    mode: str | EditMode = EditMode.LITERAL,
    allow_multiple_occurrences: bool = False,
) -> tuple[str, int]:
    """Return (new_text, number_of_replacements) or raise EditError saying why not.

    An edit never makes a text larger than a memory may be (MemoryTooLargeError): a
    literal edit's size is known before the text is built (``count`` times the growth),
    a regex edit's is counted as its pieces are expanded, so neither builds more than
    that bound however many matches it replaces.
    """
    mode = parse_mode(mode)
    if needle == "":
        raise EditError("the needle is empty; give the text to replace")
    if mode is EditMode.LITERAL:
        count = text.count(needle)
        _check_count(count, needle, allow_multiple_occurrences)
        growth = paths.utf8_size(repl) - paths.utf8_size(needle)
        if growth > 0:
            _refuse_oversized(paths.utf8_size(text) + count * growth, count)
        return text.replace(needle, repl), count

    from serena_memory.core.patterns import OutsidePattern

    try:
        pattern = OutsidePattern(needle, "the regex needle", multiline=True)
    except PatternError as exc:
        raise EditError(str(exc)) from None
    expansions: list[str] = []
    size = paths.utf8_size(text)

    def too_large(match: Any) -> bool:
        """Whether the text has outgrown a memory with this match replaced: the scan
        stops there, so neither the matches nor the text past the bound are built."""
        nonlocal size
        expansions.append(_expand(repl, match))
        size += paths.utf8_size(expansions[-1]) - paths.utf8_size(match.group(0))
        return size > paths.MAX_MEMORY_BYTES

    matches = pattern.finditer(text, stop=too_large)
    _refuse_oversized(size, len(matches), "at least ")
    _check_count(len(matches), needle, allow_multiple_occurrences)
    for match in matches:
        _refuse_ambiguous(pattern, text, match)
    pieces: list[str] = []
    last = 0
    for match, expanded in zip(matches, expansions, strict=True):
        pieces.append(text[last : match.start()])
        pieces.append(expanded)
        last = match.end()
    pieces.append(text[last:])
    return "".join(pieces), len(matches)


def _refuse_oversized(size: int, count: int, bound: str = "") -> None:
    """MemoryTooLargeError when an edit of ``count`` replacements would make the memory
    ``size`` bytes, more than a memory may have."""
    if size > paths.MAX_MEMORY_BYTES:
        replacements = "1 replacement" if count == 1 else f"{count:,} replacements"
        raise MemoryTooLargeError(
            f"the edit ({bound}{replacements}) would make the memory {bound}{size:,} bytes, more "
            f"than the limit of {paths.MAX_MEMORY_BYTES:,} bytes a memory may have, so it was "
            "not changed; replace fewer occurrences or with shorter text"
        )


def _check_count(count: int, needle: str, allow_multiple: bool) -> None:
    if count == 0:
        raise EditError(f"no match for {_preview(needle)}; the memory was not changed")
    if count > 1 and not allow_multiple:
        raise EditError(
            f"{_preview(needle)} matches {count} times; make the needle more specific, "
            "or replace every one with ",
            remedy=Remedy("", option="allow_multiple_occurrences"),
        )


def _refuse_ambiguous(pattern: OutsidePattern, text: str, match: Any) -> None:
    """A multi-line match that contains another match of the same pattern is ambiguous.

    With DOTALL a greedy ``a.*b`` swallows everything between the first ``a`` and the last
    ``b``; replacing that silently would delete the text between two intended targets.
    """
    if "\n" not in match.group(0):
        return
    inner = pattern.search(text, match.start() + 1, match.end())
    if inner is not None and inner.end() > inner.start():
        raise EditError(
            f"{_preview(pattern.text)} matched lines {_line(text, match.start())}-"
            f"{_line(text, match.end())} and that match contains another match of the same "
            "pattern (at line " + str(_line(text, inner.start())) + "); the edit is ambiguous. "
            "Use a non-greedy quantifier such as .*? or a more specific pattern"
        )


def _expand(repl: str, match: Any) -> str:
    def group(ref: re.Match[str]) -> str:
        index = int(ref.group(1))
        if index > (match.re.groups or 0):
            raise EditError(
                f"the replacement uses $!{index}, but the pattern has only "
                f"{counted(match.re.groups, 'group')}"
            )
        return match.group(index) or ""

    return _GROUP_REF.sub(group, repl)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _preview(needle: str, limit: int = 60) -> str:
    shown = needle if len(needle) <= limit else needle[: limit - 3] + "..."
    return repr(shown)
