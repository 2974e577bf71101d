"""Markdown as the sources write it: front matter, sections, links, ``@imports``.

Headings and code blocks are found by markdown-it (a ``## x`` inside a fenced block is no
heading, and a link inside one is no link); texts are cut at line boundaries only, so every
line of a source lands in exactly one part.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

MAX_FRONT_MATTER_LINES = 200
_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
_AT_IMPORT = re.compile(r"(?<![\w`@/.])@((?:~/|\.{1,2}/)?[\w\-./]*[\w\-])")
_WIKI = re.compile(r"\[\[([^\]\n|#]+)(?:#[^\]\n|]*)?(?:\|[^\]\n]*)?\]\]")


@dataclass
class Section:
    heading: str | None  # None: the text before the first split heading
    lines: list[str]  # with their line ends

    @property
    def text(self) -> str:
        return "".join(self.lines)


@cache
def _parser() -> MarkdownIt:
    """One parser for every text (making one costs more than parsing a short section)."""
    return MarkdownIt("commonmark", {"maxNesting": 20})


def split_front_matter(text: str) -> tuple[list[str] | None, str]:
    """(the front matter's lines, ``---`` fences included, or None; the rest)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None, text
    for i in range(1, min(len(lines), MAX_FRONT_MATTER_LINES)):
        if lines[i].rstrip("\r\n") in ("---", "..."):
            return lines[: i + 1], "".join(lines[i + 1 :])
    return None, text


def code_lines(text: str) -> set[int]:
    """0-based numbers of the lines inside code blocks (fenced or indented)."""
    inside: set[int] = set()
    for token in _parser().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            inside.update(range(token.map[0], token.map[1]))
    return inside


def sections(text: str, max_level: int = 2) -> list[Section]:
    """The text cut before each heading of level 2 up to ``max_level``; a part that is only
    the document's title (``# Project``) keeps what follows it. The first part has heading
    None unless the text opens with a heading that cuts."""
    lines = text.splitlines(keepends=True)
    starts: dict[int, str] = {}
    for token, inline in _headings(text):
        if 2 <= int(token.tag[1]) <= max_level and token.map:
            starts[token.map[0]] = inline
    out: list[Section] = []
    current = Section(None, [])
    for i, line in enumerate(lines):
        if i in starts:
            filled = any(part.strip() for part in current.lines)
            if not filled:
                current.heading = starts[i]
            elif current.heading is not None or not _only_title(current.lines):
                out.append(current)
                current = Section(starts[i], [])
        current.lines.append(line)
    if current.lines:
        out.append(current)
    return out


def _only_title(lines: list[str]) -> bool:
    """Whether a part so far is just a top-level title (``# Project``) and blank lines."""
    filled = [line for line in lines if line.strip()]
    return len(filled) == 1 and filled[0].startswith("# ")


def _headings(text: str) -> Iterator[tuple[Token, str]]:
    tokens = _parser().parse(text)
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            yield token, tokens[i + 1].content


def links(line: str) -> list[str]:
    """The targets of the Markdown links on a line (images excluded)."""
    return [m.group(1) for m in _LINK.finditer(line)]


def at_imports(line: str) -> list[str]:
    """The ``@path`` tokens on a line (whether a file stands behind them is checked later)."""
    return [m.group(1).rstrip(".") for m in _AT_IMPORT.finditer(line)]


def wiki_links(line: str) -> list[str]:
    """The targets of ``[[Target]]``, ``[[Target|label]]`` and ``[[Target#part]]``."""
    return [m.group(1).strip() for m in _WIKI.finditer(line)]
