"""What the duplicate check keeps of each memory: the hashes of its content lines, a
MinHash signature of that set, and one key per statement (its words, values left out),
so that two memories are compared only when their lines, signatures or keys meet.

A set of lines leaves alone lines moved around; the signature finds copies whose lines
were mostly edited, the exact lines those with few in common. Hashes are CRC-32s, the
same in every process, so what is kept under ``$SERENA_HOME`` stays valid. The MinHash
is numpy's: one multiply-add per line and permutation.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from serena_memory.integrity.duplicates.text import Parsed, parse

if TYPE_CHECKING:
    import numpy as np

PERMUTATIONS = 60
BANDS = 20
ROWS = PERMUTATIONS // BANDS  # 20 bands of 3: pairs from about 40% alike meet
MIN_LINES = 3
"""A memory with fewer content lines is too short to call a copy of another."""


@dataclass(slots=True)
class Features:
    """A memory's digest (of its content lines), the hashes of its content lines
    (distinct, sorted), its signature (None: too short) and its statement keys as
    ``(key of its words, statement index, key of its values and polarity)``: two
    statements with both keys the same say the same, and need no closer look."""

    digest: str
    lines: np.ndarray
    signature: np.ndarray | None
    keys: np.ndarray  # (statements, 3) of uint32

    @property
    def empty(self) -> bool:
        return not len(self.lines) and not len(self.keys)


def _numpy():
    import numpy as np

    return np


_COEFFICIENTS: list[tuple[np.ndarray, np.ndarray]] = []


def _coefficients() -> tuple[np.ndarray, np.ndarray]:
    if not _COEFFICIENTS:
        np = _numpy()
        rng = np.random.default_rng(20261201)  # fixed: signatures are kept between runs
        a = rng.integers(1, 2**63, size=PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
        b = rng.integers(0, 2**63, size=PERMUTATIONS, dtype=np.uint64)
        _COEFFICIENTS.append((a, b))
    return _COEFFICIENTS[0]


def signature(hashes: np.ndarray) -> np.ndarray | None:
    """The MinHash of a set of line hashes (None when too few to tell)."""
    if len(hashes) < MIN_LINES:
        return None
    np = _numpy()
    a, b = _coefficients()
    with np.errstate(over="ignore"):
        mixed = hashes.astype(np.uint64)[:, None] * a[None, :] + b[None, :]
    return (mixed.min(axis=0) >> np.uint64(32)).astype(np.uint32)


def key(text: str) -> int:
    """The hash the check compares lines and statements by."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def features_of(text: str) -> tuple[Features, Parsed]:
    """The features of one memory's text, with the parse they come from."""
    np = _numpy()
    parsed = parse(text)
    crc32 = zlib.crc32  # :func:`key`, inlined: a memory has hundreds of lines and statements
    hashes = [crc32(words.encode("utf-8", "surrogatepass")) for _n, words in parsed.content]
    lines = np.unique(np.array(hashes, dtype=np.uint32))
    joined = "\n".join(words for _n, words in parsed.content)
    digest = hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    keys = np.array(
        [
            (
                crc32("\x1f".join(s.template).encode("utf-8", "surrogatepass")),
                i,
                crc32("\x1f".join((str(s.negated), *s.values)).encode("utf-8", "surrogatepass")),
            )
            for i, s in enumerate(parsed.statements)
        ],
        dtype=np.uint32,
    ).reshape(-1, 3)
    return Features(digest, lines, signature(lines), keys), parsed
