"""What the tokenizer said, kept so a question of known words loads none, gives the very
numbers the tokenizer gives: each labeled query's vector bit for bit, each word's
closest words alike."""

from __future__ import annotations

import re
from pathlib import Path

from serena_memory.search.query import meaning_text
from serena_memory.search.semantic import Embedder, StaticModel, load_model

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "search_set"
QUERIES = SET / "queries.tsv"


def _texts() -> list[str]:
    lines = QUERIES.read_text(encoding="utf-8").splitlines()
    return [meaning_text(line.split("\t")[2]) for line in lines if not line.startswith("#")]


def test_a_question_from_its_words_ids_is_the_tokenizers_vector_bit_for_bit() -> None:
    embedder = load_model()
    texts = _texts()
    words = sorted({word for text in texts for word in text.split(" ") if word})
    vocabulary = embedder.learned(words, whole=True)
    assert vocabulary.splits  # no token of the embedded model spans a word's end
    kept = Embedder(StaticModel(embedder._inference._rows, _never), "kept")
    kept.vocabulary = vocabulary
    for text in [*texts, "Unfinished work", "x 42 naïve"]:
        expected = embedder.embed([text])[0]
        if vocabulary.text_ids(text) is not None:
            assert kept.query_vector(text).tobytes() == expected.tobytes(), text
    assert not kept.tokenizer_loaded()


def test_closest_words_from_the_kept_vocabulary_are_the_tokenizers() -> None:
    embedder = load_model()
    vocabulary = embedder.learned([], whole=True)
    kept = Embedder(StaticModel(embedder._inference._rows, _never), "kept")
    kept.vocabulary = vocabulary
    for word in ["pictures", "release", "toggles", "budget", "zzqxv", "ab", "Switches"]:
        assert kept.neighbours(word, 2, 0.5) == embedder.neighbours(word, 2, 0.5), word
    # over the kept whole words' rows alone, as over every token: every word of the set
    text = " ".join(path.read_text(encoding="utf-8") for path in SET.rglob("*.md"))
    words = sorted(set(re.findall("[a-z]{3,14}", text)))
    assert len(words) > 1_000
    for word in words:
        assert kept.neighbours(word, 2, 0.5) == embedder.neighbours(word, 2, 0.5), word
    for word in words[:300]:
        assert kept.neighbours(word, 5, 0.3) == embedder.neighbours(word, 5, 0.3), word
    assert not kept.tokenizer_loaded()


def test_a_tokenizer_whose_tokens_span_words_is_not_split() -> None:
    from tokenizers import Tokenizer, models, normalizers

    vocab = {"<unk>": 0, "\u2581a": 1, "\u2581b": 2, "a\u2581b": 3, "\u2581": 4, "a": 5, "b": 6}
    vocab["a\u2581"] = 7
    merges = [("a", "\u2581"), ("\u2581", "a"), ("\u2581", "b"), ("a\u2581", "b")]
    tokenizer = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>"))
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.Prepend("\u2581"), normalizers.Replace(" ", "\u2581")]
    )
    assert tokenizer.encode("a b").ids != [1, 2]  # "a▁b" is one token
    import numpy as np

    model = Embedder(StaticModel(np.eye(9, dtype=np.float32), tokenizer), "spans")
    vocabulary = model.learned(["a", "b"], whole=True)
    assert not vocabulary.splits and vocabulary.text_ids("a b") is None


def _never() -> None:
    raise AssertionError("the tokenizer was loaded")
