"""What `check` learned about each memory, kept between runs so that a check after one
change reads and analyses only that memory.

Per memory, the cache keeps its file's stamp (inode, modification time, size), the
SHA-256 of its bytes, its references, and what `check` reports about it (stale references
with their candidates, exact bare mentions, near-misses). References depend on the text
alone; the rest also on the set of existing names, so it is kept with a digest of that
set and computed again for every memory when a memory is created, deleted or renamed
(which changes who references what, and every candidate list). What the name indexes
answered (a near-miss token's ranking, a stale target's candidates) is kept too, with the
same digest: it depends only on the question and the set of names, so a check after one
edit builds an index only for a token or target no earlier check asked about.

A row is used only when its text has exactly the shape this code writes (checked by one
pattern per row, :mod:`serena_memory.integrity.references.check_cache_rows`), so a damaged
or hand-edited row is analysed again, never trusted.

The file is SQLite under ``$SERENA_HOME/cache/check``, keyed by the memories folders'
resolved paths, and trusted only when it is a plain file of ours (application id, schema
version, same folders) that lies outside the project; anything else (missing, truncated,
another version, a link, a file a project planted) is rebuilt or left unused, so the
report is always the one a run without the cache gives.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core import paths
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.listing import MAINTENANCE_NAMES
from serena_memory.integrity.references.analysis import IntegrityAnalyzer
from serena_memory.integrity.references.check_cache_rows import (
    FOUND,
    FOUND_SHAPE,
    REFS,
    REFS_SHAPE,
    SHA,
    Answers,
    Refs,
    answer_json,
    answer_value,
    as_refs,
    decoded,
    found_json,
    refs_json,
    row_findings,
    row_refs,
)
from serena_memory.integrity.references.check_report import (
    ENTRY_POINT,
    BareMention,
    CheckReport,
    StaleReference,
)
from serena_memory.integrity.workers import forked

if TYPE_CHECKING:
    import sqlite3

    from serena_memory.integrity.listing import MemoryListingReader

_APPLICATION_ID = 0x53524D43  # "SRMC": marks the file as ours
_SCHEMA_VERSION = 2
_MMAP_BYTES = 1 << 30
RACY_NS = 1_000_000_000
"""A file changed less than this long before it was read is hashed again next time."""


class _Malformed(Exception):
    """A cache entry that can't be used after all: the check runs without the cache."""


def cache_path(store: MemoryStore) -> Path:
    """Where the check cache of this store lives: keyed by the folders' resolved paths."""
    return store.layout.home / "cache" / "check" / f"{_folders_digest(store)[:24]}.sqlite3"


def _folders_digest(store: MemoryStore) -> str:
    key = store.layout.folders_key()
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _names_digest(names: Iterable[str]) -> str:
    """The set of names and the version of the analysis: what findings depend on besides
    the memory's own text."""
    digest = hashlib.sha256(_analysis_version())
    digest.update("".join(f"{name}\0" for name in names).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@functools.cache
def _analysis_version() -> bytes:
    """The code that makes findings (a changed analysis never reuses old ones)."""
    from serena_memory.integrity.references import analysis, check_report, scanning, similarity

    digest = hashlib.sha256(str(_SCHEMA_VERSION).encode())
    for module in (analysis, check_report, scanning, similarity):
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
    home = os.path.realpath(store.layout.home)
    project = os.path.realpath(store.layout.project_root)
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
            # pages read through a mapping, not one system call each (a check reads them all)
            conn.execute(f"PRAGMA mmap_size = {_MMAP_BYTES}")
            if _valid(conn, key):
                return conn
            conn.close()
        except Exception:  # noqa: BLE001 - a cache that can't be read is rebuilt, whatever
            # the error: sqlite3's own, or a damaged schema name that isn't UTF-8
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
    conn.execute(
        "CREATE TABLE answer (kind TEXT, question TEXT, names TEXT, value TEXT, "
        "PRIMARY KEY (kind, question)) WITHOUT ROWID"
    )
    conn.execute("INSERT INTO meta VALUES ('folders', ?)", (key,))
    conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
    conn.execute("COMMIT")


def _recaller(
    conn: sqlite3.Connection, names_key: str, existing: frozenset[str]
) -> Callable[[str, str], Any] | None:
    """Answers kept for this set of names, one indexed lookup each; None when none are."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'answers'").fetchone()
    if row is None or row[0] != names_key:
        return None
    query = "SELECT value FROM answer WHERE kind = ? AND question = ? AND names = ?"

    def recall(kind: str, question: str) -> Any:
        found = conn.execute(query, (kind, question, names_key)).fetchone()
        return None if found is None else answer_value(kind, found[0], existing)

    return recall


# -- the check -------------------------------------------------------------------------------
def cached_check(
    store: MemoryStore,
    listing: MemoryListingReader,
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
    except (sqlite3.Error, UnicodeError, _Malformed):  # a damaged cache: check without it
        with contextlib.suppress(OSError):
            _remove(cache_path(store))
        return None
    finally:
        conn.close()


# what was learned about one memory read now: (sha, references, findings, references and
# findings as stored, whether it has text)
_Fresh = tuple[str, str, str, bool]


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
        if row is not None and row[SHA] == sha:
            refs = row_refs(row)
            if refs is not None:
                analyzer.know_references({name: refs})  # same text: same references
                if row_findings(row, names_key, include_unmarked, fuzzy) is not None:
                    fresh[name] = (sha, row[REFS], row[FOUND], bool(text))
                    continue
        stale, bare, near = analyzer.findings(name, include_unmarked, fuzzy)
        stored = found_json(stale, bare if include_unmarked else None, near if fuzzy else None)
        fresh[name] = (sha, refs_json(analyzer.references(name)), stored, bool(text))
    return fresh


def _read_and_analyse(
    listing: MemoryListingReader,
    to_read: list[str],
    rows: dict[str, tuple[Any, ...]],
    names_key: str,
    include_unmarked: bool,
    fuzzy: bool,
    jobs: int,
    recall: Callable[[str, str], Any] | None,
) -> tuple[dict[str, _Fresh], list[str], list[Any], Answers]:
    """(what was learned about each memory of ``to_read``, names not valid UTF-8, files
    the gate refused, what the name indexes answered): many memories (a cold cache, a
    changed set of names) are split over forked workers that share the indexes built once
    here, like a check without cache; a few are analysed here, with the answers the cache
    kept (``recall``), so an index is built only for a question they don't answer."""
    from serena_memory.integrity import workers
    from serena_memory.integrity.references import reading

    jobs = min(jobs, max(1, len(to_read) // workers.PARALLEL_MIN_PER_JOB))
    if jobs > 1 and workers.can_fork():
        base = reading.prepared(listing, include_unmarked, fuzzy)
        recall = None  # a connection is not shared with forked workers
    else:
        jobs = 1
        base = IntegrityAnalyzer({}, listing.read_only, listing.ignored, (), listing.names)

    def part(names: list[str]) -> tuple[dict[str, _Fresh], list[str], list[Any], Answers]:
        texts, unreadable, refused = listing.read(names)
        analyzer = base.sibling(texts, unreadable)
        if recall is not None:
            analyzer.recall_answers(recall)
        fresh = _analyse(analyzer, rows, names_key, include_unmarked, fuzzy)
        return fresh, unreadable, refused, analyzer.learned

    if jobs == 1:
        return part(to_read)
    fresh: dict[str, _Fresh] = {}
    unreadable: list[str] = []
    refused: list[Any] = []
    learned: Answers = {}
    for found, bad, gated, answers in forked(workers.chunks_by_size(listing, jobs, to_read), part):
        fresh.update(found)
        unreadable += bad
        refused += gated
        learned.update(answers)
    return fresh, unreadable, refused, learned


def _check(
    conn: sqlite3.Connection,
    listing: MemoryListingReader,
    include_unmarked: bool,
    fuzzy: bool,
    reachability: bool,
    jobs: int = 1,
) -> CheckReport:
    names_key = _names_digest(listing.names)
    stamps = listing.stamps()
    known, gone = _known_rows(
        conn, listing, stamps, names_key, (include_unmarked, fuzzy, reachability)
    )
    to_read = [name for name in listing.names if name not in known]
    rows = _rows_of(conn, to_read)
    recall = _recaller(conn, names_key, frozenset(listing.names)) if to_read else None
    fresh, unreadable, refused, learned = _read_and_analyse(
        listing, to_read, rows, names_key, include_unmarked, fuzzy, jobs, recall
    )
    now_ns = time.time_ns()
    updates: list[tuple[Any, ...]] = []
    for name, (sha, refs_text, found_text, _scanned) in fresh.items():
        st = stamps.get(name)
        if st is not None:
            racy = now_ns - st[1] < RACY_NS
            updates.append((name, *st, int(racy), sha, refs_text, names_key, found_text))
    report = CheckReport(include_unmarked=include_unmarked, fuzzy=fuzzy)
    report.unreadable = sorted(set(unreadable))
    report.skipped = sorted(listing.skipped + refused, key=lambda s: s.path)
    all_refs: dict[str, Refs] = {}
    entries = _entries(known, stamps, fresh, reachability)
    sources = _fill_report(report, listing, entries, all_refs)
    if reachability:
        analyzer = IntegrityAnalyzer(
            {}, listing.read_only, listing.ignored, report.unreadable, listing.names
        )
        analyzer.know_references(all_refs)
        report.entry_point_exists = ENTRY_POINT in analyzer.existing
        report.unreachable = analyzer.unreachable()
        report.ignored_references = analyzer.ignored_references(sources)
    _save(conn, updates, gone, names_key, learned)
    return report


# what a row that stands for its file as it is says: (findings, references when asked for)
_Known = dict[str, tuple[dict[str, Any], Refs | None]]


def _known_rows(
    conn: sqlite3.Connection,
    listing: MemoryListingReader,
    stamps: dict[str, tuple[int, int, int]],
    names_key: str,
    options: tuple[bool, bool, bool],
) -> tuple[_Known, set[str]]:
    """(what the rows that stand for their files as they are say, names of the rows of
    memories gone). One pass over the rows, reading only the columns needed; each row's
    text checked against the shape this module writes, and all of them decoded at once."""
    include_unmarked, fuzzy, reachability = options
    usable, gone = _usable_rows(conn, listing, stamps, names_key, reachability)
    founds = decoded([raw for _n, raw, _r in usable])
    refs_lists = decoded([refs for _n, _f, refs in usable]) if reachability else None
    known: _Known = {}
    for i, (name, _raw, _refs) in enumerate(usable):
        found = founds[i]
        if (
            found is None
            or (include_unmarked and found["bare"] is None)
            or (fuzzy and found["near"] is None)
        ):
            continue
        if refs_lists is None:
            known[name] = found, None
        elif refs_lists[i] is not None:
            known[name] = found, as_refs(refs_lists[i])
    return known, gone


def _usable_rows(
    conn: sqlite3.Connection,
    listing: MemoryListingReader,
    stamps: dict[str, tuple[int, int, int]],
    names_key: str,
    reachability: bool,
) -> tuple[list[tuple[str, str, str]], set[str]]:
    """([(name, findings, references)] as stored, of the rows with the stamp of the file
    now, taken after its clock tick, for this set of names and of the shape this module
    writes; the names of rows of memories gone)."""
    columns = "name, ino, mtime_ns, size, racy, names, found" + (", refs" if reachability else "")
    usable: list[tuple[str, str, str]] = []
    gone: set[str] = set()
    shape, refs_shape = FOUND_SHAPE.fullmatch, REFS_SHAPE.fullmatch
    for row in conn.execute(f"SELECT {columns} FROM memo"):  # noqa: S608 - fixed columns
        name, stamp = row[0], stamps.get(row[0])
        if stamp is None:
            if name not in listing.paths:
                gone.add(name)
            continue
        if row[1:4] != stamp or row[4] or row[5] != names_key:
            continue
        raw, refs = row[6], row[7] if reachability else "[]"
        if isinstance(raw, str) and shape(raw) and isinstance(refs, str) and refs_shape(refs):
            usable.append((name, raw, refs))
    return usable, gone


def _rows_of(conn: sqlite3.Connection, names: list[str]) -> dict[str, tuple[Any, ...]]:
    """The whole rows of the memories to read again (a touched or copied-back file keeps
    what its row holds): one query each when they are few, else one pass over all."""
    if len(names) > 64:
        wanted = set(names)
        return {row[0]: row for row in conn.execute("SELECT * FROM memo") if row[0] in wanted}
    rows = {}
    for name in names:
        row = conn.execute("SELECT * FROM memo WHERE name = ?", (name,)).fetchone()
        if row is not None:
            rows[name] = row
    return rows


def _entries(
    known: _Known,
    stamps: dict[str, tuple[int, int, int]],
    fresh: dict[str, _Fresh],
    reachability: bool,
) -> dict[str, tuple[Any, Refs | None, bool]]:
    """{name: (findings, references when asked for, whether it was scanned)} of every
    memory known or read now; what was read now is decoded from the text it is stored as
    (the same findings), all at once, so workers send back text only."""
    entries = {name: (found, refs, stamps[name][2] > 0) for name, (found, refs) in known.items()}
    founds = decoded([found_text for _sha, _refs, found_text, _scanned in fresh.values()])
    refs_lists = (
        decoded([refs_text for _sha, refs_text, _found, _scanned in fresh.values()])
        if reachability
        else None
    )
    for i, (name, (_sha, _refs, _found, scanned)) in enumerate(fresh.items()):
        refs = None if refs_lists is None else as_refs(refs_lists[i])
        if founds[i] is None or (refs_lists is not None and refs is None):
            raise _Malformed(name)  # text this run wrote: never
        entries[name] = founds[i], refs, scanned
    return entries


def _fill_report(
    report: CheckReport,
    listing: MemoryListingReader,
    entries: dict[str, tuple[Any, Refs | None, bool]],
    all_refs: dict[str, Refs],
) -> list[str]:
    """Add every memory's findings to ``report`` in the order of names, and each one's
    references to ``all_refs``; returns the memories scanned."""
    read_only, ignored = listing.read_only, frozenset(listing.ignored) - set(listing.names)
    add = _adder(report, ignored)
    sources: list[str] = []
    for name in listing.names:
        entry = entries.get(name)
        if entry is None:
            continue  # unreadable, refused or gone
        found, refs, scanned = entry
        if refs is not None:
            all_refs[name] = refs
        if name in MAINTENANCE_NAMES or not scanned:
            report.not_scanned.append(name)
            continue
        sources.append(name)
        add(name, found, name in read_only)
    report.scanned = len(sources)
    return sources


def _adder(report: CheckReport, ignored: frozenset[str]) -> Callable[[str, Any, bool], None]:
    """A function adding one memory's kept findings to ``report``."""
    stale, bare_high, bare_low = report.stale, report.bare_high, report.bare_low
    near_misses = report.near_misses
    include_unmarked, fuzzy = report.include_unmarked, report.fuzzy

    def add(name: str, found: Any, ro: bool) -> None:
        for target, lines, cands in found["stale"]:
            stale.append(
                StaleReference(
                    name, target, tuple(cands), ro, tuple(lines), target_ignored=target in ignored
                )
            )
        if include_unmarked:
            for mention, lines, high in found["bare"]:
                item = BareMention(name, mention, len(lines), high, ro, tuple(lines))
                (bare_high if high else bare_low).append(item)
        if fuzzy:
            for mention, count, token in found["near"]:
                near_misses.append(BareMention(name, mention, count, True, ro, token=token))

    return add


def _save(
    conn: sqlite3.Connection,
    updates: list[tuple[Any, ...]],
    gone: set[str],
    names_key: str,
    learned: Answers,
) -> None:
    """Write the rows of the memories read, drop those of memories gone, and keep what the
    indexes answered (answers for another set of names are dropped first)."""
    if not updates and not gone and not learned:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany("INSERT OR REPLACE INTO memo VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", updates)
        conn.executemany("DELETE FROM memo WHERE name = ?", [(n,) for n in gone])
        if learned:
            row = conn.execute("SELECT value FROM meta WHERE key = 'answers'").fetchone()
            if row is None or row[0] != names_key:
                conn.execute("DELETE FROM answer")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('answers', ?)", (names_key,))
            conn.executemany(
                "INSERT OR REPLACE INTO answer VALUES (?, ?, ?, ?)",
                [
                    (kind, question, names_key, answer_json(kind, answer))
                    for (kind, question), answer in learned.items()
                ],
            )
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise
