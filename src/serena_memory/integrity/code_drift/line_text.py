"""Small readings of a memory's line for the mention finder: where a file name may be,
and the line with its code spans blanked out (pure)."""

from __future__ import annotations

import re

from serena_memory.integrity.code_drift.extensions import DOTFILE_NAMES

_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+|\bwww\.\S+|\S+@\S+\.\w+")
"""A URL or an e-mail address: its paths are another site's."""

_DOTFILE = re.compile(
    r"(?<![\w/.:~@$%`-])(\.(?:" + "|".join(sorted(DOTFILE_NAMES, key=len, reverse=True)) + r"))"
    r"(?![\w/-]|\.\w)"
)
_DOT_LETTER = re.compile(r"\.[A-Za-z]")
_WORD_CHAR = re.compile(r"\w")


def dotted_word(text: str) -> bool:
    """Whether ``text`` has a word character, a dot and a letter in a row (``login.py``),
    or a configuration file's name with its dot alone (``.prettierrc``):
    the dot looked for first, which is many times faster on a long line than a pattern
    that starts with a word character."""
    for found in _DOT_LETTER.finditer(text):
        start = found.start()
        if start and _WORD_CHAR.match(text, start - 1):
            return True
    return bool(dotfile_names(text))  # `.prettierrc` alone


def dotfile_names(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each configuration file written with its leading dot alone
    in ``text``'s prose (``according to .prettierrc``): a file's name (``.md`` alone is
    an extension)."""
    if "." not in text:
        return []
    return [(found.start(), found.end(), found.group(1)) for found in _DOTFILE.finditer(text)]


def blanked(line: str, spans: list[tuple[int, int]]) -> str:
    """``line`` with its code spans (in order, apart) made spaces, in one join."""
    if not spans:
        return line
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts += (line[last:start], " " * (end - start))
        last = end
    parts.append(line[last:])
    return "".join(parts)


def without_urls(plain: str) -> str:
    """``plain`` with its URLs blanked (their paths are another site's)."""
    if "://" in plain or "www." in plain or "@" in plain:
        for url in _URL.finditer(plain):
            plain = plain[: url.start()] + " " * (url.end() - url.start()) + plain[url.end() :]
    return plain


def pattern_end(plain: str, match: re.Match[str]) -> bool:
    """Whether a name is the end of a pattern after its ``*`` (``_test.go`` of "tests
    alongside code (*_test.go)"), not a name in emphasis (``*_config.yml*``,
    ``**package.json確認**``)."""
    start, end = match.span()
    star = plain[max(0, start - 2) : start]
    return star[-1:] == "*" and star != "**" and plain[end : end + 1] != "*"
