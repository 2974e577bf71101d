"""A record's fields: a label many memories of one folder begin a line with
(`**Evidence**: 4 of 20 items`, `Validated: 2`, `| Confidence | 70% |`) is a template
each memory fills in for itself, so two of its values are two records, not one fact
said two ways. A folder of observations or decisions writes one per memory; a
project's conventions name a setting in one memory or two.

Each memory posts one row per label it begins a line with (:func:`field_rows`), all
with one value (:data:`FIELD_VALUE`), so that the key groups never compare them; the
check counts the memories holding each label (:func:`record_fields`) and leaves out a
conflict whose line starts with a label more than :data:`FIELD_MEMORIES` memories hold.
"""

from __future__ import annotations

import re
import zlib
from typing import TYPE_CHECKING

from serena_memory.integrity.duplicates.slots import SLOT_MARK, stated_lines

if TYPE_CHECKING:
    import numpy as np

FIELD_MEMORIES = 4
"""A label more memories begin a line with is a field of their records (the same bound
as a statement's key: :data:`.conflicts.MAX_KEY_MEMORIES`)."""
FIELD_PIECE = 4
"""The piece bits of a label row's place (a row of its line, as tools' and orders')."""
_SALT = "\x1efield"
FIELD_VALUE = zlib.crc32(_SALT.encode())
"""The value column of every label row: one value, never compared."""
_LINES = (1 << 27) - 1
_LABEL = re.compile(
    r"(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?([^\W\d_][^:|*`_\n]{0,40}?)(?:\*\*|__)?\s*:(?!//)"
)
_CELL = re.compile(r"\|\s*(?:\*\*)?([^|*`\n]+?)(?:\*\*)?\s*\|")
_MAX_WORDS = 4


def label_of(line: str) -> str | None:
    """The label a line starts with (`**Validated**: 2` → `validated`; a table row's first
    cell), casefolded, of one to :data:`_MAX_WORDS` words and no digit; or None."""
    line = line.strip()
    found = (_CELL if line.startswith("|") else _LABEL).match(line)
    if found is None:
        return None
    label = " ".join(found.group(1).casefold().split())
    if not label or len(label.split()) > _MAX_WORDS or any(c.isdigit() for c in label):
        return None
    return label


def label_key(label: str) -> int:
    return zlib.crc32(f"{_SALT}\x1f{label}".encode("utf-8", "surrogatepass"))


def field_rows(text: str) -> list[tuple[int, int, int]]:
    """One row per label a memory begins a line with (outside fenced blocks): (its key,
    its first line's place, :data:`FIELD_VALUE`)."""
    rows: dict[int, tuple[int, int, int]] = {}
    for number, line, fenced in stated_lines(text):
        if fenced or not line or (line[0] not in "|-*+_" and not line[0].isalnum()):
            continue
        label = label_of(line)
        if label is not None:
            key = label_key(label)
            if key not in rows:
                rows[key] = (key, SLOT_MARK | (number & _LINES) << 3 | FIELD_PIECE, FIELD_VALUE)
    return list(rows.values())


def record_fields(rows: np.ndarray, owners: np.ndarray) -> set[int]:
    """The label keys that more than :data:`FIELD_MEMORIES` memories hold, of statement
    ``rows`` and the memory each is of (``owners``): their records' fields."""
    import numpy as np

    label = (rows[:, 2] == FIELD_VALUE) & (rows[:, 1] & 7 == FIELD_PIECE)
    if not label.any():
        return set()
    held = np.unique(np.stack([rows[label, 0].astype(np.int64), owners[label]]), axis=1)
    keys, counts = np.unique(held[0], return_counts=True)
    return set(keys[counts > FIELD_MEMORIES].tolist())


def in_field(line: str, fields: set[int]) -> bool:
    """Whether a line starts with a label that is a field of the folder's records."""
    label = label_of(line) if fields else None
    return label is not None and label_key(label) in fields
