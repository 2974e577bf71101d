"""What the meaning model said about queries, kept between processes: a query's vector and
its words' closest words.

Loading the model (numpy, the tokenizer's 1.8 MB of JSON, a 16 MB matrix) is most of the
time of a one-off `serena memories search` that needs meaning; a person asks the same
questions and uses the same words again. So each vector and each word's closest words
is kept in one small SQLite file, ``$SERENA_HOME/cache/search/queries.sqlite3``, under a
stamp of the model: its identity and the paths, sizes and modification times of its files
(search/semantic.py, ``model_stamp``), and this module's version of how they are made. A
search whose query's vector and words are all kept answers without loading the model; the
same numbers come back, so the answer is the same.

What the tokenizer said is kept beside, under the same stamp: each word's token ids and
whether a text's ids are its words' ids one after another, so a new question of known
words is embedded without the tokenizer (its 1.8 MB of JSON is most of a model's load);
once a home has asked the model twice, every whole word of the vocabulary with its row,
so the closest words of a new word need no tokenizer either, and, for a BPE model whose
sample of words is cut alike, the pieces of its vocabulary with the merges that make them
(the table ``pieces``), so any word is cut without the whole tokenizer
(search/pieces.py); for another model, the ids of every whole word and of the memories'
words instead. Each row names its
stamp by a digest (a stamp of paths is some 300 characters, and a model has thousands of
rows).
Another model, an update of a model's files or another text of the query is another
entry; entries of other stamps are dropped when the file grows past :data:`MAX_ENTRIES`
(what the tokenizer said and the pieces: at once).

Like the index, the file is a cache never trusted: one that is not ours, of another
version, damaged or unreadable is thrown away (a search never fails for it), a value that
is not what this module stores is as good as absent, and writing is skipped when another
process holds the file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable

    from serena_memory.search.pieces import Learned
    from serena_memory.search.vocabulary import Vocabulary

FILE_NAME = "queries.sqlite3"
_APPLICATION_ID = 0x5352514B  # "SRQK"
_VERSION = 4  # of the file's layout and of how the kept values are made
MAX_ENTRIES = 20_000  # ~25 MB at most; past it, other models' entries and the oldest go
_VECTOR, _WORD = "v", "w"
_IDS, SEEN, _VOCABULARY = "i", "seen", "vocabulary"  # keys of the table ``told``
SHELL = "shell"  # the model's tokenizer without its pieces (search/pieces.py), or ""


def cache_path(home: Path) -> Path:
    return home / "cache" / "search" / FILE_NAME


class Kept:
    """What the cache holds for one query: its vector (None: not kept) and the closest
    words of those of its words that are kept. ``identity`` and ``dim`` say which model
    made them, as an Embedder does (for the index's check that its vectors match)."""

    def __init__(
        self,
        identity: str,
        vector: Any,
        related: dict[str, list[tuple[str, float]]],
        told: dict[str, Any] | None = None,
    ):
        self.identity = identity
        self.vector = vector
        self.dim = int(vector.shape[0]) if vector is not None else 0
        self.related = related
        # what the tokenizer said: the ids of the text's words, the split flag, whether
        # the vocabulary's whole words are kept, whether the tokenizer was loaded before
        self.told = told or {}


def recall(
    home: Path, model: tuple[str, str], text: str, words: list[str], count: int, least: float
) -> Kept:
    """What is kept for the query ``text`` and each of ``words`` (closest words by
    ``count`` and ``least``) under the model stamp ``model`` (identity, stamp)."""
    identity, stamp = model[0], _digest(model[1])
    kept = Kept(identity, None, {})
    conn = _open(home, create=False)
    if conn is None:
        return kept
    keys = [_VECTOR + text] + [_word_key(word, count, least) for word in words]
    told_keys = [SEEN, _IDS, SHELL] + [_IDS + word for word in text.split(" ")]
    try:
        rows = dict(_select(conn, "said", stamp, keys))
        told = dict(_select(conn, "told", stamp, told_keys))
        told[_VOCABULARY] = bool(_select(conn, "told", stamp, [_VOCABULARY], "1"))
    except Exception:  # noqa: BLE001 - a cache that can't be read is as good as empty
        return kept
    finally:
        conn.close()
    related = {}
    for word, key in zip(words, keys[1:], strict=True):
        found = _words(rows.get(key))
        if found is not None:
            related[word] = found
    return Kept(identity, _vector(rows.get(keys[0])), related, told)


def _select(
    conn: sqlite3.Connection, table: str, stamp: str, keys: list[str], value: str = "value"
) -> list[tuple[str, Any]]:
    marks = ",".join("?" * len(keys))
    return conn.execute(
        f"SELECT key, {value} FROM {table} WHERE model = ? AND key IN ({marks})", [stamp, *keys]
    ).fetchall()


def vocabulary(home: Path, model: tuple[str, str], told: dict[str, Any]) -> Vocabulary | None:
    """The vocabulary kept under ``model`` for a question: its words' ids (from
    ``told``, what ``recall`` read) and, when asked with ``whole``, the whole words."""
    from serena_memory.search.vocabulary import Vocabulary

    flag = told.get(_IDS)
    if flag not in ("splits", "apart"):
        return None
    ids = {}
    for key, value in told.items():
        found = _id_list(value) if key.startswith(_IDS) and key != _IDS else None
        if found is not None:
            ids[key[len(_IDS) :]] = found
    rows = None
    if told.get(_VOCABULARY):
        rows = _rows(home, _digest(model[1]))
    shell = told.get(SHELL)
    spell = _speller(home, _digest(model[1]), shell) if isinstance(shell, str) and shell else None
    return Vocabulary(flag == "splits", ids, rows, spell)


def _speller(
    home: Path, stamp: str, shell: str
) -> Callable[[list[str]], dict[str, list[int]] | None]:
    """Words' token ids from the kept pieces of the model's vocabulary (search/pieces.py)."""

    def spelled(words: list[str]) -> dict[str, list[int]] | None:
        from serena_memory.search import pieces

        return pieces.spell(shell, lambda tokens: _pieces(home, stamp, tokens), words)

    return spelled


def _pieces(home: Path, stamp: str, tokens: list[str]) -> dict[str, str]:
    """The kept pieces among ``tokens`` (token -> its kept value); none when unreadable."""
    conn = _open(home, create=False)
    if conn is None:
        return {}
    found: dict[str, str] = {}
    try:
        for start in range(0, len(tokens), _BATCH):
            found.update(_select(conn, "pieces", stamp, tokens[start : start + _BATCH]))
    except Exception:  # noqa: BLE001 - damaged: as good as absent
        return {}
    finally:
        conn.close()
    return {token: value for token, value in found.items() if isinstance(value, str)}


_BATCH = 900  # keys asked of SQLite at once


def _digest(stamp: str) -> str:
    """A model's stamp as the file keeps it: a digest (each of its thousands of rows names
    its model, and a stamp of paths is some 300 characters)."""
    import hashlib

    return hashlib.sha256(stamp.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _rows(home: Path, stamp: str) -> dict[str, int] | None:
    """The kept whole words' rows, or None when they can't be read."""
    conn = _open(home, create=False)
    if conn is None:
        return None
    try:
        found = _select(conn, "told", stamp, [_VOCABULARY])
        value = json.loads(found[0][1]) if found else None
    except Exception:  # noqa: BLE001 - damaged: as good as absent
        return None
    finally:
        conn.close()
    if not isinstance(value, dict):
        return None
    good = all(isinstance(w, str) and type(r) is int and r >= 0 for w, r in value.items())
    return value if good else None


def _id_list(value: Any) -> list[int] | None:
    """Kept token ids, or None when the value is not a non-empty list of them."""
    try:
        found = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None
    if not isinstance(found, list) or not found:
        return None
    return found if all(type(i) is int and i >= 0 for i in found) else None


def keep_told(home: Path, model: tuple[str, str], told: Vocabulary) -> None:
    """Keep what the tokenizer said under ``model``: the ids of ``told``'s words, and
    when it holds them, its whole words and whether texts split into words' ids; and a
    mark that the tokenizer was loaded, so the next load learns the whole vocabulary."""
    stamp = _digest(model[1])
    rows: list[tuple[str, str, Any]] = [(stamp, SEEN, "1")]
    rows += [(stamp, _IDS + word, json.dumps(ids)) for word, ids in told.ids.items()]
    if told.rows is not None:  # learned whole: the vocabulary and how texts split
        rows.append((stamp, _IDS, "splits" if told.splits else "apart"))
        rows.append((stamp, _VOCABULARY, json.dumps(told.rows)))
    _write(home, "told", rows, stamp)


def keep_pieces(home: Path, model: tuple[str, str], learned: Learned | None) -> None:
    """Keep the pieces of the model's vocabulary and its tokenizer's shell, so that a word
    no question held before is cut without the whole tokenizer (search/pieces.py); for a
    model that has none (``learned`` None), that it has none, so they are not sought
    again."""
    stamp = _digest(model[1])
    if learned is not None:
        pieces = [(stamp, token, value) for token, value in learned.rows.items()]
        _write(home, "pieces", pieces, "")
    _write(home, "told", [(stamp, SHELL, learned.shell if learned else "")], stamp)


def keep(
    home: Path,
    model: tuple[str, str],
    text: str,
    vector: Any,
    related: dict[str, list[tuple[str, float]]],
    count: int,
    least: float,
) -> None:
    """Keep the vector of ``text`` and the closest words of each word of ``related``
    under the model stamp ``model``; quietly nothing when the file can't be written."""
    stamp = _digest(model[1])
    rows: list[tuple[str, str, Any]] = [(stamp, _VECTOR + text, vector.astype("<f4").tobytes())]
    rows += [
        (stamp, _word_key(word, count, least), json.dumps(found)) for word, found in related.items()
    ]
    _write(home, "said", rows, stamp)


def _write(home: Path, table: str, rows: list[tuple[str, str, Any]], stamp: str) -> None:
    """Insert ``rows`` into ``table``; then entries of models other than ``stamp`` (when
    given) and the oldest go (:func:`_trim`)."""
    conn = _open(home, create=True)
    if conn is None:
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            f"INSERT OR REPLACE INTO {table} (model, key, value) VALUES (?, ?, ?)", rows
        )
        if stamp:
            _trim(conn, stamp)
        conn.execute("COMMIT")
    except Exception:  # noqa: BLE001 - busy, read-only, full disk: the cache waits
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
    finally:
        conn.close()


def _word_key(word: str, count: int, least: float) -> str:
    return f"{_WORD}{count}\0{least!r}\0{word}"


def _trim(conn: sqlite3.Connection, stamp: str) -> None:
    """Past MAX_ENTRIES: other models' entries dropped, then the oldest half."""
    dropped = conn.execute("DELETE FROM told WHERE model != ?", (stamp,)).rowcount  # ~1 MB
    if dropped:  # another model's pieces went with what its tokenizer said (a scan, ~7 ms)
        conn.execute("DELETE FROM pieces WHERE model != ?", (stamp,))
    total = conn.execute("SELECT count(*) FROM said").fetchone()[0]
    if total <= MAX_ENTRIES:
        return
    conn.execute("DELETE FROM said WHERE model != ?", (stamp,))
    total = conn.execute("SELECT count(*) FROM said").fetchone()[0]
    if total > MAX_ENTRIES:
        conn.execute(
            "DELETE FROM said WHERE rowid IN (SELECT rowid FROM said ORDER BY rowid LIMIT ?)",
            (total - MAX_ENTRIES // 2,),
        )


def _vector(value: Any) -> Any:
    """A kept vector as float32, or None when it is not one (empty, odd-sized, not finite)."""
    if not isinstance(value, bytes) or not value or len(value) % 4:
        return None
    import numpy as np

    vector = np.frombuffer(value, dtype="<f4").astype(np.float32)
    return vector if bool(np.isfinite(vector).all()) else None


def _words(value: Any) -> list[tuple[str, float]] | None:
    """Kept closest words, or None when the value is not a list of (word, finite score)."""
    try:
        found = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None
    if not isinstance(found, list):
        return None
    out = []
    for item in found:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            return None
        if not isinstance(item[1], float) or not math.isfinite(item[1]):
            return None
        out.append((item[0], item[1]))
    return out


def _open(home: Path, create: bool) -> sqlite3.Connection | None:
    """The cache file, valid, or None (absent and not to be made, or not usable)."""
    path = cache_path(home)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        _remove(path)  # a cache is a plain file of ours, nothing else
    if not path.exists() and not create:
        return None
    try:
        import sqlite3

        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=0.5, isolation_level=None)
    except Exception:  # noqa: BLE001 - no cache then
        return None
    try:
        valid = _valid(conn)
    except Exception:  # noqa: BLE001 - not a database, damaged: made again
        valid = False
    if valid:
        return conn
    conn.close()
    _remove(path)
    if not create:
        return None
    try:
        conn = sqlite3.connect(str(path), timeout=0.5, isolation_level=None)
        _create(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
    except Exception:  # noqa: BLE001 - another process makes it, or the disk is full
        with contextlib.suppress(Exception):
            conn.close()
        return None
    return conn


def _valid(conn: sqlite3.Connection) -> bool:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if app_id != _APPLICATION_ID or version != _VERSION:
        return False
    for table in ("said", "told", "pieces"):
        conn.execute(f"SELECT count(*) FROM {table} WHERE model = '' AND key = ''").fetchone()
    conn.execute("PRAGMA synchronous = NORMAL")  # a commit may be lost, never torn (WAL)
    return True


def _create(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "CREATE TABLE said (model TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, "
        "UNIQUE (model, key))"
    )
    conn.execute(
        "CREATE TABLE told (model TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
        "UNIQUE (model, key))"
    )
    conn.execute(
        "CREATE TABLE pieces (model TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
        "PRIMARY KEY (model, key)) WITHOUT ROWID"
    )
    conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {_VERSION}")
    conn.execute("COMMIT")


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            os.unlink(str(path) + suffix)
