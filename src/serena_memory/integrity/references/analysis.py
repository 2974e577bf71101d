"""Referential integrity of a set of memories: stale references, bare mentions, near-misses.

Pure analysis: it works on a ``{name: text}`` mapping plus the sets of read-only and
ignored names, and never touches a file (:mod:`.reading` loads a store; :mod:`.links` and
:mod:`.prefixing` write fixes). Stale references and exact bare mentions are defined
exactly as serena-agent 2.1.0 defines them, so both report the same ones on the same
files; the differential test in ``tests/test_integrity_differential.py`` keeps it so:

- a reference is ``mem:`` not glued to a preceding name character, followed by a
  maximal run of ``[A-Za-z0-9_\\-/]`` (trailing slash included); it is stale when no
  (non-ignored) memory has that exact name; each stale target once per source memory;
- a bare mention is an exact, case-sensitive occurrence of an existing name with no name
  character on either side and not directly after ``mem:``; it is high-confidence when
  the name has a ``/`` or is 10+ characters long; a memory mentioning its own name or
  last segment is skipped, so are names whose last segment is a common word (``core``);
- a near-miss is a bare run of 10+ name characters, not an existing name, that a person
  would accept as meaning a topic-path or long name (see `similarity.NearMissIndex`);
  here we differ from the reference on purpose: an identifier used as code, a file name
  (`x.yml`), or a token on a line that already references the suggested memory, is not
  one.

Empty memories and the memory_maintenance memory (it holds examples) are not scanned.
The speed comes from a few passes per memory, each matching every name at once: a literal
scan for ``mem:``; an Aho-Corasick pass over the text with non-name characters blanked
(see :class:`TextScan`), which finds exactly the whole-run mentions of all names; one
regex pass for the long runs that may be near-misses (a run found to match nothing is
not looked at again); and index lookups instead of name-by-name loops.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from serena_memory.core.names import is_global, last_segment
from serena_memory.core.paths import SkippedFile
from serena_memory.integrity.references.check_report import (
    ENTRY_POINT,
    Backlink,
    BareMention,
    CheckReport,
    IgnoredReference,
    StaleReference,
)
from serena_memory.integrity.references.scanning import (
    HIGH_CONFIDENCE_LENGTH,
    PREFIX,
    BareMentionFinder,
    TextScan,
    iter_reference_runs,
)

if TYPE_CHECKING:  # imported lazily at run time: rapidfuzz costs start-up time
    from serena_memory.integrity.references.similarity import NameIndex, NearMissIndex

from serena_memory.integrity.listing import MAINTENANCE_NAMES

COMMON_WORD_NAMES = frozenset({"core"})

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLAIN_NAME = re.compile("[A-Za-z0-9_/-]+")


def is_high_confidence(name: str) -> bool:
    """A name unlikely to occur in prose by chance: a topic path or 10+ characters."""
    return "/" in name or len(name) >= HIGH_CONFIDENCE_LENGTH


def is_self_mention(source: str, name: str) -> bool:
    return name == source or name == last_segment(source)


def is_common_word_name(name: str) -> bool:
    return last_segment(name) in COMMON_WORD_NAMES


# -- the analysis -------------------------------------------------------------------------


class IntegrityAnalyzer:
    """The memories of one project (plus global ones) and every integrity question on them.

    ``memories`` holds the texts to examine; ``names`` every existing (non-ignored) memory
    name, by default the keys of ``memories`` (a parallel check gives each worker a slice
    of the texts and all the names); ``ignored`` the names of ignored memories that exist
    on disk (to tell a reference into an ignored memory from a stale one). Indexes are
    built on first use and reused by every question.

    A near-miss token's ranking and a stale target's candidates depend only on the token
    or target and the set of names: answers known from earlier (:meth:`recall_answers`)
    are taken as they are, and an index is built only for a question they don't answer.
    """

    def __init__(
        self,
        memories: Mapping[str, str],
        read_only: Iterable[str] = (),
        ignored: Iterable[str] = (),
        unreadable: Iterable[str] = (),
        names: Iterable[str] | None = None,
    ) -> None:
        self.memories = dict(memories)
        self.sources = sorted(self.memories)
        if names is None:
            self.names = self.sources
            self.existing = frozenset(self.names)
        else:
            listed = list(names)
            self.existing = frozenset(listed).union(self.memories)
            if len(listed) == len(self.existing):  # no repeat, every text's name among them
                listed.sort()  # usually sorted already: one pass
                self.names = listed
            else:
                self.names = sorted(self.existing)
        self.read_only = frozenset(read_only)
        self.ignored = frozenset(ignored) - self.existing
        self.unreadable = sorted(set(unreadable))
        self.skipped: list[SkippedFile] = []  # set by the loader: files it did not read
        self._refs: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
        self._finder: BareMentionFinder | None = None
        self._name_index: NameIndex | None = None
        self._near_index: NearMissIndex | None = None
        self._no_near_miss: set[str] = set()
        self._odd_names: list[str] | None = None
        self._recall: Callable[[str, str], Any] | None = None
        self._answers: dict[tuple[str, str], Any] = {}
        self.learned: dict[tuple[str, str], Any] = {}  # answers the indexes gave this run

    def sibling(
        self, memories: Mapping[str, str], unreadable: Iterable[str] = ()
    ) -> IntegrityAnalyzer:
        """An analyzer of other texts of the same memory set, sharing the built indexes."""
        other = IntegrityAnalyzer(memories, self.read_only, self.ignored, unreadable, self.names)
        other._finder, other._name_index = self._finder, self._name_index
        other._near_index = self._near_index
        return other

    def recall_answers(self, recall: Callable[[str, str], Any]) -> None:
        """Take earlier answers from ``recall(kind, question)`` (None: not known): kind
        ``near`` is a token's ranking ``[(score, name)]``, ``candidates`` a stale target's
        candidate names; both for this set of names."""
        self._recall = recall

    def _answer(self, kind: str, question: str, compute: Callable[[str], Any]) -> Any:
        key = (kind, question)
        found = self._answers.get(key)
        if found is None and self._recall is not None:
            found = self._recall(kind, question)
        if found is None:
            found = compute(question)
            self.learned[key] = found
        self._answers[key] = found
        return found

    def know_references(self, found: Mapping[str, list[tuple[str, tuple[int, ...]]]]) -> None:
        """Take references found earlier (a cache) for memories whose text is not loaded."""
        self._refs.update(found)

    def reuse_references(self, other: IntegrityAnalyzer, names: Iterable[str]) -> None:
        """Take the references ``other`` already found in ``names`` (whose texts are the
        same here), so an unchanged memory is not scanned again."""
        for name in names:
            found = other._refs.get(name)
            if found is not None and name in self.memories:
                self._refs[name] = found

    # indexes, built lazily: plain `check` needs none of the heavy ones
    @property
    def finder(self) -> BareMentionFinder:
        if self._finder is None:
            self._finder = BareMentionFinder(n for n in self.names if not is_common_word_name(n))
        return self._finder

    @property
    def name_index(self) -> NameIndex:
        if self._name_index is None:
            from serena_memory.integrity.references.similarity import NameIndex

            self._name_index = NameIndex(self.names)
        return self._name_index

    @property
    def near_index(self) -> NearMissIndex:
        if self._near_index is None:
            from serena_memory.integrity.references.similarity import NearMissIndex

            self._near_index = NearMissIndex(
                (n for n in self.names if is_high_confidence(n) and not is_common_word_name(n)),
                all_names=self.names,
            )
        return self._near_index

    def scanned_sources(self) -> list[str]:
        return [n for n in self.sources if n not in MAINTENANCE_NAMES and self.memories[n]]

    def references(self, source: str) -> list[tuple[str, tuple[int, ...]]]:
        """[(target, line numbers)] of every reference in ``source``, first-seen order.

        A memory without text (not valid UTF-8, or gone since it was listed) has none
        that can be known: it is a dead end for reachability, never an error."""
        cached = self._refs.get(source)
        if cached is not None:
            return cached
        text = self.memories.get(source, "")
        lines: dict[str, list[int]] = {}
        if PREFIX in text:
            line, last = 1, 0
            for target, start in iter_reference_runs(text):  # in text order
                line += text.count("\n", last, start)
                last = start
                lines.setdefault(target, []).append(line)
        result = [(t, tuple(n)) for t, n in lines.items()]
        self._refs[source] = result
        return result

    def candidates(self, target: str) -> tuple[str, ...]:
        found: tuple[str, ...] = self._answer(
            "candidates", target, lambda t: self.name_index.candidates(t)
        )
        return found

    def near_ranking(self, token: str) -> list[tuple[float, str]]:
        """The names ``token`` may be a near-miss of, best first (see NearMissIndex)."""
        found: list[tuple[float, str]] = self._answer(
            "near", token, lambda t: self.near_index.ranked(t)
        )
        return found

    def bare_mentions(
        self, source: str, scan: TextScan | None = None
    ) -> dict[str, tuple[int, ...]]:
        """{name: line of each mention} of the exact bare mentions in ``source`` that
        `check` reports."""
        scan = scan or TextScan(self.memories[source])
        found = self._finder_for(scan).find_lines(scan)
        return {n: lines for n, lines in found.items() if not is_self_mention(source, n)}

    def _finder_for(self, scan: TextScan) -> BareMentionFinder:
        """The finder of every name, or, when only a few of many memories are examined
        (a check after one edit) and it is not built yet, a finder of just the names this
        text holds: a plain name is one of its runs, any other one of its substrings.
        Both find the same mentions; the small one costs a set lookup per run instead of
        an automaton of every name."""
        if self._finder is not None or len(self.memories) * 4 >= len(self.names):
            return self.finder
        if self._odd_names is None:
            self._odd_names = [n for n in self.names if _PLAIN_NAME.fullmatch(n) is None]
        existing = self.existing
        held = {run for run in scan.blanked.split() if run in existing}
        held.update(n for n in self._odd_names if n in scan.text)
        return BareMentionFinder(n for n in held if not is_common_word_name(n))

    def check(
        self, include_unmarked: bool = False, fuzzy: bool = False, reachability: bool = False
    ) -> CheckReport:
        fuzzy = fuzzy and include_unmarked
        report = CheckReport(include_unmarked=include_unmarked, fuzzy=fuzzy)
        report.unreadable = list(self.unreadable)
        report.skipped = list(self.skipped)
        sources = self.scanned_sources()
        report.scanned = len(sources)
        skipped = {*sources, *self.unreadable}
        report.not_scanned = [n for n in self.sources if n not in skipped]
        for source in sources:
            stale, bare, near = self.findings(source, include_unmarked, fuzzy)
            report.stale.extend(stale)
            for mention in bare:
                (report.bare_high if mention.high_confidence else report.bare_low).append(mention)
            report.near_misses.extend(near)
        if reachability:
            report.entry_point_exists = ENTRY_POINT in self.existing
            report.unreachable = self.unreachable()
            report.ignored_references = self.ignored_references()
        return report

    def findings(
        self, source: str, include_unmarked: bool, fuzzy: bool
    ) -> tuple[list[StaleReference], list[BareMention], list[BareMention]]:
        """What `check` reports about one memory: its stale references, its exact bare
        mentions (sorted by name) and its near-misses. A function of the memory's name and
        text and of the set of names, so a cache can keep it per memory."""
        source_ro = source in self.read_only
        text = self.memories[source]
        existing = self.existing
        stale: list[StaleReference] = []
        for target, lines in self.references(source):
            if target in existing:
                continue
            stale.append(
                StaleReference(
                    source,
                    target,
                    self.candidates(target),
                    source_ro,
                    lines,
                    target_ignored=target in self.ignored,
                )
            )
        if not include_unmarked:
            return stale, [], []
        scan = TextScan(text)
        mentions = self.bare_mentions(source, scan)
        bare = [
            BareMention(
                source,
                name,
                len(mentions[name]),
                is_high_confidence(name),
                source_ro,
                mentions[name],
            )
            for name in sorted(mentions)
        ]
        near = self._near_misses(source, scan, source_ro) if fuzzy else []
        return stale, bare, near

    def _near_misses(self, source: str, scan: TextScan, source_ro: bool) -> list[BareMention]:
        from serena_memory.integrity.references.similarity import best_match

        existing = self.existing
        # long runs that can't be a near-miss whatever the source (an existing name, or
        # matching no name) are remembered, so each is looked at once in the whole check
        dead = self._no_near_miss
        referenced = {target: set(lines) for target, lines in self.references(source)}
        found = []
        for token in scan.long_runs() - dead:
            if token in existing:
                dead.add(token)
                continue
            ranked = self.near_ranking(token)
            if not ranked:
                dead.add(token)
                continue
            best = best_match(ranked, token, source)
            if best is None:
                continue
            name, score = best
            offsets = _written_offsets(scan, token, score, referenced.get(name))
            if offsets:
                found.append((offsets[0], token, name, len(offsets)))
        found.sort()  # first-seen order, like the reference
        return [
            BareMention(source, name, count, True, source_ro, token=token)
            for _i, token, name, count in found
        ]

    # -- graph questions ------------------------------------------------------------------
    def edges(self) -> dict[str, dict[str, int]]:
        """{source: {target: number of references}} over every non-maintenance memory."""
        return {
            source: {t: len(lines) for t, lines in self.references(source)}
            for source in self.sources
            if source not in MAINTENANCE_NAMES
        }

    def reachable(self, root: str = ENTRY_POINT) -> set[str]:
        if root not in self.existing:
            return set()
        seen = {root}
        stack = [root]
        while stack:
            source = stack.pop()
            if source in MAINTENANCE_NAMES:
                continue
            for target, _lines in self.references(source):
                if target in self.existing and target not in seen:
                    seen.add(target)
                    stack.append(target)
        return seen

    def unreachable(self, root: str = ENTRY_POINT) -> list[str]:
        """The project memories `mem:core` does not lead to: a global memory is shared by
        every project and read as such, so no project's core is meant to reach it."""
        seen = self.reachable(root)
        return [
            n
            for n in self.names
            if n not in seen and n not in MAINTENANCE_NAMES and not is_global(n)
        ]

    def ignored_references(self, sources: Iterable[str] | None = None) -> list[IgnoredReference]:
        found: list[IgnoredReference] = []
        if not self.ignored:
            return found
        for source in self.scanned_sources() if sources is None else sources:
            for target, lines in self.references(source):
                if target in self.ignored:
                    found.append(IgnoredReference(source, target, lines))
        return found

    def backlinks(self, name: str, among: Iterable[str] | None = None) -> list[Backlink]:
        """Memories with a ``mem:name`` reference, with the line of each; ``among``: the
        only sources to look at (from an index), in order."""
        needle = PREFIX + name
        found = []
        for source in self.sources if among is None else among:
            if needle not in self.memories[source]:
                continue
            for target, lines in self.references(source):
                if target == name:
                    found.append(Backlink(source, lines, source in self.read_only))
        return found


def _written_offsets(
    scan: TextScan, token: str, score: float, lines_referencing: set[int] | None
) -> list[int]:
    """Where ``token`` stands in the text as a near-miss of a name: not as code, not as a
    file name, not on a line that already references the name (``lines_referencing``)."""
    offsets = scan.run_offsets(token)
    if score < 1.0 and _IDENTIFIER.fullmatch(token):
        # an identifier used as code (`obj.debug_logger_analysis(...)`, a fenced
        # block) names code, unless it spells the memory's name exactly
        offsets = [o for o in offsets if not scan.in_code(o, len(token))]
    # `ai-pr-quality-gate.yml`, `parser_rules.py`: a file name; `x.md` may be a memory
    offsets = [o for o in offsets if not scan.is_file_name(o, len(token))]
    if offsets and lines_referencing is not None:
        # a line that already has `mem:name` (`task-completion: mem:task_completion`)
        lines = scan.line_numbers(offsets)
        offsets = [o for o, n in zip(offsets, lines, strict=True) if n not in lines_referencing]
    return offsets
