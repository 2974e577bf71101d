"""The duplicate check on a store, with what earlier runs learned kept between runs.

Per memory, the cache keeps its file's stamp (inode, modification time, size) and its
features (:mod:`serena_memory.integrity.duplicates.features`: line hashes, signature,
statement keys), so a check after one change reads that memory, plus the few others
its findings compare word for word; the last report is kept too, for a check after no
change, and every row's keys are posted in an index
(:mod:`serena_memory.integrity.duplicates.index`) that a write looks its own text up
in, reading the few rows that meet it. A row is used only when
its stamp is that of the file now, the file was not changed within a second of being
read, and its blobs have the sizes features have; the file is SQLite under
``$SERENA_HOME/cache/duplicates`` and trusted only when it is ours (application id,
schema version, same folders) and lies outside the project. Anything else is rebuilt,
so the report is always the one a run without the cache gives.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import paths
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates import index as index
from serena_memory.integrity.duplicates.detect import detect
from serena_memory.integrity.duplicates.features import (
    PERMUTATIONS,
    Features,
    Print,
    coefficients,
    features_of,
    plain_signature,
)
from serena_memory.integrity.duplicates.findings import DuplicateReport, dated
from serena_memory.integrity.duplicates.write_precheck import cache_path
from serena_memory.integrity.listing import MAINTENANCE_NAMES, MemoryListingReader

if TYPE_CHECKING:
    import sqlite3

_APPLICATION_ID = 0x53524D44  # "SRMD"
_SCHEMA_VERSION = 3
RACY_NS = 1_000_000_000
"""A file changed less than this long before it was read is read again next time."""

PROGRESS_FROM = 150
"""Memories to read from which a check says it reads them: about a second's work (1,026
memories of a real folder took 6 to 8 s with no cache, and said nothing at 2,000)."""

Stamp = tuple[int, int, int]


def names_checked(listing: MemoryListingReader) -> list[str]:
    """The memories compared: all that are read, but the maintenance notes (examples)."""
    return [n for n in listing.names if n not in MAINTENANCE_NAMES]


@functools.cache
def _analysis_version() -> str:
    """The code that makes findings and index keys (a changed analysis never reuses
    old ones)."""
    from serena_memory.integrity import duplicates

    digest = hashlib.sha256(str(_SCHEMA_VERSION).encode())
    # every module of the check's folder: the detection, the index's keys and this cache
    for source in sorted(Path(str(duplicates.__file__)).parent.glob("*.py")):
        with contextlib.suppress(OSError):
            digest.update(source.read_bytes())
    return digest.hexdigest()


def _usable(store: MemoryStore, folder: Path) -> bool:
    """Under $SERENA_HOME and outside the project: a project can't plant the cache."""
    real = os.path.realpath(folder)
    home, project = os.path.realpath(store.layout.home), os.path.realpath(store.layout.project_root)
    return paths.is_inside(real, (home,)) and not paths.is_inside(real, (project,))


def _open(
    store: MemoryStore, create: bool = True, path: Path | None = None
) -> sqlite3.Connection | None:
    """The cache (at ``path``, when the caller knows it), valid and ours, or a new empty
    one; None when none can be kept (or, unless ``create``, when there is none yet: a
    write leaves no file a check did not)."""
    import sqlite3

    from serena_memory.core.files import locked

    path = path or cache_path(store)
    if not create and not path.is_file():
        return None
    if not _usable(store, path.parent.parent.parent):
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    if not _usable(store, path.parent) or path.parent.is_symlink():
        return None
    with locked([path.parent]):
        if path.is_symlink() or (path.exists() and not path.is_file()):
            _remove(path)
        try:
            conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
            # a cache: a commit need not wait for the disk (in WAL mode it stays whole)
            conn.execute("PRAGMA synchronous = NORMAL")
            if _valid(conn, _analysis_version()):
                return conn
            conn.close()
        except Exception:  # noqa: BLE001 - a cache that can't be read is rebuilt
            pass
        _remove(path)
        conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA synchronous = NORMAL")
        _create(conn, _analysis_version())
        return conn


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
            os.unlink(str(path) + suffix)


def _valid(conn: sqlite3.Connection, version: str) -> bool:
    if conn.execute("PRAGMA application_id").fetchone()[0] != _APPLICATION_ID:
        return False
    if conn.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
        return False
    # no integrity check of the whole file (it would read every page): a damaged page
    # fails the read that meets it, and the check runs again without the cache
    row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    return row is not None and row[0] == version


def _create(conn: sqlite3.Connection, version: str) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE memo (name TEXT PRIMARY KEY, ino INTEGER, mtime_ns INTEGER, "
        "size INTEGER, racy INTEGER, digest TEXT, lines BLOB, sig BLOB, keys BLOB)"
    )
    for table in index.SCHEMA:  # every row's keys, for a write to look itself up in
        conn.execute(table)
    conn.execute("INSERT INTO meta VALUES ('version', ?)", (version,))
    conn.execute("INSERT INTO meta VALUES ('memories', '0')")
    conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
    conn.execute("COMMIT")


def decoded(row: tuple[Any, ...]) -> Features | None:
    """A row's features, or None when its blobs are not of the sizes features have."""
    import numpy as np

    digest, lines, sig, keys = row
    if not isinstance(digest, str) or len(digest) != 32:
        return None
    if not isinstance(lines, bytes) or len(lines) % 4 or not isinstance(keys, bytes):
        return None
    if len(keys) % 12 or not (
        sig is None or (isinstance(sig, bytes) and len(sig) == 4 * PERMUTATIONS)
    ):
        return None
    triples = np.frombuffer(keys, dtype="<u4").reshape(-1, 3).astype(np.uint32)
    signature = None if sig is None else np.frombuffer(sig, dtype="<u4").astype(np.uint32)
    lines_array = np.frombuffer(lines, dtype="<u4").astype(np.uint32)
    return Features(digest, lines_array, signature, triples)


def _encoded(f: Features) -> tuple[str, bytes, bytes | None, bytes]:
    keys = f.keys.astype("<u4").tobytes()
    sig = None if f.signature is None else f.signature.astype("<u4").tobytes()
    return f.digest, f.lines.astype("<u4").tobytes(), sig, keys


def _known(
    conn: sqlite3.Connection, stamps: dict[str, Stamp]
) -> tuple[dict[str, Features], set[str]]:
    """(the features of rows that stand for their files as they are, rows of memories
    gone)."""
    known: dict[str, Features] = {}
    gone: set[str] = set()
    query = "SELECT name, ino, mtime_ns, size, racy, digest, lines, sig, keys FROM memo"
    for row in conn.execute(query):
        stamp = stamps.get(row[0])
        if stamp is None:
            gone.add(row[0])
        elif tuple(row[1:4]) == stamp and not row[4]:
            found = decoded(row[5:])
            if found is not None:
                known[row[0]] = found
    return known, gone


def _save(
    conn: sqlite3.Connection,
    fresh: dict[str, Features],
    stamps: dict[str, Stamp],
    gone: Iterable[str],
) -> None:
    """The rows of the memories ``fresh`` read now, those of the memories ``gone`` out."""
    import numpy as np

    now = time.time_ns()
    saved = {n: f for n, f in fresh.items() if n in stamps}
    rows = {
        n: (*stamps[n], int(now - stamps[n][1] < RACY_NS), *_encoded(f)) for n, f in saved.items()
    }
    every = [np.unique(f.words) for f in saved.values()]
    words, counts = np.unique(np.concatenate([np.zeros(0, np.uint32), *every]), return_counts=True)
    counted = list(zip(words.tolist(), counts.tolist(), strict=True))
    _replace(conn, rows, gone, counted, lambda ids: index.posted(list(saved.values()), ids))


def _replace(
    conn: sqlite3.Connection,
    rows: dict[str, tuple[Any, ...]],
    gone: Iterable[str],
    counted: list[tuple[int, int]],
    posted: Callable[[list[int]], Iterable[tuple[int, int, int]]],
) -> None:
    """In one transaction: the rows of ``rows`` and ``gone`` taken out with their
    postings, then ``rows`` put in with theirs (``posted``: given the rows' ids) and
    ``counted``, the memories holding each of their words."""
    names = [*rows, *gone]
    conn.execute("BEGIN IMMEDIATE")
    try:
        old = _rows_named(conn, names)
        index.remove(conn, [e for e in old if e is not None])
        conn.executemany("DELETE FROM memo WHERE name = ?", [(n,) for n in names])
        first = conn.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM memo").fetchone()[0]
        ids = list(range(first, first + len(rows)))
        conn.executemany(
            "INSERT INTO memo (rowid, name, ino, mtime_ns, size, racy, digest, lines, sig, keys) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((i, name, *row) for i, (name, row) in zip(ids, rows.items(), strict=True)),
        )
        index.add(conn, posted(ids), counted)
        conn.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'memories'",
            (len(rows) - len(old),),
        )
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise


def _rows_named(conn: sqlite3.Connection, names: list[str]) -> list[index.Entry | None]:
    """The rows of ``names`` there are, as index entries (None: a row not of the shapes
    features have, whose postings can't be told)."""
    found: list[index.Entry | None] = []
    for at in range(0, len(names), 500):
        part = names[at : at + 500]
        marks = ",".join("?" * len(part))
        query = (
            f"SELECT rowid, lines, sig, keys, {_WELL_FORMED} FROM memo "  # noqa: S608
            f"WHERE name IN ({marks})"
        )
        for rowid, lines, sig, keys, ok in conn.execute(query, part):
            entry = None
            if ok:
                signature = None if sig is None else index.unpack(sig)
                entry = (rowid, index.unpack(lines), signature, index.triples(keys))
            found.append(entry)
    return found


def _features(listing: MemoryListingReader, names: list[str], jobs: int) -> dict[str, Features]:
    """The features of the memories ``names`` read now (over forked workers when many);
    a memory that can't be read is left out (the check reports it)."""
    from serena_memory.integrity import workers

    def part(chunk: list[str]) -> dict[str, Features]:
        texts = listing.read(chunk)[0]
        return {name: features_of(text)[0] for name, text in texts.items()}

    jobs = min(jobs, max(1, len(names) // workers.PARALLEL_MIN_PER_JOB))
    if jobs <= 1 or not workers.can_fork():
        return part(names)
    found: dict[str, Features] = {}
    for result in workers.forked(workers.chunks_by_size(listing, jobs, names), part):
        found.update(result)
    return found


def _report_key(stamps: dict[str, Stamp], names: list[str]) -> str:
    digest = hashlib.sha256(_analysis_version().encode())
    digest.update(json.dumps([(n, stamps.get(n)) for n in names]).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def check_duplicates(
    store: MemoryStore,
    listing: MemoryListingReader | None = None,
    jobs: int = 1,
    cache: bool = True,
    progress: Callable[[int], None] | None = None,
) -> DuplicateReport:
    """Near-duplicate memories and sections and conflicting statements among the store's
    memories (project and global), reading only what changed since the cache saw it.
    ``progress`` is told how many memories are read, when they are many (it takes time)."""
    import sqlite3

    listing = MemoryListingReader(store) if listing is None else listing
    names = names_checked(listing)
    stamps = listing.stamps()
    conn = None
    if cache:
        with contextlib.suppress(OSError, sqlite3.Error):
            conn = _open(store)
    try:
        report = _check(conn, listing, names, stamps, jobs, progress)
    except (sqlite3.Error, KeyError, TypeError, ValueError):  # a damaged cache
        if conn is not None:
            conn.close()
            conn = None
            with contextlib.suppress(OSError):
                _remove(cache_path(store))
        report = _check(None, listing, names, stamps, jobs, progress)
    finally:
        if conn is not None:
            conn.close()
    return dated(report, {name: stamp[1] for name, stamp in stamps.items()})


def _check(
    conn: sqlite3.Connection | None,
    listing: MemoryListingReader,
    names: list[str],
    stamps: dict[str, Stamp],
    jobs: int,
    progress: Callable[[int], None] | None = None,
) -> DuplicateReport:
    report_key = _report_key(stamps, names)
    if conn is not None:
        row = conn.execute("SELECT value FROM meta WHERE key = 'report'").fetchone()
        if row is not None and row[0].startswith(report_key + "\n"):
            return DuplicateReport.from_dict(json.loads(row[0][len(report_key) + 1 :]))
    known, gone = _known(conn, stamps) if conn is not None else ({}, set())
    to_read = [n for n in names if n not in known]
    if progress is not None and len(to_read) >= PROGRESS_FROM:
        progress(len(to_read))
    fresh = _features(listing, to_read, jobs)
    wanted = set(names)
    features = {n: f for n, f in {**known, **fresh}.items() if n in wanted}
    report = detect(features, lambda name: listing.read([name])[0].get(name))
    if conn is not None:
        _save(conn, fresh, stamps, gone)
        signs = json.dumps(coefficients())
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('minhash', ?)", (signs,))
        now = time.time_ns()
        if not any(now - stamps[n][1] < RACY_NS for n in fresh if n in stamps):
            value = report_key + "\n" + json.dumps(report.to_dict())
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('report', ?)", (value,))
    return report


_WELL_FORMED = (
    "typeof(name) = 'text' AND typeof(digest) = 'text' AND typeof(lines) = 'blob' "
    "AND length(lines) % 4 = 0 AND typeof(keys) = 'blob' AND length(keys) % 12 = 0 "
    f"AND (sig IS NULL OR (typeof(sig) = 'blob' AND length(sig) = {4 * PERMUTATIONS}))"
)
"""The rows whose blobs have the sizes features have (checked by SQLite, before the
blobs of all rows are joined into arrays)."""


Row = tuple[str, str, bytes, "bytes | None", bytes]
"""A cache row as a write reads it: name, digest, lines, signature, keys."""


@dataclass(slots=True)
class Met:
    """What a write learns from the index: the rows of the memories its text meets
    (at most :data:`~serena_memory.integrity.duplicates.index.MAX_CANDIDATES`, most met
    first), those whose row is damaged (to be read from their files), how many memories
    hold each of the words concerned, and of how many."""

    rows: list[Row]
    damaged: list[str]
    counts: dict[int, int]
    memories: int


def look_up(store: MemoryStore, name: str, mine: Print, path: Path) -> Met | None:
    """The memories the text just written to ``name`` meets, from the index alone (None
    when no check made one): for a write, which can't afford to look at every file, and
    sees each memory as the last check or write did. The text's own row is kept, in the
    same visit, for the next write and check. ``path``: the cache file, found there."""
    import sqlite3

    try:
        conn = _open(store, create=False, path=path)
    except (OSError, sqlite3.Error):
        return None
    if conn is None:
        return None
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'minhash'").fetchone()
        if row is None:  # no check filled it yet
            return None
        signature = plain_signature(mine.lines, [tuple(m) for m in json.loads(row[0])])
        _keep_written(conn, store, name, mine, signature)
        return _met(conn, name, mine, signature)
    except (sqlite3.Error, ValueError, TypeError, KeyError):  # a damaged index says nothing
        return Met([], [], {}, 0)
    finally:
        conn.close()


def _keep_written(
    conn: sqlite3.Connection, store: MemoryStore, name: str, mine: Print, signature: Any
) -> None:
    try:
        st = os.stat(store.real_path_of(name))
    except (OSError, MemoryStoreError):
        return
    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
    flat = [v for k in mine.keys for v in k]
    sig = None if signature is None else index.pack(signature)
    racy = int(time.time_ns() - st.st_mtime_ns < RACY_NS)
    row = (*stamp, racy, mine.digest, index.pack(mine.lines), sig, index.pack(flat))
    counted = [(w, 1) for w in set(mine.words)]
    postings = index.postings(mine.lines, signature, mine.keys)
    _replace(conn, {name: row}, (), counted, lambda ids: [(k, ids[0], x) for k, x in postings])


def _met(conn: sqlite3.Connection, name: str, mine: Print, signature: Any) -> Met:
    score, worded = index.meeting(conn, mine.lines, signature, mine.keys)
    named = dict(_select(conn, "rowid, name", list(score)))
    ranked = sorted((-score[i], n, i) for i, n in named.items() if n != name)
    chosen = [i for _s, _n, i in ranked[: index.MAX_CANDIDATES]]
    found = {r[0]: r[1:] for r in _select(conn, f"rowid, {_WELL_FORMED}, {_ROW}", chosen)}
    rows = [(i, found[i][1:]) for i in chosen if i in found and found[i][0]]
    damaged = [found[i][1] for i in chosen if i in found and not found[i][0]]
    words = {w for _i, r in rows for w in index.words(index.triples(r[4]))}
    counts = index.counts(conn, words.union(mine.words))
    memories = int(conn.execute("SELECT value FROM meta WHERE key = 'memories'").fetchone()[0])

    def worth(i: int, row: Row) -> bool:  # met by its words alone: a restatement?
        theirs = index.words(index.triples(row[4]))
        return i not in worded or index.restated(mine.words, theirs, counts, memories)

    return Met([r for i, r in rows if worth(i, r)], damaged, counts, memories)


_ROW = "name, digest, lines, sig, keys"


def _select(conn: sqlite3.Connection, columns: str, ids: list[int]) -> list[tuple[Any, ...]]:
    """``columns`` of the memo rows ``ids``."""
    found: list[tuple[Any, ...]] = []
    for at in range(0, len(ids), 500):
        part = ids[at : at + 500]
        marks = ",".join("?" * len(part))
        query = f"SELECT {columns} FROM memo WHERE rowid IN ({marks})"  # noqa: S608 - ours
        found += conn.execute(query, part).fetchall()
    return found
