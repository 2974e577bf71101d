"""Bare mentions made references (`serena memories auto-prefix`): which exact bare mentions
are prefixed with ``mem:`` and which paths to memory files written as references, the
rewrites themselves, and the report of what changed and what was left alone (and why)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from serena_memory.core import names as N
from serena_memory.core.display import counted
from serena_memory.core.errors import MemoryNotFoundError
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.references.check_report import BareMention, CheckReport
from serena_memory.integrity.references.reading import load_analyzer
from serena_memory.integrity.references.scanning import PREFIX, BareMentionFinder

# why a bare mention was left alone by auto_prefix

SKIP_READ_ONLY = "read-only source"
SKIP_FLAT = "flat name"
SKIP_GLOBAL = "global memory"
SKIP_NEAR_MISS = "near-miss"
SKIP_FILE_PATH = "path to a memory file"

_SKIP_HINTS = {
    SKIP_READ_ONLY: "the source memory is read-only; pass --include-read-only to change it",
    SKIP_FLAT: "short flat name, easily plain prose; pass --include-flat-names to include it",
    SKIP_GLOBAL: "global memories are shared by every project; pass --include-global",
    SKIP_NEAR_MISS: "the text differs from the name, so adding `mem:` can't fix it; edit by hand",
    SKIP_FILE_PATH: "pass --include-file-paths to write each path as its `mem:` reference",
}


@dataclass(frozen=True)
class PrefixChange:
    source: str
    name: str
    count: int
    token: str | None = None  # for paths to memory files: the path as written

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"source": self.source, "name": self.name, "count": self.count}
        if self.token is not None:
            data["token"] = self.token
        return data


@dataclass(frozen=True)
class PrefixSkip:
    source: str
    name: str
    reason: str
    token: str | None = None  # for near-misses: the text actually written

    def to_dict(self) -> dict[str, Any]:
        data = {"source": self.source, "name": self.name, "reason": self.reason}
        if self.token is not None:
            data["token"] = self.token
        return data


@dataclass
class AutoPrefixReport:
    dry_run: bool
    changed: list[PrefixChange] = field(default_factory=list)
    skipped: list[PrefixSkip] = field(default_factory=list)

    @property
    def replacements(self) -> int:
        return sum(c.count for c in self.changed)

    @property
    def memories_changed(self) -> list[str]:
        return sorted({c.source for c in self.changed})

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "replacements": self.replacements,
            "memories_changed": self.memories_changed,
            "changed": [c.to_dict() for c in self.changed],
            "skipped": [s.to_dict() for s in self.skipped],
        }

    def to_text(self) -> str:
        out = []
        if self.changed:
            verb = "Would add" if self.dry_run else "Added"
            out.append(
                f"{verb} `mem:` to {counted(self.replacements, 'bare mention')} in "
                f"{counted(len(self.memories_changed), 'memory', 'memories')}"
                + (" (dry run: nothing was written)" if self.dry_run else "")
                + ":"
            )
            for c in self.changed:
                written = c.name if c.token is None else c.token
                out.append(f"  - {c.count} x `{written}` -> `mem:{c.name}` in `{c.source}`")
        else:
            out.append(
                "Nothing to prefix" + (" (dry run)." if self.dry_run else "; no memory changed.")
            )
        out.append("")
        for reason in (SKIP_READ_ONLY, SKIP_FLAT, SKIP_GLOBAL, SKIP_FILE_PATH, SKIP_NEAR_MISS):
            items = [s for s in self.skipped if s.reason == reason]
            if not items:
                continue
            out.append(f"Skipped, {reason} ({len(items)}): {_SKIP_HINTS[reason]}")
            for s in items:
                if s.token is None:
                    out.append(f"  - `{s.name}` in `{s.source}`")
                else:
                    out.append(f"  - `{s.token}` in `{s.source}` (maybe `mem:{s.name}`)")
            out.append("")
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out) + "\n"


def auto_prefix(
    store: MemoryStore,
    dry_run: bool = False,
    include_flat_names: bool = False,
    include_read_only: bool = False,
    include_global: bool = False,
    include_file_paths: bool = False,
) -> AutoPrefixReport:
    """Add ``mem:`` before exact bare mentions of existing names, and with
    ``include_file_paths`` write paths to memory files (`.serena/memories/x.md`) as
    references (`mem:x`).

    By default only high-confidence names inside writable project memories. Each memory is
    rewritten under the store's lock from its current text, so a second run finds nothing
    and an edit made meanwhile is kept.
    """
    report = AutoPrefixReport(dry_run=dry_run)
    check = load_analyzer(store).check(include_unmarked=True, fuzzy=True)
    plan: dict[str, set[str]] = {}
    paths: dict[str, set[str]] = {}
    mentions = _candidates(check, report, include_flat_names, include_file_paths)
    for m in sorted(mentions, key=lambda m: (m.source, m.name)):
        if m.source_read_only and not include_read_only:
            report.skipped.append(PrefixSkip(m.source, m.name, SKIP_READ_ONLY, m.token))
        elif N.is_global(m.source) and not include_global:
            report.skipped.append(PrefixSkip(m.source, m.name, SKIP_GLOBAL, m.token))
        else:
            (plan if m.exact else paths).setdefault(m.source, set()).add(m.name)
    report.skipped.sort(key=lambda s: (s.source, s.name, s.token or ""))
    for source in sorted(plan.keys() | paths.keys()):
        counts, path_counts = _prefix(
            store, source, plan.get(source, set()), paths.get(source, set()), dry_run
        )
        report.changed.extend(PrefixChange(source, n, c) for n, c in sorted(counts.items()))
        report.changed.extend(
            PrefixChange(source, n, c, f".serena/memories/{n}.md")
            for n, c in sorted(path_counts.items())
        )
    return report


def _candidates(
    check: CheckReport,
    report: AutoPrefixReport,
    include_flat_names: bool,
    include_file_paths: bool,
) -> list[BareMention]:
    """The mentions a prefix may fix: exact bare mentions (flat names on request) and, on
    request, paths to memory files; the others go to ``report.skipped`` with their reason."""
    from serena_memory.integrity.references.similarity import MEMORY_PATH_PREFIX

    mentions = list(check.bare_high)
    if include_flat_names:
        mentions += check.bare_low
    else:
        report.skipped.extend(PrefixSkip(m.source, m.name, SKIP_FLAT) for m in check.bare_low)
    for m in check.near_misses:
        if m.token != MEMORY_PATH_PREFIX + m.name:
            report.skipped.append(PrefixSkip(m.source, m.name, SKIP_NEAR_MISS, m.token))
        elif not include_file_paths:
            report.skipped.append(PrefixSkip(m.source, m.name, SKIP_FILE_PATH, m.token))
        else:
            mentions.append(m)
    return mentions


def _prefix(
    store: MemoryStore, source: str, names: set[str], paths: set[str], dry_run: bool
) -> tuple[dict[str, int], dict[str, int]]:
    """Prefix the bare mentions of ``names`` and rewrite the file paths of ``paths`` in
    ``source`` (from its current text)."""
    counts: dict[str, int] = {}
    path_counts: dict[str, int] = {}

    def transform(text: str) -> str:
        new_text, found = rewrite_memory_paths(text, paths) if paths else (text, {})
        path_counts.clear()
        path_counts.update(found)
        new_text, found = prefix_bare_mentions(new_text, names)
        counts.clear()
        counts.update(found)
        return new_text

    try:
        if dry_run:
            transform(store.read(source, announce=False))
        else:
            store.update({source: transform})
    except MemoryNotFoundError:
        return {}, {}  # deleted since the scan
    return counts, path_counts


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
