"""The search index: one SQLite FTS5 file per memories folder, a cache never trusted.

The index is a cache in ``$SERENA_HOME/cache/search``, one file per memories folder. It
is never trusted: every query first compares each memory file's stamp (mtime_ns, size)
with the stamp it was indexed at, so an edit made in an editor is found at the next
query and a deleted or newly ignored memory is never returned. A cache file that is
broken, foreign or of another version is thrown away and rebuilt. Several processes may
search and write at once: the file is in WAL mode with a busy timeout, and each refresh
is one short write transaction whose result does not depend on who ran it first. The
meaning vectors (search/semantic.py) are kept in the same file, refreshed from the same
stamps.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import names as N
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.watch import FolderWatch, folders_below
from serena_memory.search import ranking
from serena_memory.search.hits import MARK_END, MARK_START
from serena_memory.search.query import ParsedQuery, headings_of, name_words
from serena_memory.search.semantic import MAX_EMBED_CHARS, document_text

if TYPE_CHECKING:
    import sqlite3

    from serena_memory.core.store import MemoryStore
    from serena_memory.search.semantic import Embedder

_APPLICATION_ID = 0x53524D53  # "SRMS": marks the file as ours, so a foreign one is rebuilt
_SCHEMA_VERSION = 2  # 2: the vectors table
_TOKENIZER = "porter unicode61 remove_diacritics 2"
_EMBED_CHUNK = 1_000  # memories embedded at once when every vector is made again


class SearchUnavailableError(MemoryStoreError):
    """This Python's sqlite3 is missing or was built without FTS5."""


def sqlite() -> Any:
    """The sqlite3 module, checked once for FTS5; a clear sentence when it can't be used."""
    try:
        import sqlite3
    except ImportError:
        raise SearchUnavailableError(
            "memory search needs Python's sqlite3 module, which this Python lacks; "
            "use a Python built with SQLite (the python.org and distribution builds are)"
        ) from None
    if not getattr(sqlite, "checked", False):
        probe = sqlite3.connect(":memory:")
        try:
            probe.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
        except sqlite3.Error:
            raise SearchUnavailableError(
                f"memory search needs SQLite's FTS5 extension, which this Python's SQLite "
                f"{sqlite3.sqlite_version} lacks; use a Python whose SQLite has FTS5"
            ) from None
        finally:
            probe.close()
        sqlite.checked = True  # type: ignore[attr-defined]
    return sqlite3


# -- the cache file -------------------------------------------------------------------------
def index_path(store: MemoryStore) -> Path:
    """Where the index of this store lives: keyed by the folders' resolved paths."""
    key = f"{os.path.realpath(store.memories_dir)}\0{os.path.realpath(store.global_dir)}"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return store.home / "cache" / "search" / f"{digest}.sqlite3"


def remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


class Index:
    """One index file, opened once per process and shared by its threads."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self.lock = threading.Lock()
        self.conn: sqlite3.Connection | None = None
        self.known: dict[str, tuple[int, int, int]] = {}  # name -> (rowid, mtime_ns, size)
        self.data_version: int | None = None
        # the last sweep of the memory files, reused while the folder watch sees no change
        self.stamps: dict[str, tuple[int, int]] | None = None
        self.real_paths: dict[str, str] = {}  # name -> real file, from the last sweep
        self.ignored_key: tuple[str, ...] | None = None
        self.sweeps = 0
        self.watch: FolderWatch | None = None
        self.in_sync_with: dict[str, tuple[int, int]] | None = None
        # the meaning vectors, loaded with the stamps: row i of matrix is memory vector_ids[i]
        self.matrix: Any = None
        self.vector_ids: list[int] = []
        self.vector_model: str | None = None  # the model the stored vectors were made by
        self.vectors_whole = True  # False: some are missing, damaged or of another size
        self.vectors_damaged = False  # True: some can't be read, so all are made again
        self.vectors_loaded = False  # read only for a search that asks the meaning side
        self.names_by_id: dict[int, str] | None = None

    # opening ----------------------------------------------------------------------------
    def connection(self) -> sqlite3.Connection:
        if self.conn is None:
            self.conn = self._open()
            self.data_version = None
        return self.conn

    def _open(self) -> sqlite3.Connection:
        sqlite3 = sqlite()
        if str(self.path) == ":memory:":
            conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._create(conn)
            return conn
        from serena_memory.core.files import locked

        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True)
        with locked([folder]):  # one process at a time decides to trust or rebuild
            if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
                remove_database(self.path)  # a cache is a plain file of ours, nothing else
            try:
                conn = self._connect()
                if self._valid(conn):
                    return conn
                conn.close()
            except sqlite3.DatabaseError:
                pass
            remove_database(self.path)
            conn = self._connect()
            self._create(conn)
            return conn

    def _connect(self) -> sqlite3.Connection:
        sqlite3 = sqlite()
        conn = sqlite3.connect(
            str(self.path), timeout=30.0, check_same_thread=False, isolation_level=None
        )
        conn.execute("PRAGMA busy_timeout = 30000")
        return conn

    def _valid(self, conn: sqlite3.Connection) -> bool:
        """Ours, this version, this folder, and readable throughout; else rebuilt."""
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if app_id != _APPLICATION_ID or version != _SCHEMA_VERSION:
            return False
        row = conn.execute("SELECT value FROM meta WHERE key = 'folders'").fetchone()
        if row is None or row[0] != self.key:
            return False
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("SELECT count(*) FROM docs").fetchone()
        conn.execute("SELECT count(*) FROM vectors").fetchone()
        conn.execute("SELECT count(*) FROM fts WHERE fts MATCH '\"x\"'").fetchone()
        return True

    def _create(self, conn: sqlite3.Connection) -> None:
        if str(self.path) != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE docs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
            "mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL)"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE fts USING fts5(name, headings, body, tokenize='{_TOKENIZER}')"
        )
        conn.execute("CREATE TABLE vectors (id INTEGER PRIMARY KEY, vec BLOB NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('folders', ?)", (self.key,))
        conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
        conn.execute("COMMIT")

    def reset(self) -> None:
        """Forget the open file (after it turned out broken); the next use reopens it."""
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        self.conn = None
        self.known = {}
        self.data_version = None
        self.in_sync_with = None
        self.matrix, self.vector_ids, self.vector_model = None, [], None
        self.vectors_loaded = False

    # keeping it fresh -------------------------------------------------------------------------
    def _load_known(self, conn: sqlite3.Connection) -> None:
        """Reload the indexed stamps when another connection changed the file."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self.data_version:
            self.known = {
                name: (rowid, mtime, size)
                for rowid, name, mtime, size in conn.execute(
                    "SELECT id, name, mtime_ns, size FROM docs"
                )
            }
            self.matrix, self.vector_ids, self.vectors_loaded = None, [], False
            self.names_by_id = None
            self.data_version = version

    def _need_vectors(self, conn: sqlite3.Connection) -> None:
        """The stored vectors read, if not since the file last changed (numpy and ~10 MB
        at 10,000 memories: not for a search the words answer)."""
        if not self.vectors_loaded:
            self._load_vectors(conn)
            self.vectors_loaded = True

    def _load_vectors(self, conn: sqlite3.Connection) -> None:
        """The stored vectors as one matrix. Missing ones (memories indexed by words only
        so far) are made by the next refresh given a model, or in the background
        (search/preparing.py); damaged or odd-sized ones (a file written by something
        else) make ``vectors_damaged`` True, so all are made again. Neither is compared."""
        row = conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
        self.vector_model = row[0] if row else None
        ids: list[int] = []
        blobs: list[bytes] = []
        rowids = {rowid for rowid, _, _ in self.known.values()}
        for rowid, blob in conn.execute("SELECT id, vec FROM vectors ORDER BY id"):
            if rowid in rowids:
                ids.append(rowid)
                blobs.append(blob)
        sizes = {len(blob) if isinstance(blob, bytes) else -1 for blob in blobs}
        readable = len(sizes) <= 1 and min(sizes, default=4) > 0 and min(sizes, default=4) % 4 == 0
        matrix = None
        if readable and ids:
            import numpy as np

            matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1)
            readable = bool(np.isfinite(matrix).all())
        self.vectors_damaged = not readable
        self.matrix, self.vector_ids = (matrix, ids) if readable and ids else (None, [])
        self.vectors_whole = readable and len(ids) == len(self.known)

    def current_stamps(self, store: MemoryStore) -> dict[str, tuple[int, int]]:
        """The stamp of every visible memory: swept from the files, or, in a process that
        searches again and again, the last sweep while the folder watch saw no change, or
        the last sweep with the memories it saw changed stamped again. Only an edit in
        place of a memory already known is handled so: a file made, removed or renamed,
        a folder changed or anything the watch can't tell makes a full sweep."""
        ignored = tuple(text for text, _ in store.settings.patterns.ignored)
        paths = self.watch.drain() if self.watch is not None else None
        if self.stamps is not None and ignored == self.ignored_key and paths is not None:
            if not paths:
                return self.stamps
            edited = self._restamp(store, paths)
            if edited is not None:
                self.stamps = {**self.stamps, **edited}  # a new dict: refresh compares identity
                return self.stamps
        stamps, self.real_paths = _sweep(store)
        self.sweeps += 1
        if self.watch is None and self.sweeps >= 2:  # searched again: worth a watch
            self.watch = _new_watch()
        if self.watch is not None:
            self.watch.cover(folders_below([str(store.memories_dir), str(store.global_dir)]))
        self.stamps, self.ignored_key = stamps, ignored
        return stamps

    def _restamp(self, store: MemoryStore, paths: set[str]) -> dict[str, tuple[int, int]] | None:
        """The new stamps of the known memories at ``paths``, or None when a path is not
        one (a new file, a temporary one, one removed, a link made), or when two names
        share one file: then only a sweep can tell."""
        if len(set(self.real_paths.values())) != len(self.real_paths):
            return None
        roots = [(str(store.global_dir), N.GLOBAL_TOPIC + "/"), (str(store.memories_dir), "")]
        edited: dict[str, tuple[int, int]] = {}
        for path in paths:
            name = None
            for root, prefix in roots:
                rel = os.path.relpath(path, root)
                if not rel.startswith(os.pardir) and rel.endswith(".md"):
                    name = prefix + rel[:-3].replace(os.sep, "/")
                    break
            real = self.real_paths.get(name) if name else None
            if real is None or os.path.realpath(path) != real:
                return None
            try:
                st = os.stat(real)
            except OSError:
                return None
            edited[name] = (st.st_mtime_ns, st.st_size)  # type: ignore[index]
        return edited

    def refresh(
        self, store: MemoryStore, current: dict[str, tuple[int, int]], embedder: Embedder | None
    ) -> None:
        """Bring the index up to the memories' stamps ``current``: by words only when
        ``embedder`` is None, else with every memory's vector too."""
        conn = self.connection()
        version = self.data_version
        self._load_known(conn)
        if embedder is not None:
            self._need_vectors(conn)
        redo = self._redo(embedder)
        vectors_due = embedder is not None and (redo or not self.vectors_whole)
        if current is self.in_sync_with and version == self.data_version and not vectors_due:
            return  # same sweep as last time and nobody changed the index since
        known = self.known
        changed = [n for n, stamp in current.items() if known.get(n, (0, -1, -1))[1:] != stamp]
        removed = [n for n in known if n not in current]
        if not changed and not removed and not vectors_due:
            self.in_sync_with = current
            return
        with self._writing(conn) as moved_on:
            embed = embedder is not None and not redo
            added, to_embed = self._write(conn, store, removed, changed, current, embed)
            if embed and not moved_on:  # those indexed by words only so far
                to_embed = self._unembedded(conn, set(removed + changed)) + to_embed
            vectors = self._embed(conn, embedder, redo, to_embed)
        self.in_sync_with = None
        if redo or moved_on:
            self.data_version = None  # reload: our own commit does not change data_version
            self._load_known(conn)
        else:  # what we wrote, applied to what we hold (a reload of 10,000 costs ~25 ms)
            self._apply(removed + changed, added, (to_embed, vectors))

    @contextlib.contextmanager
    def _writing(self, conn: sqlite3.Connection) -> Iterator[bool]:
        """One write transaction, undone on any failure; gives whether another connection
        wrote since this process last read the file (then it reloads after)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn.execute("PRAGMA data_version").fetchone()[0] != self.data_version
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(Exception):
                conn.execute("ROLLBACK")
            raise

    def _redo(self, embedder: Embedder | None) -> bool:
        """Whether every vector is to be made again: none yet, another model's, or some
        damaged."""
        return embedder is not None and (
            self.vector_model != embedder.identity
            or self.vectors_damaged
            or (self.matrix is not None and self.matrix.shape[1] != embedder.dim)
        )

    def _embed(
        self,
        conn: sqlite3.Connection,
        embedder: Embedder | None,
        redo: bool,
        to_embed: list[tuple[int, str]],
    ) -> Any:
        """The vectors of what was written (None when every one was made again, or there
        is no model)."""
        if embedder is None:
            return None
        if redo:
            self._embed_all(conn, embedder)
            return None
        return self._store_vectors(conn, embedder, to_embed)

    def _write(
        self,
        conn: sqlite3.Connection,
        store: MemoryStore,
        removed: list[str],
        changed: list[str],
        current: dict[str, tuple[int, int]],
        embed: bool,
    ) -> tuple[list[tuple[str, int, int, int]], list[tuple[int, str]]]:
        """Within the refresh's transaction: the rows of ``removed`` and ``changed`` deleted,
        those of ``changed`` written again. Rows go in as they are read (not all held at
        once: 40 MB of text); a memory gone, unreadable or not UTF-8 since the listing is
        not findable. Gives what was added (name, rowid, mtime_ns, size) and, with
        ``embed``, the texts to embed (rowid, text)."""
        # by name, not by the rowids loaded before: another process may have changed
        # the index since, and a rowid can be reused
        gone = [(name,) for name in removed] + [(name,) for name in changed]
        conn.executemany("DELETE FROM fts WHERE rowid = (SELECT id FROM docs WHERE name = ?)", gone)
        conn.executemany(
            "DELETE FROM vectors WHERE id = (SELECT id FROM docs WHERE name = ?)", gone
        )
        conn.executemany("DELETE FROM docs WHERE name = ?", gone)
        added: list[tuple[str, int, int, int]] = []
        to_embed: list[tuple[int, str]] = []
        for name, text in store.read_many(changed, self.real_paths):
            if text is None:
                continue
            mtime, size = current[name]
            cursor = conn.execute(
                "INSERT INTO docs (name, mtime_ns, size) VALUES (?, ?, ?)", (name, mtime, size)
            )
            rowid = cursor.lastrowid
            assert rowid is not None
            words, headings = name_words(name), headings_of(text)
            conn.execute(
                "INSERT INTO fts (rowid, name, headings, body) VALUES (?, ?, ?, ?)",
                (rowid, words, headings, text),
            )
            added.append((name, rowid, mtime, size))
            if embed:
                to_embed.append((rowid, document_text(words, headings, text)))
        return added, to_embed

    def _apply(
        self,
        gone: list[str],
        added: list[tuple[str, int, int, int]],
        embedded: tuple[list[tuple[int, str]], Any],
    ) -> None:
        """What a refresh wrote, applied to what this process holds; ``embedded`` is the
        (rowid, text) embedded and their vectors (None for none)."""
        gone_ids = {self.known[name][0] for name in gone if name in self.known}
        for name in gone:
            self.known.pop(name, None)
        for name, rowid, mtime, size in added:
            self.known[name] = (rowid, mtime, size)
        self.names_by_id = None
        items, vectors = embedded
        if not self.vectors_loaded:
            return  # read from the file when first needed, with what was just written
        self._hold_vectors(
            gone_ids, [rowid for rowid, _ in items] if vectors is not None else [], vectors
        )

    def _hold_vectors(self, gone_ids: set[int], new_ids: list[int], vectors: Any) -> None:
        """The matrix held without the vectors of ``gone_ids``, with ``vectors`` (rows of
        ``new_ids``) added."""
        keep = [i for i, rowid in enumerate(self.vector_ids) if rowid not in gone_ids]
        ids = [self.vector_ids[i] for i in keep]
        parts = [self.matrix[keep]] if self.matrix is not None and keep else []
        if vectors is not None and len(vectors):
            ids += new_ids
            parts.append(vectors)
        if len(parts) > 1:
            import numpy as np  # loaded already: there are vectors

            parts = [np.vstack(parts)]
        self.matrix = parts[0] if parts else None
        self.vector_ids = ids if parts else []
        self.vectors_whole = len(self.vector_ids) == len(self.known)

    def _embed_all(self, conn: sqlite3.Connection, embedder: Embedder) -> None:
        """Every memory's vector made again, in batches (the texts are not all held)."""
        _new_model(conn, embedder)
        rows = conn.execute(
            "SELECT rowid, name, headings, substr(body, 1, ?) FROM fts", (MAX_EMBED_CHARS,)
        ).fetchall()
        for start in range(0, len(rows), _EMBED_CHUNK):
            chunk = rows[start : start + _EMBED_CHUNK]
            self._store_vectors(
                conn, embedder, [(r[0], document_text(r[1], r[2], r[3])) for r in chunk]
            )

    @staticmethod
    def _store_vectors(
        conn: sqlite3.Connection, embedder: Embedder, items: list[tuple[int, str]]
    ) -> Any:
        vectors = embedder.embed([text for _, text in items])
        conn.executemany(
            "INSERT OR REPLACE INTO vectors (id, vec) VALUES (?, ?)",
            [(rowid, vector.tobytes()) for (rowid, _), vector in zip(items, vectors, strict=True)],
        )
        return vectors

    # meaning vectors made apart from the words (search/preparing.py) ------------------------
    def _unembedded(self, conn: sqlite3.Connection, skip: set[str]) -> list[tuple[int, str]]:
        """(rowid, text to embed) of the memories indexed without a vector, but ``skip``."""
        held = set(self.vector_ids)
        ids = [
            rowid
            for name, (rowid, _, _) in self.known.items()
            if rowid not in held and name not in skip
        ]
        return [(rowid, text) for rowid, _, text in self._texts(conn, ids)]

    def _texts(self, conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, str, str]]:
        """(rowid, name, text to embed) of the indexed memories ``ids``."""
        out = []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            out += [
                (rowid, name, document_text(name_text, headings, body))
                for rowid, name, name_text, headings, body in conn.execute(
                    "SELECT fts.rowid, d.name, fts.name, fts.headings, substr(fts.body, 1, ?) "
                    f"FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts.rowid IN ({marks})",
                    [MAX_EMBED_CHARS, *chunk],
                )
            ]
        return out

    def vectors_ready(self, embedder: Embedder) -> bool:
        """Every indexed memory has its vector from this model (as this process last read)."""
        self._need_vectors(self.connection())
        return self.vectors_whole and not self._redo(embedder)

    def vectors_missing(self) -> int:
        self._need_vectors(self.connection())
        return len(self.known) - len(self.vector_ids)

    def vector_work(self, embedder: Embedder, count: int) -> list[tuple[int, str, str, int, int]]:
        """Up to ``count`` memories still without a vector of this model: (rowid, text,
        name, mtime_ns, size). Vectors of another model, or damaged ones, are dropped first
        (one short transaction). Called with ``lock`` held."""
        conn = self.connection()
        self._load_known(conn)
        self._need_vectors(conn)
        if self._redo(embedder):
            with self._writing(conn):
                _new_model(conn, embedder)
            self.data_version = None
            self._load_known(conn)
        held = set(self.vector_ids)
        ids = sorted(rowid for rowid, _, _ in self.known.values() if rowid not in held)[:count]
        stamps = {rowid: (mtime, size) for rowid, mtime, size in self.known.values()}
        return [(rowid, text, name, *stamps[rowid]) for rowid, name, text in self._texts(conn, ids)]

    def add_vectors(
        self, embedder: Embedder, work: list[tuple[int, str, str, int, int]], vectors: Any
    ) -> None:
        """Store the vectors made for ``work`` (see vector_work), each only if its memory is
        still indexed as it was read and the file's vectors are still this model's: another
        process may have changed either since. Called with ``lock`` held."""
        conn = self.connection()
        written: list[int] = []
        with self._writing(conn) as moved_on:
            for (rowid, _, name, mtime, size), vector in zip(work, vectors, strict=True):
                cursor = conn.execute(
                    "INSERT OR REPLACE INTO vectors (id, vec) SELECT ?, ? WHERE EXISTS "
                    "(SELECT 1 FROM docs WHERE id = ? AND name = ? AND mtime_ns = ? AND "
                    "size = ?) AND (SELECT value FROM meta WHERE key = 'model') = ?",
                    (rowid, vector.tobytes(), rowid, name, mtime, size, embedder.identity),
                )
                if cursor.rowcount == 1:
                    written.append(rowid)
        self.in_sync_with = None
        if moved_on or not self.vectors_loaded:
            self.data_version = None
            self._load_known(conn)
            return
        kept = set(written) - set(self.vector_ids)  # one made meanwhile is held once
        rows = [i for i, (rowid, *_) in enumerate(work) if rowid in kept]
        self._hold_vectors(set(), [work[i][0] for i in rows], vectors[rows])

    def holds_all(self, parsed: ParsedQuery, topic: str, scope: str) -> bool:
        """Whether a memory holds every word of the query (search/ranking.py)."""
        return ranking.holds_all(self.connection(), parsed, (topic, scope))

    def exact(
        self, parsed: ParsedQuery, topic: str, scope: str
    ) -> list[tuple[str, int, tuple[str, ...]]]:
        """The exact side (search/ranking.py): the memories holding the exact terms."""
        return ranking.exact_side(self.connection(), parsed, (topic, scope))

    # querying ---------------------------------------------------------------------------------
    def ranked(
        self,
        parsed: ParsedQuery,
        topic: str,
        scope: str,
        limit: int,
        related: dict[str, list[tuple[str, float]]] | None = None,
    ) -> list[ranking.WordHit]:
        """The words side (search/ranking.py) over this index."""
        conn = self.connection()
        return ranking.words_side(conn, len(self.known), parsed, (topic, scope), limit, related)

    def similar(
        self, vector: Any, parsed: ParsedQuery, topic: str, scope: str, limit: int
    ) -> list[tuple[str, int, float]]:
        """The meaning side (search/ranking.py): (name, rowid, cosine) best first."""
        self._need_vectors(self.connection())
        if self.names_by_id is None and self.matrix is not None:
            self.names_by_id = {rowid: name for name, (rowid, _, _) in self.known.items()}
        return ranking.meaning_side(
            self.matrix,
            self.vector_ids,
            self.names_by_id or {},
            vector,
            parsed,
            (topic, scope),
            limit,
        )

    def marked(self, parsed: ParsedQuery, rowid: int) -> tuple[str, str] | None:
        """The indexed name words and the body, the matched words between markers."""
        if not parsed.words:
            return None
        row = (
            self.connection()
            .execute(
                "SELECT highlight(fts, 0, ?, ?), highlight(fts, 2, ?, ?) FROM fts "
                "WHERE fts MATCH ? AND rowid = ?",
                (MARK_START, MARK_END, MARK_START, MARK_END, parsed.match, rowid),
            )
            .fetchone()
        )
        return (row[0], row[1]) if row else None

    def body(self, rowid: int) -> str | None:
        row = self.connection().execute("SELECT body FROM fts WHERE rowid = ?", (rowid,)).fetchone()
        return row[0] if row else None

    def rowid_of(self, name: str) -> int | None:
        row = self.connection().execute("SELECT id FROM docs WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None


def _new_model(conn: sqlite3.Connection, embedder: Embedder) -> None:
    """Within a write: the vectors dropped, to be made by ``embedder``'s model."""
    conn.execute("DELETE FROM vectors")
    conn.execute(
        "INSERT INTO meta VALUES ('model', ?) ON CONFLICT (key) DO UPDATE SET value = "
        "excluded.value",
        (embedder.identity,),
    )


_indexes: dict[str, Index] = {}
_indexes_guard = threading.Lock()
MAX_WATCHES = 8  # folder watches per process (the system limits them per user)
_watch_count = 0


def close_indexes() -> None:
    """Close every index and folder watch this process holds (the next search opens
    them again), e.g. when a server stops."""
    global _watch_count
    with _indexes_guard:
        for index in _indexes.values():
            with index.lock:
                index.reset()
                if index.watch is not None:
                    index.watch.close()
                    index.watch = None
        _indexes.clear()
        _watch_count = 0


def _new_watch() -> FolderWatch | None:
    global _watch_count
    with _indexes_guard:
        if _watch_count >= MAX_WATCHES:
            return None
        watch = FolderWatch.create()
        _watch_count += watch is not None
        return watch


def index_for(store: MemoryStore) -> Index:
    """The process's index of this store; in memory when the cache folder can't be written."""
    key = f"{os.path.realpath(store.memories_dir)}\0{os.path.realpath(store.global_dir)}"
    path = index_path(store)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        writable = os.access(path.parent, os.W_OK)
    except OSError:
        writable = False
    if not writable:
        path = Path(":memory:")
    with _indexes_guard:
        index = _indexes.get(key)
        if index is None or index.path != path:
            index = _indexes[key] = Index(path, key)
        return index


def current_stamps(store: MemoryStore) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every memory the store lists (ignored ones are not listed), each
    taken from the real file the store's path gate let through."""
    return _sweep(store)[0]


def _sweep(store: MemoryStore) -> tuple[dict[str, tuple[int, int]], dict[str, str]]:
    """The stamps, and the real file of each memory."""
    stamps: dict[str, tuple[int, int]] = {}
    files = store.scan().files
    stat = os.stat
    for name, real in files.items():
        try:
            st = stat(real)
        except OSError:
            continue
        stamps[name] = (st.st_mtime_ns, st.st_size)
    return stamps, files
