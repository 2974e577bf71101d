"""Times and revisions as a person or an agent types them: `2h`, `3 days ago`,
`2026-11-30T14:05`, an entry id or a unique prefix of one. Nothing typed reaches git's
revision parser (whose `:/regex` form would run an unbounded search over every entry), and
every time out of range is one sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from serena_memory.core.errors import HistoryError, Remedy

# -- times and revisions people type ---------------------------------------------------------
_RELATIVE = re.compile(
    r"^\s*(\d+)\s*(s|sec|second|seconds|m|min|minute|minutes|h|hour|hours|"
    r"d|day|days|w|week|weeks)(\s+ago)?\s*$",
    re.ASCII,
)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 1, 1, tzinfo=UTC)
"""Times outside these years are no moment of a history (git counts seconds from 1970):
they are refused in one sentence, never carried into date arithmetic that overflows."""
MAX_TYPED = 100  # characters of a typed time or revision: more is certainly neither
TIME_EXAMPLES = "2h, 3 days ago, yesterday, 2026-11-30 or 2026-11-30T14:05"


class TimeOutOfRange(HistoryError):
    """A time that reads as one but lies before 1970 or after the year 9998."""


def shown_typed(text: str) -> str:
    """A typed value as a message quotes it: one printable line, bounded."""
    return repr(text if len(text) <= 40 else text[:40] + "...")


_NAMED_DAYS = {"today": 0, "yesterday": 1}
# Words that carry on a time a shell split at its spaces (`--since last week`,
# `--since 3 days ago`): the rest of the phrase, never a memory name or a project folder.
_TIME_WORDS = frozenset(
    [
        "ago",
        "last",
        "past",
        "this",
        "s",
        "sec",
        "second",
        "seconds",
        "m",
        "min",
        "minute",
        "minutes",
        "h",
        "hour",
        "hours",
        "d",
        "day",
        "days",
        "w",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
    ]
)


def split_phrase(value: str, following: list[str]) -> str:
    """The time a shell split into words, when ``value`` alone is no time and the words
    after it carry it on (``last`` ``week``): ``last week``, so the person is told to
    quote it; else empty."""
    words = [value]
    for word in following:
        if word.lower() not in _TIME_WORDS:
            break
        words.append(word)
    if len(words) == 1:
        return ""
    try:
        parse_when(value)
    except HistoryError:
        return " ".join(words)
    return ""


def quoting_hint(phrase: str, option: str = "--since") -> str:
    """What to type instead of a time split into words after ``option``: the phrase in
    quotes, or, when it is no form taken either (``last week``), one that is."""
    try:
        parse_when(phrase)
    except HistoryError:
        return f"put a time in quotes, in a form taken ({TIME_EXAMPLES}): {option} '1 week ago'"
    return f"put it in quotes: {option} '{phrase}'"


def parse_when(text: str, now: datetime | None = None) -> datetime:
    """A moment as a person types it: ``2h``, ``3 days ago``, ``yesterday`` or ``today``
    (from midnight, local time), ``2026-11-30`` or an ISO
    date-time (local time unless it says otherwise). The one time parser of every entry
    point: anything else, or a moment before 1970 or after 9998, is one clear error."""
    now = now or datetime.now(UTC)
    out_of_range = TimeOutOfRange(
        f"the time {shown_typed(text)} is out of range; give a time between 1970 and 9998, "
        f"e.g. {TIME_EXAMPLES}"
    )
    unreadable = HistoryError(
        f"can't read {shown_typed(text)} as a time; the forms taken are an age in "
        "seconds, minutes, hours, days or weeks (90s, 2h, 3 days ago), today or yesterday "
        "(from midnight), a date (2026-11-30) or a date and time (2026-11-30T14:05)"
    )
    if len(text) > MAX_TYPED:
        raise unreadable
    day = _NAMED_DAYS.get(text.strip().lower())
    if day is not None:  # the start of that day, in local time
        midnight = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        return (midnight - timedelta(days=day)).astimezone(UTC)
    match = _RELATIVE.match(text.lower())
    if match:
        unit = match.group(2)
        seconds = (
            int(match.group(1)) * _UNITS["m" if unit.startswith("mi") or unit == "m" else unit[0]]
        )
        if seconds > (now - EARLIEST).total_seconds():
            raise out_of_range
        return now - timedelta(seconds=seconds)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        # a well-formed date whose year or day can't exist is out of range, not unreadable
        if re.fullmatch(r"\s*\d{4}-\d{2}-\d{2}([T ].*)?", text, re.ASCII):
            raise out_of_range from None
        raise unreadable from None
    try:
        if moment.tzinfo is None:
            moment = moment.astimezone()
        moment = moment.astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        raise out_of_range from None
    if not EARLIEST <= moment < LATEST:
        raise out_of_range
    return moment


MIN_ENTRY_ID = 4  # characters of an entry id that name it (more when they are ambiguous)
_ENTRY_ID = re.compile(rf"[0-9a-f]{{{MIN_ENTRY_ID},40}}", re.ASCII)


@dataclass(frozen=True)
class Revision:
    """What a person or an agent gave as a revision: an entry id (whole or its first
    characters), a time, or a text that may be either (``20261130``). Nothing typed ever
    reaches git's own revision syntax, whose ``:/text`` runs a regular expression over
    every entry."""

    text: str
    entry_id: str | None
    when: datetime | None


def parse_revision(text: str, now: datetime | None = None) -> Revision:
    """The one parser of revisions for every entry point (see :class:`Revision`)."""
    typed = text.strip()
    entry_id = typed.lower() if _ENTRY_ID.fullmatch(typed.lower()) else None
    try:
        when: datetime | None = parse_when(typed, now)
    except TimeOutOfRange:
        if entry_id is None:
            raise
        when = None
    except HistoryError:
        when = None
    if entry_id is None and when is None:
        raise HistoryError(
            f"{shown_typed(text)} is neither a history entry nor a time; give a time such as "
            f"{TIME_EXAMPLES}, or an entry id (at least its first {MIN_ENTRY_ID} characters) "
            "from ",
            remedy=Remedy("history"),
        )
    return Revision(text, entry_id, when)


# -- reading and undoing, for the entry points -------------------------------------------------
