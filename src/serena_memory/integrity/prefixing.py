"""Bare mentions made references: the text rewrites of `serena memories auto-prefix`
(``mem:`` added before exact bare mentions, paths to memory files written as references)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from serena_memory.integrity.analysis import PREFIX, BareMentionFinder


def prefix_bare_mentions(text: str, names: Iterable[str]) -> tuple[str, dict[str, int]]:
    """Add ``mem:`` before every exact bare mention of ``names``; returns the new text and
    the count per name.

    A spot where two names start is prefixed once, so a prefix is never doubled. The
    result has no bare mention of ``names`` left, so a second call changes nothing (names
    that can overlap themselves, such as ``x x`` in ``x x x``, take more than one round).
    """
    finder = BareMentionFinder(names)
    counts: Counter[str] = Counter()
    for _round in range(len(text) + 1):
        found = finder.find(text)
        if not found:
            break
        owner: dict[int, str] = {}
        for name in sorted(found):
            for offset in found[name]:
                owner.setdefault(offset, name)
        pieces, last = [], 0
        for start in sorted(owner):
            pieces.append(text[last:start])
            pieces.append(PREFIX)
            last = start
        pieces.append(text[last:])
        text = "".join(pieces)
        counts.update(owner.values())
    return text, dict(sorted(counts.items()))


# `.serena/memories/NAME.md`, not inside a longer path (`~/.serena/...`, `x.serena/...`)
_MEMORY_FILE = re.compile(r"(?<![A-Za-z0-9_\-/.~])\.serena/memories/([A-Za-z0-9_\-/]+)\.md\b")


def rewrite_memory_paths(text: str, names: Iterable[str]) -> tuple[str, dict[str, int]]:
    """Write each path to the file of one of ``names`` (`.serena/memories/x.md`) as the
    reference `mem:x`; returns the new text and the count per name. A path that is the
    target of a Markdown link (`[x](.serena/memories/x.md)`) is left alone: the link would
    break. A second call changes nothing."""
    wanted = frozenset(names)
    counts: Counter[str] = Counter()

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        start = match.start()
        if name not in wanted or text[max(0, start - 2) : start] == "](":
            return match.group(0)
        counts[name] += 1
        return PREFIX + name

    return _MEMORY_FILE.sub(replace, text), dict(sorted(counts.items()))
