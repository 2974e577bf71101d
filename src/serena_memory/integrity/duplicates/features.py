"""What the duplicate check keeps of each memory: the hashes of its content lines, a
MinHash signature of that set, and one key per statement (its words, values left out),
so that two memories are compared only when their lines, signatures or keys meet.

A set of lines leaves alone lines moved around; the signature finds copies whose lines
were mostly edited, the exact lines those with few in common. Hashes are CRC-32s, the
same in every process, so what is kept under ``$SERENA_HOME`` stays valid. The MinHash
is numpy's: one multiply-add per line and permutation.
"""

from __future__ import annotations

import functools
import hashlib
import re
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from serena_memory.integrity.duplicates.commands import command_keys
from serena_memory.integrity.duplicates.fields import field_rows
from serena_memory.integrity.duplicates.files import file_keys
from serena_memory.integrity.duplicates.languages import language_keys
from serena_memory.integrity.duplicates.named import named_keys
from serena_memory.integrity.duplicates.orders import order_keys
from serena_memory.integrity.duplicates.policies import policy_keys
from serena_memory.integrity.duplicates.slots import SLOT_MARK, slot_keys, units
from serena_memory.integrity.duplicates.text import Parsed, parse
from serena_memory.integrity.duplicates.tools import tool_keys

if TYPE_CHECKING:
    import numpy as np

PERMUTATIONS = 60
BANDS = 20
ROWS = PERMUTATIONS // BANDS  # 20 bands of 3: pairs from about 40% alike meet
TOKEN = 0xFFFFFFFF
"""The middle column of a key row that holds a word of the memory, not a statement."""
MAX_TOKENS = 256
"""Words kept per memory (those with the smallest hashes: a sample, the same for a word
in every memory), for finding a memory restated in other words."""
_TOKEN = re.compile(r"[^\W_][\w./@:+-]*[\w/]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
"""Chinese, Japanese (kana) and Korean characters: words without spaces between them."""
_ENDINGS = ("ations", "ation", "ings", "ing", "ions", "ion", "ed", "es", "s", "ly")
_COMMON = frozenset(
    (
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "are",
        "not",
        "was",
        "were",
        "will",
        "when",
        "then",
        "than",
        "into",
        "only",
        "also",
        "have",
        "has",
        "had",
        "use",
        "used",
        "using",
        "can",
        "all",
        "any",
        "each",
        "its",
        "our",
        "your",
        "you",
        "they",
        "them",
        "their",
        "there",
        "here",
        "what",
        "which",
        "who",
        "how",
        "why",
        "should",
        "must",
        "may",
        "might",
        "would",
        "could",
        "been",
        "being",
        "over",
        "under",
        "more",
        "most",
        "less",
        "such",
        "other",
        "some",
        "same",
        "both",
        "just",
        "like",
        "make",
        "made",
        "does",
        "did",
        "done",
        "about",
        "after",
        "before",
        "while",
        "where",
        "within",
        "without",
    )
)
MIN_LINES = 3
"""A memory with fewer content lines is too short to call a copy of another."""


@dataclass(slots=True)
class Features:
    """A memory's digest (of its content lines), the hashes of its content lines
    (distinct, sorted), its signature (None: too short) and its statement keys as
    ``(key of its words, statement index, key of its values and polarity)``: two
    statements with both keys the same say the same, and need no closer look; then its
    slots' rows (:func:`.slots.slot_keys`)."""

    digest: str
    lines: np.ndarray
    signature: np.ndarray | None
    keys: np.ndarray  # (statements, 3) of uint32, then (word, TOKEN, 0) per word kept

    @property
    def empty(self) -> bool:
        return not len(self.lines) and not len(self.keys)

    @property
    def statement_keys(self) -> np.ndarray:
        """The rows of statements and of slots (see :mod:`.slots`): a row whose key
        another memory has with another value may be a contradiction."""
        return self.keys[self.keys[:, 1] != TOKEN]

    @property
    def sentence_keys(self) -> np.ndarray:
        """The rows of whole statements only."""
        return self.keys[self.keys[:, 1] < SLOT_MARK]

    @property
    def slot_keys(self) -> np.ndarray:
        """The rows of slots only (``SLOT_MARK | unit`` in the middle)."""
        middle = self.keys[:, 1]
        return self.keys[(middle >= SLOT_MARK) & (middle != TOKEN)]

    @property
    def words(self) -> np.ndarray:
        return self.keys[self.keys[:, 1] == TOKEN, 0]


def _numpy():
    import numpy as np

    return np


@functools.cache
def _coefficients() -> tuple[np.ndarray, np.ndarray]:
    """The hash functions' coefficients, drawn once (a fixed seed: signatures are kept
    between runs)."""
    np = _numpy()
    rng = np.random.default_rng(20261201)
    a = rng.integers(1, 2**63, size=PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, size=PERMUTATIONS, dtype=np.uint64)
    return a, b


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


@dataclass(slots=True)
class Print:
    """The features of one text in plain Python numbers (no numpy), for a write that
    looks them up in the cache's index: the same values :func:`features_of` gives.
    ``keys`` are the statement rows then the word rows, as in :class:`Features`."""

    digest: str
    lines: list[int]
    keys: list[tuple[int, int, int]]
    statements: list[tuple[int, int, int]]  # the statement rows of ``keys``
    words: list[int]  # the word hashes of ``keys``


def fingerprint(text: str) -> tuple[Print, Parsed]:
    """The features of one memory's text but its signature, in plain Python, with the
    parse they come from."""
    parsed = parse(text)
    lines = line_keys(parsed)
    joined = "\n".join(words for _n, words in parsed.content)
    digest = hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    statements = statement_keys(text, parsed)
    words = word_keys(text)
    keys = statements + [(w, TOKEN, 0) for w in words]
    return Print(digest, lines, keys, statements, words), parsed


def line_keys(parsed: Parsed) -> list[int]:
    """The hashes of a parsed text's content lines, sorted (what two copies share)."""
    crc32 = zlib.crc32  # :func:`key`, inlined: a memory has hundreds of lines
    return sorted({crc32(words.encode("utf-8", "surrogatepass")) for _n, words in parsed.content})


def statement_keys(text: str, parsed: Parsed) -> list[tuple[int, int, int]]:
    """The statement rows of a text: its parsed statements (:func:`said_keys`), then
    every slot, named value, command, tool, policy and order it states
    (:func:`slot_rows`): what a contradiction is found by."""
    return said_keys(parsed) + slot_rows(text)


def said_keys(parsed: Parsed) -> list[tuple[int, int, int]]:
    """The rows of a parsed text's statements: (words, the statement's index, values).
    Such a row meets only another of its kind (a slot's middle column is at least
    ``SLOT_MARK``, and a statement and a slot never contradict one another)."""
    crc32 = zlib.crc32  # :func:`key`, inlined: a memory has hundreds of statements
    return [
        (
            crc32("\x1f".join(s.template).encode("utf-8", "surrogatepass")),
            i,
            crc32("\x1f".join((str(s.negated), *s.values)).encode("utf-8", "surrogatepass")),
        )
        for i, s in enumerate(parsed.statements)
    ]


def slot_rows(text: str) -> list[tuple[int, int, int]]:
    """The rows of every slot, named value, command, tool, policy, order, file and
    language a text states, and of the labels its lines begin with (their middle column at least
    ``SLOT_MARK``)."""
    found = units(text)
    keys = slot_keys(found)
    keys += named_keys(found)
    keys += command_keys(found)
    keys += tool_keys(text)
    keys += policy_keys(text)
    keys += order_keys(text)
    keys += file_keys(text)
    keys += language_keys(text)
    keys += field_rows(text)
    return keys


def word_keys(text: str) -> list[int]:
    """The word hashes :func:`fingerprint` keeps of a text (its first :data:`MAX_TOKENS`)."""
    return sorted(words_of(text))[:MAX_TOKENS]


def coefficients() -> list[tuple[int, int]]:
    """The MinHash's multipliers and offsets as plain numbers (kept in the cache, so
    that a write needs no numpy to sign its text)."""
    a, b = _coefficients()
    return list(zip(a.tolist(), b.tolist(), strict=True))


def plain_signature(lines: list[int], mixes: list[tuple[int, int]]) -> list[int] | None:
    """:func:`signature` of distinct line hashes in plain Python, from
    :func:`coefficients`: the same values, for a text of a few dozen lines."""
    if len(lines) < MIN_LINES:
        return None
    mask = (1 << 64) - 1
    return [min((h * a + b) & mask for h in lines) >> 32 for a, b in mixes]


def features_of(text: str) -> tuple[Features, Parsed]:
    """The features of one memory's text, with the parse they come from."""
    np = _numpy()
    found, parsed = fingerprint(text)
    lines = np.array(found.lines, dtype=np.uint32)
    keys = np.array(found.keys, dtype=np.uint32).reshape(-1, 3)
    return Features(found.digest, lines, signature(lines), keys), parsed


def words_of(text: str) -> set[int]:
    """The hashes of the words of a text (three letters or more, not the commonest; a path,
    a version or a name with dots is one word): what a restatement in other words keeps.
    An English word counts by its stem (:func:`stem`: `checks`, `checked` and `checking`
    are one word to a rewrite), and a run of Chinese or Japanese characters, which has no
    spaces, by each two characters of it: else a sentence is one word, which no rewrite
    keeps."""
    crc32 = zlib.crc32
    found = set()
    for w in set(_TOKEN.findall(text.casefold())):
        if w.isascii():
            if len(w) > 2 and w not in _COMMON:
                found.add(w)
        elif _CJK.search(w) is None:
            if len(w) > 2:
                found.add(w)
        else:
            for run in _CJK.split(w):  # what is around the runs (`auth1→auth2`)
                if len(run) > 2:
                    found.add(run)
            for run in _CJK.findall(w):
                found.update(run[i : i + 2] for i in range(len(run) - 1))
    return {crc32(w.encode("utf-8", "surrogatepass")) for w in found}


def stem(word: str) -> str:
    """An English word without its commonest ending (`-s`, `-es`, `-ed`, `-ing`, `-ion`,
    `-ation`, `-ly`), when four letters or more are left; a word with a digit, dot or
    slash (a version, a path) as it is."""
    if not word.isalpha():
        return word
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word
