"""Hits as a person or an agent reads them: the best lines, where the words matched."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

MAX_LINES_PER_HIT = 3
MAX_RESULTS = 100  # the most hits one answer shows (the command line's and the agent's limit)
MAX_LINE_CHARS = 120
MARK_START, MARK_END = "\x01", "\x02"  # around each matched word, in the index's answers
_MARKERS = re.compile("([\x01\x02])")


Spans = tuple[tuple[int, int], ...]  # [start, end) of each matched word, in characters


class LineDrift(NamedTuple):
    """A mention of code on a line a hit shows that the code check finds missing, moved or
    renamed now (integrity.code_drift's finding, as search tells it)."""

    line: int
    mention: str
    kind: str  # 'path' or 'symbol'
    status: str  # 'missing' or 'moved'
    new_name: str = ""  # a symbol git saw renamed: its name now (in new_path)
    new_path: str = ""
    news: str = ""  # what changed, as the read note says it after the mention

    def told(self) -> str:
        """What changed, in a few words: the mark beside the line (the read note's words)."""
        return f"`{self.mention}` {self.news}"

    def to_dict(self) -> dict[str, Any]:
        data = {"mention": self.mention, "kind": self.kind, "status": self.status}
        data.update(
            {k: v for k, v in (("new_name", self.new_name), ("new_path", self.new_path)) if v}
        )
        return {**data, "told": self.told()}


class Renamed(NamedTuple):
    """An exact term of the query no memory holds as written that is the new name or
    path of a mention the code check traced: the memories holding the old one."""

    term: str
    kind: str  # 'path' or 'symbol'
    held: tuple[tuple[str, int, str], ...]  # (memory, line, the old mention), best first

    def to_dict(self) -> dict[str, Any]:
        return {
            "term": self.term,
            "kind": self.kind,
            "held": [{"memory": n, "line": line, "mention": m} for n, line, m in self.held],
        }


class SearchHit(NamedTuple):
    name: str
    score: float
    read_only: bool
    lines: list[tuple[int, str]]  # (1-based line number, the line, cut to a readable length)
    # Where the query's words matched (as the index's stemmer saw them), so a page can mark
    # them without matching again: in the name, and in each of ``lines`` (same order).
    name_marks: Spans = ()
    line_marks: tuple[Spans, ...] = ()
    # Why it matched, in a few words: 'words: refund, ledger', 'similar meaning', or both.
    why: str = ""
    # The mentions of code on the shown lines that changed since (one per line at most).
    drift: tuple[LineDrift, ...] = ()

    def drift_at(self, number: int) -> LineDrift | None:
        return next((d for d in self.drift if d.line == number), None)

    def to_dict(self) -> dict[str, Any]:
        marks = self.line_marks or ((),) * len(self.lines)
        drifted = {d.line: d.to_dict() for d in self.drift}
        return {
            "name": self.name,
            "score": self.score,
            "read_only": self.read_only,
            "why": self.why,
            "name_marks": [list(span) for span in self.name_marks],
            "lines": [
                {"line": number, "text": text, "marks": [list(span) for span in spans]}
                | ({"drift": drifted[number]} if number in drifted else {})
                for (number, text), spans in zip(self.lines, marks, strict=True)
            ],
        }


# -- hits ---------------------------------------------------------------------------------------
def _unmark(text: str) -> tuple[str, Spans]:
    """``text`` without the markers, and the spans they enclosed."""
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0
    start: int | None = None
    for piece in _MARKERS.split(text):
        if piece == MARK_START:
            start = at
        elif piece == MARK_END:
            if start is not None and at > start:
                spans.append((start, at))
            start = None
        else:
            plain.append(piece)
            at += len(piece)
    return "".join(plain), tuple(spans)


def _cut(line: str, limit: int = MAX_LINE_CHARS) -> tuple[str, Spans]:
    """A line cut to ``limit`` characters around its first match, markers removed, and
    where the matched words are in what is kept."""
    plain, spans = _unmark(line.strip())
    if len(plain) <= limit:
        return plain, spans
    first = spans[0][0] if spans else 0
    start = max(0, min(first - limit // 3, len(plain) - limit))
    end = start + limit - 2
    prefix = "…" if start else ""
    shift = len(prefix) - start
    kept = tuple(
        (max(a, start) + shift, min(b, end) + shift) for a, b in spans if b > start and a < end
    )
    return prefix + plain[start:end] + ("…" if end < len(plain) else ""), kept


def best_lines(
    marked: str, count: int = MAX_LINES_PER_HIT, first: Callable[[str], bool] | None = None
) -> list[tuple[int, str, Spans]]:
    """The lines with the most matched words (earlier first on ties), in text order, each
    with where its matched words are; only lines for which ``first`` holds (of the text
    without markers), if there are any."""
    scored = []
    for number, line in enumerate(marked.split("\n"), start=1):
        hits = line.count(MARK_START)
        if hits:
            preferred = first is not None and first(_MARKERS.sub("", line))
            scored.append((not preferred, -hits, number, line))
    scored.sort()
    if scored and not scored[0][0]:
        scored = [entry for entry in scored if not entry[0]]
    return sorted((number, *_cut(line)) for _, _, number, line in scored[:count])


def lines_holding(
    text: str, terms: list[re.Pattern[str]], count: int = MAX_LINES_PER_HIT
) -> list[tuple[int, str, Spans]]:
    """The first lines of ``text`` holding one of ``terms`` (exact terms, as written), each
    with where the terms are: the lines an exact hit shows when its words matched none."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        marked = _marked(line, terms)
        if marked is None:
            continue
        found.append((number, *_cut(marked)))
        if len(found) >= count:
            break
    return found


def lines_at(
    text: str, numbers: list[int], terms: list[re.Pattern[str]]
) -> list[tuple[int, str, Spans]]:
    """The lines of ``text`` numbered ``numbers`` (1-based), ``terms`` marked in them."""
    lines = text.split("\n")
    found = []
    for number in sorted(set(numbers)):
        if 0 < number <= len(lines):
            line = lines[number - 1]
            found.append((number, *_cut(_marked(line, terms) or line)))
    return found


def _marked(line: str, terms: list[re.Pattern[str]]) -> str | None:
    """``line`` with each match of ``terms`` between markers (None: none matches)."""
    spans = sorted((m.start(), m.end()) for term in terms for m in term.finditer(line))
    if not spans:
        return None
    marked, at = [], 0
    for start, end in spans:
        if start >= at:  # overlapping matches are marked once
            marked += [line[at:start], MARK_START, line[start:end], MARK_END]
            at = end
    return "".join([*marked, line[at:]])


def first_line(text: str) -> list[tuple[int, str, Spans]]:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            return [(number, _cut(line)[0], ())]
    return []


def name_marks(name: str, marked_words: str) -> Spans:
    """Where the marked words of ``name_words(name)`` are in ``name`` itself: the words
    keep their characters and their order, only what separates them differs."""
    spans: list[tuple[int, int]] = []
    at = 0
    opening = False
    start: int | None = None
    for char in marked_words:
        if char == MARK_START:
            opening = True
        elif char == MARK_END:
            if start is not None:
                spans.append((start, at))
            start = None
        elif not char.isspace():
            found = name.find(char, at)
            if found < 0:  # not this name's words: mark nothing rather than wrongly
                return ()
            at = found + 1
            if opening:
                start, opening = found, False
    return tuple(spans)


def format_hits(hits: list[SearchHit], query: str, more_option: str = "") -> str:
    """Hits as compact text for an agent or a terminal (ten hits stay well under 2,000
    tokens: three lines of at most 120 characters each). Each hit shows why it matched,
    not its score: the score only orders this query's hits (it is scaled to the best one,
    so the last of a list can read 0), and says nothing across queries. ``more_option``
    is the option that asks for more results where the answer is read (the command
    line's ``--max-results``); without it the note says to ask for more."""
    if not query.strip():
        return "Nothing was searched: the query is empty; give the words to look for."
    notes = answer_notes(hits, more_option)
    renamed: tuple[Renamed, ...] = getattr(hits, "renamed", ())
    not_held = _not_traced(hits, renamed)
    unheld = "No memory holds " + ", ".join(_preview(term, 40) for term in not_held)
    out = _asked_for_nothing(hits)
    if hits and getattr(hits, "unspecific", False):
        return "\n".join([*out, _unspecific(hits, query), *notes])
    if not hits:
        if getattr(hits, "empty_topic", ""):
            return "\n".join([*out, *notes])
        found = f"{unheld} as written, nor its words" if not_held else None
        return "\n".join(
            [
                *out,
                f"{found or f'No memory matches {_preview(query)}'}. Try other words, a "
                "broader topic, or list the memories to browse them.",
                *notes,
            ]
        )
    out.extend(renamed_sentence(r) for r in renamed)
    out.extend(_unheld(hits, unheld) if not_held else ())
    for rank, hit in enumerate(hits, start=1):
        flag = " (read-only)" if hit.read_only else ""
        why = f"  ({hit.why})" if hit.why else ""
        out.append(f"{rank}. {hit.name}{flag}{why}")
        out.extend(f"   {number}: {text}{_drift_mark(hit, number)}" for number, text in hit.lines)
    return "\n".join(out + notes)


def _unspecific(hits: list[SearchHit], query: str) -> str:
    """No memory is specific to the query: said first, then the closest names only."""
    told = f"No memory is specific to {_preview(query)}"
    closest = ", ".join(f"`{hit.name}`" for hit in hits)
    return f"{told}; the closest: {closest}. Read one only if its name fits the task."


def _not_traced(hits: list[SearchHit], renamed: tuple[Renamed, ...]) -> list[str]:
    """The terms no memory holds whose old names no memory holds either."""
    traced = {r.term for r in renamed}
    return [term for term in getattr(hits, "not_held", ()) if term not in traced]


def _unheld(hits: list[SearchHit], unheld: str) -> list[str]:
    """The sentence on terms no memory holds: the hits hold the query's other exact
    terms, or are the closest matches."""
    exact = any(hit.why.startswith("exact: ") for hit in hits)
    return [f"{unheld} as written." if exact else f"{unheld} as written; the closest:"]


def _drift_mark(hit: SearchHit, number: int) -> str:
    found = hit.drift_at(number) if hit.drift else None
    return f"  (drifted: {found.told()})" if found is not None else ""


def renamed_sentence(renamed: Renamed) -> str:
    """'No memory holds X as written; `core` (lines 9, 14) names its old name `y`.'"""
    lines: dict[str, list[int]] = {}
    for name, line, _ in renamed.held:
        held = lines.setdefault(name, [])
        if line not in held:
            held.append(line)
    places = [
        f"`{name}` (line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))})"
        for name, numbers in lines.items()
    ]
    who = places[0] if len(places) == 1 else ", ".join(places[:-1]) + " and " + places[-1]
    olds = list(dict.fromkeys(mention for _, _, mention in renamed.held))
    what = renamed.kind if renamed.kind in ("path", "name or path") else "name"
    plural = "s" if len(olds) > 1 else ""
    if plural and what == "name or path":
        what, plural = "names or paths", ""
    return (
        f"No memory holds {_preview(renamed.term, 40)} as written; {who} "
        f"{'names' if len(places) == 1 else 'name'} its old {what}{plural} "
        + ", ".join(f"`{old}`" for old in olds[:3])
        + (" and more." if len(olds) > 3 else ".")
    )


def _asked_for_nothing(hits: list[SearchHit]) -> list[str]:
    """What the query asked for that is not there: a topic no memory is in, a memory
    named as ``mem:NAME`` that does not exist."""
    out = []
    topic = getattr(hits, "empty_topic", "")
    if topic:
        out.append(
            f"No memory is in the topic {_preview(topic, 60)}; search every topic, or list "
            "the memories to see the topics there are."
        )
    for name in getattr(hits, "not_named", ()):
        out.append(f"No memory is named {_preview(name, 60)} (mem:{name} in the query).")
    return out


def answer_notes(hits: list[SearchHit], more_option: str = "") -> list[str]:
    """What an answer says after its hits: the hits as strong that the limit left out
    (and the ``more_option`` that shows them), the weaker ones left out, and that meaning
    is not in the ranking yet (``hits`` being search.index's SearchResults)."""
    notes = []
    more = getattr(hits, "more", 0)
    if more:
        many = "match was" if more == 1 else "matches were"
        ask = "ask for more results"
        if more_option:
            ask = f"give {more_option} {min(len(hits) + more, MAX_RESULTS)}"
        notes.append(f"({more} more {many} as strong as these: {ask} to see them.)")
    left_out = getattr(hits, "left_out", 0)
    if left_out:
        weaker = "weaker match was" if left_out == 1 else "weaker matches were"
        notes.append(f"({left_out} {weaker} left out.)")
    if getattr(hits, "preparing", False):
        notes.append("(Ranked by words only: meaning-based ranking is still being prepared.)")
    return notes


def _preview(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
