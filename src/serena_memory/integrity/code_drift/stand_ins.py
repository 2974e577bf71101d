"""Names a line builds from a stand-in word: "every method `name` has a `nameSync` twin"
states a naming rule, so `nameSync` is the rule's other half, no symbol of the project.
A word that stands for any name (``name``, ``method``, ``foo``) written alone in a code
span on the same line as that word with a part added (``nameSync``, ``getName``) marks
the latter as a pattern (pure).
"""

from __future__ import annotations

_WORDS = """name method fn func function foo bar baz thing something field prop property key
item entity model resource feature component module service x"""
STAND_IN_WORDS = frozenset(_WORDS.split())
"""Words a memory writes for any name when it states a naming rule."""


def built_from(symbol: str, words: set[str]) -> bool:
    """Whether ``symbol`` is a stand-in word of ``words`` with a part written with a
    capital added after it (``nameSync``) or before it (``getName``)."""
    for word in words:
        size = len(word)
        if len(symbol) <= size:
            continue
        if symbol.startswith(word) and symbol[size].isupper():
            return True
        if symbol.endswith(word.capitalize()) and symbol[-size - 1].islower():
            return True
    return False


def stand_ins_on(spans: list[str]) -> set[str]:
    """The stand-in words a line writes alone in code spans."""
    return {s.strip() for s in spans if s.strip() in STAND_IN_WORDS}
