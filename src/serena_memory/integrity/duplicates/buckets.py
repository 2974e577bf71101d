"""Pairs within a bucket (memories that share a band, a line or a statement key), bounded:
a bucket more memories share is a template, and each member meets its neighbour only, so
thousands of near-copies cost a line of pairs, not a square."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

MAX_BUCKET = 8
"""A band or statement key more memories share is a template: neighbours only."""
T = TypeVar("T")


def bucket_pairs(members: list[T]) -> Iterable[tuple[T, T]]:
    """The pairs of one bucket: all of them, or each with the next when it is big."""
    if len(members) <= MAX_BUCKET:
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                yield a, b
    else:
        yield from zip(members, members[1:], strict=False)
