"""What a question needs from a model's tokenizer, learned once from the loaded tokenizer
and kept between processes (search/query_cache.py), so that a question of known words
loads none: whether a text's token ids are its words' ids one after another, the ids of
known words, the first row of each whole word, and a way to cut words no question held
(search/pieces.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# A vocabulary entry that is a whole word: lowercase letters, with the word-start mark of
# SentencePiece (U+2581) or byte-level BPE (U+0120) or none
WHOLE_WORD_TOKEN = re.compile("[\u2581\u0120]?([a-z]{3,24})")


Speller = Callable[[list[str]], "dict[str, list[int]] | None"]


class Vocabulary:
    """What a question needs from a model's tokenizer, kept between processes
    (search/query_cache.py) so that a question of known words loads none: whether a
    text's token ids are its words' ids one after another (``splits``), known words'
    ids, once learned the first row of each whole word (``rows``, for the closest words
    of a word), and a way to cut words no question held before from the kept pieces of
    the vocabulary (``spell``, search/pieces.py)."""

    def __init__(
        self,
        splits: bool,
        ids: dict[str, list[int]],
        rows: dict[str, int] | None,
        spell: Speller | None = None,
    ) -> None:
        self.splits, self.ids, self.rows, self.spell = splits, ids, rows, spell
        self.words_of = {row: word for word, row in (rows or {}).items()}

    def text_ids(self, text: str) -> list[int] | None:
        """The token ids of ``text`` (words joined by single spaces) from its words',
        or None when one is neither known nor cut from the kept pieces, or the text is
        not such words."""
        words = text.split(" ")
        if not self.splits or not all(QUERY_WORD.fullmatch(word) for word in words):
            return None
        missing = [word for word in dict.fromkeys(words) if word not in self.ids]
        if missing:
            spelled = self.spell(missing) if self.spell is not None else None
            if spelled is None or not all(spelled.get(word) for word in missing):
                return None
            self.ids.update({word: spelled[word] for word in missing})
        ids: list[int] = []
        for word in words:
            ids += self.ids[word]
        return ids


# A word of a question as search/query.py cuts it: letters and digits, no mark
QUERY_WORD = re.compile(r"[^\W_]+")
_SPANS = re.compile("[^\u2581\u0120 \0][\u2581\u0120 ]")  # a mark after something else
_SPLIT_SAMPLE = ["tokens", "Alpha", "x", "42", "naïve", "zzqxv", "re", "Unfinished"]


def vocabulary_of(
    tokenizer: Any, size: int, words: list[str], whole: bool, every_word: bool = True
) -> Vocabulary:
    """From a loaded tokenizer: the ids of ``words``; with ``whole``, every whole word's
    first row (and, with ``every_word``, its ids) too, and whether a text's ids are its
    words' ids one after another, which holds when no token of the vocabulary spans a
    word's end (a word-start mark after anything else) and a sample text is cut so."""
    rows: dict[str, int] | None = None
    splits = False
    if whole:
        vocab = tokenizer.get_vocab()
        joined = "\0".join(vocab)
        spans = "\0" in "".join(vocab) or _SPANS.search(joined) is not None
        rows = {}
        for token, row in vocab.items():
            match = WHOLE_WORD_TOKEN.fullmatch(token)
            if match is not None and row < size and row < rows.get(match.group(1), size):
                rows[match.group(1)] = row
        sample = tokenizer.encode(" ".join(_SPLIT_SAMPLE), add_special_tokens=False)
        cut = [i for ids in _ids(tokenizer, _SPLIT_SAMPLE) for i in ids]
        splits = not spans and kept_ids(sample) == cut
    asked = sorted({*words, *(rows or ())} if every_word else set(words))
    return Vocabulary(splits, dict(zip(asked, _ids(tokenizer, asked), strict=True)), rows)


def _ids(tokenizer: Any, words: list[str]) -> list[list[int]]:
    return [kept_ids(e) for e in tokenizer.encode_batch(words, add_special_tokens=False)]


def kept_ids(encoding: Any) -> list[int]:
    """An encoding's ids without its padding."""
    return [i for i, kept in zip(encoding.ids, encoding.attention_mask, strict=True) if kept]
