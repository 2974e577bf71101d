"""What `check` learned about each memory, kept between runs so that a check after one
change reads and analyses only that memory.

Per memory, the cache keeps its file's stamp (inode, modification time, size), the
SHA-256 of its bytes, its references, and what `check` reports about it (stale references
with their candidates, exact bare mentions, near-misses). References depend on the text
alone; the rest also on the set of existing names, so it is kept with a digest of that
set and computed again for every memory when a memory is created, deleted or renamed
(which changes who references what, and every candidate list).

The file is SQLite under ``$SERENA_HOME/cache/check``, keyed by the memories folders'
resolved paths, and trusted only when it is a plain file of ours (application id, schema
version, same folders) that lies outside the project; anything else (missing, truncated,
another version, a link, a file a project planted) is rebuilt or left unused, so the
report is always the one a run without the cache gives.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import paths
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.analysis import (
    ENTRY_POINT,
    MAINTENANCE_NAMES,
    BareMention,
    CheckReport,
    IntegrityAnalyzer,
    StaleReference,
)

if TYPE_CHECKING:
    import sqlite3

    from serena_memory.integrity.service import _Listing

_APPLICATION_ID = 0x53524D43  # "SRMC": marks the file as ours
_SCHEMA_VERSION = 1
RACY_NS = 1_000_000_000
"""A file changed less than this long before it was read is hashed again next time."""

Refs = list[tuple[str, tuple[int, ...]]]


class _Malformed(Exception):
    """A cache entry that can't be used after all: the check runs without the cache."""


def cache_path(store: MemoryStore) -> Path:
    """Where the check cache of this store lives: keyed by the folders' resolved paths."""
    return store.home / "cache" / "check" / f"{_folders_digest(store)[:24]}.sqlite3"


def _folders_digest(store: MemoryStore) -> str:
    key = f"{os.path.realpath(store.memories_dir)}\0{os.path.realpath(store.global_dir)}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _names_digest(names: Iterable[str]) -> str:
    """The set of names and the version of the analysis: what findings depend on besides
    the memory's own text."""
    digest = hashlib.sha256(_analysis_version())
    for name in names:
        digest.update(name.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def _analysis_version() -> bytes:
    """The code that makes findings (a changed analysis never reuses old ones)."""
    from serena_memory.integrity import analysis, similarity

    digest = hashlib.sha256(str(_SCHEMA_VERSION).encode())
    for module in (analysis, similarity):
        with contextlib.suppress(OSError, TypeError):
            digest.update(Path(str(module.__file__)).read_bytes())
    return digest.digest()


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
            os.unlink(str(path) + suffix)


def _usable_folder(store: MemoryStore, folder: Path) -> bool:
    """The cache folder is real, under $SERENA_HOME and outside the project: a project can
    neither plant the cache nor receive it."""
    real = os.path.realpath(folder)
    home = os.path.realpath(store.home)
    project = os.path.realpath(store.project_root)
    return paths.is_inside(real, (home,)) and not paths.is_inside(real, (project,))


def _open(store: MemoryStore) -> sqlite3.Connection | None:
    """The cache, valid and ours, or a new empty one; None when none can be kept."""
    import sqlite3

    from serena_memory.core.files import locked

    path = cache_path(store)
    folder = path.parent
    if not _usable_folder(store, folder.parent.parent):
        return None
    folder.mkdir(parents=True, exist_ok=True)
    if not _usable_folder(store, folder) or folder.is_symlink():
        return None
    key = _folders_digest(store)
    with locked([folder]):  # one process at a time decides to trust or rebuild
        if path.is_symlink() or (path.exists() and not path.is_file()):
            _remove(path)
        try:
            conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
            if _valid(conn, key):
                return conn
            conn.close()
        except sqlite3.DatabaseError:
            pass
        _remove(path)
        conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        _create(conn, key)
        return conn


def _valid(conn: sqlite3.Connection, key: str) -> bool:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if app_id != _APPLICATION_ID or version != _SCHEMA_VERSION:
        return False
    row = conn.execute("SELECT value FROM meta WHERE key = 'folders'").fetchone()
    if row is None or row[0] != key:
        return False
    ok = conn.execute("PRAGMA quick_check").fetchone()
    return ok is not None and ok[0] == "ok"


def _create(conn: sqlite3.Connection, key: str) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE memo (name TEXT PRIMARY KEY, ino INTEGER, mtime_ns INTEGER, "
        "size INTEGER, racy INTEGER, sha TEXT, refs TEXT, names TEXT, found TEXT)"
    )
    conn.execute("INSERT INTO meta VALUES ('folders', ?)", (key,))
    conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
    conn.execute("COMMIT")


# -- one memory's entry ------------------------------------------------------------------------
class _Entry:
    """A row of the cache, checked for shape when a part of it is used: anything malformed
    is as good as absent."""

    __slots__ = ("stamp", "racy", "sha", "names", "_refs", "_found", "_raw_refs", "_raw_found")

    def __init__(self, row: tuple[Any, ...]) -> None:
        _name, ino, mtime, size, racy, sha, refs, names, found = row
        self.stamp = (ino, mtime, size)
        self.racy = bool(racy)
        self.sha = sha if isinstance(sha, str) else None
        self.names = names if isinstance(names, str) else None
        self._raw_refs, self._raw_found = refs, found
        self._refs: Refs | None | bool = False  # False: not parsed yet
        self._found: dict[str, Any] | None | bool = False

    @property
    def refs(self) -> Refs | None:
        if self._refs is False:
            self._refs = _parse_refs(self._raw_refs)
        return self._refs  # type: ignore[return-value]

    @property
    def found(self) -> dict[str, Any] | None:
        if self._found is False:
            self._found = _parse_found(self._raw_found)
        return self._found  # type: ignore[return-value]

    @property
    def raw_refs(self) -> Any:
        return self._raw_refs


def _ints(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise ValueError("not a list of line numbers")
    return tuple(value)


def _strs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of names")
    return tuple(value)


def _parse_refs(raw: Any) -> Refs | None:
    try:
        items = json.loads(raw)
        return [(str(_strs([t])[0]), _ints(lines)) for t, lines in items]
    except (TypeError, ValueError):
        return None


def _parse_found(raw: Any) -> dict[str, Any] | None:
    """{"stale": [[target, lines, candidates]], "bare": [[name, lines, high]] | None,
    "near": [[name, count, token]] | None}."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        stale = [(_strs([t])[0], _ints(li), _strs(c)) for t, li, c in data["stale"]]
        bare = data["bare"]
        if bare is not None:
            bare = [(_strs([n])[0], _ints(li), bool(h)) for n, li, h in bare]
        near = data["near"]
        if near is not None:
            near = [(_strs([n])[0], int(c), _strs([t])[0]) for n, c, t in near]
        return {"stale": stale, "bare": bare, "near": near}
    except (TypeError, ValueError, KeyError):
        return None


def _found_json(
    stale: list[StaleReference], bare: list[BareMention] | None, near: list[BareMention] | None
) -> str:
    return json.dumps(
        {
            "stale": [[s.target, list(s.lines), list(s.candidates)] for s in stale],
            "bare": None
            if bare is None
            else [[m.name, list(m.lines), m.high_confidence] for m in bare],
            "near": None if near is None else [[m.name, m.occurrences, m.token] for m in near],
        },
        separators=(",", ":"),
    )


# -- the check -------------------------------------------------------------------------------
def cached_check(
    store: MemoryStore,
    listing: _Listing,
    include_unmarked: bool,
    fuzzy: bool,
    reachability: bool,
    jobs: int = 1,
) -> CheckReport | None:
    """The check report, analysing only the memories that changed since the cache saw
    them (over ``jobs`` forked workers when there are many, as a check without the cache
    does); None when no cache can be used (the caller runs the check without one)."""
    import sqlite3

    try:
        conn = _open(store)
    except (OSError, sqlite3.Error):
        return None
    if conn is None:
        return None
    try:
        return _check(
            conn, listing, include_unmarked, fuzzy and include_unmarked, reachability, jobs
        )
    except (sqlite3.Error, _Malformed):
        with contextlib.suppress(OSError):
            _remove(cache_path(store))
        return None
    finally:
        conn.close()


# what was learned about one memory read now: (sha, references, findings, references and
# findings as stored, whether it has text)
_Fresh = tuple[str, Refs, dict[str, Any], str, str, bool]


def _analyse(
    analyzer: IntegrityAnalyzer,
    rows: dict[str, tuple[Any, ...]],
    names_key: str,
    include_unmarked: bool,
    fuzzy: bool,
) -> dict[str, _Fresh]:
    """The findings of every memory ``analyzer`` holds the text of; a memory whose bytes
    are those the cache saw (touched, or copied back) takes what the cache holds."""
    fresh: dict[str, _Fresh] = {}
    for name, text in analyzer.memories.items():
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        row = rows.get(name)
        old = _Entry(row) if row is not None else None
        if old is not None and old.sha == sha and old.refs is not None:
            analyzer.know_references({name: old.refs})  # same text: same references
            if _has_findings(old, names_key, include_unmarked, fuzzy):
                assert old.found is not None
                stored = _found_json_raw(old.found)
                fresh[name] = (sha, old.refs, old.found, _refs_json(old.refs), stored, bool(text))
                continue
        stale, bare, near = analyzer.findings(name, include_unmarked, fuzzy)
        found: Any = {
            "stale": [(s.target, s.lines, s.candidates) for s in stale],
            "bare": [(m.name, m.lines, m.high_confidence) for m in bare]
            if include_unmarked
            else None,
            "near": [(m.name, m.occurrences, m.token) for m in near] if fuzzy else None,
        }
        found_json = _found_json(stale, bare if include_unmarked else None, near if fuzzy else None)
        refs = analyzer.references(name)
        fresh[name] = (sha, refs, found, _refs_json(refs), found_json, bool(text))
    return fresh


def _read_and_analyse(
    listing: _Listing,
    to_read: list[str],
    rows: dict[str, tuple[Any, ...]],
    names_key: str,
    include_unmarked: bool,
    fuzzy: bool,
    jobs: int,
) -> tuple[dict[str, _Fresh], list[str], list[Any]]:
    """(what was learned about each memory of ``to_read``, names not valid UTF-8, files
    the gate refused): many memories (a cold cache, a changed set of names) are split over
    forked workers that share the indexes built once here, like a check without cache."""
    from serena_memory.integrity import service

    jobs = min(jobs, max(1, len(to_read) // service.PARALLEL_MIN_PER_JOB))
    if jobs > 1 and service.can_fork():
        base = service.prepared(listing, include_unmarked, fuzzy)
    else:
        jobs = 1
        base = IntegrityAnalyzer({}, listing.read_only, listing.ignored, (), listing.names)

    def part(names: list[str]) -> tuple[dict[str, _Fresh], list[str], list[Any]]:
        texts, unreadable, refused = listing.read(names)
        analyzer = base.sibling(texts, unreadable)
        return _analyse(analyzer, rows, names_key, include_unmarked, fuzzy), unreadable, refused

    if jobs == 1:
        return part(to_read)
    fresh: dict[str, _Fresh] = {}
    unreadable: list[str] = []
    refused: list[Any] = []
    for found, bad, gated in service.forked(service.chunks_by_size(listing, jobs, to_read), part):
        fresh.update(found)
        unreadable += bad
        refused += gated
    return fresh, unreadable, refused


def _check(
    conn: sqlite3.Connection,
    listing: _Listing,
    include_unmarked: bool,
    fuzzy: bool,
    reachability: bool,
    jobs: int = 1,
) -> CheckReport:
    names_key = _names_digest(listing.names)
    stamps = listing.stamps()
    rows = {row[0]: row for row in conn.execute("SELECT * FROM memo")}
    now_ns = time.time_ns()
    known: dict[str, _Entry] = {}  # usable as they are
    to_read: list[str] = []
    for name in listing.names:
        row = rows.get(name)
        entry = _Entry(row) if row is not None else None
        if entry is not None and _usable(
            entry, stamps.get(name), names_key, include_unmarked, fuzzy
        ):
            known[name] = entry
        else:
            to_read.append(name)
    fresh, unreadable, refused = _read_and_analyse(
        listing, to_read, rows, names_key, include_unmarked, fuzzy, jobs
    )
    updates: list[tuple[Any, ...]] = []
    for name, (sha, _refs, _found, refs_json, found_json, _scanned) in fresh.items():
        st = stamps.get(name)
        if st is None:
            continue
        racy = now_ns - st[1] < RACY_NS
        updates.append((name, *st, int(racy), sha, refs_json, names_key, found_json))
    report = CheckReport(include_unmarked=include_unmarked, fuzzy=fuzzy)
    report.unreadable = sorted(set(unreadable))
    report.skipped = sorted(listing.skipped + refused, key=lambda s: s.path)
    read_only, ignored = listing.read_only, frozenset(listing.ignored) - set(listing.names)
    sources: list[str] = []
    all_refs: dict[str, Refs] = {}
    for name in listing.names:
        if name in known:
            entry = known[name]
            found, scanned = entry.found, entry.stamp[2] > 0
            assert found is not None  # checked by _usable
            if reachability:
                known_refs = entry.refs
                if known_refs is None:  # malformed: the one cold-run fallback
                    raise _Malformed
                all_refs[name] = known_refs
        elif name in fresh:
            _sha, all_refs[name], found, _rj, _fj, scanned = fresh[name]
        else:
            continue  # unreadable, refused or gone
        if name in MAINTENANCE_NAMES or not scanned:
            continue
        sources.append(name)
        ro = name in read_only
        for target, lines, cands in found["stale"]:
            report.stale.append(
                StaleReference(name, target, cands, ro, lines, target_ignored=target in ignored)
            )
        for mention, lines, high in (found["bare"] or ()) if include_unmarked else ():
            item = BareMention(name, mention, len(lines), high, ro, lines)
            (report.bare_high if high else report.bare_low).append(item)
        for mention, count, token in (found["near"] or ()) if fuzzy else ():
            report.near_misses.append(BareMention(name, mention, count, True, ro, token=token))
    report.scanned = len(sources)
    if reachability:
        analyzer = IntegrityAnalyzer(
            {}, listing.read_only, listing.ignored, report.unreadable, listing.names
        )
        analyzer.know_references(all_refs)
        report.entry_point_exists = ENTRY_POINT in analyzer.existing
        report.unreachable = analyzer.unreachable()
        report.ignored_references = analyzer.ignored_references(sources)
    _save(conn, updates, set(rows) - set(listing.names))
    return report


def _usable(
    entry: _Entry,
    stamp: tuple[int, int, int] | None,
    names_key: str,
    include_unmarked: bool,
    fuzzy: bool,
) -> bool:
    """The entry stands for the file as it is (same stamp, not taken in the same clock
    tick as a change) and holds what this check reports, for this set of names."""
    return (
        stamp is not None
        and tuple(entry.stamp) == stamp
        and not entry.racy
        and isinstance(entry.raw_refs, str)
        and _has_findings(entry, names_key, include_unmarked, fuzzy)
    )


def _has_findings(entry: _Entry, names_key: str, include_unmarked: bool, fuzzy: bool) -> bool:
    found = entry.found
    return (
        found is not None
        and entry.names == names_key
        and (not include_unmarked or found["bare"] is not None)
        and (not fuzzy or found["near"] is not None)
    )


def _refs_json(refs: Refs) -> str:
    return json.dumps([[t, list(li)] for t, li in refs], separators=(",", ":"))


def _found_json_raw(found: dict[str, Any]) -> str:
    return json.dumps(
        {
            "stale": [[t, list(li), list(c)] for t, li, c in found["stale"]],
            "bare": None
            if found["bare"] is None
            else [[n, list(li), h] for n, li, h in found["bare"]],
            "near": None if found["near"] is None else [list(x) for x in found["near"]],
        },
        separators=(",", ":"),
    )


def _save(conn: sqlite3.Connection, updates: list[tuple[Any, ...]], gone: set[str]) -> None:
    if not updates and not gone:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany("INSERT OR REPLACE INTO memo VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", updates)
        conn.executemany("DELETE FROM memo WHERE name = ?", [(n,) for n in gone])
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise
