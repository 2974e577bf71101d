"""A memory's text as the duplicate check sees it: its content lines (casefolded, words
only, for comparing lines), its sections (split at Markdown headings) and its
statements (sentences and list items) with the values in them set apart.

``don't`` reads as ``do not`` and ``cannot`` as ``can not``, so two spellings of one
negation are the same words. A value is what a restated statement may change while
saying the same thing: code in backticks (``npm test``), a word with a digit (a port, a
version, a count), a path or file name, a flag (``-x``, ``--strict``). A `mem:`
reference is not a value: it names what the statement is about.

A text is split into blocks and sentences by regular expressions over the whole text
and into words by ``str.split``; a word is looked at closer only when it is not all
letters, so ten thousand memories are read in a few seconds. Each line number is counted
on from the one before (never from the start), so a text is read in time in proportion
to its length: one memory of 16 MiB in seconds, not hours.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

_NOT = re.compile(r"n['’]t\b")
_CANNOT = re.compile(r"\bcannot\b")
_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
# a block ends at a blank line, and a new one starts at a list item or heading
_BLOCK_END = re.compile(r"\n(?:[ \t]*\n)+|\n(?=[ \t]*(?:[-*+]|\d+[.)])[ \t]|#)")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z`(\"'])")
_DIGIT = re.compile(r"\d")
_PUNCTUATION = ".,;:!?()[]{}\"'*_<>"
# a token of marks only (a bullet, a table's `|`) is markup, not a word; a heading's
# `#` stays, so that a heading of one word is a line too
_MARKUP = re.compile(r"(?<!\S)(?!#+(?!\S))[^\w\s]+(?!\S)")
# a `Key: value` field (`**Status:** done`, `- Session: 826`): a record's metadata
_FIELD = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?[*_]*[\w][\w ./-]{0,30}?[*_]*:[*_]*(?:[ \t]|$)", re.MULTILINE
)
# a section that says where to look, not what is known: citing the same sources twice
# is no duplicate
_REFERENCES = re.compile(
    r"#+[ \t]+(?:references?|related\b.*|see also|sources?|links|further reading)[ \t:]*",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
VALUE_MARK = "\x00"
NEGATIONS = frozenset({"not", "never", "no"})
CITING = frozenset({"line", "lines", "issue", "pr", "session", "step", "phase"})
"""A number after these cites where something is (`line 81`): what it is about."""
MIN_STATEMENT_WORDS = 5
"""A statement shorter than this is too little context to say two restate each other."""
MIN_PLAIN_WORDS = 3
"""Words of three letters or more a statement must share besides its values."""
MAX_STATEMENT_CHARS = 600


@dataclass(slots=True)
class Statement:
    """One sentence or list item: where it starts, its words with each value as
    :data:`VALUE_MARK` and without negations, its values in order, and whether it was negated."""

    line: int
    template: tuple[str, ...]
    values: tuple[str, ...]
    negated: bool
    text: str


@dataclass(slots=True)
class Parsed:
    """What the duplicate check reads in one memory."""

    lines: list[str]
    content: list[tuple[int, str]] = field(default_factory=list)  # (line, its words)
    sections: list[tuple[int, int]] = field(default_factory=list)  # (first, last) lines
    statements: list[Statement] = field(default_factory=list)
    # lines that say no more than their neighbours: headings, `Key: value` fields (a
    # record's metadata), fenced code (commands and listings that memories repeat where
    # they are used) and sections of references; not counted for a section
    aside: set[int] = field(default_factory=set)


def fold(text: str) -> str:
    """``text`` casefolded, with negations spelled one way."""
    folded = text.casefold()
    if "n't" in folded or "n’t" in folded:
        folded = _NOT.sub(" not", folded)
    return _CANNOT.sub("can not", folded) if "cannot" in folded else folded


def parse(text: str, statements: bool = True) -> Parsed:
    """Lines, content lines, sections and (unless ``statements`` is false) statements."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # a text ending with a newline has no empty line after it
    parsed = Parsed(lines, content=_content(text))
    # line numbers by bisection over where each line starts: linear in the text, however
    # many headings, fields and fences it holds
    line_of = functools.partial(
        bisect.bisect_right, [0, *(m.end() for m in re.finditer("\n", text))]
    )
    fences = [m.start() for m in _FENCE.finditer(text)]
    headings = (m.start() for m in _HEADING.finditer(text))
    starts = [line_of(at) for at in headings if not _in_fence(fences, at)]
    bounds = [*starts, len(lines) + 1]
    parsed.sections = [(a, b - 1) for a, b in zip(bounds, bounds[1:], strict=False)]
    parsed.aside = _aside(text, parsed, [line_of(at) for at in fences], line_of)
    if statements:
        parsed.statements = list(_statements(text, fences))
    return parsed


def _content(text: str) -> list[tuple[int, str]]:
    """Each line of two words or more (folded, without markup) with its number."""
    content = []
    for number, line in enumerate(_MARKUP.sub(" ", fold(text)).split("\n"), 1):
        words = line.split()
        if len(words) > 1:
            content.append((number, " ".join(words)))
    return content


def _aside(
    text: str, parsed: Parsed, fence_lines: list[int], line_of: Callable[[int], int]
) -> set[int]:
    """The lines that say no more than their neighbours (see :attr:`Parsed.aside`), given
    where the sections start and on which lines the fences are."""
    aside = {first for first, _last in parsed.sections}  # the headings
    aside.update(line_of(m.start()) for m in _FIELD.finditer(text))
    closing = [*fence_lines[1::2], len(parsed.lines)]  # an unclosed fence runs to the end
    for first, last in zip(fence_lines[::2], closing, strict=False):
        aside.update(range(first, last + 1))
    for first, last in parsed.sections:
        if _REFERENCES.fullmatch(parsed.lines[first - 1].strip()):
            aside.update(range(first, last + 1))
    return aside


def _in_fence(fences: list[int], at: int) -> bool:
    """Whether offset ``at`` is inside a fenced code block (``fences``: where each fence
    line starts): a `#` line there is a shell comment, not a heading."""
    return bisect.bisect_left(fences, at) % 2 == 1


def _statements(text: str, fences: list[int]):
    """The statements of ``text``, block by block, sentence by sentence (none in a
    fenced code block)."""
    at = 0
    line = 1
    for end in [*(m for m in _BLOCK_END.finditer(text)), None]:
        stop = len(text) if end is None else end.start()
        block = text[at:stop]
        bullet = _LIST_ITEM.match(block)
        offset = bullet.end() if bullet else 0
        if not block.lstrip().startswith(("#", "```", "~~~", "|")) and not _in_fence(fences, at):
            here = counted = 0  # lines counted from the last sentence on: linear
            for sentence, start in _sentences(block, offset):
                begins = start + len(sentence) - len(sentence.lstrip())  # its first word
                here += block.count("\n", counted, begins)
                counted = begins
                found = statement(line + here, sentence)
                if found is not None:
                    yield found
        if end is not None:
            line += text.count("\n", at, end.end())
            at = end.end()


def _sentences(block: str, offset: int):
    start = offset
    for m in _SENTENCE_END.finditer(block, offset):
        yield block[start : m.start() + 1], start  # with its full stop
        start = m.end()
    yield block[start:], start


def statement(line: int, sentence: str) -> Statement | None:
    """The statement a sentence makes, or None when it is too short to compare."""
    if len(sentence) > MAX_STATEMENT_CHARS:
        return None
    words = _Words()
    for i, span in enumerate(fold(sentence).split("`")):
        if i % 2:
            words.code(span)
        else:
            words.prose(span)
    if len(words.template) < MIN_STATEMENT_WORDS or words.plain < MIN_PLAIN_WORDS:
        return None
    if _record_header(sentence):
        return None
    text = " ".join(sentence.split())
    negated = words.negations % 2 == 1
    return Statement(line, tuple(words.template), tuple(words.values), negated, text)


@dataclass(slots=True)
class _Words:
    """A statement's words as they are read: its template, its values, how many
    negations it holds and how many plain words (of three letters or more)."""

    template: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    negations: int = 0
    plain: int = 0

    def code(self, span: str) -> None:
        """Code in backticks: one value (a reference names the subject: not a value)."""
        code = " ".join(span.split())
        if code.startswith("mem:"):
            self.template.append(code)
        else:
            self.template.append(VALUE_MARK)
            self.values.append(code)

    def prose(self, span: str) -> None:
        """Text outside backticks, word by word."""
        template = self.template
        for token in span.split():
            word = token.strip(_PUNCTUATION)
            if not word:
                continue
            if word.isalpha():
                if word in NEGATIONS:
                    self.negations += 1
                    continue
                self.plain += len(word) > 2
            elif is_value(word) and (not template or template[-1] not in CITING):
                self.values.append(word)
                word = VALUE_MARK
            template.append(word)


def _record_header(sentence: str) -> bool:
    """Whether a sentence is two or more `**Key**: value` fields on one line (a record's
    own metadata: `**Atomicity**: 88% **Category**: Git`), which says nothing about
    what another memory says."""
    return sentence.count("**:") + sentence.count(":**") >= 2


def is_value(word: str) -> bool:
    """A word (not all letters) a restatement may change: a flag, path, file name or
    version, or one with a digit; a `mem:` or `#123` reference is none."""
    if word.startswith(("mem:", "#")):  # `#123` names an issue: what it is about
        return False
    return word[0] == "-" or "/" in word or "." in word or _DIGIT.search(word) is not None
