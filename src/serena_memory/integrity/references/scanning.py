"""One memory's text scanned for names: ``mem:`` references, whole runs of name
characters, and exact bare mentions of many names at once.

Name characters are ASCII, so the text's bytes with every other byte blanked to a space
give runs whose offsets are those of the bytes (:class:`TextScan`); an Aho-Corasick
automaton of the names over that text finds exactly the whole-run mentions of all of them
in one pass (:class:`BareMentionFinder`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from typing import Any

from serena_memory.core.references import NAME_CHAR_CLASS

HIGH_CONFIDENCE_LENGTH = 10
NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_-/")
PREFIX = "mem:"

_MEM_RUN = re.compile("mem:(" + NAME_CHAR_CLASS + "+)")
_RUN_TABLE = bytes(c if chr(c) in NAME_CHARS else 32 for c in range(256))
_PREFIX_BYTES = PREFIX.encode("ascii")
# on TextScan.blanked; led by the space before the run, so the regex engine can skip ahead
_LONG_RUN = re.compile(f" ([^ ]{{{HIGH_CONFIDENCE_LENGTH},}})")
_EXTENSION = re.compile(rb"\.([A-Za-z][A-Za-z0-9]{0,9})\b")
_FENCE = re.compile(rb"^[ \t]*(?:```|~~~)", re.MULTILINE)


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
