"""Markdown to safe HTML for the dashboard, with `mem:` references turned into links.

Memory content is written by agents and people alike, so it is treated as hostile: raw
HTML is escaped (markdown-it with ``html`` off), only http(s), mailto and ``mem:`` links
survive, and the output never carries inline handlers. Which text is a reference is
decided by :mod:`serena_memory.core.references`, never here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from serena_memory.core.references import find_references

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
ALLOWED_SCHEMES = frozenset({"http", "https", "mailto", "mem"})


def memory_href(name: str) -> str:
    """The dashboard route of a memory (hash routing: the page never reloads)."""
    return "#/memory/" + quote(name, safe="/")


def _validate_link(url: str) -> bool:
    """Only relative links and a few harmless schemes; ``javascript:`` and friends become
    plain text. Control characters and whitespace are stripped first, as browsers do."""
    cleaned = re.sub(r"[\x00-\x20\x7f]", "", unquote(url))
    match = _SCHEME.match(cleaned)
    return match is None or match.group(1).lower() in ALLOWED_SCHEMES


def _ref_link(target: str, exists: Callable[[str], bool]) -> Token:
    link = Token("link_open", "a", 1)
    link.attrSet("href", memory_href(target))
    if exists(target):
        link.attrSet("class", "mem-ref")
    else:
        link.attrSet("class", "mem-ref broken")
        link.attrSet("title", f"broken reference: no memory named {target}")
    return link


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _link_references(state: StateCore) -> None:
    """Core rule: wrap every reference in inline text or code spans in a link."""
    exists: Callable[[str], bool] = state.env.get("memory_exists", lambda _name: True)
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        _without_memory_images(block.children)
        out: list[Token] = []
        in_link = 0
        for token in block.children:
            if token.type == "link_open":
                in_link += 1
                _rewrite_link(token, exists)
            elif token.type == "link_close":
                in_link -= 1
            if in_link or token.type not in ("text", "code_inline"):
                out.append(token)
                continue
            refs = list(find_references(token.content))
            if not refs:
                out.append(token)
            elif token.type == "code_inline":
                # `mem:x` in backticks: the code span itself becomes the link
                if len(refs) == 1:
                    out += [_ref_link(refs[0].target, exists), token, Token("link_close", "a", -1)]
                else:
                    out.append(token)
            else:
                pos = 0
                for ref in refs:
                    if ref.start > pos:
                        out.append(_text(token.content[pos : ref.start]))
                    out += [
                        _ref_link(ref.target, exists),
                        _text(token.content[ref.start : ref.end]),
                        Token("link_close", "a", -1),
                    ]
                    pos = ref.end
                if pos < len(token.content):
                    out.append(_text(token.content[pos:]))
        block.children = out


def _without_memory_images(children: list[Token]) -> None:
    """An image whose source is a ``mem:`` reference keeps no source: a memory is no
    picture, and there is nothing for the browser to fetch."""
    for token in children:
        if token.type == "image" and str(token.attrGet("src") or "").lower().startswith("mem:"):
            del token.attrs["src"]


def _rewrite_link(token: Token, exists: Callable[[str], bool]) -> None:
    href = str(token.attrGet("href") or "")
    refs = list(find_references(href))
    if len(refs) == 1 and refs[0].start == 0 and refs[0].end == len(href):
        # [text](mem:NAME): the link goes to the memory, like a bare reference
        token.attrs = dict(_ref_link(refs[0].target, exists).attrs)
    elif href.lower().startswith("mem:"):
        # `mem:` with no valid name after it: no memory to go to, so no link target
        del token.attrs["href"]
    elif _SCHEME.match(href):
        token.attrSet("rel", "noopener noreferrer")
        token.attrSet("target", "_blank")


def make_renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    # markdown-it-py documents replacing validateLink; mypy sees a method assignment
    md.validateLink = _validate_link  # type: ignore[method-assign]
    md.core.ruler.push("serena_mem_references", _link_references)
    return md


@functools.cache
def _shared_renderer() -> MarkdownIt:
    """One renderer for the process: building it costs more than most renders."""
    return make_renderer()


def render_markdown(text: str, memory_exists: Callable[[str], bool]) -> str:
    """Render memory content to HTML that is safe to insert into the page."""
    env: dict[str, Any] = {"memory_exists": memory_exists}
    return _shared_renderer().render(text, env)
