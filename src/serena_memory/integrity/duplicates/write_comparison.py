"""Told at write time: a memory just written that repeats or contradicts another is
kept, and the writer gets one sentence naming the other memory, so that the next step
is an edit of that memory rather than one more copy.

Cheap on purpose, and bounded by the text written, not by the folder: the text's keys
are looked up in the index the duplicate check's cache keeps
(:mod:`serena_memory.integrity.duplicates.index`), in plain Python, and only the few
memories that meet it are compared with it (numpy is loaded only then); the text's own
row is kept for the next write and check. Before any check made the index, the
memories are read only when there are at most :data:`ALWAYS_READ` of them (a small
project is compared whole); in a larger folder the note says nothing until a check ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from serena_memory.core import names as N
from serena_memory.core.display import escape_line
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.paths import read_regular_file
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates.detect import MIN_RESTATED_WORDS, Rarity, detect
from serena_memory.integrity.duplicates.feature_arrays import Kept
from serena_memory.integrity.duplicates.features import (
    BANDS,
    MAX_TOKENS,
    ROWS,
    TOKEN,
    Features,
    Print,
    features_of,
    fingerprint,
    line_keys,
    said_keys,
    slot_rows,
    word_keys,
    words_of,
)
from serena_memory.integrity.duplicates.features_cache import (
    Met,
    decoded,
    look_up,
    names_checked,
)
from serena_memory.integrity.duplicates.findings import Conflict, DuplicateReport, NearDuplicate
from serena_memory.integrity.duplicates.rewrites import SIEVE_SHARE
from serena_memory.integrity.duplicates.slots import SLOT_MARK
from serena_memory.integrity.duplicates.text import Parsed, parse
from serena_memory.integrity.duplicates.write_precheck import (
    ALWAYS_READ,
    Comparable,
    cache_path,
    more_than,
)
from serena_memory.integrity.listing import MemoryListingReader

LARGEST_READ = 256 * 1024
"""A memory larger than this (about 50 ms to read and parse) is not read at write time,
neither for its features nor to compare it word for word: the check compares it."""
MAX_COMPARED = 16
"""Memories compared word for word with the text written, at most."""
MIN_SHARED_WORDS = 3
"""Words a memory read before any check must share with the text to be taken apart."""
MAX_READ_IN_FULL = 32
"""Memories read before any check that are taken apart in full, at most."""
MAX_LINES_LOOKED_FOR = 64
"""A text written with more content lines than this is not looked for line by line in
another before that one is parsed."""


def write_note(
    store: MemoryStore, name: str, text: str, comparable: Comparable | None = None
) -> str:
    """One sentence (with a leading space) naming the memory that the text just written
    to ``name`` (as the write normalized it) nearly duplicates or contradicts; '' when
    none, or when the check fails (a write never fails because of it). ``comparable``:
    what the precheck found (None: nothing looked at yet)."""
    try:
        report = _report(store, name, text, comparable or Comparable(cache_path(store), None))
    except Exception:  # noqa: BLE001 - the note is advice; the write itself succeeded
        return ""
    return _sentence(report, name) if report is not None else ""


def _report(
    store: MemoryStore, name: str, text: str, comparable: Comparable
) -> DuplicateReport | None:
    mine, parsed = fingerprint(text)
    if not mine.lines and not mine.keys:
        return None
    met = None if comparable.cache is None else look_up(store, name, mine, comparable.cache)
    if met is None:  # no check made the index yet
        return _small_folder(store, name, text, _Reach.of(mine, parsed), comparable.small)
    if not met.rows and not met.damaged:
        return None
    return _compared(store, name, text, met)


def _compared(store: MemoryStore, name: str, text: str, met: Met) -> DuplicateReport | None:
    """The text compared with the memories it met, as the check would compare them."""
    import numpy as np

    features = {name: features_of(text)[0]}
    for row in met.rows:
        found = decoded(row[1:])
        if found is not None:
            features[row[0]] = found
    for other in met.damaged:  # its row can't be used: its file is read again
        body = _read(store, other)
        if body is not None:
            features[other] = features_of(body)[0]
    if len(features) < 2:
        return None
    words = sorted(met.counts)
    rarity = Rarity(
        np.array(words, dtype=np.uint32),
        np.array([met.counts[w] for w in words], dtype=np.int64),
        met.memories,
    )
    return detect(features, lambda memory: text if memory == name else _read(store, memory), rarity)


def _small_folder(
    store: MemoryStore, name: str, text: str, reach: _Reach, small: bool | None
) -> DuplicateReport | None:
    """Before any check: the text (``reach``: what of it another text can meet) compared
    with every memory when there are at most :data:`ALWAYS_READ` (None, and nothing read,
    in a larger folder); ``small``: whether there are, when that was counted already."""
    if not reach.anything():
        return None
    if not (small if small is not None else not more_than(store, ALWAYS_READ)):
        return None
    texts = _texts(store, name)
    if not any(reach.met_by(body) for body in texts.values()):
        return None  # decided in plain Python: no numpy loaded for a write that meets nothing
    mine = features_of(text)[0]
    kept = _read_now(texts, mine)
    if mine.empty or not kept.names:
        return None
    every, _owners = kept.keys()
    words = every[every[:, 1] == TOKEN, 0]
    rarity = Rarity.of(np_concat(words, mine.words), len(kept.names) + 1)
    features = {name: mine}
    for index in _meeting(mine, kept, name, rarity):
        other = kept.features(index)
        if other is not None:
            features[kept.names[index]] = other
    if len(features) < 2:
        return None
    return detect(features, lambda memory: text if memory == name else _read(store, memory), rarity)


def np_concat(a: Any, b: Any) -> Any:
    import numpy as np

    return np.concatenate([a, b])


def _texts(store: MemoryStore, name: str) -> dict[str, str]:
    """Every memory but ``name`` the check compares, read (a big one is not even read:
    :data:`LARGEST_READ`)."""
    listing = MemoryListingReader(store)
    stamps = listing.stamps()  # (.., .., size)
    names = [
        n
        for n in names_checked(listing)
        if n != name and n in stamps and stamps[n][2] <= LARGEST_READ
    ]
    return listing.read(names)[0]


@dataclass(frozen=True)
class _Reach:
    """What of the text written another text can meet: a line alike, a statement of the
    same words with other values, or as many shared words as a restatement needs (one is
    needed for any finding, so a text that meets none makes none). Of each text only that
    is taken: its lines when the text has lines, its statements of a kind the text states
    (sentences, or slots such as a port or a command: one kind never contradicts the
    other), its words when the text has enough of them. Taking apart the slots of every
    memory is the costly part, and most notes state none; a text is not even parsed for
    its lines when it does not hold the words of one of the text's lines
    (:meth:`may_share_line`)."""

    lines: set[int]
    line_words: list[list[str]]  # of each content line, its words a copy must hold
    said: dict[int, int]  # a sentence's words -> its values
    slots: dict[int, int]  # a slot's words -> its value
    words: set[int]
    restated: bool  # enough words for a restatement

    @classmethod
    def of(cls, mine: Print, parsed: Parsed) -> _Reach:
        statements, words = mine.statements, set(mine.words)
        return cls(
            set(mine.lines),
            [[w for w in said.split() if "not" not in w] for _n, said in parsed.content],
            {k[0]: k[2] for k in statements if k[1] < SLOT_MARK},
            {k[0]: k[2] for k in statements if k[1] >= SLOT_MARK},
            words,
            len(words) >= MIN_RESTATED_WORDS,
        )

    def anything(self) -> bool:
        return bool(self.lines or self.said or self.slots or self.restated)

    def may_share_line(self, body: str) -> bool:
        """False when ``body`` can't have a content line of the text: a content line's
        words are the casefolded text's own (:func:`.text.fold` only spells `n't` and
        `cannot` as `not` and `can not`, so a word without `not` is left as it is), so each
        must be in ``body`` casefolded."""
        if len(self.line_words) > MAX_LINES_LOOKED_FOR:
            return True  # a long text: parsed, as a search for each of its lines would cost more
        folded = body.casefold()
        return any(all(w in folded for w in words) for words in self.line_words)

    def met_by(self, body: str) -> bool:
        lines = bool(self.lines) and self.may_share_line(body)
        parsed = parse(body) if lines or self.said else None
        if parsed is not None and lines and self.lines.intersection(line_keys(parsed)):
            return True  # a signature band needs one, a pair two
        if parsed is not None and self.said and _differ(self.said, said_keys(parsed)):
            return True
        if self.slots and _differ(self.slots, slot_rows(body)):
            return True
        return self.restated and len(self.words.intersection(word_keys(body))) >= (
            MIN_RESTATED_WORDS
        )


def _differ(mine: dict[int, int], theirs: list[tuple[int, int, int]]) -> bool:
    """Whether a row of ``theirs`` has the words of one of ``mine`` with other values."""
    return any(mine.get(k[0], k[2]) != k[2] for k in theirs)


def _read_now(texts: dict[str, str], mine: Features) -> Kept:
    """Before any check made the cache, in a small folder: every memory read, of which
    only those sharing words with the text written are taken apart in full; the words of
    the others still count for how rare a word is. Reading is cheap, taking apart is not."""
    import numpy as np

    ours = set(mine.words.tolist())
    shared = []
    words: dict[str, Any] = {}
    for other, body in texts.items():
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
        if store.access().is_ignored(name):
            return None
        project, global_ = store.snapshot().scopes
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
        small = np.minimum(totals, total)
        # the least share of a rewrite (:mod:`.duplicates.rewrites`): the rest is read
        # when the two are compared
        restated = shared >= SIEVE_SHARE * small
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
