"""The duplicate check on a store, with what earlier runs learned kept between runs.

Per memory, the cache keeps its file's stamp (inode, modification time, size) and its
features (:mod:`serena_memory.integrity.duplicates.features`: line hashes, signature,
statement keys), so a check after one change reads that memory, plus the few others
its findings compare word for word; the last report is kept too, for a check after no
change, and all memories' features joined in one blob
(:mod:`serena_memory.integrity.duplicates_kept`) with the names of the rows written
since, for a write, which then reads one value and a few rows. A row is used only when
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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import paths
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.analysis import MAINTENANCE_NAMES
from serena_memory.integrity.duplicates.detect import detect
from serena_memory.integrity.duplicates.features import PERMUTATIONS, Features, features_of
from serena_memory.integrity.duplicates.findings import DuplicateReport
from serena_memory.integrity.duplicates_kept import Kept
from serena_memory.integrity.listing import MemoryListingReader

if TYPE_CHECKING:
    import sqlite3

_APPLICATION_ID = 0x53524D44  # "SRMD"
_SCHEMA_VERSION = 2
RACY_NS = 1_000_000_000
"""A file changed less than this long before it was read is read again next time."""

PROGRESS_FROM = 2000
"""Memories to read from which a check says it reads them (over a second's work)."""
ALWAYS_READ = 64
"""Memories a write reads whatever the time (a small project is always compared whole)."""

Stamp = tuple[int, int, int]


def names_checked(listing: MemoryListingReader) -> list[str]:
    """The memories compared: all that are read, but the maintenance notes (examples)."""
    return [n for n in listing.names if n not in MAINTENANCE_NAMES]


@functools.cache
def _analysis_version() -> str:
    """The code that makes findings (a changed analysis never reuses old ones)."""
    from serena_memory.integrity import duplicates

    digest = hashlib.sha256(str(_SCHEMA_VERSION).encode())
    for source in sorted(Path(str(duplicates.__file__)).parent.glob("*.py")):
        with contextlib.suppress(OSError):
            digest.update(source.read_bytes())
    return digest.hexdigest()


def cache_path(store: MemoryStore) -> Path:
    key = f"{os.path.realpath(store.memories_dir)}\0{os.path.realpath(store.global_dir)}"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return store.home / "cache" / "duplicates" / f"{digest[:24]}.sqlite3"


def _usable(store: MemoryStore, folder: Path) -> bool:
    """Under $SERENA_HOME and outside the project: a project can't plant the cache."""
    real = os.path.realpath(folder)
    home, project = os.path.realpath(store.home), os.path.realpath(store.project_root)
    return paths.is_inside(real, (home,)) and not paths.is_inside(real, (project,))


def _open(store: MemoryStore, create: bool = True) -> sqlite3.Connection | None:
    """The cache, valid and ours, or a new empty one; None when none can be kept (or,
    unless ``create``, when there is none yet: a write leaves no file a check did not)."""
    import sqlite3

    from serena_memory.core.files import locked

    path = cache_path(store)
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
    # the features of all memories as a check saw them, one blob (see duplicates_kept),
    # and the memories whose rows were written since
    conn.execute("CREATE TABLE joined (id INTEGER PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE stale (name TEXT PRIMARY KEY)")
    conn.execute("INSERT INTO meta VALUES ('version', ?)", (version,))
    conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
    conn.execute("COMMIT")


def _decoded(row: tuple[Any, ...]) -> Features | None:
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
            found = _decoded(row[5:])
            if found is not None:
                known[row[0]] = found
    return known, gone


def _save(
    conn: sqlite3.Connection,
    fresh: dict[str, Features],
    stamps: dict[str, Stamp],
    gone: Iterable[str],
) -> None:
    now = time.time_ns()
    rows = [
        (name, *stamps[name], int(now - stamps[name][1] < RACY_NS), *_encoded(f))
        for name, f in fresh.items()
        if name in stamps
    ]
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany("INSERT OR REPLACE INTO memo VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany("DELETE FROM memo WHERE name = ?", [(n,) for n in gone])
        changed = [(r[0],) for r in rows] + [(n,) for n in gone]
        conn.executemany("INSERT OR IGNORE INTO stale VALUES (?)", changed)
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise


def _features(listing: MemoryListingReader, names: list[str], jobs: int) -> dict[str, Features]:
    """The features of the memories ``names`` read now (over forked workers when many);
    a memory that can't be read is left out (the check reports it)."""
    from serena_memory.integrity import parallel
    from serena_memory.integrity.workers import forked

    def part(chunk: list[str]) -> dict[str, Features]:
        texts = listing.read(chunk)[0]
        return {name: features_of(text)[0] for name, text in texts.items()}

    jobs = min(jobs, max(1, len(names) // parallel.PARALLEL_MIN_PER_JOB))
    if jobs <= 1 or not parallel.can_fork():
        return part(names)
    found: dict[str, Features] = {}
    for result in forked(parallel.chunks_by_size(listing, jobs, names), part):
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
        return _check(conn, listing, names, stamps, jobs, progress)
    except (sqlite3.Error, KeyError, TypeError, ValueError):  # a damaged cache
        if conn is not None:
            conn.close()
            conn = None
            with contextlib.suppress(OSError):
                _remove(cache_path(store))
        return _check(None, listing, names, stamps, jobs, progress)
    finally:
        if conn is not None:
            conn.close()


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
        _save_joined(conn, features)
        now = time.time_ns()
        if not any(now - stamps[n][1] < RACY_NS for n in fresh if n in stamps):
            value = report_key + "\n" + json.dumps(report.to_dict())
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('report', ?)", (value,))
    return report


def _save_joined(conn: sqlite3.Connection, features: dict[str, Features]) -> None:
    """The features of all memories as one blob, for the writes until the next check."""
    blob = Kept.of(features).blob()
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT OR REPLACE INTO joined VALUES (0, ?)", (blob,))
        conn.execute("DELETE FROM stale")
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise


_WELL_FORMED = (
    "typeof(name) = 'text' AND typeof(digest) = 'text' AND typeof(lines) = 'blob' "
    "AND length(lines) % 4 = 0 AND typeof(keys) = 'blob' AND length(keys) % 12 = 0 "
    f"AND (sig IS NULL OR (typeof(sig) = 'blob' AND length(sig) = {4 * PERMUTATIONS}))"
)
"""The rows whose blobs have the sizes features have (checked by SQLite, before the
blobs of all rows are joined into arrays)."""


def kept_features(store: MemoryStore, written: tuple[str, Features] | None = None) -> Kept:
    """The features the cache holds, as the last check or write saw each memory, without
    looking at the files (none when there is no cache): for a write, which can't afford
    to look at every file. A memory changed by hand since is seen as it was. ``written``
    (the name and features of the memory just written) is kept with its file's stamp, in
    the same visit of the cache, for the next write and check."""
    import sqlite3

    try:
        conn = _open(store, create=False)
    except (OSError, sqlite3.Error):
        return Kept.of_rows([])
    if conn is None:
        return Kept.of_rows([])
    try:
        kept = _kept(conn)
        if written is not None:
            with contextlib.suppress(OSError, MemoryStoreError):
                st = os.stat(store.real_path_of(written[0]))
                stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
                _save(conn, {written[0]: written[1]}, {written[0]: stamp}, ())
    except sqlite3.Error:
        return Kept.of_rows([])
    finally:
        conn.close()
    return kept


def _kept(conn: sqlite3.Connection) -> Kept:
    """The features the cache holds: the blob the last check left with the rows written
    since in place of their memories' part, or (no such blob) all the rows."""
    query = f"SELECT name, digest, lines, sig, keys FROM memo WHERE {_WELL_FORMED}"  # noqa: S608
    row = conn.execute("SELECT data FROM joined WHERE id = 0").fetchone()
    joined = None if row is None else Kept.of_blob(row[0])
    if joined is None:
        return Kept.of_rows(conn.execute(query).fetchall())
    stale = {r[0] for r in conn.execute("SELECT name FROM stale")}
    if not stale:
        return joined
    since = query + " AND name IN (SELECT name FROM stale)"
    return joined.without(stale).plus(Kept.of_rows(conn.execute(since).fetchall()))
