"""A memory's optional front matter: a YAML block between two ``---`` lines at the very top.

A memory is plain Markdown first: one without front matter is read, listed and written as
always, and serena-agent reads either kind. The block says what the memory is without
reading it: ``summary:`` (or ``description:``, the same thing under another format's name;
``summary`` wins), and its lifecycle (``status``, ``superseded_by``, ``stale_after``,
:mod:`serena_memory.core.lifecycle`).

The API, small on purpose (exporters and importers build on it):

- :func:`parse` splits a text into a :class:`FrontMatter` (its keys as read, unknown ones
  included) and the body, byte for byte; a text without a block, or whose block is no YAML
  mapping, is all body.
- :func:`with_keys` writes keys back: changed or added ones set, ``None`` removing one,
  every other key and the body kept as they were.
- :func:`one_line` is how a summary is shown (one line, bounded).

A block comes from a file anyone may have written: it is read with ``yaml.safe_load``'s
loader (on libyaml when PyYAML has it), only when it closes within
:data:`MAX_FRONT_MATTER_CHARS`, and never when it holds an alias (a few aliases can stand
for an exponential amount of data).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

MAX_FRONT_MATTER_CHARS = 4096
"""The most a block may hold; a longer one is no front matter (the text is all body)."""
MAX_SUMMARY_CHARS = 200
"""The most of a summary any listing shows."""
OPENING = re.compile(r"---[ \t]*\r?\n")
CLOSING = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)


@dataclass(frozen=True)
class FrontMatter:
    """A memory's text split: its front matter's keys (empty when it has none) and the body.

    ``block`` is the front matter as written, opening and closing lines included ('' when
    none), so ``block + body`` is the text given to :func:`parse`."""

    keys: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    block: str = ""

    @property
    def present(self) -> bool:
        return bool(self.block)

    @property
    def summary(self) -> str:
        """The one-line summary (``summary:``, else ``description:``); '' when none."""
        for key in ("summary", "description"):
            value = self.keys.get(key)
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                text = one_line(str(value))
                if text:
                    return text
        return ""

    def text(self, key: str) -> str:
        """A key's value as one line of text ('' when absent or not a plain value)."""
        value = self.keys.get(key)
        if isinstance(value, dict | list) or value is None:
            return ""
        return one_line(str(value))

    def date(self, key: str) -> dt.date | None:
        """A key's value as a date (YAML reads ``2026-12-31`` as one); None when it is none."""
        value = self.keys.get(key)
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value.strip())
            except ValueError:
                return None
        return None


def one_line(text: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    """``text`` on one line (whitespace and control characters made single spaces), cut to
    ``limit`` characters with an ellipsis."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)].rstrip() + "…"


def _split(text: str) -> tuple[str, str, str] | None:
    """(block, YAML inside it, body) when ``text`` opens with a closed, bounded block."""
    opening = OPENING.match(text)
    if opening is None:
        return None
    closing = CLOSING.search(text, opening.end(), opening.end() + MAX_FRONT_MATTER_CHARS + 5)
    if closing is None or closing.start() - opening.end() > MAX_FRONT_MATTER_CHARS:
        return None
    return text[: closing.end()], text[opening.end() : closing.start()], text[closing.end() :]


def _load(source: str) -> dict[str, Any] | None:
    """The mapping a block holds; None when it is no mapping, no YAML, or holds an alias."""
    import yaml  # only for a text that opens with a block

    # yaml.safe_load's loader, on libyaml when PyYAML was built with it (eight times faster:
    # a listing reads hundreds of blocks)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        if any(isinstance(t, yaml.AliasToken) for t in yaml.scan(source, Loader=loader)):
            return None
        data = yaml.load(source, Loader=loader)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        return None
    return data


BLOCK_NOT_READ = (
    "Its front matter is no YAML mapping, so listings show no summary for it: quote a value "
    "that holds ': ' (`summary: \"Entry point: what it holds\"`)."
)


def block_problem(text: str) -> str:
    """What a writer is told when ``text`` opens with a closed block that is not read as
    front matter (:data:`BLOCK_NOT_READ`), '' otherwise: at write time, not later by a
    listing that silently shows no summary."""
    split = _split(text)
    if split is None or _load(split[1]) is not None:
        return ""
    return BLOCK_NOT_READ


def parse(text: str) -> FrontMatter:
    """``text`` split into its front matter and body; all body when it has none."""
    split = _split(text)
    if split is None:
        return FrontMatter(body=text)
    block, source, body = split
    keys = _load(source)
    if keys is None:
        return FrontMatter(body=text)
    return FrontMatter(keys, body, block)


def with_keys(text: str, changes: dict[str, Any]) -> str:
    """``text`` with the front matter keys in ``changes`` set (``None`` removes one); the
    other keys are kept in their order, the body byte for byte. A text without front matter
    gets a block when a key is set; a block left with no key is removed."""
    found = parse(text)
    keys = dict(found.keys)
    for key, value in changes.items():
        if value is None:
            keys.pop(key, None)
        else:
            keys[key] = value
    if keys == found.keys:
        return text
    if not keys:
        return found.body
    import yaml

    newline = "\r\n" if found.block.endswith("\r\n") else "\n"
    dumped = yaml.safe_dump(keys, sort_keys=False, allow_unicode=True, default_flow_style=False)
    if newline != "\n":
        dumped = dumped.replace("\n", newline)
    return f"---{newline}{dumped}---{newline}" + found.body
