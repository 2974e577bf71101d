"""The meaning vectors of an index file: read only when a search asks the meaning side,
made in one refresh or a chunk at a time (search/preparing.py), and stored beside the
full-text index, from the same stamps (search/database.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from serena_memory.search.semantic import MAX_EMBED_CHARS, document_text

if TYPE_CHECKING:
    import sqlite3

    from serena_memory.search.semantic import Embedder


class Made(Protocol):
    """Which model made vectors: a loaded model (Embedder) or what the cache of queries
    kept from it (query_cache.Kept)."""

    identity: str
    dim: int


EMBED_CHUNK = 1_000  # memories embedded at once when every vector is made again
Known = dict[str, tuple[int, int, int]]  # name -> (rowid, mtime_ns, size), as indexed


class Vectors:
    """The vectors of one index as this process holds them: row i of ``matrix`` is
    the vector of memory ``ids[i]``."""

    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        """Hold none: they are read again when next needed."""
        self.matrix: Any = None
        self.ids: list[int] = []
        self.model: str | None = None  # the model the stored vectors were made by
        self.whole = True  # False: some are missing, damaged or of another size
        self.damaged = False  # True: some can't be read, so all are made again
        self.loaded = False  # read only for a search that asks the meaning side

    def need(self, conn: sqlite3.Connection, known: Known) -> None:
        """The stored vectors read, if not since the file last changed (numpy and ~10 MB
        at 10,000 memories: not for a search the words answer)."""
        if not self.loaded:
            self._load(conn, known)
            self.loaded = True

    def _load(self, conn: sqlite3.Connection, known: Known) -> None:
        """The stored vectors as one matrix. Missing ones (memories indexed by words only
        so far) are made by the next refresh given a model, or in the background
        (search/preparing.py); damaged or odd-sized ones (a file written by something
        else) make ``damaged`` True, so all are made again. Neither is compared."""
        row = conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
        self.model = row[0] if row else None
        ids: list[int] = []
        blobs: list[bytes] = []
        rowids = {rowid for rowid, _, _ in known.values()}
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
        self.damaged = not readable
        self.matrix, self.ids = (matrix, ids) if readable and ids else (None, [])
        self.whole = readable and len(ids) == len(known)

    def redo(self, embedder: Made | None) -> bool:
        """Whether every vector is to be made again: none yet, another model's, or some
        damaged."""
        return embedder is not None and (
            self.model != embedder.identity
            or self.damaged
            or (self.matrix is not None and self.matrix.shape[1] != embedder.dim)
        )

    def missing(self, known: Known, skip: set[str] = frozenset()) -> list[int]:  # type: ignore[assignment]
        """The rowids of the memories indexed without a vector (but those in ``skip``)."""
        held = set(self.ids)
        return sorted(
            rowid for name, (rowid, _, _) in known.items() if rowid not in held and name not in skip
        )

    def hold(self, gone_ids: set[int], new_ids: list[int], vectors: Any, count: int) -> None:
        """The matrix held without the vectors of ``gone_ids``, with ``vectors`` (rows of
        ``new_ids``, none held yet) added; ``count`` memories are indexed."""
        keep = [i for i, rowid in enumerate(self.ids) if rowid not in gone_ids]
        ids = [self.ids[i] for i in keep]
        parts = [self.matrix[keep]] if self.matrix is not None and keep else []
        if vectors is not None and len(vectors):
            ids += new_ids
            parts.append(vectors)
        if len(parts) > 1:
            import numpy as np  # loaded already: there are vectors

            parts = [np.vstack(parts)]
        self.matrix = parts[0] if parts else None
        self.ids = ids if parts else []
        self.whole = len(self.ids) == count


def texts(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, str, str]]:
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


def new_model(conn: sqlite3.Connection, embedder: Embedder) -> None:
    """Within a write: the vectors dropped, to be made by ``embedder``'s model."""
    conn.execute("DELETE FROM vectors")
    conn.execute(
        "INSERT INTO meta VALUES ('model', ?) ON CONFLICT (key) DO UPDATE SET value = "
        "excluded.value",
        (embedder.identity,),
    )


def embed_all(conn: sqlite3.Connection, embedder: Embedder) -> None:
    """Within a write: every memory's vector made again, in batches (the texts are not
    all held)."""
    new_model(conn, embedder)
    rows = conn.execute(
        "SELECT rowid, name, headings, substr(body, 1, ?) FROM fts", (MAX_EMBED_CHARS,)
    ).fetchall()
    for start in range(0, len(rows), EMBED_CHUNK):
        chunk = rows[start : start + EMBED_CHUNK]
        store(conn, embedder, [(r[0], document_text(r[1], r[2], r[3])) for r in chunk])


def store(conn: sqlite3.Connection, embedder: Embedder, items: list[tuple[int, str]]) -> Any:
    """Within a write: the vectors of ``items`` (rowid, text) made and stored."""
    vectors = embedder.embed([text for _, text in items])
    conn.executemany(
        "INSERT OR REPLACE INTO vectors (id, vec) VALUES (?, ?)",
        [(rowid, vector.tobytes()) for (rowid, _), vector in zip(items, vectors, strict=True)],
    )
    return vectors


def store_if_current(
    conn: sqlite3.Connection,
    embedder: Embedder,
    work: list[tuple[int, str, str, int, int]],
    vectors: Any,
) -> list[int]:
    """Within a write: each vector made for ``work`` (rowid, text, name, mtime_ns, size)
    stored only if its memory is still indexed as it was read and the file's vectors are
    still this model's (another process may have changed either since); the rowids
    stored."""
    written = []
    for (rowid, _, name, mtime, size), vector in zip(work, vectors, strict=True):
        cursor = conn.execute(
            "INSERT OR REPLACE INTO vectors (id, vec) SELECT ?, ? WHERE EXISTS "
            "(SELECT 1 FROM docs WHERE id = ? AND name = ? AND mtime_ns = ? AND "
            "size = ?) AND (SELECT value FROM meta WHERE key = 'model') = ?",
            (rowid, vector.tobytes(), rowid, name, mtime, size, embedder.identity),
        )
        if cursor.rowcount == 1:
            written.append(rowid)
    return written
