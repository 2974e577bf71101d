"""Told at write time: a memory just written that repeats or contradicts another is
kept, and the writer gets one sentence naming the other memory, so that the next step
is an edit of that memory rather than one more copy.

Cheap on purpose: the other memories' features come from the duplicate check's cache
(:func:`serena_memory.integrity.duplicates_cache.current_features`, reading for at most
:data:`READ_SECONDS` what changed since), the new text is compared with them as arrays,
and only the few that meet it are read and compared word for word.
"""

from __future__ import annotations

from serena_memory.core import names as N
from serena_memory.core.display import escape_line
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates.detect import detect
from serena_memory.integrity.duplicates.features import BANDS, ROWS, Features, features_of
from serena_memory.integrity.duplicates.findings import Conflict, DuplicateReport, NearDuplicate
from serena_memory.integrity.duplicates_cache import current_features
from serena_memory.integrity.listing import MemoryListingReader

READ_SECONDS = 0.2
"""How long a write may spend reading memories the cache does not know yet."""
MAX_COMPARED = 16
"""Memories compared word for word with the text written, at most."""


def write_note(store: MemoryStore, name: str, text: str) -> str:
    """One sentence (with a leading space) naming the memory that the text just written
    to ``name`` nearly duplicates or contradicts; '' when none, or when the check fails
    (a write never fails because of it)."""
    try:
        name = N.normalize_name(name)
        report = _report(store, name, text)
    except Exception:  # noqa: BLE001 - the note is advice; the write itself succeeded
        return ""
    return _sentence(report, name) if report is not None else ""


def _report(store: MemoryStore, name: str, text: str) -> DuplicateReport | None:
    listing = MemoryListingReader(store)
    others = current_features(store, listing, READ_SECONDS)
    others.pop(name, None)
    mine = features_of(text)[0]
    if mine.empty or not others:
        return None
    met = _meeting(mine, others)
    if not met:
        return None
    features = {name: mine, **{n: others[n] for n in met}}

    def text_of(memory: str) -> str | None:
        return text if memory == name else listing.read([memory])[0].get(memory)

    return detect(features, text_of)


def _meeting(mine: Features, others: dict[str, Features]) -> list[str]:
    """The memories whose lines, signature bands or statement keys meet the new text's,
    most lines in common first."""
    import numpy as np

    keys: dict[int, set[int]] = {}
    for k, _i, v in mine.keys:
        keys.setdefault(k, set()).add(v)
    scores: dict[str, int] = {}
    bands = None if mine.signature is None else mine.signature.reshape(BANDS, ROWS)
    for other, f in others.items():
        score = int(np.isin(f.lines, mine.lines, assume_unique=True).sum())
        score = score if score >= 2 else 0
        if bands is not None and f.signature is not None and not score:
            score = int((f.signature.reshape(BANDS, ROWS) == bands).all(axis=1).any())
        if keys and any(k in keys and v not in keys[k] for k, _i, v in f.keys):
            score += 1
        if score:
            scores[other] = score
    return sorted(scores, key=lambda n: (-scores[n], n))[:MAX_COMPARED]


def _sentence(report: DuplicateReport, name: str) -> str:
    """The first finding about ``name`` in words, and how many more there are."""
    said: list[str] = []
    for group in report.identical:
        if name in group:
            other = next(n for n in group if n != name)
            said.append(
                f"Memory '{_shown(other)}' has the same text: keep one of the two (delete "
                "this one or the other) instead of both."
            )
    pairs = [d for d in (*report.memories, *report.sections) if name in (d.first, d.second)]
    said += [_pair_sentence(d, name) for d in pairs]
    conflicts = [c for c in report.conflicts if name in (c.first, c.second)]
    conflicts += [c for d in pairs for c in d.conflicts]
    said += [_conflict_sentence(c, name) for c in conflicts]
    if not said:
        return ""
    more = len(said) - 1
    tail = f" ({more} more: `serena memories check --duplicates`)" if more else ""
    return " " + said[0][:-1] + tail + said[0][-1]


def _shown(name: str) -> str:
    return escape_line(name)


def _pair_sentence(d: NearDuplicate, name: str) -> str:
    other = d.second if d.first == name else d.first
    if not d.section:
        return (
            f"It nearly repeats memory '{_shown(other)}' ({round(d.similarity * 100)}% of their "
            f"lines alike): edit that memory instead and delete this one, or say in one that "
            f"it supersedes the other."
        )
    mine, theirs = (
        (d.first_lines, d.second_lines) if d.first == name else (d.second_lines, d.first_lines)
    )
    return (
        f"Its lines {mine[0]}-{mine[1]} repeat lines {theirs[0]}-{theirs[1]} of memory "
        f"'{_shown(other)}': keep that part in one of them and refer to it with "
        f"`mem:{_shown(other)}`."
    )


def _conflict_sentence(c: Conflict, name: str) -> str:
    if c.first == name:
        line, value, other, other_line, other_value = (
            c.first_line,
            c.first_value,
            c.second,
            c.second_line,
            c.second_value,
        )
    else:
        line, value, other, other_line, other_value = (
            c.second_line,
            c.second_value,
            c.first,
            c.first_line,
            c.first_value,
        )
    if c.negation:
        return (
            f"Its line {line} contradicts memory '{_shown(other)}' line {other_line} (the "
            "same statement, negated in one of them): fix the one that is wrong, or say which "
            "one supersedes the other."
        )
    return (
        f"Its line {line} contradicts memory '{_shown(other)}' line {other_line} "
        f"(`{escape_line(value)}` here, `{escape_line(other_value)}` there): fix the one that "
        f"is wrong, or say which one supersedes the other."
    )
