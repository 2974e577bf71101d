"""Ranked search over memories: SQLite FTS5 with BM25, names and headings weighted up.

The index is a cache in ``$SERENA_HOME/cache/search``, one file per memories folder. It
is never trusted: every query first compares each memory file's stamp (mtime_ns, size)
with the stamp it was indexed at, so an edit made in an editor is found at the next
query and a deleted or newly ignored memory is never returned. A cache file that is
broken, foreign or of another version is thrown away and rebuilt. Several processes may
search and write at once: the file is in WAL mode with a busy timeout, and each refresh
is one short write transaction whose result does not depend on who ran it first.

User words never reach FTS5's query language: they are split into words here and each
word is quoted, so no input can make a query fail.

Ranking is hybrid. The words side is BM25 over name, headings and text, plus a weight for
each query word a memory holds that never falls to zero (BM25's does once a word is in
half the memories, which in a folder of eight is any shared word), plus a bonus for the
query as a phrase; a query word's closest words in the model's vocabulary count too,
less. The meaning side compares the query's vector with each memory's (search.semantic: a
static model shipped inside a package, vectors kept in the same file, refreshed from the
same stamps). The two sides' scores, each scaled to its best, are added; each hit says
why it matched.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from serena_memory.core import names as N
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.references import REFERENCE_PATTERN
from serena_memory.core.watch import FolderWatch, folders_below
from serena_memory.search.semantic import MAX_EMBED_CHARS, document_text

if TYPE_CHECKING:
    import sqlite3

    from serena_memory.core.store import MemoryStore
    from serena_memory.search.semantic import Embedder

SCOPES = ("all", "project", "global")
DEFAULT_MAX_RESULTS = 10
MAX_RESULTS_LIMIT = 100
MAX_QUERY_CHARS = 4_000  # longer text is cut: it is a question, not a document
MAX_QUERY_WORDS = 32
MAX_LINES_PER_HIT = 3
MAX_LINE_CHARS = 120
CANDIDATES = 50  # ranked by BM25 first, then re-ranked by the words each one holds
SEMANTIC_CANDIDATES = 50
RRF_K = 20  # reciprocal rank fusion: 1 / (RRF_K + rank) from each ranking
WORDS_WEIGHT, MEANING_WEIGHT = 1.0, 1.0  # for fuse_ranks
WORDS_SHARE = 0.7  # for fuse: the words side's share of the fused score
HOLD_WEIGHT = 0.3  # times log(1 + N / n) for each query word a memory holds
# Query words are looked for also as the model's closest words (RELATED_WORDS of them, at
# least RELATED_MIN close): "pictures" finds "images". Holding one counts as holding
# the query word times its closeness times RELATED_WEIGHT.
RELATED_WORDS, RELATED_MIN, RELATED_WEIGHT = 2, 0.5, 0.8
# Cosine below which a memory is not close enough in meaning to be found by meaning at all
# (with the embedded model, 95% of unrelated memory/question pairs of the labeled set are
# below 0.24, half of the answering ones above 0.29), and from which "similar meaning" is
# given as a reason.
MEANING_MIN = 0.2
MEANING_REASON_MIN = 0.3
# A memory about keeping memories shares words and tone with every question; it answers
# only questions about memories themselves.
GENERIC_MEMORIES = frozenset(["memory_maintenance"])
_GENERIC_SUBJECT = frozenset(["memories", "maintenance", "convention", "conventions"])

# Column weights for BM25: a word in a memory's name counts most, then in a heading.
NAME_WEIGHT, HEADING_WEIGHT, BODY_WEIGHT = 10.0, 4.0, 1.0

_APPLICATION_ID = 0x53524D53  # "SRMS": marks the file as ours, so a foreign one is rebuilt
_SCHEMA_VERSION = 2  # 2: the vectors table
_TOKENIZER = "porter unicode61 remove_diacritics 2"
_EMBED_CHUNK = 1_000  # memories embedded at once when every vector is made again
_MARK_START, _MARK_END = "\x01", "\x02"
_MARKERS = re.compile("([\x01\x02])")

# Words that carry the asking, not the subject ("can", "should", "like", question words):
# on the words side they only pull up whatever memory is wordiest, so they are dropped
# unless nothing else is left. The meaning side still sees the whole question.
_STOPWORDS_TEXT = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can cannot could did do does doing done during each
else ever every few for from further get gets getting got had has have having he her here
hers how however i if in into is it its itself just let like likes may me might more most
must my myself need needs nor now of on once only or other our ours over own
please possible really same shall she should so some such tell than that the their theirs
them then there these they thing things this those through to too until upon us
very want wants was way ways we were what whatever when where whether which while who whom
whose why will with within without would yes yet you your yours
"""
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NAME_SEPARATORS = re.compile(r"[/_\-.\s]+")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE)


class SearchUnavailableError(MemoryStoreError):
    """This Python's sqlite3 is missing or was built without FTS5."""


Spans = tuple[tuple[int, int], ...]  # [start, end) of each matched word, in characters


class SearchHit(NamedTuple):
    name: str
    score: float
    read_only: bool
    lines: list[tuple[int, str]]  # (1-based line number, the line, cut to a readable length)
    # Where the query's words matched (as the index's stemmer saw them), so a page can mark
    # them without matching again: in the name, and in each of ``lines`` (same order).
    name_marks: Spans = ()
    line_marks: tuple[Spans, ...] = ()
    # Why it matched, in a few words: 'words: refund, ledger', 'similar meaning', or both.
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        marks = self.line_marks or ((),) * len(self.lines)
        return {
            "name": self.name,
            "score": self.score,
            "read_only": self.read_only,
            "why": self.why,
            "name_marks": [list(span) for span in self.name_marks],
            "lines": [
                {"line": number, "text": text, "marks": [list(span) for span in spans]}
                for (number, text), spans in zip(self.lines, marks, strict=True)
            ],
        }


def _sqlite() -> Any:
    """The sqlite3 module, checked once for FTS5; a clear sentence when it can't be used."""
    try:
        import sqlite3
    except ImportError:
        raise SearchUnavailableError(
            "memory search needs Python's sqlite3 module, which this Python lacks; "
            "use a Python built with SQLite (the python.org and distribution builds are)"
        ) from None
    if not getattr(_sqlite, "checked", False):
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
        _sqlite.checked = True  # type: ignore[attr-defined]
    return sqlite3


# -- what is indexed ------------------------------------------------------------------------
def name_words(name: str) -> str:
    """A memory name as words: ``billing/refundPolicy_v2`` -> ``billing refund Policy v2``."""
    return _NAME_SEPARATORS.sub(" ", _CAMEL.sub(" ", name)).strip()


def headings_of(text: str) -> str:
    """The Markdown headings of a memory (outside code fences), one per line."""
    if "```" not in text and "~~~" not in text:
        return "\n".join(_HEADING.findall(text))
    found = []
    fenced = False
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            match = _HEADING.match(stripped)
            if match:
                found.append(match.group(1))
    return "\n".join(found)


# -- the query --------------------------------------------------------------------------------
class ParsedQuery(NamedTuple):
    words: list[str]  # distinct, stop words left out
    references: list[str]  # names given as `mem:NAME`, in order
    sequence: list[str] = []  # every word in the order given, for the phrase

    @property
    def match(self) -> str:
        """The FTS5 MATCH expression: each word quoted (so never an operator), OR-ed."""
        return " OR ".join(f'"{word}"' for word in self.words)

    @property
    def phrase(self) -> str | None:
        """The words in the order given, next to each other (None for a single word)."""
        return '"' + " ".join(self.sequence) + '"' if len(self.sequence) > 1 else None


def parse_query(query: str) -> ParsedQuery:
    """Split free text into words; FTS5 syntax, quotes and control characters are just text."""
    if not isinstance(query, str):
        raise MemoryStoreError(f"a search query must be text, got {type(query).__name__}")
    text = query[:MAX_QUERY_CHARS]
    references: list[str] = []
    for match in REFERENCE_PATTERN.finditer(text):
        target = match.group(1).strip("/")
        if target and target not in references:
            references.append(target)
    words: list[str] = []
    sequence: list[str] = []
    seen: set[str] = set()
    for raw in _WORD.findall(_CAMEL.sub(" ", REFERENCE_PATTERN.sub(" ", text))):
        word = raw.lower()
        if len(sequence) < MAX_QUERY_WORDS:
            sequence.append(word)
        if word not in seen:
            seen.add(word)
            words.append(word)
    for ref in references:  # a referenced name's words also rank its neighbours
        for word in name_words(ref).lower().split():
            if word not in seen:
                seen.add(word)
                words.append(word)
    content = [w for w in words if w not in _STOPWORDS]
    return ParsedQuery((content or words)[:MAX_QUERY_WORDS], references, sequence)


# -- the cache file -------------------------------------------------------------------------
def index_path(store: MemoryStore) -> Path:
    """Where the index of this store lives: keyed by the folders' resolved paths."""
    key = f"{os.path.realpath(store.memories_dir)}\0{os.path.realpath(store.global_dir)}"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return store.home / "cache" / "search" / f"{digest}.sqlite3"


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


class _Index:
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
        self.names_by_id: dict[int, str] | None = None

    # opening ----------------------------------------------------------------------------
    def connection(self) -> sqlite3.Connection:
        if self.conn is None:
            self.conn = self._open()
            self.data_version = None
        return self.conn

    def _open(self) -> sqlite3.Connection:
        sqlite3 = _sqlite()
        if str(self.path) == ":memory:":
            conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._create(conn)
            return conn
        from serena_memory.core.files import locked

        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True)
        with locked([folder]):  # one process at a time decides to trust or rebuild
            if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
                _remove_database(self.path)  # a cache is a plain file of ours, nothing else
            try:
                conn = self._connect()
                if self._valid(conn):
                    return conn
                conn.close()
            except sqlite3.DatabaseError:
                pass
            _remove_database(self.path)
            conn = self._connect()
            self._create(conn)
            return conn

    def _connect(self) -> sqlite3.Connection:
        sqlite3 = _sqlite()
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
            self._load_vectors(conn)
            self.names_by_id = None
            self.data_version = version

    def _load_vectors(self, conn: sqlite3.Connection) -> None:
        """The stored vectors as one matrix. Missing, damaged or odd-sized ones (a file
        written by something else) make ``vectors_whole`` False, so the next refresh makes
        them again; they are never compared."""
        import numpy as np

        row = conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
        self.vector_model = row[0] if row else None
        ids: list[int] = []
        blobs: list[bytes] = []
        for rowid, blob in conn.execute("SELECT id, vec FROM vectors ORDER BY id"):
            ids.append(rowid)
            blobs.append(blob)
        sizes = {len(blob) if isinstance(blob, bytes) else -1 for blob in blobs}
        whole = len(ids) == len(self.known) and len(sizes) <= 1 and min(sizes, default=4) > 0
        whole = whole and min(sizes, default=4) % 4 == 0
        if not whole or not ids:
            self.matrix, self.vector_ids = None, []
            self.vectors_whole = whole
            return
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1)
        self.vectors_whole = bool(np.isfinite(matrix).all())
        self.matrix, self.vector_ids = (matrix, ids) if self.vectors_whole else (None, [])

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
        conn = self.connection()
        version = self.data_version
        self._load_known(conn)
        # every vector made again: none yet, another model's, or some missing or damaged
        redo = embedder is not None and (
            self.vector_model != embedder.identity
            or not self.vectors_whole
            or (self.matrix is not None and self.matrix.shape[1] != embedder.dim)
        )
        if current is self.in_sync_with and version == self.data_version and not redo:
            return  # same sweep as last time and nobody changed the index since
        known = self.known
        changed = [n for n, stamp in current.items() if known.get(n, (0, -1, -1))[1:] != stamp]
        removed = [n for n in known if n not in current]
        if not changed and not removed and not redo:
            self.in_sync_with = current
            return
        # Rows go in as they are read (not all held at once: 40 MB of text). A memory
        # gone, unreadable or not UTF-8 since the listing is not findable.
        conn.execute("BEGIN IMMEDIATE")
        # another process wrote between our look and our lock: reload everything after
        moved_on = conn.execute("PRAGMA data_version").fetchone()[0] != self.data_version
        added: list[tuple[str, int, int, int]] = []
        vectors = None
        try:
            # by name, not by the rowids loaded before: another process may have changed
            # the index since, and a rowid can be reused
            gone = [(name,) for name in removed] + [(name,) for name in changed]
            conn.executemany(
                "DELETE FROM fts WHERE rowid = (SELECT id FROM docs WHERE name = ?)", gone
            )
            conn.executemany(
                "DELETE FROM vectors WHERE id = (SELECT id FROM docs WHERE name = ?)", gone
            )
            conn.executemany("DELETE FROM docs WHERE name = ?", gone)
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
                if embedder is not None and not redo:
                    to_embed.append((rowid, document_text(words, headings, text)))
            if embedder is not None:
                if redo:
                    self._embed_all(conn, embedder)
                else:
                    vectors = self._store_vectors(conn, embedder, to_embed)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(Exception):
                conn.execute("ROLLBACK")
            raise
        self.in_sync_with = None
        if redo or moved_on:
            self.data_version = None  # reload: our own commit does not change data_version
            self._load_known(conn)
        else:  # what we wrote, applied to what we hold (a reload of 10,000 costs ~25 ms)
            self._apply(removed + changed, added, vectors)

    def _apply(self, gone: list[str], added: list[tuple[str, int, int, int]], vectors: Any) -> None:
        import numpy as np

        gone_ids = {self.known[name][0] for name in gone if name in self.known}
        for name in gone:
            self.known.pop(name, None)
        for name, rowid, mtime, size in added:
            self.known[name] = (rowid, mtime, size)
        self.names_by_id = None
        keep = [i for i, rowid in enumerate(self.vector_ids) if rowid not in gone_ids]
        ids = [self.vector_ids[i] for i in keep]
        parts = [self.matrix[keep]] if self.matrix is not None and keep else []
        if vectors is not None and len(vectors):
            ids += [rowid for _, rowid, _, _ in added]
            parts.append(vectors)
        self.matrix = np.vstack(parts) if parts else None
        self.vector_ids = ids if parts else []
        self.vectors_whole = len(self.vector_ids) == len(self.known)

    def _embed_all(self, conn: sqlite3.Connection, embedder: Embedder) -> None:
        """Every memory's vector made again, in batches (the texts are not all held)."""
        conn.execute("DELETE FROM vectors")
        conn.execute(
            "INSERT INTO meta VALUES ('model', ?) ON CONFLICT (key) DO UPDATE SET value = "
            "excluded.value",
            (embedder.identity,),
        )
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

    # querying ---------------------------------------------------------------------------------
    def ranked(
        self,
        parsed: ParsedQuery,
        topic: str,
        scope: str,
        limit: int,
        related: dict[str, list[tuple[str, float]]] | None = None,
    ) -> list[tuple[str, int, float, tuple[str, ...], float]]:
        """The words side: (name, rowid, score, the query words it holds, coverage) best
        first; coverage is the share of the query's word weight the memory holds (a word
        no memory holds weighs most), how much the words side vouches for it.

        BM25 (name over headings over text) picks the candidates and is the base score.
        Each query word a memory holds adds log(1 + N / n), N memories, n holding the word:
        unlike BM25's weight it stays positive for a word in half the memories, so in a
        small folder the memory holding more of the asker's words still ranks higher.
        ``related`` gives words close in meaning to a query word (with their closeness):
        a memory that holds one instead of the word itself is a candidate too, and holds
        the query word to that degree times RELATED_WEIGHT."""
        if not parsed.words:
            return []
        where = ["fts MATCH ?"]
        params: list[Any] = []
        if topic:
            where.append("(d.name = ? OR substr(d.name, 1, ?) = ?)")
            params += [topic, len(topic) + 1, topic + "/"]
        if scope == "project":
            where.append("substr(d.name, 1, 7) != 'global/'")
        elif scope == "global":
            where.append("substr(d.name, 1, 7) = 'global/'")
        sql = (
            f"SELECT d.name, d.id, bm25(fts, {NAME_WEIGHT}, {HEADING_WEIGHT}, {BODY_WEIGHT}) "
            "AS rank FROM fts JOIN docs d ON d.id = fts.rowid WHERE "
            + " AND ".join(where)
            + " ORDER BY rank LIMIT ?"
        )
        conn = self.connection()
        pool = max(limit, CANDIDATES)
        candidates = [
            (name, rowid, -rank)
            for name, rowid, rank in conn.execute(sql, [parsed.match, *params, pool])
        ]
        # the related words only add candidates (after the query's own, base score 0):
        # BM25 over them would let a loose synonym outrank the words the asker used
        extra = sorted(
            {other for word in parsed.words for other, _ in (related or {}).get(word, [])}
            - set(parsed.words)
        )
        if extra:
            seen = {rowid for _, rowid, _ in candidates}
            more = " OR ".join(f'"{other}"' for other in extra)
            for name, rowid, _ in conn.execute(sql, [more, *params, pool]):
                if rowid not in seen:
                    seen.add(rowid)
                    candidates.append((name, rowid, 0.0))
        if not candidates:
            return []
        ids = [rowid for _, rowid, _ in candidates]
        # Which candidates match: the candidates probed in the matches' set, which SQLite
        # builds once; "rowid IN (...)" instead seeks the full-text index once per candidate
        # (6 ms instead of 0.2 for a phrase at 10,000 memories).
        among = (
            "SELECT column1 FROM (VALUES " + ",".join(["(?)"] * len(ids)) + ") "
            "WHERE column1 IN (SELECT rowid FROM fts WHERE fts MATCH ?)"
        )
        total = max(len(self.known), 1)

        def holding(word: str, counted: bool = True) -> tuple[int, list[int]]:
            quoted = f'"{word}"'
            count = 1
            if counted:
                (count,) = conn.execute(
                    "SELECT count(*) FROM fts WHERE fts MATCH ?", (quoted,)
                ).fetchone()
            if not count:
                return 0, []
            return count, [rowid for (rowid,) in conn.execute(among, [*ids, quoted])]

        holds: dict[int, list[str]] = {rowid: [] for rowid in ids}
        # how much of each query word's weight each candidate holds (1 for the word itself)
        share: dict[int, dict[str, float]] = {rowid: {} for rowid in ids}
        asked = 0.0
        weights: dict[str, float] = {}
        for word in parsed.words:
            count, holders = holding(word)
            asked += math.log1p(total / max(count, 0.5))
            weights[word] = math.log1p(total / max(count, 0.5))
            for rowid in holders:
                holds[rowid].append(word)
                share[rowid][word] = 1.0
            for other, closeness in (related or {}).get(word, []):
                if other in weights:
                    continue
                _, holders = holding(other, counted=False)
                for rowid in holders:
                    held = share[rowid].get(word, 0.0)
                    share[rowid][word] = max(held, RELATED_WEIGHT * closeness)
        # The score: BM25 scaled to the best candidate's (its order survives even when
        # every idf is nearly zero), plus the share of the query's word weight held, plus 1
        # for holding the query as a phrase (BM25 sums words independently, and a
        # remembered heading or sentence is a phrase).
        best = max(score for _, _, score in candidates) or 1.0
        phrased: set[int] = set()
        if parsed.phrase is not None:
            for (rowid,) in conn.execute(among, [*ids, parsed.phrase]):
                phrased.add(rowid)
        asks_about_memories = not _GENERIC_SUBJECT.isdisjoint(parsed.words)
        ranked = []
        for name, rowid, score in candidates:
            coverage = sum(weights[w] * part for w, part in share[rowid].items()) / asked
            value = score / best + HOLD_WEIGHT * coverage + (rowid in phrased)
            if name in GENERIC_MEMORIES and not asks_about_memories:
                value /= 4
            ranked.append((name, rowid, value, tuple(holds[rowid]), coverage))
        ranked.sort(key=lambda hit: -hit[2])
        return ranked[:limit]

    def similar(
        self, vector: Any, parsed: ParsedQuery, topic: str, scope: str, limit: int
    ) -> list[tuple[str, int, float]]:
        """The meaning side: (name, rowid, cosine) best first."""
        import numpy as np

        if self.matrix is None or vector is None or not np.any(vector):
            return []
        if self.names_by_id is None:
            self.names_by_id = {rowid: name for name, (rowid, _, _) in self.known.items()}
        names = self.names_by_id
        scores = self.matrix @ vector
        # the best few first; the rest in order only when a topic or scope filters many out
        head = min(len(scores), limit * 4)
        order = np.argpartition(-scores, head - 1)[:head] if head < len(scores) else None
        order = order[np.argsort(-scores[order])] if order is not None else np.argsort(-scores)
        if head < len(scores) and (topic or scope != "all"):
            order = np.argsort(-scores)
        asks_about_memories = not _GENERIC_SUBJECT.isdisjoint(parsed.words)
        found = []
        for i in order:
            rowid = self.vector_ids[int(i)]
            name = names.get(rowid)
            if name is None or not _in_scope(name, topic, scope):
                continue
            if name in GENERIC_MEMORIES and not asks_about_memories:
                continue
            found.append((name, rowid, float(scores[i])))
            if len(found) >= limit:
                break
        return found

    def marked(self, parsed: ParsedQuery, rowid: int) -> tuple[str, str] | None:
        """The indexed name words and the body, the matched words between markers."""
        if not parsed.words:
            return None
        row = (
            self.connection()
            .execute(
                "SELECT highlight(fts, 0, ?, ?), highlight(fts, 2, ?, ?) FROM fts "
                "WHERE fts MATCH ? AND rowid = ?",
                (_MARK_START, _MARK_END, _MARK_START, _MARK_END, parsed.match, rowid),
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


_indexes: dict[str, _Index] = {}
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


def _index_for(store: MemoryStore) -> _Index:
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
            index = _indexes[key] = _Index(path, key)
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


# -- hits ---------------------------------------------------------------------------------------
def _unmark(text: str) -> tuple[str, Spans]:
    """``text`` without the markers, and the spans they enclosed."""
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0
    start: int | None = None
    for piece in _MARKERS.split(text):
        if piece == _MARK_START:
            start = at
        elif piece == _MARK_END:
            if start is not None and at > start:
                spans.append((start, at))
            start = None
        else:
            plain.append(piece)
            at += len(piece)
    return "".join(plain), tuple(spans)


def _cut(line: str, limit: int = MAX_LINE_CHARS) -> tuple[str, Spans]:
    """A line cut to ``limit`` characters around its first match, markers removed, and
    where the matched words are in what is kept."""
    plain, spans = _unmark(line.strip())
    if len(plain) <= limit:
        return plain, spans
    first = spans[0][0] if spans else 0
    start = max(0, min(first - limit // 3, len(plain) - limit))
    end = start + limit - 2
    prefix = "…" if start else ""
    shift = len(prefix) - start
    kept = tuple(
        (max(a, start) + shift, min(b, end) + shift) for a, b in spans if b > start and a < end
    )
    return prefix + plain[start:end] + ("…" if end < len(plain) else ""), kept


def best_lines(marked: str, count: int = MAX_LINES_PER_HIT) -> list[tuple[int, str, Spans]]:
    """The lines with the most matched words (earlier first on ties), in text order, each
    with where its matched words are."""
    scored = []
    for number, line in enumerate(marked.split("\n"), start=1):
        hits = line.count(_MARK_START)
        if hits:
            scored.append((-hits, number, line))
    scored.sort()
    return sorted((number, *_cut(line)) for _, number, line in scored[:count])


def _first_line(text: str) -> list[tuple[int, str, Spans]]:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            return [(number, _cut(line)[0], ())]
    return []


def name_marks(name: str, marked_words: str) -> Spans:
    """Where the marked words of ``name_words(name)`` are in ``name`` itself: the words
    keep their characters and their order, only what separates them differs."""
    spans: list[tuple[int, int]] = []
    at = 0
    opening = False
    start: int | None = None
    for char in marked_words:
        if char == _MARK_START:
            opening = True
        elif char == _MARK_END:
            if start is not None:
                spans.append((start, at))
            start = None
        elif not char.isspace():
            found = name.find(char, at)
            if found < 0:  # not this name's words: mark nothing rather than wrongly
                return ()
            at = found + 1
            if opening:
                start, opening = found, False
    return tuple(spans)


def normalize_scope(scope: str | None) -> str:
    scope = (scope or "all").strip().lower()
    if scope not in SCOPES:
        raise MemoryStoreError(f"unknown search scope {scope!r}; use one of: " + ", ".join(SCOPES))
    return scope


def search_memories(
    store: MemoryStore,
    query: str,
    *,
    topic: str | None = None,
    scope: str | None = "all",
    max_results: int = DEFAULT_MAX_RESULTS,
) -> list[SearchHit]:
    """The memories that best answer ``query``, best first.

    Names given as ``mem:NAME`` in the query come first when they exist. ``topic`` keeps
    one topic (and its sub-topics); ``scope`` is ``all``, ``project`` or ``global``.
    """
    scope = normalize_scope(scope)
    topic = N.normalize_topic(topic or "")
    if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
        raise MemoryStoreError(f"max_results must be a whole number from 1, got {max_results!r}")
    limit = min(max_results, MAX_RESULTS_LIMIT)
    parsed = parse_query(query)
    sqlite3 = _sqlite()
    embedder = _embedder(store)
    vector = embedder.embed([meaning_text(query)])[0] if embedder is not None else None
    related = related_words(parsed, embedder)
    index = _index_for(store)
    with index.lock:
        current = index.current_stamps(store)
        for attempt in (1, 2):
            try:
                index.refresh(store, current, embedder)
                return _collect(
                    store, index, parsed, (vector, related), current, topic, scope, limit
                )
            except sqlite3.DatabaseError:
                if attempt == 2 or str(index.path) == ":memory:":
                    raise MemoryStoreError(
                        f"the search index {index.path} can't be used even after a rebuild; "
                        "delete it and check that the disk has space"
                    ) from None
                # broken under our feet (a truncated or overwritten file): rebuild it
                index.reset()
                with contextlib.suppress(OSError):
                    _remove_database(index.path)
    raise AssertionError("unreachable")  # pragma: no cover


def meaning_text(query: str) -> str:
    """The query as the meaning side reads it: without the words of asking, which a static
    model would average in as noise (on the labeled queries, MRR@10 of meaning alone
    0.76 -> 0.80)."""
    words = _WORD.findall(query[:MAX_QUERY_CHARS])
    content = [word for word in words if word.lower() not in _STOPWORDS]
    return " ".join(content) if content else query[:MAX_QUERY_CHARS]


def related_words(
    parsed: ParsedQuery, embedder: Embedder | None
) -> dict[str, list[tuple[str, float]]]:
    """Each query word's closest words in the model's vocabulary, for the words side."""
    if embedder is None or not RELATED_WORDS:
        return {}
    return {word: embedder.neighbours(word, RELATED_WORDS, RELATED_MIN) for word in parsed.words}


def _embedder(store: MemoryStore) -> Embedder | None:
    """The meaning model for this store's user. A model folder the user named that can't
    be loaded is their error to fix, said in one sentence; the embedded model missing (a
    broken install) leaves search to rank by words alone rather than fail."""
    from serena_memory.search.semantic import ModelUnavailableError, configured_model, load_model

    folder = configured_model(store.home)
    if folder is not None:
        return load_model(folder)
    try:
        return load_model()
    except ModelUnavailableError:
        return None


def _in_scope(name: str, topic: str, scope: str) -> bool:
    if not N.in_topic(name, topic):
        return False
    if scope == "project":
        return not N.is_global(name)
    if scope == "global":
        return N.is_global(name)
    return True


def fuse_ranks(
    words: list[tuple[str, int, float, tuple[str, ...], float]],
    meaning: list[tuple[str, int, float]],
) -> list[tuple[str, int, float, str]]:
    """Reciprocal rank fusion, kept for comparison (benchmarks/search_quality.py): each
    side gives 1 / (RRF_K + rank), the words side times its coverage. It ranks worse than
    ``fuse`` on the labeled queries: a memory in the middle of both lists beats one that
    a single side puts clearly first."""
    fused: dict[str, list[Any]] = {}
    for rank, (name, rowid, _, held, coverage) in enumerate(words, start=1):
        entry = fused.setdefault(name, [rowid, 0.0, (), False])
        entry[1] += WORDS_WEIGHT * coverage / (RRF_K + rank)
        entry[2] = held
    for rank, (name, rowid, cosine) in enumerate(meaning, start=1):
        entry = fused.setdefault(name, [rowid, 0.0, (), False])
        entry[1] += MEANING_WEIGHT / (RRF_K + rank)
        entry[3] = cosine >= MEANING_REASON_MIN and rank <= DEFAULT_MAX_RESULTS
    out = []
    for name, (rowid, score, held, close) in fused.items():
        out.append((name, rowid, score, why_text(held, close)))
    out.sort(key=lambda hit: -hit[2])
    return out


def fuse(
    words: list[tuple[str, int, float, tuple[str, ...], float]],
    meaning: list[tuple[str, int, float]],
) -> list[tuple[str, int, float, str]]:
    """The two sides as one ranking: (name, rowid, score from 0 to 1, why) best first.

    Each side's scores are scaled to its own best: the words side's score over the best
    one, times the share of the query's word weight the memory holds; the meaning side's
    cosine between the last candidate's (0) and the best one's (1). The sum is weighted
    WORDS_SHARE to the words (names, identifiers and phrases decide known items) and the
    rest to meaning (paraphrase). Measured against reciprocal rank fusion on the labeled
    queries (benchmarks/search_quality.py), this ranks better: a side that is sure of one
    memory keeps it first."""
    fused: dict[str, list[Any]] = {}
    if words:
        top = max(hit[2] for hit in words) or 1.0
        for name, rowid, value, held, coverage in words:
            entry = fused.setdefault(name, [rowid, 0.0, (), False])
            entry[1] += WORDS_SHARE * (value / top) * coverage
            entry[2] = held
    if meaning:
        best, floor = meaning[0][2], meaning[-1][2]
        span = max(best - floor, 1e-6)
        for rank, (name, rowid, cosine) in enumerate(meaning, start=1):
            if cosine < MEANING_MIN and name not in fused:
                continue  # holds none of the words and is not close enough in meaning
            entry = fused.setdefault(name, [rowid, 0.0, (), False])
            entry[1] += (1 - WORDS_SHARE) * (cosine - floor) / span
            entry[3] = cosine >= MEANING_REASON_MIN and rank <= DEFAULT_MAX_RESULTS
    out = [(n, r, sc, why_text(h, c)) for n, (r, sc, h, c) in fused.items()]
    out.sort(key=lambda hit: -hit[2])
    return out


def why_text(held: tuple[str, ...], close: bool) -> str:
    """A hit's reason in a few words."""
    reasons = []
    if held:
        shown = ", ".join(held[:4]) + (", …" if len(held) > 4 else "")
        reasons.append(f"words: {shown}")
    if close or not held:
        reasons.append("similar meaning")
    return "; ".join(reasons)


def _collect(
    store: MemoryStore,
    index: _Index,
    parsed: ParsedQuery,
    meaning_of: tuple[Any, dict[str, list[tuple[str, float]]]],
    current: dict[str, tuple[int, int]],
    topic: str,
    scope: str,
    limit: int,
) -> list[SearchHit]:
    """The hits: ``meaning_of`` is the query's vector and its words' related words."""
    vector, related = meaning_of
    pool = max(limit + len(parsed.references), SEMANTIC_CANDIDATES)
    words = index.ranked(parsed, topic, scope, pool, related)
    meaning = index.similar(vector, parsed, topic, scope, pool)
    ranked = fuse(words, meaning)
    scale = 100.0  # shown from 0 to 100 (above 100 only for a phrase held)
    top = ranked[0][2] if ranked else 0.0
    chosen: list[tuple[str, int, float, str]] = []
    for raw in parsed.references:
        try:
            name = N.normalize_name(raw)
        except MemoryStoreError:
            continue
        rowid = index.rowid_of(name)
        if name in current and rowid is not None and _in_scope(name, topic, scope):
            chosen.append((name, rowid, top + 1.0 / scale, "named in the query"))
    picked = {name for name, _, _, _ in chosen}
    chosen += [hit for hit in ranked if hit[0] not in picked and hit[0] in current]
    patterns = store.settings.patterns
    hits = []
    for name, rowid, score, why in chosen[:limit]:
        marked = index.marked(parsed, rowid)
        lines = best_lines(marked[1]) if marked else []
        if not lines:
            lines = _first_line(index.body(rowid) or "")
        read_only = patterns.read_only_match(name) is not None
        hits.append(
            SearchHit(
                name,
                round(score * scale, 1),
                read_only,
                [(number, text) for number, text, _ in lines],
                name_marks(name, marked[0]) if marked else (),
                tuple(spans for _, _, spans in lines),
                why,
            )
        )
    return hits


def format_hits(hits: list[SearchHit], query: str) -> str:
    """Hits as compact text for an agent or a terminal (ten hits stay well under 2,000
    tokens: three lines of at most 120 characters each)."""
    if not hits:
        return (
            f"No memory matches {_preview(query)}. Try other words, a broader topic, or "
            "list the memories to browse them."
        )
    out = []
    for rank, hit in enumerate(hits, start=1):
        flag = " (read-only)" if hit.read_only else ""
        why = f"  ({hit.why})" if hit.why else ""
        out.append(f"{rank}. {hit.name}{flag}  score {hit.score:g}{why}")
        out.extend(f"   {number}: {text}" for number, text in hit.lines)
    return "\n".join(out)


def _preview(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
