"""What a write looks itself up in: for every memory the duplicate check's cache holds,
its line hashes, signature bands, statement keys and a sample of its words as postings
(key -> memory), and how many memories hold each word.

A write reads the postings of its own keys only, at most :data:`MAX_POSTINGS` memories a
key (a key more memories share is a template or a common word, which tells nothing about
one pair), so its work is bounded by its own text, never by the folder; and it needs
SQLite and plain Python only: numpy is loaded only when some memory meets the text.
Every check keeps the postings of the rows it rewrites and every write those of its own
row, in the same transaction as the row.
"""

from __future__ import annotations

import math
import struct
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from serena_memory.integrity.duplicates.detect import MIN_RESTATED_WORDS
from serena_memory.integrity.duplicates.features import BANDS, ROWS, TOKEN, Features
from serena_memory.integrity.duplicates.rewrites import SIEVE_SHARE
from serena_memory.integrity.duplicates.slots import SLOT_MARK

if TYPE_CHECKING:
    import sqlite3

LINE, BAND, STATEMENT, WORD = range(4)
"""The kinds of key, in the bits above a key's 32."""
SKETCH = 32
"""Words of a memory posted (those with the smallest hashes, the same sample in every
memory): enough to find a memory restated in other words, a tenth of the rows of all."""
MAX_POSTINGS = 128
"""Memories read per key at most: a key more share is passed over."""
MIN_SKETCH_MET = 3
SKETCH_SHARE = 0.2
"""Of a memory's posted words, those the text must hold to be compared with it as a
restatement (about its share of the larger's words, the larger's share of a rewrite)."""
MAX_CANDIDATES = 16
"""Memories compared with the text written, at most: the ones met most."""
_IN = 500
"""Values bound in one ``IN (...)`` at most."""
_CHUNK = 1 << 16

SCHEMA = (
    "CREATE TABLE posting (key INTEGER NOT NULL, id INTEGER NOT NULL, extra INTEGER NOT NULL, "
    "PRIMARY KEY (key, id, extra)) WITHOUT ROWID",
    "CREATE TABLE df (word INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
)

Keys = list[tuple[int, int, int]]
Entry = tuple[int, list[int], "list[int] | None", Keys]
"""A memory's row id, distinct line hashes, signature and keys (statements, then words)."""


def unpack(blob: bytes) -> list[int]:
    """The little-endian 32-bit numbers of a cache blob."""
    values = array("I")
    values.frombytes(blob)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tolist()


def pack(values: Iterable[int]) -> bytes:
    return struct.pack(f"<{len(values := list(values))}I", *values)


def triples(blob: bytes) -> Keys:
    flat = unpack(blob)
    return list(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))


_MIX = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5)
"""Odd multipliers mixing a band's number and values into one key (the same in plain
Python and in numpy's wrapping 64-bit arithmetic)."""
_MASK = (1 << 64) - 1


def _band(band: int, signature: list[int]) -> int:
    values = (band, *signature[band * ROWS : (band + 1) * ROWS])
    return (sum(v * m for v, m in zip(values, _MIX, strict=True)) & _MASK) >> 32


def postings(lines: list[int], signature: list[int] | None, keys: Keys) -> list[tuple[int, int]]:
    """A memory's (key, extra) pairs: a statement's extra is its values' key, a word's
    the number of words the memory posts."""
    out = [(LINE << 32 | h, 0) for h in lines]
    if signature is not None:
        out += [(BAND << 32 | _band(b, signature), 0) for b in range(BANDS)]
    out += sorted({(STATEMENT << 32 | t, v) for t, i, v in keys if i < SLOT_MARK})
    sketch = sorted(w for w, i, _v in keys if i == TOKEN)[:SKETCH]
    out += [(WORD << 32 | w, len(sketch)) for w in sketch]
    return out


def posted(features: list[Features], ids: list[int]) -> Iterator[tuple[int, int, int]]:
    """The (key, id, extra) rows of many memories, in the order of the index: what
    :func:`postings` gives for each, computed on all at once (a check posts thousands)."""
    import numpy as np

    def repeated(counts: list[int]) -> Any:
        return np.repeat(np.array(ids, dtype=np.int64), counts)

    keys, owners, extras = [], [], []
    lines = [f.lines for f in features]
    keys.append(np.concatenate([np.zeros(0, np.int64), *lines]).astype(np.int64) | LINE << 32)
    owners.append(repeated([len(a) for a in lines]))
    extras.append(np.zeros(len(keys[-1]), np.int64))
    signed = [i for i, f in enumerate(features) if f.signature is not None]
    matrix = np.array([features[i].signature for i in signed], np.uint64).reshape(-1, BANDS, ROWS)
    with np.errstate(over="ignore"):
        mixed = np.arange(BANDS, dtype=np.uint64)[None, :] * np.uint64(_MIX[0])
        for at in range(ROWS):
            mixed = mixed + matrix[:, :, at] * np.uint64(_MIX[at + 1])
    keys.append((mixed >> np.uint64(32)).astype(np.int64).reshape(-1) | BAND << 32)
    owners.append(np.repeat(np.array(ids, dtype=np.int64)[signed], BANDS))
    extras.append(np.zeros(len(keys[-1]), np.int64))
    statements = [f.sentence_keys for f in features]  # a value's keys are not posted
    both = np.concatenate([np.zeros((0, 3), np.uint32), *statements]).astype(np.int64)
    keys.append(both[:, 0] | STATEMENT << 32)
    owners.append(repeated([len(a) for a in statements]))
    extras.append(both[:, 2])
    sketches = [f.words[:SKETCH] for f in features]
    keys.append(np.concatenate([np.zeros(0, np.int64), *sketches]).astype(np.int64) | WORD << 32)
    owners.append(repeated([len(a) for a in sketches]))
    extras.append(np.repeat([len(a) for a in sketches], [len(a) for a in sketches]))
    k, i, x = (np.concatenate(a).astype(np.int64) for a in (keys, owners, extras))
    order = np.lexsort((x, i, k))
    k, i, x = k[order], i[order], x[order]
    for at in range(0, len(k), _CHUNK):  # as plain numbers a chunk at a time: less memory
        part = slice(at, at + _CHUNK)
        yield from zip(k[part].tolist(), i[part].tolist(), x[part].tolist(), strict=True)


def words(keys: Keys) -> list[int]:
    return [w for w, i, _v in keys if i == TOKEN]


def remove(conn: sqlite3.Connection, entries: list[Entry]) -> int:
    """The postings and word counts of these rows taken out; how many there were."""
    conn.executemany(
        "DELETE FROM posting WHERE key = ? AND id = ? AND extra = ?",
        [(k, e[0], x) for e in entries for k, x in postings(*e[1:])],
    )
    counted = Counter(w for e in entries for w in set(words(e[3])))
    _count(conn, [(w, -n) for w, n in counted.items()])
    conn.executemany("DELETE FROM df WHERE word = ? AND n <= 0", [(w,) for w in counted])
    return len(entries)


def add(
    conn: sqlite3.Connection, rows: Iterable[tuple[int, int, int]], counted: list[tuple[int, int]]
) -> None:
    """The postings ``rows`` (key, id, extra), and ``counted`` (word, memories holding
    it) added."""
    conn.executemany("INSERT OR IGNORE INTO posting VALUES (?, ?, ?)", rows)
    _count(conn, counted)


def _count(conn: sqlite3.Connection, deltas: list[tuple[int, int]]) -> None:
    conn.executemany(
        "INSERT INTO df VALUES (?, ?) ON CONFLICT(word) DO UPDATE SET n = n + excluded.n",
        sorted(deltas),
    )


def counts(conn: sqlite3.Connection, wanted: Iterable[int]) -> dict[int, int]:
    """How many memories hold each of ``wanted`` (those none holds left out)."""
    found: dict[int, int] = {}
    wanted = sorted(set(wanted))
    for at in range(0, len(wanted), _IN):
        part = wanted[at : at + _IN]
        marks = ",".join("?" * len(part))
        query = f"SELECT word, n FROM df WHERE word IN ({marks})"  # noqa: S608 - marks only
        found.update(conn.execute(query, part).fetchall())
    return found


def _met(conn: sqlite3.Connection, key: int) -> list[tuple[int, int]]:
    """The (id, extra) posted under ``key``; none when more than :data:`MAX_POSTINGS`."""
    query = "SELECT id, extra FROM posting WHERE key = ? LIMIT ?"
    found = conn.execute(query, (key, MAX_POSTINGS + 1)).fetchall()
    return found if len(found) <= MAX_POSTINGS else []


def meeting(
    conn: sqlite3.Connection, lines: list[int], signature: list[int] | None, keys: Keys
) -> tuple[Counter[int], set[int]]:
    """The rows (ids) that meet a text, each with how many ways: two lines alike, a
    signature band, a statement with the same words and other values or polarity, a
    share of its posted words held by the text (see :data:`SKETCH_SHARE`); and those met
    by their words only (:func:`restated` tells whether they are worth comparing)."""
    score: Counter[int] = Counter()
    shared = Counter(i for h in lines for i, _x in _met(conn, LINE << 32 | h))
    score.update(i for i, n in shared.items() if n >= 2)
    if signature is not None:
        bands = [BAND << 32 | _band(b, signature) for b in range(BANDS)]
        score.update({i for key in bands for i, _x in _met(conn, key)})
    score.update(_other_values(conn, keys))
    worded = _worded(conn, keys)
    score.update(worded)
    return score, {i for i in worded if score[i] == 1}


def _other_values(conn: sqlite3.Connection, keys: Keys) -> set[int]:
    """The rows with a statement of the same words as one of the text's, but other
    values or polarity (the same statement is no news)."""
    mine: dict[int, set[int]] = {}
    for t, i, v in keys:
        if i < SLOT_MARK:
            mine.setdefault(t, set()).add(v)
    return {i for t, vs in mine.items() for i, v in _met(conn, STATEMENT << 32 | t) if v not in vs}


def _worded(conn: sqlite3.Connection, keys: Keys) -> list[int]:
    """The rows whose posted words the text holds enough of, most held first."""
    held: Counter[int] = Counter()
    size: dict[int, int] = {}
    for w in set(words(keys)):
        for i, posted in _met(conn, WORD << 32 | w):
            held[i] += 1
            size[i] = posted
    worded = [i for i, n in held.items() if n >= max(MIN_SKETCH_MET, SKETCH_SHARE * size[i])]
    return sorted(worded, key=lambda i: -held[i])[:MAX_CANDIDATES]


def restated(mine: list[int], other: list[int], df: dict[int, int], memories: int) -> bool:
    """Whether two memories' words make one a restatement of the other as the check
    weighs them (:func:`serena_memory.integrity.duplicates.detect._restated`): a sieve,
    in plain Python, before any memory is compared for it."""
    a, b = set(mine), set(other)
    both = a & b
    if len(both) < MIN_RESTATED_WORDS:
        return False

    def weight(ws: Iterable[int]) -> float:
        return sum(math.log((memories + 1) / max(df.get(w, 1), 1)) for w in ws)

    shared, small = weight(both), min(weight(a), weight(b))
    # at the least share of a rewrite (the rest is read when the two are compared)
    return bool(small) and shared >= SIEVE_SHARE * small
