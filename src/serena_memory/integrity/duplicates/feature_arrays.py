"""The features of the memories of a small folder, as a few arrays: what a write
compares its one text with, all memories at once, before any check made the index."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from serena_memory.integrity.duplicates.features import PERMUTATIONS, Features

if TYPE_CHECKING:
    import numpy as np


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
