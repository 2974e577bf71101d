"""Mentions a memory itself says are not there: "No `setup.py`", "`old.py` was removed",
"Use `pyproject.toml` instead of `setup.py`", "TODO: create `src/cache.py`", a struck
out ``~~`x.py`~~``, a past name ("(was `merge.ts`)", "renamed from `a.py`"), the choice
not taken ("`for...of` over `forEach`"). Such a mention is no claim that the code has
it, so its absence is no drift.

Only cues in the mention's own clause count (from the last ``.``, ``;``, ``!``, ``?`` or
arrow before it to the next one after it, at most :data:`REACH` characters each way): a
word right before it ("no", "without", "instead of", ", not"), a plan right before it ("will add",
"TODO: create", "planned:"), a removal at the clause's start that the mention follows without
a preposition in between ("Removed `a.py` and `b.py`", but not "Removed the loop from
`c.py`"), or a removal or plan right after it ("`a.py` was deleted", "`b.py` (to be
created)"). Every pattern is anchored and bounded: a line of any length costs little.
"""

from __future__ import annotations

import re
from typing import Protocol, TypeVar

REACH = 240
"""How far before and after a mention its clause is read for cues."""

_BOUNDARY = re.compile(r"[.;!?](?:\s|$)|\s[-–—]\s|→|->|=>|\|")

_NOT_A_PREPOSITION = r"(?!(?:to|in|on|for|from|of|at|with|by|into|inside|under|changes?)\s)"
_RIGHT_BEFORE = re.compile(
    r"(?:\b(?:no|without|instead\s+of|rather\s+than|formerly|previously|legacy|lacks?|absence\s+of"
    rf"|removed|deleted)\s+(?:{_NOT_A_PREPOSITION}[\w-]+\s+){{0,2}}"
    r"(?:`[^`\n]+`\s*(?:/|,|\band\b|\bor\b)\s*){0,4}|~~\s*|,\s*not\s+)$",
    re.IGNORECASE,
)
"""A cue right before the mention, with at most two words (no preposition) between, or
before a list the mention ends ("legacy `projects.json` / `users.json`")."""

_PAST_OR_PASSED_OVER = re.compile(
    r"(?:\(\s*was|\b(?:renamed|moved)\s+from|\bused\s+to\s+be|`[^`]*`\s+over"
    r"|^\W*(?:from|old|before):(?:\*\*|__)?)\s+$",
    re.IGNORECASE,
)
"""Right before the mention, a name the memory marks as past ("(was `merge.ts`)", "renamed
from `a.py`", "used to be `b.py`", "# OLD: a.py", "Before: `a.py`") or as the one not
chosen ("`for...of` over `forEach`")."""

_PLAN = re.compile(
    r"\b(?:(?:will|to|should|must|going\s+to|needs?\s+to|plans?\s+to|planned\s+to|todo:?"
    r"|fixme:?|tbd:?|later:?)\s+(?:also\s+)?(?:add|create|write|introduce|implement|build"
    r"|generate|set\s+up)|planned:?|todo:?|tbd:?|not\s+yet\s+(?:added|created|written))\s+"
    rf"(?:{_NOT_A_PREPOSITION}[\w-]+\s+){{0,3}}$",
    re.IGNORECASE,
)
"""A plan right before the mention ("will add `x.py`", "TODO: create `x.py`"); the file
a plan adds something *to* ("will add a route to `routes.ts`") is no plan."""

_REMOVAL_START = re.compile(
    r"^(?:[^:]{0,60}:)?[\W\d_]*(?:removed|deleted|delete|remove|dropped|deprecated|obsolete|retired"
    r"|superseded|replaced|renamed|moved|gone)\b(?P<between>.*)$",
    re.IGNORECASE,
)
_PREPOSITION = re.compile(
    r"\b(?:with|by|from|in|into|to|for|of|on|at|favou?r|than|now|as)\b", re.IGNORECASE
)

_OBJECT = (
    r"\s+(?:[\"'“]|(?!(?:in|on|at|since|by|after|before|during|with|as|because|and|or|from|for"
    r"|via|per|when|while|entirely|completely|fully|permanently|already|now|too|also|later|here"
    r"|upstream|it|the\s+file)\b)[A-Za-z])"
)
"""What was removed, right after the word: a quote or a word that is none of the words
that say when, how or why the thing itself went ("removed in v2", "deleted entirely")."""
_TAKEN_OUT = rf"(?:removed|deleted|dropped)\b(?!{_OBJECT})"
"""Removed, deleted or dropped, but not with an object after it: "`a.ts` - Removed legacy
format handling" took code out of the file, it did not remove it."""
_TAKEN_FROM = re.compile(
    rf"`?(?:\*\*|__)?\s*[-–—:]\s*(?:removed|deleted|dropped){_OBJECT}", re.IGNORECASE
)
"""An item's description that says what was taken out of its head ("`a.test.ts`: Removed
"should fall back""): the head is still there, under a heading of removals too."""
_AUX = r"(?:(?:was|were|is|are|has\s+been|have\s+been|had\s+been|got|gets|being|been)\s+)"
_ADVERB = r"(?:(?:now|since|also|already|then|recently|fully|completely|entirely|long)\s+)"
_RIGHT_AFTER = re.compile(
    r"^(?:\s*(?:,|and|or|&|`[^`]*`|\(|\)|:|-|–|—|\#|//|※))*\s*(?:"
    rf"{_AUX}?{_ADVERB}?(?:{_TAKEN_OUT}|deprecated|gone|retired|superseded|obsolete"
    r"|renamed|moved\s+(?:to|into|away)|consolidated\s+in(?:to)?|no\s+longer)\b(?!\s+from\s+`)"
    rf"|{_AUX}{_ADVERB}?replaced\b"
    r"|(?:will|would|shall|is\s+to|are\s+to|to|must|should|needs?\s+to)\s+be\s+(?:added|created"
    r"|written|introduced|implemented|generated|built)\b"
    r"|would\s+(?:be\s+(?:present|there)|exist)\b"
    r"|(?:planned|todo|tbd|future|not\s+yet\b)"
    r"|(?:does|do|did)(?:n't|\s+not)\s+exist|(?:is|are)(?:n't|\s+not)\s+(?:there|present|yet)"
    r"|not\s+(?:yet\s+|currently\s+)?(?:created|implemented|written|added|present)"
    r"|never\s+(?:created|written)"
    r"|unverified|unconfirmed|to\s+be\s+(?:confirmed|verified)"
    r"|要確認|未確認|確認中|待确认|未确认"
    r")",
    re.IGNORECASE,
)
"""A removal or a plan right after the mention (other mentions and ``and`` may come
between: "`a.py` and `b.py` were removed"; not "`a.js`: removed from `sync()`", code
taken out of it), or in the comment after a tree's name
("`02-planned.md    # never written`"), or a mark that it is still to be checked
("`legacy_runner.go` ※要確認", "`x.py` (unverified)"), or a condition ("npm
(package-lock.json would be present)"): the note does not claim it."""


def may_say_absent(line: str) -> bool:
    """A quick test for a whole line: without a cue word no mention of it is said absent."""
    low = line.lower()
    for word in _CUE_WORDS:  # a loop, not any(): this runs for every line with a mention
        if word in low:
            return True
    if not low.isascii():
        for word in _CJK_CUE_WORDS:
            if word in low:
                return True
    return "no" in low and _NO.search(low) is not None


def said_absent(line: str, start: int, end: int) -> bool:
    """Whether the line's text around ``line[start:end]`` (a mention) says it is absent,
    removed, replaced, deprecated or only planned (for a line :func:`may_say_absent`)."""
    before, after = _clause(line, start, end)
    near = before[-_NEAR:]  # the cues right before: a few words
    if _RIGHT_BEFORE.search(near) or _PLAN.search(near) or _PAST_OR_PASSED_OVER.search(near):
        return True
    removal = _REMOVAL_START.match(_CODE.sub("M", before))
    if removal and not _PREPOSITION.search(removal.group("between")):
        return True
    if _RIGHT_AFTER.match(after) or _row_status_gone(line) or _noted_gone(line, after, end):
        return True
    if _ITEM_HEAD.match(line, 0, start) and _ITEM_GONE.match(line, end):
        return True
    if (label := _GONE_LABEL.match(line)) is not None and label.end() <= start:
        return True
    if _ITEM_HEAD_MARKED.match(line, 0, start) is None:
        return False
    return bool(_GONE_CJK.search(line, end) or _DELETED_CJK_AFTER.match(line, end))


def _noted_gone(line: str, after: str, end: int) -> bool:
    """Whether a note in brackets right after the mention says it is unused or was split."""
    return bool(_UNUSED_NOTE.search(after) or _SPLIT_NOTE.match(line, end))


_SPLIT_NOTE = re.compile(
    r"`?(?:\*\*|__)?\s*\(\s*~?\d[\d,]*\s*(?:lines?\s*)?(?:→|->)\s*\d+\s+(?:files|modules|parts)\s*\)",
    re.IGNORECASE,
)
"""A note right after a file that it was split ("### Phase 2: `storage/code.go` (801 → 6
files)"): a refactoring's record of a file that went."""
_UNUSED_NOTE = re.compile(
    r"\((?:[^()\n]{0,60}[,;]\s*)?(?:unused|not\s+used|not\s+in\s+use|no\s+longer\s+used)\s*\)",
    re.IGNORECASE,
)
"""A note in brackets after the mention, in its clause, that says it is not used ("`build_mingw/`
# MinGW build output (not used)", "`game/` # DLL source (alternative structure, unused)"):
the memory does not count on it, so its going is no drift."""
_GONE_LABEL = re.compile(
    r"\s*(?:(?:[-*+]|\d+[.)])\s+)?(?:\*\*|__)?(?:[^\W\d_][\w-]*\s+){0,2}\(?"
    r"(?:legacy|deprecated|obsol[eè]te|veraltet|obsoleto)\)?(?:\s+(?:system|code|files?|versions?"
    r"|config(?:uration)?|modules?|tests?|scripts?|implementation|api|entry|path|layout))?"
    r"\s*(?:\*\*|__)?\s*(?::|\((?=`))",
    re.IGNORECASE,
)
"""A line's short label that says what it names is legacy or obsolete ("- **Legacy**:
`.env` files + `config_old.py`", "2. **Legacy system** (`config_old.py`)", "- Test ancien
(obsolète): `tests/x.py`"): the memory expects it to go, so its going is no drift."""
_ITEM_HEAD = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+(?:\*\*|__)?`?$")
"""The mention heads a list item (``- `stress.py` — ...``)."""
_ITEM_GONE = re.compile(
    rf"`?(?:\*\*|__)?\s*[-–—:]\s*(?:{_TAKEN_OUT}|deprecated|obsolete|retired|gone"
    r"|no\s+longer|(?:replaced|superseded)\s+by)\b(?!\s+from\s+`)",
    re.IGNORECASE,
)
"""The item's description, after its dash, says the head is gone ("— Replaced by X"),
not that code was taken out of it ("`a.js`: Removed from `sync()`")."""
_GONE_CJK = re.compile(
    r"废弃|弃用|已删除|已移除|被[^，。,.;]{1,30}替代|廃止|削除(?:済|された)"
    r"|❌\s*(?:\*\*|__)?(?:削除|不要|删除|삭제)"
)
"""Chinese and Japanese words that say a thing is deprecated, removed or replaced: no word
boundary marks them, so they are looked for anywhere in an item's description."""
_DELETED_CJK_AFTER = re.compile(r"`?(?:\*\*|__)?\s?(?:を)?(?:削除|删除|삭제)")
"""An item's head followed by the word for deleted: a changelog's "- ✅ `a.ts` 削除"."""
_ITEM_HEAD_MARKED = re.compile(
    r"\s*(?:(?:[-*+]|\d+[.)])\s+(?:[✅✔☑✓❌]\s*)?|❌\s*)(?:~~)?(?:\*\*|__)?`?$"
)
"""The mention heads a list item, or a line marked ❌."""
_ROW_GONE = re.compile(
    r"\|\s*(?:\*\*|__|~~)?\s*(?:archived|removed|deleted|deprecated|obsolete|retired|superseded"
    r"|replaced)\s*(?:\*\*|__|~~)?\s*(?=\|)",
    re.IGNORECASE,
)


def _row_status_gone(line: str) -> bool:
    """Whether ``line`` is a table row one of whose cells is a status saying its subject
    is gone or archived (``| docs/plans/x.md | 2026-01-21 | Archived |``)."""
    return line.lstrip().startswith("|") and _ROW_GONE.search(line) is not None


_CODE = re.compile(r"`[^`]*`")
_CUE_TEXT = """without instead rather formerly previously lack absen remov delet drop deprecat
    obsol legacy veraltet used
    retired supersed replac renamed moved consolidat gone longer archiv todo fixme tbd
    plan yet will not should must need going exist there present ~~ future later (was over
    verified confirmed from: old: before: →"""
_CUE_WORDS = (*_CUE_TEXT.split(), "to be", "used to", "never written", "never created", "would")
"""Parts of the cue words: a line holding none of them (nor the word "no") has no mention
said absent."""
_CJK_CUE_WORDS = ("废弃", "弃用", "删除", "移除", "替代", "廃止", "削除", "確認", "确认")
"""The same in Chinese and Japanese, looked for only in a line that is not ASCII."""
_NO = re.compile(r"\bno\b")
_NEAR = 100
"""How far before a mention the cues right before it are looked for."""


def _clause(line: str, start: int, end: int) -> tuple[str, str]:
    """The text of the mention's clause before and after it (bounded by :data:`REACH`)."""
    head = line[max(0, start - REACH) : start]
    cut = 0
    for found in _BOUNDARY.finditer(head):
        cut = found.end()
    tail = line[end : end + REACH]
    stop = _BOUNDARY.search(tail)
    return head[cut:], tail[: stop.start()] if stop else tail


_GONE = r"(?:archived|deleted|removed|deprecated|obsolete|retired|superseded|no\s+longer\s+exists?)"
_GONE_HEADING = re.compile(
    rf"^\s{{0,3}}#{{1,6}}\s+[\W\d_]*(?:(?:{_GONE}|missing)\b.*|\S+(?:\s+\S+)?\s+{_GONE})\W*$",
    re.I,
)
"""A heading that says what is under it is gone or not there yet: "## Deleted Components",
"## Files removed", "#### Missing (Critical):"."""
_GONE_HEADING_CJK = re.compile(
    r"^\s{0,3}#{1,6}\s+\S{0,6}(?:废弃|弃用|已删除|删除|移除|廃止|削除|삭제)\S{0,8}\s*"
    r"(?:[（(][^）)]{0,40}[）)])?\s*$"
)
"""The same in Chinese or Japanese: "### 废弃部分" (the deprecated part)."""
_GONE_INTRO = re.compile(rf"^[^#|`\s-].{{0,60}}\b{_GONE}\b[^`]{{0,20}}:\s*$", re.I)
"""A short line that opens a list of what is gone: "These no longer exist:"."""
_PLAN_INTRO = re.compile(
    r"^(?=[^#|`\s-]).{0,40}\b(?:(?:need|needs|have|has)\s+to\s+(?:be\s+)?(?:create|add|write)"
    r"|to\s+be\s+(?:created|added|written)|will\s+(?:create|add)|planned|todo)\b[^`]{0,30}:\s*$",
    re.I,
)
"""The last sentence of a line that opens a list of files still to be made: "Need to
create new files for:", "Files to be created:"."""
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_MARKED_START = re.compile(r"❌\s*(?:\*\*|__)?`?")
_ITEM_START = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+(?:\*\*|__)?`?")
_GONE_WORDS = (
    "archived",
    "deleted",
    "removed",
    "deprecated",
    "obsolete",
    "retired",
    "supersed",
    "no longer exist",
    "creat",
    "planned",
    "missing",
)


class _Mention(Protocol):
    @property
    def line(self) -> int: ...
    @property
    def text(self) -> str: ...


_M = TypeVar("_M", bound=_Mention)


def listed_gone(text: str, found: list[_M], fenced: list[bool]) -> list[_M]:
    """``found`` (the mentions of ``text``) but those heading an item of a list the memory
    says is gone (:func:`_gone_items`; ``fenced``: whether each line is a fenced block's)."""
    gone = _gone_items(text, fenced)
    if not gone:
        return found
    return [m for m in found if not _heads_gone_item(gone.get(m.line), m.text)]


def _gone_items(text: str, fenced: list[bool]) -> dict[int, str]:
    """Line number -> line of each list item under a heading, or a short line ending in
    ``:``, that says its items are gone ("## Deleted Components", "These no longer exist:")
    or still to be made ("Need to create new files for:"), and of each line of a tree
    drawn under such a heading."""
    if not _may_list_gone(text.lower()):
        return {}
    reading = _GoneReading()
    lines = text.splitlines()
    for number, (line, in_block) in enumerate(zip(lines, fenced, strict=True), start=1):
        if reading.holds(line, in_block):
            reading.items[number] = line
    return reading.items


class _GoneReading:
    """Where a memory's reading is: under a heading that says its items are gone (of
    ``gone_level``, down to the next heading as high), or after a line that says so."""

    def __init__(self) -> None:
        self.items: dict[int, str] = {}
        self.gone_level = 0
        self.intro = 0  # after a line that says so: 1 before its list, 2 in it, to its end

    def holds(self, line: str, in_block: bool) -> bool:
        """Whether ``line`` is an item of what is gone (and the reading moves on)."""
        if in_block:  # a drawn tree of what is gone (`├── old.ts`)
            return bool(self.gone_level) and _DRAWN.match(line) is not None
        level = _level(line)
        if level:
            if not self.gone_level or level <= self.gone_level:
                self.gone_level = level if _says_gone_heading(line) else 0
            self.intro = 0
        elif (self.gone_level or self.intro) and _is_item(line):
            self.intro = 2 if self.intro else 0
            return True
        elif _opens_gone_list(line):
            self.intro = 1
        elif self.intro == 2 and not line[:1].isspace():
            self.intro = 0  # a blank line or a paragraph ends the list
        return False


_DRAWN = re.compile(r"^[\s│|]*(?:[├└]──|[|`+]--)[─-]*\s*")
"""A line of a drawn tree, up to its name."""


def _level(line: str) -> int:
    """The level of a Markdown heading (``### x``: 3), 0 for any other line."""
    return len(line.lstrip(" ")) - len(line.lstrip(" ").lstrip("#")) if _HEADING.match(line) else 0


def _may_list_gone(low: str) -> bool:
    """Whether the (lowered) text has a word that a gone or planned list needs: most
    memories have none, and skip the walk line by line."""
    return any(word in low for word in _GONE_WORDS) or (
        not low.isascii() and any(word in low for word in _CJK_CUE_WORDS)
    )


def _says_gone_heading(line: str) -> bool:
    """Whether a heading says what is under it is gone (in English, Chinese or Japanese)."""
    return bool(_GONE_HEADING.match(line) or _GONE_HEADING_CJK.match(line))


def _is_item(line: str) -> bool:
    """Whether a line is an item of a list: a bullet, a number, or a line marked ``❌``."""
    return bool(_ITEM.match(line)) or line.startswith("❌")


def _opens_gone_list(line: str) -> bool:
    """Whether a line, or its last sentence, opens a list of what is gone or still to be
    made ("These no longer exist:", "Need to create new files for:")."""
    return bool(_GONE_INTRO.match(line) or _PLAN_INTRO.match(line.rsplit(". ", 1)[-1]))


def _heads_gone_item(line: str | None, text: str) -> bool:
    """Whether ``text`` (a mention) heads the item ``line`` of a list said to be gone,
    and is not the place it went (a path into an archive)."""
    if line is None or "archive" in text.lower():
        return False
    found = _ITEM_START.match(line) or _MARKED_START.match(line) or _DRAWN.match(line)
    if found is None or not line.startswith(text, found.end()):
        return False
    return _TAKEN_FROM.match(line, found.end() + len(text)) is None
