"""Words cut from the kept pieces of a model's vocabulary get the very token ids the whole
tokenizer gives (so the very vectors): on every word of the labeled memories, on arbitrary
words, for the embedded model and for a byte-level BPE with a pre-tokenizer; a model the
pieces can't stand for is never learned, and a damaged piece is never used."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.search import pieces
from serena_memory.search.semantic import load_model
from serena_memory.search.vocabulary import kept_ids

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "search_set"


def _whole(tokenizer: Any, words: list[str]) -> list[list[int]]:
    return [kept_ids(e) for e in tokenizer.encode_batch(words, add_special_tokens=False)]


@functools.cache
def _embedded() -> tuple[Any, pieces.Learned]:
    tokenizer = load_model()._inference.tokenizer
    learned = pieces.learn(tokenizer, ["feature", "toggles"])
    assert learned is not None  # the embedded model is a plain BPE: its pieces are kept
    return tokenizer, learned


def _spelled(learned: pieces.Learned, words: list[str]) -> list[list[int]] | None:
    found = pieces.spell(learned.shell, pieces._lookup(learned.rows), words)
    return None if found is None else [found[word] for word in words]


def test_every_word_of_the_labeled_memories_is_cut_as_the_tokenizer_cuts_it() -> None:
    tokenizer, learned = _embedded()
    text = " ".join(path.read_text(encoding="utf-8") for path in SET.rglob("*.md"))
    words = sorted(set(re.findall(r"[^\W_]+", text)))
    assert len(words) > 1_000
    for start in range(0, len(words), 3):  # a question's few words at a time
        group = words[start : start + 3]
        assert _spelled(learned, group) == _whole(tokenizer, group), group


# A question's words as search/query.py cuts them: letters and digits of any script
WORD = st.from_regex(r"[^\W_]{1,40}", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=4, unique=True))
def test_arbitrary_words_are_cut_as_the_tokenizer_cuts_them(words: list[str]) -> None:
    tokenizer, learned = _embedded()
    assert _spelled(learned, words) == _whole(tokenizer, words)


@functools.cache
def _byte_level() -> Any:
    """A small byte-level BPE with a pre-tokenizer, trained here on the labeled memories."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2_000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    texts = [path.read_text(encoding="utf-8") for path in sorted(SET.rglob("*.md"))]
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


@settings(max_examples=150, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=3, unique=True))
def test_a_byte_level_bpe_with_a_pre_tokenizer_is_cut_alike(words: list[str]) -> None:
    tokenizer = _byte_level()
    learned = pieces.learn(tokenizer, ["memory", "release"])
    assert learned is not None
    spelled = _spelled(learned, words)
    if spelled is None:  # a piece too long: a byte-level piece has a letter per byte
        assert any(len(word.encode("utf-8")) + 1 > pieces.MAX_PIECE for word in words)
    else:
        assert spelled == _whole(tokenizer, words)


def test_a_tokenizer_that_is_not_a_plain_bpe_is_not_learned() -> None:
    from tokenizers import Tokenizer, models

    wordpiece = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    assert pieces.learn(wordpiece, ["ab"]) is None
    unigram = Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.0)], 0))
    assert pieces.learn(unigram, ["ab"]) is None
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3}
    dropout = Tokenizer(models.BPE(vocab, [("a", "b")], dropout=0.5, unk_token="<unk>"))
    assert pieces.learn(dropout, ["ab"]) is None  # its cuts are random: none to keep


def test_a_damaged_piece_is_never_used() -> None:
    tokenizer, learned = _embedded()
    word = "hydration"
    token = "\u2581hyd"
    assert token in learned.rows
    for damaged in ["x", "-1", "27246 0:5", "27246 4:-1", "27246 a:b", ""]:
        rows = {**learned.rows, token: damaged}
        assert pieces.spell(learned.shell, pieces._lookup(rows), [word]) is None, damaged
    assert pieces.spell("{not json", pieces._lookup(learned.rows), [word]) is None
    long_word = "a" * (pieces.MAX_PIECE + 1)
    assert pieces.spell(learned.shell, pieces._lookup(learned.rows), [long_word]) is None
    assert _spelled(learned, [word]) == _whole(tokenizer, [word])
