"""Hybrid search: needs asked in other words are found by meaning, known items stay first,
the vectors follow every change and survive damage, each hit says why, and the embedded
model loads offline."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

from serena_memory.core.errors import ConfigError, MemoryStoreError
from serena_memory.core.store import MemoryStore
from serena_memory.search.database import close_indexes, index_path
from serena_memory.search.hits import format_hits
from serena_memory.search.index import search_memories
from serena_memory.search.semantic import DEFAULT_MODEL, load_model

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "search_set"


def names_of(hits) -> list[str]:
    return [hit.name for hit in hits]


def touch_later(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


@pytest.fixture
def shop(project: Path, store: MemoryStore) -> MemoryStore:
    """The hand-written storefront memories of the benchmark, as a project's folder."""
    shutil.copytree(SET / "shopfront", store.layout.memories_dir, dirs_exist_ok=True)
    return store


def _project_folder(store: MemoryStore, name: str) -> MemoryStore:
    shutil.copytree(SET / name, store.layout.memories_dir, dirs_exist_ok=True)
    return store


# Needs asked in other words, which words alone (the ranking before meaning was added)
# put second to fifth.
@pytest.mark.parametrize(
    ("folder", "query", "answer"),
    [
        ("ledger", "a customer wants their money back after six months", "refunds/partial"),
        ("ledger", "matching the bank payouts against our books", "reconciliation/nightly"),
        ("fieldapp", "phones do not receive alerts about new jobs", "push/notifications"),
        ("fieldapp", "publishing a beta to testers on iphone", "build/ios-signing"),
        ("tabby", "extra blank lines on microsoft systems", "windows/paths"),
        ("shopfront", "what must be done before cutting a release", "release/checklist"),
    ],
)
def test_a_need_in_other_words_finds_the_memory(
    store: MemoryStore, folder: str, query: str, answer: str
) -> None:
    hits = search_memories(_project_folder(store, folder), query)
    assert hits[0].name == answer


def test_a_memory_holding_none_of_the_words_is_found_by_meaning(store: MemoryStore) -> None:
    store.write("canteen", "# Canteen\nSoup and sandwiches are served from twelve o'clock.\n")
    store.write("tooling", "# Tooling\nThe linter runs before each commit.\n")
    hits = search_memories(store, "what food is there at midday")
    assert names_of(hits) == ["canteen"]
    assert hits[0].why == "similar meaning"
    assert search_memories(store, "xylophone quartz") == []  # nothing close: nothing found


# Questions about nothing any of the benchmark's projects is about.
ABOUT_NOTHING = (
    "xylophone quartz",
    "plants need water",
    "quokka",
    "zanzibar",
    "wombat",
    "flowers in the yard",
    "the best pizza in naples",
    "football results from saturday",
    "knitting a wool scarf",
    "how tall is mount everest",
)


@pytest.mark.parametrize("folder", ["fieldapp", "ledger", "shopfront", "tabby"])
def test_a_question_about_nothing_finds_nothing_by_meaning(store: MemoryStore, folder: str):
    # a memory holding a word of the question ("results") is a words hit, not a guess
    _project_folder(store, folder)
    for query in ABOUT_NOTHING:
        found = [hit for hit in search_memories(store, query) if not hit.why.startswith("words")]
        assert found == [], query
    assert search_memories(store, "xylophone quartz") == []


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("shipping checklist", "release/checklist"),
        ("TaxJar", "checkout/tax"),
        ("postgresql_concurrently", "db/migrations"),
        ("sess:lock", "auth/session-locks"),
    ],
)
def test_a_known_item_is_still_first(shop: MemoryStore, query: str, answer: str) -> None:
    assert search_memories(shop, query)[0].name == answer


def test_the_maintenance_memory_is_no_universal_answer(shop: MemoryStore) -> None:
    for query in (
        "what should I read before changing something",
        "how can I keep the notes short and up to date",
        "where do I find the settings I need",
    ):
        assert "memory_maintenance" not in names_of(search_memories(shop, query))[:3], query
    assert search_memories(shop, "how are memories renamed")[0].name == "memory_maintenance"


def test_a_word_in_half_of_a_small_folder_still_counts(store: MemoryStore) -> None:
    # "cache" is in four of eight memories: BM25 alone gives it no weight at all
    for i in range(4):
        store.write(f"area/note_{i}", f"# Note {i}\nThe cache is warmed at start.\n")
    for i in range(3):
        store.write(f"other/note_{i}", f"# Other {i}\nThe queue consumer acks late.\n")
    store.write("ops/eviction", "# Eviction\nWhen the cache is full, evict by age.\n")
    hits = search_memories(store, "cache evict")
    assert hits[0].name == "ops/eviction"
    assert hits[0].why.startswith("words: cache, evict")
    assert all(hit.name.startswith(("area/", "ops/")) for hit in hits[:5])


def test_each_hit_says_why_it_matched(shop: MemoryStore, tmp_path: Path) -> None:
    hit = search_memories(shop, "nexus rate")[0]
    assert hit.name == "checkout/tax" and hit.why.startswith("words: nexus, rate")
    assert hit.to_dict()["why"] == hit.why
    text = format_hits([hit], "nexus rate")
    assert text.splitlines()[0].endswith(f"({hit.why})")


def test_the_cli_and_its_json_carry_the_reason(shop: MemoryStore, project: Path) -> None:
    done = run_cli(
        "memories", "search", "where are the feature toggles configured", "-p", str(project)
    )
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("1. config/flags") and "(" in first
    done = run_cli(
        "memories",
        "search",
        "where are the feature toggles configured",
        "-p",
        str(project),
        "--json",
    )
    assert json.loads(done.stdout)["hits"][0]["why"]


# -- the vectors follow the files -----------------------------------------------------------
def _meaning_hits(store: MemoryStore, query: str) -> list[str]:
    return [hit.name for hit in search_memories(store, query) if "similar meaning" in hit.why]


def test_vectors_follow_an_edit_a_delete_and_a_rename(store: MemoryStore) -> None:
    store.write("a", "# Lunch\nThe canteen serves soup and sandwiches at noon.\n")
    store.write("b", "# Tooling\nThe linter runs before each commit.\n")
    query = "what food is there at midday"
    assert search_memories(store, query)[0].name == "a"
    path = store.layout.path_of("b")
    assert _meaning_hits(store, "plants need water") == []
    path.write_text("# Garden\nThe roses are watered every evening.\n", encoding="utf-8")
    touch_later(path)
    assert _meaning_hits(store, "flowers in the yard") == ["b"]
    os.rename(store.layout.path_of("a"), store.layout.memories_dir / "canteen.md")
    assert "canteen" in names_of(search_memories(store, query))
    assert "a" not in names_of(search_memories(store, query))
    os.unlink(store.layout.path_of("canteen"))
    assert "canteen" not in names_of(search_memories(store, query))
    # a new process (fresh cache read) sees the same: the stored vectors were updated
    close_indexes()
    assert _meaning_hits(store, "flowers in the yard") == ["b"]


def _vectors(store: MemoryStore) -> sqlite3.Connection:
    close_indexes()
    return sqlite3.connect(index_path(store), isolation_level=None)


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE vectors SET vec = x'00ff'",  # cut short
        "UPDATE vectors SET vec = zeroblob(40)",  # another size
        "DELETE FROM vectors WHERE id = (SELECT min(id) FROM vectors)",  # one missing
        "UPDATE meta SET value = 'some-other-model' WHERE key = 'model'",  # foreign
        "UPDATE vectors SET vec = 'not a vector at all'",  # text, not bytes
    ],
)
def test_damaged_or_foreign_vectors_are_made_again(shop: MemoryStore, damage: str) -> None:
    query = "where are the feature toggles configured"
    assert search_memories(shop, query)[0].name == "config/flags"
    conn = _vectors(shop)
    conn.execute(damage)
    conn.close()
    hits = search_memories(shop, query)
    assert hits[0].name == "config/flags"
    conn = _vectors(shop)
    (count,) = conn.execute("SELECT count(*) FROM vectors").fetchone()
    (docs,) = conn.execute("SELECT count(*) FROM docs").fetchone()
    model = conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()[0]
    conn.close()
    assert count == docs == 16 and model == DEFAULT_MODEL


def test_a_vector_table_gone_or_a_file_of_junk_is_rebuilt(shop: MemoryStore) -> None:
    query = "where are the feature toggles configured"
    assert search_memories(shop, query)[0].name == "config/flags"
    conn = _vectors(shop)
    conn.execute("DROP TABLE vectors")
    conn.close()
    assert search_memories(shop, query)[0].name == "config/flags"
    close_indexes()
    index_path(shop).write_bytes(b"\x00junk" * 1000)
    assert search_memories(shop, query)[0].name == "config/flags"


# -- the model ----------------------------------------------------------------------------------
def test_the_embedded_model_loads_offline_and_writes_no_cache(tmp_path: Path) -> None:
    tmp_path = tmp_path / "offline"
    tmp_path.mkdir()
    code = (
        "from serena_memory.search.semantic import load_model\n"
        "m = load_model()\n"
        "v = m.embed(['when is the release frozen', 'deploy freeze on thursday', 'soup'])\n"
        "print(m.identity, v.shape[1], float(v[0] @ v[1]), float(v[0] @ v[2]))\n"
    )
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "1",
        "NO_PROXY": "*",
        "HTTPS_PROXY": "http://127.0.0.1:9",  # any fetch would fail
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    identity, dim, close, far = done.stdout.split()
    assert identity == DEFAULT_MODEL and dim == "256" and float(close) > float(far)
    assert list(tmp_path.iterdir()) == []  # nothing downloaded or cached


def _model_folder(target: Path) -> Path:
    """The embedded model written out as a static model folder (model2vec's layout)."""
    from safetensors.numpy import save_file

    inference = load_model()._inference
    target.mkdir()
    save_file({"embeddings": inference.embedding}, str(target / "model.safetensors"))
    inference.tokenizer.save(str(target / "tokenizer.json"))
    return target


def test_a_model_folder_named_in_the_user_config_is_used(shop: MemoryStore, tmp_path: Path):
    folder = _model_folder(tmp_path / "my-model")
    query = "where are the feature toggles configured"
    assert search_memories(shop, query)[0].name == "config/flags"
    (shop.layout.home / "serena_config.yml").write_text(f"memory_search_model: {folder}\n")
    assert search_memories(shop, query)[0].name == "config/flags"
    conn = _vectors(shop)
    model = conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()[0]
    conn.close()
    assert model.startswith("static:")  # the vectors were made again with this model


def _quantized_folder(target: Path, mapping_shift: int = 0) -> Path:
    """The embedded model as a vocabulary-quantized folder (model2vec's ``mapping`` and
    ``weights``): int8 rows shared by pairs of tokens, each token's own scale."""
    import numpy as np
    from safetensors.numpy import save_file

    inference = load_model()._inference
    matrix = inference.embedding
    scale = np.abs(matrix).max(axis=1)
    scale[scale == 0] = 1.0
    rows = np.round(matrix / scale[:, None] * 127).astype(np.int8)
    # every row stored once and a copy of it shared by a second token id
    shared = np.concatenate([rows, rows[:1]])
    mapping = np.arange(len(rows), dtype=np.int64) + mapping_shift
    target.mkdir()
    save_file(
        {"embeddings": shared, "mapping": mapping, "weights": (scale / 127).astype(np.float32)},
        str(target / "model.safetensors"),
    )
    inference.tokenizer.save(str(target / "tokenizer.json"))
    return target


def test_a_vocabulary_quantized_model_folder_is_used(shop: MemoryStore, tmp_path: Path) -> None:
    import numpy as np

    folder = _quantized_folder(tmp_path / "quantized")
    texts = ["where are the feature toggles configured", "flags per environment"]
    mine, embedded = load_model(str(folder)).embed(texts), load_model().embed(texts)
    assert np.all(np.sum(mine * embedded, axis=1) > 0.99)  # the same vectors, near enough
    (shop.layout.home / "serena_config.yml").write_text(f"memory_search_model: {folder}\n")
    assert search_memories(shop, texts[0])[0].name == "config/flags"


@pytest.mark.parametrize(
    "broken", ["missing", "no-tokenizer", "junk-weights", "mapping-out-of-range"]
)
def test_a_model_folder_that_cant_load_is_one_sentence(
    shop: MemoryStore, tmp_path: Path, broken: str
) -> None:
    folder = tmp_path / "model"
    if broken == "mapping-out-of-range":
        _quantized_folder(folder, mapping_shift=2)
    elif broken != "missing":
        _model_folder(folder)
    if broken == "no-tokenizer":
        (folder / "tokenizer.json").unlink()
    if broken == "junk-weights":
        (folder / "model.safetensors").write_bytes(b"not safetensors")
    (shop.layout.home / "serena_config.yml").write_text(f"memory_search_model: {folder}\n")
    with pytest.raises(MemoryStoreError) as caught:  # a query the words don't answer
        search_memories(shop, "switches for unfinished work")
    message = str(caught.value)
    assert "memory_search_model" in message and "\n" not in message


def test_a_project_config_cannot_choose_the_model(shop: MemoryStore, project: Path) -> None:
    (project / ".serena" / "project.yml").write_text("memory_search_model: /etc\n")
    with pytest.raises(ConfigError, match="memory_search_model.*serena_config.yml"):
        search_memories(shop, "feature toggles")  # refused, never followed


def test_commands_that_do_not_search_load_no_numpy_or_model() -> None:
    code = (
        "import sys\n"
        "from serena_memory.cli import main\n"
        "import serena_memory.core.store\n"
        "print(sorted(m for m in ('numpy', 'wordllama', 'tokenizers') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(("own", "expected"), [(None, "4"), ("12", "12")])
def test_blas_threads_sleep_after_a_product_unless_the_person_says_otherwise(
    tmp_path: Path, own: str | None, expected: str
) -> None:
    """numpy's BLAS reads how long its threads spin when numpy is first imported: a search
    process has set it by then (short: no core burnt after each search), keeping a
    person's own value."""
    code = (
        "import os, sys\n"
        "from serena_memory.wiring import build_store\n"
        "from serena_memory.search.index import search_memories\n"
        "assert 'numpy' not in sys.modules\n"
        "search_memories(build_store(sys.argv[1], home=sys.argv[2]), 'deploy steps')\n"
        "assert 'numpy' in sys.modules\n"
        "print(os.environ['OPENBLAS_THREAD_TIMEOUT'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if own is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = own
    (tmp_path / "project").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "project"), str(tmp_path / "home")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert done.stdout.strip() == expected


def test_the_model_gives_other_words_for_a_query_word() -> None:
    """The words side also looks for the model's closest whole words: other words for the
    same thing, never the word itself, a form of it or a piece of it."""
    model = load_model()
    found = dict(model.neighbours("pictures", 2, 0.5))
    assert set(found) & {"photos", "images", "photograph"}
    assert all(0.5 <= closeness <= 1.0 for closeness in found.values())
    for word in ("release", "open", "configured", "keep"):
        for other, _ in model.neighbours(word, 5, 0.3):
            assert other != word and other[:4] != word[:4]
            assert other not in word and word not in other
    assert model.neighbours("zqxjkv", 3, 0.1) == []
    assert model.neighbours("pictures", 0, 0.1) == []


def test_a_words_closest_words_asked_again_are_the_same() -> None:
    """The process keeps each word's closest words: asked again, with the same or other
    bounds, the answer is what it was, whatever a caller did to an earlier list."""
    model = load_model()
    first = model.neighbours("pictures", 2, 0.5)
    first.append(("tampered", 1.0))
    first[0] = ("tampered", 1.0)
    again = model.neighbours("pictures", 2, 0.5)
    assert again == model.neighbours("pictures", 2, 0.5)
    assert "tampered" not in dict(again) and len(again) == 2
    assert model.neighbours("pictures", 1, 0.5) == again[:1]
    assert model.neighbours("pictures", 2, 1.01) == []


def test_a_memory_holding_only_a_related_word_is_a_words_candidate(store: MemoryStore) -> None:
    """Holding 'photos' counts (less) for a query asking about 'pictures'; holding the
    query's own word counts fully."""
    from serena_memory.search.database import index_for
    from serena_memory.search.query import parse_query
    from serena_memory.search.ranking import RELATED_WEIGHT

    folder = store.layout.memories_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "uploads.md").write_text("# Uploads\n\nReceipts arrive as photos.\n")
    (folder / "gallery.md").write_text("# Gallery\n\nThe pictures page lists receipts.\n")
    (folder / "ledger.md").write_text("# Ledger\n\nEntries are never edited.\n")
    search_memories(store, "ledger")  # builds the index
    parsed = parse_query("pictures")
    index = index_for(store)
    with index.lock:
        plain = index.ranked(parsed, "", "all", 10)
        related = index.ranked(parsed, "", "all", 10, {"pictures": [("photos", 0.9)]})
    assert [hit[0] for hit in plain] == ["gallery"]
    assert [hit[0] for hit in related] == ["gallery", "uploads"]
    coverage = {hit[0]: hit[4] for hit in related}
    assert coverage["gallery"] == pytest.approx(1.0)
    assert coverage["uploads"] == pytest.approx(RELATED_WEIGHT * 0.9)
    assert related[1][3] == ()  # it holds none of the query's own words


# -- what a hit shows ---------------------------------------------------------------------------
def test_a_listed_hit_shows_why_not_a_score_scaled_to_the_query(shop: MemoryStore) -> None:
    hits = search_memories(shop, "where are the feature toggles configured")
    text = format_hits(hits, "where are the feature toggles configured")
    heads = [line for line in text.splitlines() if not line.startswith(" ")]
    assert len(heads) == len(hits) > 1
    for rank, (head, hit) in enumerate(zip(heads, hits, strict=True), start=1):
        assert head == f"{rank}. {hit.name}  ({hit.why})"  # no "score 0" for a listed hit
    assert all(isinstance(hit.to_dict()["score"], float) for hit in hits)  # JSON unchanged


# -- the words of asking ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "particle"),
    [
        ("who gets woken up at night when the site is down", "up"),
        ("the checkout is not taking payments", "not"),
        ("no invoices were sent", "no"),
    ],
)
def test_particles_and_negations_make_no_words_hit(
    store: MemoryStore, query: str, particle: str
) -> None:
    store.write("local-dev", "# Local setup\nStart it up with `make up`; no, not on Windows.\n")
    store.write("other", "# Other\nNothing else is kept here.\n")
    for hit in search_memories(store, query):
        assert particle not in hit.why.removeprefix("words: ").split(", ")
    assert not any(hit.why.startswith("words") for hit in search_memories(store, query))
