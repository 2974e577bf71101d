"""Referential integrity of a set of memories: stale references, bare mentions, near-misses.

Pure analysis: it works on a ``{name: text}`` mapping plus the sets of read-only and
ignored names, and never touches a file (:mod:`serena_memory.integrity.service` loads a store
and applies fixes). Stale references and exact bare mentions are defined exactly as
serena-agent 2.1.0 defines them, so both report the same ones on the same files; the
differential test in ``tests/test_integrity_differential.py`` keeps it so:

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
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from serena_memory.core.names import last_segment
from serena_memory.core.paths import SkippedFile
from serena_memory.core.references import NAME_CHAR_CLASS

if TYPE_CHECKING:  # imported lazily at run time: rapidfuzz costs start-up time
    from serena_memory.integrity.similarity import NameIndex, NearMissIndex

HIGH_CONFIDENCE_LENGTH = 10
COMMON_WORD_NAMES = frozenset({"core"})
MAINTENANCE_NAMES = frozenset({"memory_maintenance", "global/memory_maintenance"})
ENTRY_POINT = "core"
NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_-/")
PREFIX = "mem:"

_MEM_RUN = re.compile("mem:(" + NAME_CHAR_CLASS + "+)")
_RUN_TABLE = bytes(c if chr(c) in NAME_CHARS else 32 for c in range(256))
_PREFIX_BYTES = PREFIX.encode("ascii")
# on TextScan.blanked; led by the space before the run, so the regex engine can skip ahead
_LONG_RUN = re.compile(f" ([^ ]{{{HIGH_CONFIDENCE_LENGTH},}})")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXTENSION = re.compile(rb"\.([A-Za-z][A-Za-z0-9]{0,9})\b")
_FENCE = re.compile(rb"^[ \t]*(?:```|~~~)", re.MULTILINE)
_PLAIN_NAME = re.compile("[A-Za-z0-9_/-]+")


def is_high_confidence(name: str) -> bool:
    """A name unlikely to occur in prose by chance: a topic path or 10+ characters."""
    return "/" in name or len(name) >= HIGH_CONFIDENCE_LENGTH


def is_self_mention(source: str, name: str) -> bool:
    return name == source or name == last_segment(source)


def is_common_word_name(name: str) -> bool:
    return last_segment(name) in COMMON_WORD_NAMES


# -- findings --------------------------------------------------------------------------


# Findings are records nothing changes once made; not frozen, because a check at 100,000
# memories makes hundreds of thousands of them and a frozen dataclass's constructor costs
# three times as much (hashable all the same).
@dataclass(unsafe_hash=True, slots=True)
class StaleReference:
    """``mem:target`` in ``source`` where no memory ``target`` exists."""

    source: str
    target: str
    candidates: tuple[str, ...]
    source_read_only: bool
    lines: tuple[int, ...]
    target_ignored: bool = False  # the memory exists but is ignored, so it can't be read

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "candidates": list(self.candidates),
            "source_read_only": self.source_read_only,
            "lines": list(self.lines),
            "target_ignored": self.target_ignored,
        }


@dataclass(unsafe_hash=True, slots=True)
class BareMention:
    """An existing name written without ``mem:`` (``token`` is None), or a near-miss of one
    (``token`` is the text actually written)."""

    source: str
    name: str
    occurrences: int
    high_confidence: bool
    source_read_only: bool
    lines: tuple[int, ...] = ()
    token: str | None = None

    @property
    def exact(self) -> bool:
        return self.token is None

    @property
    def written(self) -> str:
        return self.name if self.token is None else self.token

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": self.source,
            "name": self.name,
            "occurrences": self.occurrences,
            "high_confidence": self.high_confidence,
            "source_read_only": self.source_read_only,
        }
        if self.token is None:
            data["lines"] = list(self.lines)
        else:
            data["token"] = self.token
        return data


@dataclass(frozen=True)
class IgnoredReference:
    """``mem:target`` where ``target`` is an ignored memory: the agent can't follow it."""

    source: str
    target: str
    lines: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "lines": list(self.lines)}


@dataclass(frozen=True)
class Backlink:
    source: str
    lines: tuple[int, ...]
    source_read_only: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "lines": list(self.lines),
            "source_read_only": self.source_read_only,
        }


@dataclass
class CheckReport:
    """Everything `check` found; ``to_dict`` for JSON, ``to_text`` for people."""

    stale: list[StaleReference] = field(default_factory=list)
    bare_high: list[BareMention] = field(default_factory=list)
    bare_low: list[BareMention] = field(default_factory=list)
    near_misses: list[BareMention] = field(default_factory=list)
    unreachable: list[str] | None = None  # None: reachability not asked for
    entry_point_exists: bool = True
    ignored_references: list[IgnoredReference] | None = None
    scanned: int = 0
    unreadable: list[str] = field(default_factory=list)
    # files that look like memories but were not read (broken or outside links, not regular
    # files, over the size limit), each with its reason
    skipped: list[SkippedFile] = field(default_factory=list)
    include_unmarked: bool = False
    fuzzy: bool = False
    # memories a sync left with both sides' texts until a person resolves them (core/sync)
    sync_conflicts: list[str] = field(default_factory=list)

    @property
    def problem_count(self) -> int:
        return (
            len(self.sync_conflicts)
            + len(self.stale)
            + len(self.bare_high)
            + len(self.bare_low)
            + len(self.near_misses)
            + len(self.unreachable or ())
            + len(self.ignored_references or ())
            + len(self.unreadable)
            + len(self.skipped)
        )

    def is_clean(self) -> bool:
        return self.problem_count == 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "clean": self.is_clean(),
            "scanned": self.scanned,
            "stale_references": [s.to_dict() for s in self.stale],
        }
        if self.include_unmarked:
            data["bare_mentions"] = {
                "high_confidence": [b.to_dict() for b in self.bare_high],
                "low_confidence": [b.to_dict() for b in self.bare_low],
            }
            if self.fuzzy:
                data["near_misses"] = [b.to_dict() for b in self.near_misses]
        if self.unreachable is not None:
            data["entry_point"] = ENTRY_POINT if self.entry_point_exists else None
            data["unreachable"] = list(self.unreachable)
            data["ignored_references"] = [r.to_dict() for r in self.ignored_references or ()]
        if self.unreadable:
            data["unreadable"] = list(self.unreadable)
        if self.skipped:
            data["skipped"] = [s.to_dict() for s in self.skipped]
        if self.sync_conflicts:
            data["sync_conflicts"] = list(self.sync_conflicts)
        return data

    def to_text(self) -> str:
        """The report for people (integrity/report_text.py writes it)."""
        from serena_memory.integrity.report_text import report_text

        return report_text(self)


# -- scanning -----------------------------------------------------------------------------


def iter_reference_runs(text: str) -> Iterable[tuple[str, int]]:
    """Each ``mem:NAME`` reference as (NAME, offset of ``mem:``), in text order."""
    search = _MEM_RUN.search
    pos = 0
    while True:
        m = search(text, pos)
        if m is None:
            return
        start = m.start()
        if start and text[start - 1] in NAME_CHARS:
            pos = start + 1  # `xmem:...` is no reference; a real one may start inside
            continue
        yield m.group(1), start
        pos = m.end()


def _line_numbers(text: str, offsets: list[int]) -> tuple[int, ...]:
    """1-based line numbers of sorted offsets, counting newlines once."""
    lines = []
    line, last = 1, 0
    for offset in offsets:
        line += text.count("\n", last, offset)
        last = offset
        lines.append(line)
    return tuple(lines)


def name_runs(text: str) -> list[bytes]:
    """Every maximal run of name characters in ``text`` (ASCII, so bytes are exact)."""
    return text.encode("utf-8").translate(_RUN_TABLE).split()


class TextScan:
    """One memory's text prepared once for every name-matching question on it.

    Name characters are ASCII, so blanking every other byte of the UTF-8 text to a space
    gives an ASCII string, with the same offsets as the bytes, in which a name made of
    name characters is mentioned bare exactly where it stands between two spaces (the
    ends padded): whole-run matches need no boundary checks and give no false hits.
    Offsets are byte offsets: in text order, which is all that counting, ordering and
    line numbers need.
    """

    __slots__ = ("text", "data", "blanked", "_fences")

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8")
        blanked = self.data.translate(_RUN_TABLE).decode("ascii")
        self.blanked = " " + blanked + " "  # blanked[i + 1] is data[i]
        self._fences: list[tuple[int, int]] | None = None

    def is_file_name(self, offset: int, length: int) -> bool:
        """Whether the run at ``offset`` is followed by a file extension other than `.md`."""
        end = offset + length
        if self.data[end : end + 1] != b".":
            return False
        m = _EXTENSION.match(self.data, end)
        return m is not None and m.group(1).lower() != b"md"

    def in_code(self, offset: int, length: int) -> bool:
        """Whether the run at ``offset`` reads as code: inside a fenced block, called
        (`name(`) or an attribute (`.name`)."""
        data = self.data
        if offset and data[offset - 1 : offset] == b".":
            return True
        if data[offset + length : offset + length + 1] == b"(":
            return True
        if self._fences is None:
            marks = [m.start() for m in _FENCE.finditer(data)] if b"``" in data else []
            marks.append(len(data))  # a block left open runs to the end
            self._fences = list(zip(marks[::2], marks[1::2], strict=False))
        return any(start < offset < end for start, end in self._fences)

    def long_runs(self) -> set[str]:
        """The distinct runs of name characters that could be a high-confidence name."""
        return set(_LONG_RUN.findall(self.blanked))

    def is_reference(self, offset: int) -> bool:
        """Whether the run starting at ``offset`` directly follows ``mem:``."""
        return offset >= 4 and self.data[offset - 4 : offset] == _PREFIX_BYTES

    def run_offsets(self, run: str) -> list[int]:
        """Offsets where ``run`` is a whole run not directly after ``mem:``."""
        blanked = self.blanked
        needle = " " + run + " "
        step = len(run) + 1  # the closing space may open the next occurrence
        found = []
        i = blanked.find(needle)
        while i != -1:  # the run starts at blanked[i + 1], which is data[i]
            if not self.is_reference(i):
                found.append(i)
            i = blanked.find(needle, i + step)
        return found

    def line_numbers(self, offsets: list[int]) -> tuple[int, ...]:
        """1-based line numbers of sorted offsets."""
        lines = []
        line, last = 1, 0
        for offset in offsets:
            line += self.data.count(b"\n", last, offset)
            last = offset
            lines.append(line)
        return tuple(lines)


def _bare_offsets(text: str, name: str) -> list[int]:
    """Offsets of the exact bare mentions of one name, non-overlapping like re.findall."""
    found = []
    chars = NAME_CHARS
    size, length = len(text), len(name)
    i = text.find(name)
    while i != -1:
        end = i + length
        if (
            (i == 0 or text[i - 1] not in chars)
            and (end == size or text[end] not in chars)
            and not (i >= 4 and text[i - 4 : i] == PREFIX)
        ):
            found.append(i)
            i = text.find(name, end)
        else:
            i = text.find(name, i + 1)
    return found


class BareMentionFinder:
    """Finds exact bare mentions of many names in one pass over a text.

    A bare mention of a name made of name characters only is a whole run of name
    characters: :meth:`find` splits the text into runs and intersects them with the names;
    :meth:`find_lines` (what `check` uses) runs one automaton of the names over a
    :class:`TextScan`, which reports exactly those runs. Names holding other characters
    (`meeting notes`, `plan.v2`) are found as substrings, then confirmed, with their
    offsets, by the exact boundary rules.
    """

    FEW = 16

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names))
        plain = [n for n in self.names if all(c in NAME_CHARS for c in n)]
        self._plain = frozenset(n.encode("ascii") for n in plain)
        odd = sorted(set(self.names) - set(plain))
        # pyahocorasick ships no type information: its automata are typed as Any
        self._automaton: Any = None
        self._runs_ac: Any = None  # built on first use by check
        self._few_odd: list[str] = []
        if len(odd) <= self.FEW:
            self._few_odd = odd  # a substring test each is cheaper than a scan
        else:
            import ahocorasick

            self._automaton = ahocorasick.Automaton()
            for name in odd:
                self._automaton.add_word(name, name)
            self._automaton.make_automaton()

    def candidates(self, text: str, runs: Iterable[bytes] | None = None) -> set[str]:
        """Names that occur as a whole run (or, for odd names, anywhere) in ``text``."""
        if runs is None:
            runs = name_runs(text)
        found = {r.decode("ascii") for r in self._plain.intersection(runs)}
        found.update(self._odd_candidates(text))
        return found

    def _odd_candidates(self, text: str) -> set[str]:
        """Names holding other characters that occur anywhere in ``text``."""
        found = {name for name in self._few_odd if name in text}
        if self._automaton is not None:
            found.update(name for _end, name in self._automaton.iter(text))
        return found

    def find(self, text: str, runs: list[bytes] | None = None) -> dict[str, list[int]]:
        """{name: start offsets} of exact bare mentions."""
        if not text:
            return {}
        found = {}
        for name in self.candidates(text, runs):
            offsets = _bare_offsets(text, name)
            if offsets:
                found[name] = offsets
        return found

    def find_lines(self, scan: TextScan) -> dict[str, tuple[int, ...]]:
        """{name: line of each exact bare mention} in a scanned text.

        Plain names are found in one pass: an automaton of `` name `` over the blanked
        text reports exactly the whole-run occurrences, in text order.
        """
        offsets: dict[str, list[int]] = {}
        if self._plain:
            for end, name in self._run_automaton.iter(scan.blanked):
                start = end - len(name) - 1  # of `` name `` in blanked: data offset of name
                if start < 4 or scan.data[start - 4 : start] != _PREFIX_BYTES:  # not after `mem:`
                    offsets.setdefault(name, []).append(start)
        found = {name: scan.line_numbers(o) for name, o in offsets.items()}
        for name in self._odd_candidates(scan.text):
            odd = _bare_offsets(scan.text, name)
            if odd:
                found[name] = _line_numbers(scan.text, odd)
        return found

    @property
    def _run_automaton(self) -> Any:
        """The plain names, each between spaces, for matching whole runs of a blanked text."""
        if self._runs_ac is None:
            import ahocorasick

            self._runs_ac = ahocorasick.Automaton()
            for run in self._plain:
                name = run.decode("ascii")
                self._runs_ac.add_word(" " + name + " ", name)
            self._runs_ac.make_automaton()
        return self._runs_ac


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
            from serena_memory.integrity.similarity import NameIndex

            self._name_index = NameIndex(self.names)
        return self._name_index

    @property
    def near_index(self) -> NearMissIndex:
        if self._near_index is None:
            from serena_memory.integrity.similarity import NearMissIndex

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
        from serena_memory.integrity.similarity import best_match

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
            offsets = scan.run_offsets(token)
            if score < 1.0 and _IDENTIFIER.fullmatch(token):
                # an identifier used as code (`obj.debug_logger_analysis(...)`, a fenced
                # block) names code, unless it spells the memory's name exactly
                offsets = [o for o in offsets if not scan.in_code(o, len(token))]
            # `ai-pr-quality-gate.yml`, `parser_rules.py`: a file name; `x.md` may be a memory
            offsets = [o for o in offsets if not scan.is_file_name(o, len(token))]
            if offsets and name in referenced:
                # a line that already has `mem:name` (`task-completion: mem:task_completion`)
                lines = scan.line_numbers(offsets)
                offsets = [
                    o for o, n in zip(offsets, lines, strict=True) if n not in referenced[name]
                ]
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
        seen = self.reachable(root)
        return [n for n in self.names if n not in seen and n not in MAINTENANCE_NAMES]

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
