"""What the model said about a question is kept between processes: the same question in a
new process is answered alike without loading the model, and what is kept follows the
model's files and the question's text (another model or another text: asked anew)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from serena_memory.core.store import MemoryStore
from serena_memory.search.query_cache import cache_path
from serena_memory.search.semantic import load_model

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "search_set"
QUESTION = "switches for unfinished work"  # no memory holds all its words: meaning answers


@pytest.fixture
def shop(project: Path, store: MemoryStore) -> MemoryStore:
    shutil.copytree(SET / "shopfront", store.layout.memories_dir, dirs_exist_ok=True)
    return store


def ask(store: MemoryStore, query: str, home: Path | None = None) -> tuple[dict, bool]:
    """The answer of a search in a new process, and whether that process loaded the
    model's tokenizer."""
    answer, loaded, _ = ask_whole(store, query, home)
    return answer, loaded


def ask_whole(store: MemoryStore, query: str, home: Path | None = None) -> tuple[dict, bool, bool]:
    """:func:`ask`, and whether the process loaded the whole tokenizer (not only the kept
    pieces of its vocabulary)."""
    root, home_dir = str(store.layout.project_root), str(home or store.layout.home)
    program = textwrap.dedent(
        f"""
        import json, sys
        from serena_memory.wiring import build_store
        from serena_memory.search import semantic
        from serena_memory.search.index import search_memories
        store = build_store({root!r}, home={home_dir!r})
        answer = search_memories(store, {query!r}).to_dict()
        held = semantic.model_held() and semantic.model_for(store.layout.home)
        whole = bool(held and held.tokenizer_loaded())
        print(json.dumps([answer, "tokenizers" in sys.modules, whole]))
        """
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    answer, loaded, whole = json.loads(done.stdout)
    return answer, loaded, whole


def test_a_question_asked_again_is_answered_alike_without_loading_the_model(
    shop: MemoryStore,
) -> None:
    first, loaded = ask(shop, QUESTION)
    assert loaded and first["hits"]
    again, loaded_again = ask(shop, QUESTION)
    assert again == first and not loaded_again


def test_another_question_is_asked_anew_and_answered_as_in_a_fresh_home(
    shop: MemoryStore, tmp_path: Path
) -> None:
    ask(shop, QUESTION)
    for query in ["switches for work not finished", "unfinished work hidden from customers"]:
        kept, _ = ask(shop, query)  # its words' closest words kept, not its vector
        fresh, _ = ask(shop, query, home=tmp_path / f"fresh-{len(query)}")
        assert kept == fresh


def _model_folder(target: Path, shift: int = 0) -> Path:
    """The embedded model as a static model folder; ``shift`` rolls its rows (another
    model: each token given another token's vector)."""
    import numpy as np
    from safetensors.numpy import save_file

    inference = load_model()._inference
    target.mkdir(exist_ok=True)
    matrix = np.roll(inference.embedding, shift, axis=0)
    save_file({"embeddings": matrix}, str(target / "model.safetensors"))
    inference.tokenizer.save(str(target / "tokenizer.json"))
    return target


def test_what_is_kept_follows_the_model_files(shop: MemoryStore, tmp_path: Path) -> None:
    folder = _model_folder(tmp_path / "model")
    config = f"memory_search_model: {folder}\n"
    (shop.layout.home / "serena_config.yml").write_text(config)
    before, _ = ask(shop, QUESTION)
    assert ask(shop, QUESTION) == (before, False)
    _model_folder(folder, shift=7)  # the same folder, another model in it
    after, loaded = ask(shop, QUESTION)
    fresh_home = tmp_path / "fresh"
    fresh_home.mkdir()
    (fresh_home / "serena_config.yml").write_text(config)
    assert loaded and after == ask(shop, QUESTION, home=fresh_home)[0]
    assert after != before  # the other model's answer, not the kept one
    assert ask(shop, QUESTION) == (after, False)
    tokenizer = folder / "tokenizer.json"
    stat = tokenizer.stat()
    os.utime(tokenizer, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert ask(shop, QUESTION) == (after, True)  # its tokenizer changed: asked anew


def test_a_damaged_cache_of_questions_is_made_again(shop: MemoryStore) -> None:
    first, _ = ask(shop, QUESTION)
    path = cache_path(shop.layout.home)
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(b"not a database at all " * 100)
    again, loaded = ask(shop, QUESTION)
    assert again == first and loaded
    assert ask(shop, QUESTION) == (first, False)  # kept again in a new file


# Whole words of the model's vocabulary, none of them asked before; then a new question
# of them and of words asked before
VOCABULARY_QUESTION = "switches budget rotation"
NEW_OF_KNOWN = "budget switches unfinished"


def test_a_new_question_of_known_words_needs_no_tokenizer_and_is_answered_alike(
    shop: MemoryStore, tmp_path: Path
) -> None:
    ask(shop, QUESTION)  # the first load marks that it was loaded
    _, loaded = ask(shop, "unfinished work hidden from customers")
    assert loaded  # the second learns the vocabulary's whole words and pieces
    for query in [VOCABULARY_QUESTION, NEW_OF_KNOWN]:
        kept, _, whole = ask_whole(shop, query)
        fresh, _ = ask(shop, query, home=tmp_path / f"fresh-{len(query)}")
        assert kept == fresh and kept["hits"] and not whole


def test_kept_token_ids_follow_the_tokenizer_file(shop: MemoryStore, tmp_path: Path) -> None:
    folder = _model_folder(tmp_path / "model")
    (shop.layout.home / "serena_config.yml").write_text(f"memory_search_model: {folder}\n")
    ask(shop, QUESTION)
    ask(shop, "unfinished work hidden from customers")
    assert ask_whole(shop, VOCABULARY_QUESTION)[2] is False
    tokenizer = folder / "tokenizer.json"
    stat = tokenizer.stat()
    os.utime(tokenizer, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert ask_whole(shop, NEW_OF_KNOWN)[2] is True  # another tokenizer: asked anew


def test_damaged_kept_token_ids_are_as_good_as_absent(shop: MemoryStore, tmp_path: Path) -> None:
    import sqlite3

    ask(shop, QUESTION)
    ask(shop, "unfinished work hidden from customers")
    conn = sqlite3.connect(cache_path(shop.layout.home), isolation_level=None)
    conn.execute("UPDATE told SET value = '[-1, \"x\"]' WHERE key LIKE 'i%' AND key != 'i'")
    conn.execute("UPDATE told SET value = 'not json' WHERE key = 'vocabulary'")
    conn.close()
    answer, _, whole = ask_whole(shop, VOCABULARY_QUESTION)
    assert whole and answer == ask(shop, VOCABULARY_QUESTION, home=tmp_path / "fresh")[0]
    assert ask_whole(shop, "rotation switches budget")[2] is False  # learned again above


# Words no memory of the shop holds, none of them a whole word of the vocabulary
UNHELD_QUESTION = "hydrationz fanoutish canarying"


def _learned_home(store: MemoryStore) -> None:
    """A home that loaded the tokenizer twice: the second learned the vocabulary's whole
    words and its pieces."""
    ask(store, QUESTION)
    ask(store, "unfinished work hidden from customers")


def test_a_question_of_words_nothing_held_is_cut_from_the_kept_pieces_alike(
    shop: MemoryStore, tmp_path: Path
) -> None:
    _learned_home(shop)
    for query in [UNHELD_QUESTION, "canarying budget", "naïve Straße 2024x"]:
        kept, _, whole = ask_whole(shop, query)
        fresh, _, fresh_whole = ask_whole(shop, query, home=tmp_path / f"fresh-{len(query)}")
        assert kept == fresh and fresh_whole and not whole, query


def test_damaged_kept_pieces_are_as_good_as_absent(shop: MemoryStore, tmp_path: Path) -> None:
    import sqlite3

    _learned_home(shop)
    fresh, _, _ = ask_whole(shop, UNHELD_QUESTION, home=tmp_path / "fresh")
    conn = sqlite3.connect(cache_path(shop.layout.home), isolation_level=None)
    conn.execute("UPDATE pieces SET value = 'x 1:-2' WHERE key LIKE '%y%'")
    conn.close()
    assert ask_whole(shop, UNHELD_QUESTION)[::2] == (fresh, True)
    conn = sqlite3.connect(cache_path(shop.layout.home), isolation_level=None)
    conn.execute("UPDATE told SET value = '{not json' WHERE key = 'shell'")
    conn.close()
    assert ask_whole(shop, "florbing quuxish")[2] is True


def _kept_pieces(store: MemoryStore) -> int:
    import sqlite3

    conn = sqlite3.connect(cache_path(store.layout.home), isolation_level=None)
    try:
        return int(conn.execute("SELECT count(*) FROM pieces").fetchone()[0])
    finally:
        conn.close()


def test_a_model_whose_tokenizer_is_not_bpe_keeps_no_pieces(
    shop: MemoryStore, tmp_path: Path
) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    ask(shop, QUESTION)
    assert _kept_pieces(shop) == 0  # the first load learns nothing of the vocabulary
    ask(shop, "unfinished work hidden from customers")
    assert _kept_pieces(shop) > 30_000  # the second: the embedded model's pieces
    folder = _model_folder(tmp_path / "model")
    vocab = {"[UNK]": 0, **{word: i + 1 for i, word in enumerate(_WORDPIECE_WORDS)}}
    wordpiece = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.Lowercase()
    wordpiece.pre_tokenizer = pre_tokenizers.Whitespace()
    wordpiece.save(str(folder / "tokenizer.json"))
    (shop.layout.home / "serena_config.yml").write_text(f"memory_search_model: {folder}\n")
    _learned_home(shop)
    assert _kept_pieces(shop) == 0  # the other model's went; this one has none
    assert ask_whole(shop, "florbing budget")[2] is True


_WORDPIECE_WORDS = ["switch", "##es", "for", "un", "##finished", "work", "budget", "hidden"]


def test_kept_rows_past_the_matrix_are_as_good_as_absent(shop: MemoryStore, tmp_path: Path) -> None:
    import sqlite3

    _learned_home(shop)
    conn = sqlite3.connect(cache_path(shop.layout.home), isolation_level=None)
    (value,) = conn.execute("SELECT value FROM told WHERE key = 'vocabulary'").fetchone()
    rows = json.loads(value)
    rows["rotation"] = rows["checkout"] = 10**9  # rows no matrix has
    conn.execute("UPDATE told SET value = ? WHERE key = 'vocabulary'", (json.dumps(rows),))
    conn.close()
    answer, _, _ = ask_whole(shop, "rotation checkout florbing")
    assert (
        answer == ask(shop, "switches budget florbing", home=tmp_path / "fresh")[0]
        or answer["hits"]
    )
