"""Told at write time: a memory just written that repeats or contradicts another is
kept, and the writer gets one sentence naming the other memory, so that the next step
is an edit of that memory rather than one more copy.

Cheap on purpose: the other memories' features come from the duplicate check's cache as
the last check or write saw them (the blob the check joined them in, and the rows
written since), without looking at every file (when no check ran yet, the files are
read for at most :data:`READ_SECONDS` and only those sharing words with the text are
taken apart); the new text is compared with all of them at once as arrays, and
only the few that meet it are read and compared word for word. The text written is kept
in the cache for the next write and check.
"""

from __future__ import annotations

from typing import Any

from serena_memory.core import names as N
from serena_memory.core.display import escape_line
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.paths import read_regular_file
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates.detect import (
    RESTATED_OF_LARGER,
    RESTATED_SHARE,
    Rarity,
    detect,
)
from serena_memory.integrity.duplicates.features import (
    BANDS,
    MAX_TOKENS,
    ROWS,
    TOKEN,
    Features,
    features_of,
    words_of,
)
from serena_memory.integrity.duplicates.findings import Conflict, DuplicateReport, NearDuplicate
from serena_memory.integrity.duplicates_cache import ALWAYS_READ, kept_features, names_checked
from serena_memory.integrity.duplicates_kept import Kept
from serena_memory.integrity.listing import MemoryListingReader

READ_SECONDS = 0.5
"""Processor time a write may spend reading memories the cache does not know yet (the
largest real folder, 1,026 memories, takes about 0.4 s whole)."""
LARGEST_READ = 256 * 1024
"""A memory larger than this (about 50 ms to read and parse) is not read at write time,
neither for its features nor to compare it word for word: the check compares it."""
MAX_COMPARED = 16
"""Memories compared word for word with the text written, at most."""
READ_CHUNK = 64
MIN_SHARED_WORDS = 3
"""Words a memory read before any check must share with the text to be taken apart."""
MAX_READ_IN_FULL = 32
"""Memories read before any check that are taken apart in full, at most."""


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
    mine = features_of(text)[0]
    kept = kept_features(store, written=(name, mine))
    if not [n for n in kept.names if n != name]:  # no check ran yet: read what there is time for
        kept = _read_now(store, name, mine)
    if mine.empty or not kept.names:
        return None
    every, owners = kept.keys()
    words = every[every[:, 1] == TOKEN, 0]
    rarity = Rarity.of(np_concat(words, mine.words), len(kept.names) + 1)
    features = {name: mine}
    for index in _meeting(mine, kept, name, rarity):
        other = kept.features(index)
        if other is not None:
            features[kept.names[index]] = other
    if len(features) < 2:
        return None

    def text_of(memory: str) -> str | None:
        if memory == name:
            return text
        return _read(store, memory)

    return detect(features, text_of, rarity)


def np_concat(a: Any, b: Any) -> Any:
    import numpy as np

    return np.concatenate([a, b])


def _read_now(store: MemoryStore, name: str, mine: Features) -> Kept:
    """Before any check made the cache: the memories read for at most
    :data:`READ_SECONDS` (at least :data:`ALWAYS_READ`), of which only those sharing
    words with the text written are taken apart in full; the words of the others still
    count for how rare a word is. Reading is cheap, taking apart is not."""
    import time

    import numpy as np

    listing = MemoryListingReader(store)
    stamps = listing.stamps()  # (.., .., size): a big memory is not even read (LARGEST_READ)
    names = [
        n
        for n in names_checked(listing)
        if n != name and n in stamps and stamps[n][2] <= LARGEST_READ
    ]
    started = time.process_time()  # our own work: the same on a busy machine
    texts: dict[str, str] = {}
    ours = set(mine.words.tolist())
    shared = []
    words: dict[str, Any] = {}
    for at in range(0, len(names), READ_CHUNK):
        if at >= ALWAYS_READ and time.process_time() - started > READ_SECONDS:
            break
        chunk = listing.read(names[at : at + READ_CHUNK])[0]
        texts.update(chunk)
        for other, body in chunk.items():
            found = words_of(body)
            words[other] = np.array(sorted(found)[:MAX_TOKENS], dtype=np.uint32)
            count = len(ours & found)
            if count >= MIN_SHARED_WORDS:
                shared.append((-count, other))
    chosen = {other for _count, other in sorted(shared)[:MAX_READ_IN_FULL]}
    features = {}
    for other in texts:
        if other in chosen:
            features[other] = features_of(texts[other])[0]
        else:  # its words only: no lines, signature or statements to meet
            rows = np.stack(
                [words[other], np.full_like(words[other], TOKEN), np.zeros_like(words[other])],
                axis=1,
            )
            features[other] = Features("", np.zeros(0, np.uint32), None, rows)
    return Kept.of(features)


def _read(store: MemoryStore, name: str) -> str | None:
    """The text of a memory the cache named, through the path gate (not a read by the
    agent); None when it is gone, ignored, no longer readable or larger than
    :data:`LARGEST_READ`."""
    try:
        if store.is_ignored(name):
            return None
        project, global_ = store.gate_scopes()
        allowed = global_.allowed if N.is_global(name) else project.allowed
        path = str(store.real_path_of(name))
        return read_regular_file(path, allowed, f"memory '{name}'", LARGEST_READ).decode("utf-8")
    except (OSError, MemoryStoreError, UnicodeDecodeError):
        return None


def _meeting(mine: Features, kept: Kept, name: str, rarity: Rarity) -> list[int]:
    """The kept memories (their indexes) whose lines, signature bands, statement keys or
    rarer words meet the new text's, most in common first: arrays of all of them at once."""
    import numpy as np

    lines, owners = kept.lines()
    scores = np.bincount(owners[np.isin(lines, mine.lines)], minlength=len(kept.names))
    scores = np.where(scores >= 2, scores, 0)
    if mine.signature is not None:
        matrix, signed = kept.signatures()
        if len(signed):
            bands = mine.signature.reshape(BANDS, ROWS)
            meet = (matrix.reshape(len(signed), BANDS, ROWS) == bands).all(axis=2).any(axis=1)
            scores[signed[meet]] += 1
    every, owners = kept.keys()
    statements = every[:, 1] != TOKEN
    ours = mine.statement_keys
    if len(ours):
        both = (every[:, 0].astype(np.uint64) << np.uint64(32)) | every[:, 2]
        mine_both = (ours[:, 0].astype(np.uint64) << np.uint64(32)) | ours[:, 2]
        # the same words with other values or polarity (the same statement is no news)
        met = statements & np.isin(every[:, 0], ours[:, 0]) & ~np.isin(both, mine_both)
        scores[np.unique(owners[met])] += 1
    if len(mine.words):
        words, word_owners = every[~statements, 0], owners[~statements]
        weights = rarity.weights(words)
        held = np.isin(words, mine.words)
        shared = np.bincount(word_owners[held], weights=weights[held], minlength=len(kept.names))
        totals = np.bincount(word_owners, weights=weights, minlength=len(kept.names))
        total = float(rarity.weights(mine.words).sum())
        small, large = np.minimum(totals, total), np.maximum(totals, total)
        restated = (shared >= RESTATED_SHARE * small) & (shared >= RESTATED_OF_LARGER * large)
        scores[restated & (small > 0)] += 1
    ranked = sorted(
        (int(-scores[i]), kept.names[i], i)
        for i in np.flatnonzero(scores).tolist()
        if kept.names[i] != name
    )
    return [index for _score, _name, index in ranked[:MAX_COMPARED]]


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
        alike = "words in the other, in other words" if d.restated else "lines alike"
        return (
            f"It nearly repeats memory '{_shown(other)}' ({round(d.similarity * 100)}% of their "
            f"{alike}): edit that memory instead and delete this one, or say in one that "
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
