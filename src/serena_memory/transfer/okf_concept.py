"""One memory as an Open Knowledge Format (OKF v0.2) concept, and a concept as a memory.

A concept is the memory's text under a front matter block that says what OKF readers look
for (``type``, ``title``, ``description``, ``generated``, ``verified``, ``sources``); its
``mem:`` references become bundle-relative links (``[mem:auth/login](/auth/login.md)``).
The memory's own front matter is kept below a comment line, as written, and the keys the
export derived are listed under ``serena_memory``, so reading the concept back gives the
memory byte for byte. A concept another tool wrote keeps its whole front matter (OKF's
``status`` and ``stale_after`` mean what the memory's lifecycle means) and its links stay,
each followed by the ``mem:`` reference it leads to.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import yaml
from markdown_it import MarkdownIt

from serena_memory.core.front_matter import FrontMatter, one_line, parse
from serena_memory.core.references import NAME_CHAR_CLASS, can_be_referenced
from serena_memory.transfer import markdown as md

OKF_VERSION = "0.2"
CONCEPT_TYPE = "Agent Memory"
"""The ``type`` of every exported memory (a memory's own ``type:`` key wins)."""
MARK = "serena_memory"
"""The key naming the memory a concept holds and the keys the export derived."""
OWN_LINE = "# the memory's own front matter, as written:"
RESERVED = frozenset({"index.md", "log.md"})
RESERVED_SUFFIX = "-memory"
"""A memory named ``index`` or ``log`` is the concept ``index-memory.md``."""
DERIVED = ("type", "title", "description", "generated", "verified", "sources")

_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_REFERENCE = re.compile(r"(?<!" + NAME_CHAR_CLASS + r")mem:(" + NAME_CHAR_CLASS + r"+)")
_REFERENCE_LINK = re.compile(r"\[mem:(" + NAME_CHAR_CLASS + r"+)\]\(([^)\s]+)\)")


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed: the same answer


@cache
def _blocks() -> MarkdownIt:
    """A parser of blocks only: where code blocks are is all a concept needs to know."""
    return MarkdownIt("commonmark", {"maxNesting": 20}).disable("inline")


def code_lines(text: str) -> set[int]:
    """0-based numbers of the lines inside code blocks (fenced or indented)."""
    inside: set[int] = set()
    for token in _blocks().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            inside.update(range(token.map[0], token.map[1]))
    return inside


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str]:
    """(the keys, the block as written, the body) of a concept file; ({}, '', text) when
    it opens with no block, or one that is no YAML mapping or holds an alias. A concept's
    block is read up to 200 lines: it holds what the export derived besides the memory's
    own front matter (which :func:`memory_front_matter` reads, as core does)."""
    lines, body = md.split_front_matter(text)
    if lines is None:
        return {}, "", text
    source = "".join(lines[1:-1])
    try:
        if any(isinstance(t, yaml.AliasToken) for t in yaml.scan(source, Loader=_LOADER)):
            return {}, "", text
        keys = yaml.load(source, Loader=_LOADER)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, RecursionError, ValueError):
        return {}, "", text
    if keys is None:
        keys = {}
    if not isinstance(keys, dict) or not all(isinstance(k, str) for k in keys):
        return {}, "", text
    return keys, "".join(lines), body


def memory_front_matter(text: str) -> tuple[dict[str, Any], str, str]:
    """(the keys, the block as written, the body) of a memory, as core reads its front
    matter; a block that does not open and close with a bare ``---`` line is kept in the
    body (a concept could not give its lines back as written)."""
    found = parse(text)
    lines = found.block.splitlines()
    if not found.present or lines[0] != "---" or lines[-1] != "---":
        return {}, "", text
    return dict(found.keys), found.block, found.body


def first_sentence(body: str) -> str:
    """The body's first sentence of prose (headings, code and rules skipped), on one line."""
    code = code_lines(body)
    for i, line in enumerate(body.splitlines()):
        plain = line.strip().lstrip(">").strip()
        if i in code or not plain or plain.startswith(("#", "```", "~~~", "---", "|", "<!--")):
            continue
        plain = re.sub(r"^([-*+]|\d+[.)])\s+", "", plain)
        sentence = re.split(r"(?<=[.!?])\s", plain, maxsplit=1)[0]
        return one_line(plain_text(sentence))
    return ""


_INLINE_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")


def plain_text(text: str) -> str:
    """``text`` without Markdown links (their labels kept) and bold marks: a description
    is read where its links would lead elsewhere (an index, a search snippet)."""
    return _INLINE_LINK.sub(r"\1", text).replace("**", "").replace("__", "")


def description_of(keys: dict[str, Any], body: str) -> str:
    """The memory's summary (``summary:``, else ``description:``), else its first sentence."""
    return FrontMatter(keys).summary or first_sentence(body)


def concept_path(name: str, taken: set[str]) -> str:
    """The bundle path of memory ``name``: ``NAME.md``, or ``NAME-memory.md`` (numbered
    when taken) where that file name is reserved."""
    path = f"{name}.md"
    if posixpath.basename(path).lower() not in RESERVED and path not in taken:
        return path
    base, n = f"{name}{RESERVED_SUFFIX}", 1
    while (path := f"{base}{'' if n == 1 else f'-{n}'}.md") in taken:
        n += 1
    return path


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to every part outside code blocks and code spans."""
    code = code_lines(text)
    out = []
    for i, line in enumerate(text.splitlines(keepends=True)):
        if i in code:
            out.append(line)
            continue
        pieces, last = [], 0
        for span in _CODE_SPAN.finditer(line):
            pieces += [change(line[last : span.start()]), span.group(0)]
            last = span.end()
        out.append("".join(pieces) + change(line[last:]))
    return "".join(out)


def references_as_links(body: str, paths: dict[str, str]) -> str:
    """Each ``mem:NAME`` of a memory in the bundle (``paths``: name -> bundle path) as the
    link ``[mem:NAME](/PATH)``; references to memories not exported stay as written."""

    def link(match: re.Match[str]) -> str:
        path = paths.get(match.group(1))
        return f"[mem:{match.group(1)}](/{path})" if path else match.group(0)

    return _outside_code(body, lambda part: _REFERENCE.sub(link, part))


def bundle_target(from_rel: str, target: str) -> str | None:
    """The bundle path a link of concept ``from_rel`` leads to (``/x.md`` from the root,
    ``x.md`` or ``../x.md`` from its folder); None for a web address, an anchor, or a path
    that leaves the bundle."""
    target = target.split("#", 1)[0].split("?", 1)[0]
    if not target or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith("~"):
        return None
    base = "" if target.startswith("/") else posixpath.dirname(from_rel)
    joined = posixpath.normpath(posixpath.join(base, target.lstrip("/")))
    if joined in (".", "..") or joined.startswith("../"):
        return None
    return joined


def links_as_references(body: str, from_rel: str, names: dict[str, str]) -> str:
    """The inverse of :func:`references_as_links`: each ``[mem:X](PATH)`` whose path is a
    concept of the bundle (``names``: bundle path -> memory name) is ``mem:`` its name."""

    def reference(match: re.Match[str]) -> str:
        rel = bundle_target(from_rel, match.group(2))
        name = names.get(rel) if rel is not None else None
        return f"mem:{name}" if name and can_be_referenced(name) else match.group(0)

    return _outside_code(body, lambda part: _REFERENCE_LINK.sub(reference, part))


def dump_keys(keys: dict[str, Any]) -> str:
    """YAML lines of ``keys``, in their order, stable from run to run."""
    if not keys:
        return ""
    return yaml.safe_dump(
        keys, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100_000
    )


def concept_text(name: str, text: str, derived: dict[str, Any], paths: dict[str, str]) -> str:
    """The concept of memory ``name`` (``text``): ``derived`` keys the memory lacks, the
    mark, the memory's own front matter as written, then its body with links."""
    keys, block, body = memory_front_matter(text)
    if not keys:  # no block, or an empty one: the text is all body, kept as written
        block, body = "", text
    added = {k: v for k, v in derived.items() if k not in keys and v not in (None, "", [])}
    ours = {**added, MARK: {"name": name, "derived": list(added)}}
    own = block.split("\n", 1)[1] if block else ""
    own = own[: own.rstrip("\r\n").rfind("\n") + 1]
    head = f"---\n{dump_keys(ours)}"
    if own:
        joined = f"{head}{OWN_LINE}\n{own}"
        if split_front_matter(f"{joined}---\n")[0] == {**ours, **keys}:
            head = joined
        else:  # a block that does not join as written (a flow mapping): its keys
            head = f"---\n{dump_keys({**added, **keys, MARK: ours[MARK]})}"
    return f"{head}---\n{references_as_links(body, paths)}"


def memory_text(text: str, from_rel: str, names: dict[str, str]) -> tuple[str, str | None]:
    """A concept read back: (the memory's text, the name its mark gives, or None when it
    has no mark: another tool wrote it, and its front matter is kept whole)."""
    keys, block, body = split_front_matter(text)
    mark = keys.get(MARK)
    body = links_as_references(body, from_rel, names)
    if not isinstance(mark, dict):
        return block + body, None
    derived = mark.get("derived")
    dropped = {MARK, *(derived if isinstance(derived, list) else [])}
    own = {k: v for k, v in keys.items() if k not in dropped}
    return _own_block(block, own) + body, str(mark.get("name") or "") or None


def _own_block(block: str, own: dict[str, Any]) -> str:
    """The memory's front matter: as written below the comment line when it still holds
    exactly ``own``, else ``own`` written out ('' when there is none)."""
    if not own:
        return ""
    at = block.find(f"\n{OWN_LINE}")
    if at >= 0:
        inner = block[at + len(OWN_LINE) + 2 :]
        inner = inner[: inner.rstrip("\r\n").rfind("\n") + 1]
        newline = "\r\n" if inner.endswith("\r\n") else "\n"
        written = f"---{newline}{inner}---{newline}"
        if split_front_matter(written + "x")[0] == own:
            return written
    return f"---\n{dump_keys(own)}---\n"
