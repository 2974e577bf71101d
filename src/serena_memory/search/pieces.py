"""A word's token ids from the pieces of the vocabulary that can make it, so a question of a
word no earlier question held is embedded without loading the model's whole tokenizer
(parsing its 1.8 MB of JSON is 50-80 ms, most of what a one-off search adds to the
command's start).

A BPE model cuts a word (as its normalizer and pre-tokenizer leave it) into characters, or
bytes, and merges neighbouring pieces by rank; each piece it makes is a substring of that
word. So a tokenizer holding only the word's substrings that the vocabulary holds, the
merges that make them in their order, and what any text may need (the added tokens, the
unknown token, the byte tokens) cuts the word into the very ids the whole one gives. The
cutting is still the tokenizers library's: the small tokenizer is the model's own
``tokenizer.json`` with a smaller vocabulary.

What a model's tokenizer holds is learned once from the loaded tokenizer (``learn``) and
kept in the cache of questions (search/query_cache.py), and only for a model whose sample
of words both cut alike; any other model (WordPiece, Unigram, dropout) or a doubt leaves
the question to the whole tokenizer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from serena_memory.search.vocabulary import kept_ids

MAX_PIECE = 64  # longer words (rare in a question) go to the whole tokenizer
# Words a model is checked on before its pieces are trusted, beside the memories' own:
# marks, digits, letters outside ASCII, a ligature a normalizer may unfold, case
SAMPLE = [
    "naïve", "straße", "ﬁne", "Ünïcødé", "日本語", "HTTPServer", "2024", "x", "zzqxvb",
    "warmup", "fanout", "hydration", "Unfinished", "toggles", "ΑΒΓ", "résumé", "a1b2c3",
]  # fmt: skip
_GROUP = 4  # words cut together in the check, as a question's words are


class Learned:
    """What ``spell`` needs of a model's tokenizer: its ``tokenizer.json`` with only what
    every text may need as vocabulary and no merges (``shell``), and each vocabulary
    token's id with the merges that make it (``rows``: token -> ``"id split:rank ..."``,
    each the merge ``token[:split] + token[split:]`` of that rank)."""

    def __init__(self, shell: str, rows: dict[str, str]) -> None:
        self.shell, self.rows = shell, rows


def learn(tokenizer: Any, sample: list[str]) -> Learned | None:
    """What ``tokenizer`` (a loaded ``tokenizers.Tokenizer``) holds, or None when it is not a
    plain BPE model or a word of ``sample`` (and of :data:`SAMPLE`) is cut otherwise from
    its pieces than by the whole tokenizer."""
    try:
        config = json.loads(tokenizer.to_str())
        learned = _learned(config)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    if learned is None:
        return None
    words = list(dict.fromkeys([*SAMPLE, *sample]))
    for start in range(0, len(words), _GROUP):
        group = words[start : start + _GROUP]
        expected = [kept_ids(e) for e in tokenizer.encode_batch(group, add_special_tokens=False)]
        found = spell(learned.shell, _lookup(learned.rows), group)
        if found is None or [found.get(word) for word in group] != expected:
            return None
    return learned


def _learned(config: dict[str, Any]) -> Learned | None:
    """The shell and rows of a tokenizer's configuration, if it is a BPE one."""
    model = config.get("model")
    if not isinstance(model, dict) or model.get("type") != "BPE" or model.get("dropout"):
        return None
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        return None
    made: dict[str, list[str]] = {}
    for rank, merge in enumerate(merges):
        left, right = merge if isinstance(merge, list) else str(merge).split(" ", 1)
        made.setdefault(left + right, []).append(f"{len(left)}:{rank}")
    always = {str(added["content"]): int(added["id"]) for added in config.get("added_tokens", [])}
    names = [str(model.get("unk_token"))] + [f"<0x{byte:02X}>" for byte in range(256)]
    always.update({name: vocab[name] for name in names if name in vocab})
    shell = dict(config, padding=None, truncation=None, model=dict(model, vocab=always, merges=[]))
    rows = {token: " ".join([str(int(row)), *made.get(token, ())]) for token, row in vocab.items()}
    return Learned(json.dumps(shell), rows)


def spell(
    shell: str, lookup: Callable[[list[str]], dict[str, str]], words: list[str]
) -> dict[str, list[int]] | None:
    """Each of ``words``' token ids, cut by a tokenizer made of ``shell`` and the pieces
    ``lookup`` gives for the words' substrings; None when that can't be done (a word too
    long, a kept value that is not ours, a tokenizer that can't be made)."""
    try:
        from tokenizers import Tokenizer

        config = json.loads(shell)
        base = Tokenizer.from_str(shell)
        wanted = _substrings(base, words)
        if wanted is None:
            return None
        model = config["model"]
        vocab, merges = _pieces(dict(model["vocab"]), lookup(sorted(wanted)))
        config["model"] = dict(model, vocab=vocab, merges=merges)
        cut = Tokenizer.from_str(json.dumps(config))
        encoded = cut.encode_batch(words, add_special_tokens=False)
    except Exception:  # noqa: BLE001 - a damaged or foreign cache: the whole tokenizer then
        return None
    return {word: list(e.ids) for word, e in zip(words, encoded, strict=True)}


def _substrings(base: Any, words: list[str]) -> set[str] | None:
    """Every substring of each word as the model's normalizer and pre-tokenizer leave it."""
    wanted: set[str] = set()
    for word in words:
        text = base.normalizer.normalize_str(word) if base.normalizer is not None else word
        if base.pre_tokenizer is not None:
            parts = [part for part, _ in base.pre_tokenizer.pre_tokenize_str(text)]
        else:
            parts = [text]
        for part in parts:
            if len(part) > MAX_PIECE:
                return None
            wanted.update(part[i:j] for i in range(len(part)) for j in range(i + 1, len(part) + 1))
    return wanted


def _pieces(vocab: dict[str, int], found: dict[str, str]) -> tuple[dict[str, int], list[list[str]]]:
    """The shell's vocabulary with the found pieces, and the merges among them by rank."""
    made: list[tuple[int, str, str]] = []
    for token, value in found.items():
        row, *merges = value.split(" ")
        if not row.isdigit():
            raise ValueError("not a token id")
        vocab[token] = int(row)
        for merge in merges:
            split, rank = (int(part) for part in merge.split(":"))
            if not 0 < split < len(token) or rank < 0:
                raise ValueError("not a merge of this token")
            made.append((rank, token[:split], token[split:]))
    ordered = sorted(made)
    return vocab, [[left, right] for _, left, right in ordered if left in vocab and right in vocab]


def _lookup(rows: dict[str, str]) -> Callable[[list[str]], dict[str, str]]:
    def found(tokens: Iterable[str]) -> dict[str, str]:
        return {token: rows[token] for token in tokens if token in rows}

    return found
