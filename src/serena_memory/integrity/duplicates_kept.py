"""The features of every memory the duplicate check's cache holds, as a few arrays: what
a write compares its one text with, all memories at once.

A check leaves them in the cache as one blob (``numpy.savez``, no pickles), so that a
write reads one value instead of ten thousand rows and joins nothing; the rows written
since (by writes) are read apart and take the place of their memory's part. A blob that
is not of the shapes and types these arrays have is not used (the rows are).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from serena_memory.integrity.duplicates.features import PERMUTATIONS, Features

if TYPE_CHECKING:
    import numpy as np

Row = tuple[str, str, bytes, "bytes | None", bytes]
"""A cache row as a write reads it: name, digest, lines, signature, keys."""

_FIELDS = ("names", "digests", "line_counts", "lines", "signed", "signatures", "key_counts")


def _np():
    import numpy as np

    return np


class Kept:
    """Per memory (by index): its name and digest; for all at once, every memory's line
    hashes with the index of the memory each belongs to, the signatures of those that
    have one with their indexes, and every statement key (rows of 3) with its memory's."""

    def __init__(
        self,
        names: list[str],
        digests: list[str],
        lines: np.ndarray,
        line_counts: np.ndarray,
        signed: np.ndarray,
        signatures: np.ndarray,
        keys: np.ndarray,
        key_counts: np.ndarray,
    ) -> None:
        self.names, self.digests = names, digests
        self._lines, self._signed, self._signatures, self._keys = lines, signed, signatures, keys
        self._line_counts, self._key_counts = line_counts, key_counts

    @classmethod
    def of_rows(cls, rows: Iterable[Row]) -> Kept:
        """From cache rows whose blobs have the sizes features have."""
        np = _np()
        rows = list(rows)
        lines = [np.frombuffer(r[2], dtype="<u4") for r in rows]
        keys = [np.frombuffer(r[4], dtype="<u4").reshape(-1, 3) for r in rows]
        signed = [i for i, r in enumerate(rows) if r[3] is not None]
        signatures = [np.frombuffer(rows[i][3] or b"", dtype="<u4") for i in signed]
        return cls(
            [r[0] for r in rows],
            [r[1] for r in rows],
            np.concatenate([np.zeros(0, "<u4"), *lines]).astype(np.uint32),
            np.array([len(a) for a in lines], dtype=np.int64),
            np.array(signed, dtype=np.int64),
            np.array(signatures, dtype=np.uint32).reshape(-1, PERMUTATIONS),
            np.concatenate([np.zeros((0, 3), "<u4"), *keys]).astype(np.uint32),
            np.array([len(a) for a in keys], dtype=np.int64),
        )

    @classmethod
    def of(cls, features: dict[str, Features]) -> Kept:
        """From features in memory, by name."""
        np = _np()
        names = sorted(features)
        every = [features[n] for n in names]
        signed = [i for i, f in enumerate(every) if f.signature is not None]
        signatures = [every[i].signature for i in signed]
        return cls(
            names,
            [f.digest for f in every],
            np.concatenate([np.zeros(0, np.uint32), *(f.lines for f in every)]).astype(np.uint32),
            np.array([len(f.lines) for f in every], dtype=np.int64),
            np.array(signed, dtype=np.int64),
            np.array(signatures, dtype=np.uint32).reshape(-1, PERMUTATIONS),
            np.concatenate([np.zeros((0, 3), np.uint32), *(f.keys for f in every)]).astype(
                np.uint32
            ),
            np.array([len(f.keys) for f in every], dtype=np.int64),
        )

    def features(self, index: int) -> Features | None:
        """The features of the memory at ``index``."""
        np = _np()
        a = int(self._line_counts[:index].sum())
        b = a + int(self._line_counts[index])
        c = int(self._key_counts[:index].sum())
        d = c + int(self._key_counts[index])
        at = int(np.searchsorted(self._signed, index))
        signed = at < len(self._signed) and int(self._signed[at]) == index
        signature = self._signatures[at].copy() if signed else None
        return Features(self.digests[index], self._lines[a:b].copy(), signature, self._keys[c:d])

    def lines(self) -> tuple[Any, Any]:
        np = _np()
        return self._lines, np.repeat(np.arange(len(self.names)), self._line_counts)

    def signatures(self) -> tuple[Any, Any]:
        return self._signatures, self._signed

    def keys(self) -> tuple[Any, Any]:
        np = _np()
        return self._keys, np.repeat(np.arange(len(self.names)), self._key_counts)

    def without(self, names: set[str]) -> Kept:
        """These features but those of ``names``."""
        if not names.intersection(self.names):
            return self
        np = _np()
        keep = np.array([n not in names for n in self.names], dtype=bool)
        at = np.cumsum(keep) - 1  # a kept memory's new index
        signed_kept = keep[self._signed] if len(self._signed) else np.zeros(0, dtype=bool)
        return Kept(
            [n for n in self.names if n not in names],
            [d for n, d in zip(self.names, self.digests, strict=True) if n not in names],
            self._lines[np.repeat(keep, self._line_counts)],
            self._line_counts[keep],
            at[self._signed[signed_kept]].astype(np.int64),
            self._signatures[signed_kept],
            self._keys[np.repeat(keep, self._key_counts)],
            self._key_counts[keep],
        )

    def plus(self, other: Kept) -> Kept:
        """These features and ``other``'s (other memories)."""
        if not other.names:
            return self
        np = _np()
        n = len(self.names)
        return Kept(
            self.names + other.names,
            self.digests + other.digests,
            np.concatenate((self._lines, other._lines)),
            np.concatenate((self._line_counts, other._line_counts)),
            np.concatenate((self._signed, other._signed + n)),
            np.concatenate((self._signatures, other._signatures)),
            np.concatenate((self._keys, other._keys)),
            np.concatenate((self._key_counts, other._key_counts)),
        )

    def blob(self) -> bytes:
        """The arrays in one value, for the cache."""
        np = _np()
        out = io.BytesIO()
        arrays = (
            np.array(self.names, dtype=str).reshape(-1),
            np.array(self.digests, dtype="<U32").reshape(-1),
            self._line_counts.astype("<i8"),
            self._lines.astype("<u4"),
            self._signed.astype("<i8"),
            self._signatures.astype("<u4"),
            self._key_counts.astype("<i8"),
        )
        np.savez(out, **dict(zip(_FIELDS, arrays, strict=True)), keys=self._keys.astype("<u4"))
        return out.getvalue()

    @classmethod
    def of_blob(cls, data: object) -> Kept | None:
        """The arrays of a blob :meth:`blob` made, or None when it is anything else."""
        np = _np()
        if not isinstance(data, bytes):
            return None
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                got = {k: z[k] for k in (*_FIELDS, "keys")}
            return cls._checked(got)
        except Exception:  # noqa: BLE001 - a damaged blob is not used
            return None

    @classmethod
    def _checked(cls, got: dict[str, Any]) -> Kept | None:
        np = _np()
        if not _consistent(got):
            return None
        return cls(
            got["names"].tolist(),
            got["digests"].tolist(),
            got["lines"].astype(np.uint32),
            got["line_counts"].astype(np.int64),
            got["signed"].astype(np.int64),
            got["signatures"].astype(np.uint32),
            got["keys"].astype(np.uint32),
            got["key_counts"].astype(np.int64),
        )


def _consistent(got: dict[str, Any]) -> bool:
    """Whether arrays read from a blob have the types and shapes :class:`Kept` holds."""
    np = _np()
    names, digests, signed = got["names"], got["digests"], got["signed"]
    n = len(names)
    if names.dtype.kind != "U" or names.ndim != 1 or digests.dtype != np.dtype("<U32"):
        return False
    if n and ((np.char.str_len(digests) != 32).any() or len(set(names.tolist())) != n):
        return False
    counts = got["line_counts"], got["key_counts"]
    shapes = {
        "digests": ("<U32", (n,)),
        "line_counts": ("<i8", (n,)),
        "key_counts": ("<i8", (n,)),
        "signed": ("<i8", (len(signed),)),
        "lines": ("<u4", (int(counts[0].sum()),)),
        "keys": ("<u4", (int(counts[1].sum()), 3)),
        "signatures": ("<u4", (len(signed), PERMUTATIONS)),
    }
    if any(
        got[k].dtype != np.dtype(t) or got[k].shape != shape for k, (t, shape) in shapes.items()
    ):
        return False
    if (counts[0] < 0).any() or (counts[1] < 0).any():
        return False
    return not len(signed) or bool(
        (np.diff(signed) > 0).all() and signed[0] >= 0 and signed[-1] < n
    )
