"""When one memory restates another in other words: the rules on the share of words'
weight one holds of the other (rare words weigh more) and on the values both keep (code
in backticks, lines of shell blocks), apart from how the shares are counted
(:func:`.detect._restated`, and the write's sieve, :func:`.index.restated`).

A copy rewritten keeps most of the smaller memory's words; a rewrite that paraphrases
the prose keeps its values (commands, paths, names) and fewer words; and a note that
rewrites a part of a longer memory (its checklist, its commands, its rules) keeps the
smaller's words and values, and little of the larger's. A note merely on the topic of
another keeps neither: its own values, and a third of its words or less.
"""

from __future__ import annotations

import re
from collections.abc import Callable

RESTATED_SHARE = 0.57
"""Share of the weight of the smaller memory's words the other holds, for a restatement."""
RESTATED_OF_LARGER = 0.25
"""And of the larger one's: else the smaller is one note on the larger one's topic."""
REWRITTEN_SHARE = 0.3
"""Share of the smaller memory's word weight enough for a restatement when the two also
keep the same values (:func:`same_values`)."""
MIN_KEPT_VALUES = 4
"""Values two memories must share to be called a rewrite by them."""
KEPT_OF_SMALLER = 0.8
"""Share of the values of the memory with fewer that the other must hold, for a rewrite."""
KEPT_OF_LARGER = 0.7
"""And of the one with more: else one holds a few commands of a longer list."""
PART_SHARE = 0.4
"""Share of the smaller memory's word weight for a rewrite of a part of the larger when
all its values are in it (:data:`PART_KEPT`), however little of the larger it holds."""
PART_KEPT = 0.9
"""Share of the smaller memory's values (:data:`MIN_KEPT_VALUES` or more) the larger
must hold for the smaller to rewrite a part of it."""
WORDED_PART_SHARE = 0.64
"""Share of the smaller memory's word weight for a rewrite of a part of the larger
without values to tell it (:data:`WORDED_PART_OF_LARGER` of the larger's too). A note
on the topic of a long memory (its module, its dev server, its test scope) shares its
names and keeps 60% of its own weight there; a part rewritten keeps two thirds."""
WORDED_PART_OF_LARGER = 0.08
"""Share of the larger's weight a worded part must hold: more than a line of it."""
PART_OF_SIZE = 2
"""How many times the smaller's word weight the larger's is, for a worded part: two
memories of one size that share most of one's words but a quarter of the other's are
two records of one template (`**Statement**`, `**Evidence**`), not one rewritten."""
ALL_KEPT_SHARE = 0.2
"""Share of the smaller's word weight enough when the two keep all of each other's
values (:data:`ALL_KEPT` of each, :data:`MIN_ALL_KEPT` or more): one checklist of the
same commands written twice, its prose all new."""
ALL_KEPT = 0.9
MIN_ALL_KEPT = 6
ALL_KEPT_OF_LARGER = 0.15
"""And of the larger's weight: two checklists of about one size."""
SIEVE_SHARE = min(ALL_KEPT_SHARE, REWRITTEN_SHARE, PART_SHARE)
"""The least share of the smaller's weight any rule asks: a pair below it is none."""

_CODE = re.compile(r"`([^`\n]+)`")
_FENCE = ("```", "~~~")

Values = frozenset[str]


def restated(
    of_smaller: float, of_larger: float, values: Callable[[], tuple[Values, Values] | None]
) -> bool:
    """Whether two memories whose shared words weigh ``of_smaller`` of the smaller's
    words' weight and ``of_larger`` of the larger's are one restated: by their words
    alone, or by their words and the values they keep (``values``: both memories' values,
    the smaller's first, or None when one can't be read; called only when needed)."""
    if of_smaller < SIEVE_SHARE:
        return False
    if of_smaller >= RESTATED_SHARE and of_larger >= RESTATED_OF_LARGER:
        return True
    if of_smaller >= WORDED_PART_SHARE and of_larger >= WORDED_PART_OF_LARGER:
        return of_larger * PART_OF_SIZE <= of_smaller  # a part of a larger memory

    if of_smaller < PART_SHARE and of_larger < ALL_KEPT_OF_LARGER:
        return False  # no rule on values can hold: their texts are not read
    held = values()
    if held is None:
        return False
    small, large = held
    if (
        of_smaller >= REWRITTEN_SHARE
        and of_larger >= RESTATED_OF_LARGER
        and same_values(small, large)
    ):
        return True
    if of_smaller >= PART_SHARE and _kept(small, large, PART_KEPT):
        return True
    return _kept(small, large, ALL_KEPT, MIN_ALL_KEPT) and _kept(large, small, ALL_KEPT)


def _kept(mine: Values, other: Values, share: float, least: int = MIN_KEPT_VALUES) -> bool:
    """Whether ``other`` holds ``share`` of ``mine`` (of ``least`` values or more)."""
    both = len(mine & other)
    return both >= least and both >= share * len(mine)


def same_values(va: Values, vb: Values) -> bool:
    """Whether two memories keep the same values: at least :data:`MIN_KEPT_VALUES`
    shared, :data:`KEPT_OF_SMALLER` of the fewer and :data:`KEPT_OF_LARGER` of the more."""
    both = len(va & vb)
    fewer, more = sorted((len(va), len(vb)))
    if both < MIN_KEPT_VALUES:
        return False
    return both >= KEPT_OF_SMALLER * fewer and both >= KEPT_OF_LARGER * more


def values_of(text: str) -> Values:
    """The code in backticks of a text and the lines of its fenced blocks (three
    characters or more, casefolded, spaced alike, a shell comment left out; a `mem:`
    reference is no value): what a rewrite keeps word for word, in a code span or a
    block as it likes."""
    found = set()
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            fenced = not fenced
            continue
        codes = [stripped.split(" #", 1)[0]] if fenced else _CODE.findall(line)
        for code in codes:
            value = " ".join(code.split()).casefold()
            if len(value) > 2 and not value.startswith(("mem:", "#")):
                found.add(value)
    return frozenset(found)
