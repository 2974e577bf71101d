"""The search index: one SQLite FTS5 file per memories folder, a cache never trusted.

The index is a cache in ``$SERENA_HOME/cache/search``, one file per memories folder. It
is never trusted: every query first compares each memory file's stamp (mtime_ns, size)
with the stamp it was indexed at, so an edit made in an editor is found at the next
query and a deleted or newly ignored memory is never returned. A cache file that is
broken, foreign or of another version is thrown away and rebuilt. Several processes may
search and write at once: the file is in WAL mode with a busy timeout, and each refresh
is one short write transaction whose result does not depend on who ran it first. The
meaning vectors (search/vectors.py) are kept in the same file, refreshed from the same
stamps, and read only for a search that asks the meaning side.
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
from serena_memory.core.process import PROCESS
from serena_memory.core.watch import FolderWatch, folders_below
from serena_memory.search import ranking, vectors
from serena_memory.search.hits import MARK_END, MARK_START
from serena_memory.search.query import ParsedQuery, headings_of, name_words
from serena_memory.search.semantic import document_text
from serena_memory.search.sweep import sweep
from serena_memory.search.vectors import Vectors

if TYPE_CHECKING:
    import sqlite3

    from serena_memory.core.store import MemoryStore
    from serena_memory.search.semantic import Embedder

_APPLICATION_ID = 0x53524D53  # "SRMS": marks the file as ours, so a foreign one is rebuilt
_SCHEMA_VERSION = 2  # 2: the vectors table
_TOKENIZER = "porter unicode61 remove_diacritics 2"


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
    key = store.layout.folders_key()
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return store.layout.home / "cache" / "search" / f"{digest}.sqlite3"


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
        self.vectors = Vectors()  # the meaning vectors, read when a search needs them
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
            except Exception:  # noqa: BLE001 - a file that can't be read is rebuilt, whatever
                # the error: sqlite3's own, or one from a name or text SQLite hands back
                # that isn't UTF-8 (a damaged schema), or any other
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
        self.vectors.forget()

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
            self.vectors.forget()
            self.names_by_id = None
            self.data_version = version

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
        stamps, self.real_paths = sweep(store)
        self.sweeps += 1
        if self.watch is None and self.sweeps >= 2:  # searched again: worth a watch
            self.watch = _new_watch()
        if self.watch is not None:
            self.watch.cover(
                folders_below([str(store.layout.memories_dir), str(store.layout.global_dir)])
            )
        self.stamps, self.ignored_key = stamps, ignored
        return stamps

    def _restamp(self, store: MemoryStore, paths: set[str]) -> dict[str, tuple[int, int]] | None:
        """The new stamps of the known memories at ``paths``, or None when a path is not
        one (a new file, a temporary one, one removed, a link made), or when two names
        share one file: then only a sweep can tell."""
        if len(set(self.real_paths.values())) != len(self.real_paths):
            return None
        roots = [
            (str(store.layout.global_dir), N.GLOBAL_TOPIC + "/"),
            (str(store.layout.memories_dir), ""),
        ]
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
        redo, work = self._work(conn, current, embedder)
        if work is None:
            return
        changed, removed = work
        known = self.known
        with self._writing(conn) as moved_on:
            embed = embedder is not None and not redo
            added, to_embed = self._write(conn, store, removed, changed, current, embed)
            if embed and not moved_on:  # and those indexed by words only so far
                missing = self.vectors.missing(known, set(removed + changed))
                to_embed += [(rowid, text) for rowid, _, text in vectors.texts(conn, missing)]
            made = self._embed(conn, embedder, redo, to_embed)
        self.in_sync_with = None
        if redo or moved_on:
            self.data_version = None  # reload: our own commit does not change data_version
            self._load_known(conn)
        else:  # what we wrote, applied to what we hold (a reload of 10,000 costs ~25 ms)
            self._apply(removed + changed, added, (to_embed, made))

    def _work(
        self,
        conn: sqlite3.Connection,
        current: dict[str, tuple[int, int]],
        embedder: Embedder | None,
    ) -> tuple[bool, tuple[list[str], list[str]] | None]:
        """For a refresh: whether every vector is to be made again, and the memories
        changed and removed since indexed (None: nothing to do, not even vectors)."""
        version = self.data_version
        self._load_known(conn)
        if embedder is not None:
            self.vectors.need(conn, self.known)
        redo = self.vectors.redo(embedder)
        vectors_due = embedder is not None and (redo or not self.vectors.whole)
        if current is self.in_sync_with and version == self.data_version and not vectors_due:
            return redo, None  # same sweep as last time and nobody changed the index since
        known = self.known
        changed = [n for n, stamp in current.items() if known.get(n, (0, -1, -1))[1:] != stamp]
        removed = [n for n in known if n not in current]
        if not changed and not removed and not vectors_due:
            self.in_sync_with = current
            return redo, None
        return redo, (changed, removed)

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
            vectors.embed_all(conn, embedder)
            return None
        return vectors.store(conn, embedder, to_embed)

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
        items, made = embedded
        if self.vectors.loaded:  # else read from the file when first needed, with these
            new_ids = [rowid for rowid, _ in items] if made is not None else []
            self.vectors.hold(gone_ids, new_ids, made, len(self.known))

    # meaning vectors made apart from the words (search/preparing.py) ------------------------
    def vectors_ready(self, embedder: vectors.Made) -> bool:
        """Every indexed memory has its vector from this model (as this process last read)."""
        self.vectors.need(self.connection(), self.known)
        return self.vectors.whole and not self.vectors.redo(embedder)

    def vectors_missing(self) -> int:
        self.vectors.need(self.connection(), self.known)
        return len(self.known) - len(self.vectors.ids)

    def vector_work(self, embedder: Embedder, count: int) -> list[tuple[int, str, str, int, int]]:
        """Up to ``count`` memories still without a vector of this model: (rowid, text,
        name, mtime_ns, size). Vectors of another model, or damaged ones, are dropped first
        (one short transaction). Called with ``lock`` held."""
        conn = self.connection()
        self._load_known(conn)
        self.vectors.need(conn, self.known)
        if self.vectors.redo(embedder):
            with self._writing(conn):
                vectors.new_model(conn, embedder)
            self.data_version = None
            self._load_known(conn)
            self.vectors.need(conn, self.known)
        ids = self.vectors.missing(self.known)[:count]
        stamps = {rowid: (mtime, size) for rowid, mtime, size in self.known.values()}
        return [(i, text, name, *stamps[i]) for i, name, text in vectors.texts(conn, ids)]

    def add_vectors(
        self, embedder: Embedder, work: list[tuple[int, str, str, int, int]], made: Any
    ) -> None:
        """Store the vectors made for ``work`` (see vector_work), each only if its memory is
        still indexed as it was read and the file's vectors are still this model's: another
        process may have changed either since. Called with ``lock`` held."""
        conn = self.connection()
        with self._writing(conn) as moved_on:
            written = vectors.store_if_current(conn, embedder, work, made)
        self.in_sync_with = None
        if moved_on or not self.vectors.loaded:
            self.data_version = None
            self._load_known(conn)
            return
        kept = set(written) - set(self.vectors.ids)  # one made meanwhile is held once
        rows = [i for i, (rowid, *_) in enumerate(work) if rowid in kept]
        self.vectors.hold(set(), [work[i][0] for i in rows], made[rows], len(self.known))

    def holds_all(self, parsed: ParsedQuery, topic: str, scope: str) -> bool:
        """Whether a memory holds every word of the query (search/ranking.py)."""
        return ranking.holds_all(self.connection(), parsed, (topic, scope))

    def specific(self, parsed: ParsedQuery) -> bool:
        """Whether some memory is specific to the query's words (search/ranking.py)."""
        return ranking.specific(self.connection(), len(self.known), parsed)

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
        self.vectors.need(self.connection(), self.known)
        if self.names_by_id is None and self.vectors.matrix is not None:
            self.names_by_id = {rowid: name for name, (rowid, _, _) in self.known.items()}
        return ranking.meaning_side(
            self.vectors.matrix,
            self.vectors.ids,
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

    def memory_words(self, most: int, memories: int = 2_000) -> list[str]:
        """The distinct words of the memories' texts as embedded (at most ``most``, in
        the order met, from ``memories`` memories at most): those a person's questions
        use most, whose token ids are kept."""
        from serena_memory.search.semantic import MAX_EMBED_CHARS
        from serena_memory.search.vocabulary import QUERY_WORD

        found: dict[str, None] = {}
        rows = self.connection().execute(
            "SELECT name, headings, substr(body, 1, ?) FROM fts LIMIT ?",
            (MAX_EMBED_CHARS, memories),
        )
        for name, headings, body in rows:
            for word in QUERY_WORD.findall(f"{name} {headings} {body}"):
                found.setdefault(word, None)
                if len(found) >= most:
                    return list(found)
        return list(found)

    def body(self, rowid: int) -> str | None:
        row = self.connection().execute("SELECT body FROM fts WHERE rowid = ?", (rowid,)).fetchone()
        return row[0] if row else None

    def rowid_of(self, name: str) -> int | None:
        row = self.connection().execute("SELECT id FROM docs WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None


MAX_WATCHES = 8  # folder watches per process (the system limits them per user)


class _OpenIndexes:
    """The search indexes this process holds, by folders' key, and how many watch."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.by_key: dict[str, Index] = {}
        self.watch_count = 0


def _open() -> _OpenIndexes:
    return PROCESS.owned(_OpenIndexes)


def close_indexes() -> None:
    """Close every index and folder watch this process holds (the next search opens
    them again), e.g. when a server stops."""
    state = _open()
    with state.guard:
        for index in state.by_key.values():
            with index.lock:
                index.reset()
                if index.watch is not None:
                    index.watch.close()
                    index.watch = None
        state.by_key.clear()
        state.watch_count = 0


def _new_watch() -> FolderWatch | None:
    state = _open()
    with state.guard:
        if state.watch_count >= MAX_WATCHES:
            return None
        watch = FolderWatch.create()
        state.watch_count += watch is not None
        return watch


def index_for(store: MemoryStore) -> Index:
    """The process's index of this store; in memory when the cache folder can't be written."""
    key = store.layout.folders_key()
    path = index_path(store)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        writable = os.access(path.parent, os.W_OK)
    except OSError:
        writable = False
    if not writable:
        path = Path(":memory:")
    state = _open()
    with state.guard:
        index = state.by_key.get(key)
        if index is None or index.path != path:
            index = state.by_key[key] = Index(path, key)
        return index
