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
pattern per row), so a damaged or hand-edited row is analysed again, never trusted.

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
import json
import os
import re
import time
from collections.abc import Callable, Iterable
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
from serena_memory.integrity.workers import forked

if TYPE_CHECKING:
    import sqlite3

    from serena_memory.integrity.service import MemoryListingReader

_APPLICATION_ID = 0x53524D43  # "SRMC": marks the file as ours
_SCHEMA_VERSION = 2
RACY_NS = 1_000_000_000
"""A file changed less than this long before it was read is hashed again next time."""

Refs = list[tuple[str, tuple[int, ...]]]
Answers = dict[tuple[str, str], Any]  # {(kind, question): answer}, see IntegrityAnalyzer

# The exact shape of the JSON this module writes (json.dumps, compact separators): a row
# that matches decodes to the right types, so it needs no check value by value.
_STR = r'"(?:[^"\\]|\\.)*"'
_INT = r"(?:0|[1-9][0-9]*)"


def _list_of(item: str) -> str:
    return rf"\[(?:{item}(?:,{item})*)?\]"


def _tuple_of(*items: str) -> str:
    return r"\[" + ",".join(items) + r"\]"


_INTS, _STRS = _list_of(_INT), _list_of(_STR)
_STALE = _list_of(_tuple_of(_STR, _INTS, _STRS))
_BARE = _list_of(_tuple_of(_STR, _INTS, "(?:true|false)"))
_NEAR = _list_of(_tuple_of(_STR, _INT, _STR))
_FOUND_SHAPE = re.compile(
    rf'\{{"stale":{_STALE},"bare":(?:null|{_BARE}),"near":(?:null|{_NEAR})\}}'
)
_REFS_SHAPE = re.compile(_list_of(_tuple_of(_STR, _INTS)))


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
    digest.update("".join(f"{name}\0" for name in names).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@functools.cache
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
    conn.execute(
        "CREATE TABLE answer (kind TEXT, question TEXT, names TEXT, value TEXT, "
        "PRIMARY KEY (kind, question)) WITHOUT ROWID"
    )
    conn.execute("INSERT INTO meta VALUES ('folders', ?)", (key,))
    conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
    conn.execute("COMMIT")


# -- one memory's row --------------------------------------------------------------------------
# columns of a row of `memo`
_NAME, _INO, _MTIME, _SIZE, _RACY, _SHA, _REFS, _NAMES, _FOUND = range(9)


def _row_findings(
    row: tuple[Any, ...], names_key: str, include_unmarked: bool, fuzzy: bool
) -> dict[str, Any] | None:
    """What the row says `check` reports about its memory, when it holds that for this
    set of names and these options and has the shape this module writes; else None."""
    raw = row[_FOUND]
    if (
        row[_NAMES] != names_key
        or not isinstance(raw, str)
        or not isinstance(row[_REFS], str)
        or _FOUND_SHAPE.fullmatch(raw) is None
    ):
        return None
    try:
        found: dict[str, Any] = json.loads(raw)
    except ValueError:  # a bad escape inside a string
        return None
    if (include_unmarked and found["bare"] is None) or (fuzzy and found["near"] is None):
        return None
    return found


def _row_refs(row: tuple[Any, ...]) -> Refs | None:
    raw = row[_REFS]
    if not isinstance(raw, str) or _REFS_SHAPE.fullmatch(raw) is None:
        return None
    try:
        return [(target, tuple(lines)) for target, lines in json.loads(raw)]
    except ValueError:
        return None


def _known(
    row: tuple[Any, ...] | None,
    stamp: tuple[int, int, int] | None,
    names_key: str,
    include_unmarked: bool,
    fuzzy: bool,
    reachability: bool,
) -> tuple[dict[str, Any], Refs | None] | None:
    """(findings, references when asked for) of a row that stands for the file as it is
    (same stamp, not taken in the same clock tick as a change); None: read it again."""
    if row is None or stamp is None or (row[_INO], row[_MTIME], row[_SIZE]) != stamp or row[_RACY]:
        return None
    found = _row_findings(row, names_key, include_unmarked, fuzzy)
    if found is None:
        return None
    refs = None
    if reachability:
        refs = _row_refs(row)
        if refs is None:
            return None
    return found, refs


# -- what the name indexes answered ---------------------------------------------------------
def _answer_json(kind: str, answer: Any) -> str:
    if kind == "near":
        return json.dumps([[score, name] for score, name in answer], separators=(",", ":"))
    return json.dumps(list(answer), separators=(",", ":"))


def _answer_value(kind: str, raw: Any, existing: frozenset[str]) -> Any:
    """A kept answer, if it has the shape this module writes and names only existing
    memories; else None (asked again)."""
    try:
        data = json.loads(raw)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, list):
        return None
    if kind == "near":
        ranked = []
        for item in data:
            if not isinstance(item, list) or len(item) != 2:
                return None
            score, name = item
            if type(score) is not float or not isinstance(name, str) or name not in existing:
                return None
            ranked.append((score, name))
        return ranked
    if kind == "candidates":
        if not all(isinstance(name, str) and name in existing for name in data):
            return None
        return tuple(data)
    return None


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
        return None if found is None else _answer_value(kind, found[0], existing)

    return recall


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
        if row is not None and row[_SHA] == sha:
            refs = _row_refs(row)
            if refs is not None:
                analyzer.know_references({name: refs})  # same text: same references
                found = _row_findings(row, names_key, include_unmarked, fuzzy)
                if found is not None:
                    fresh[name] = (sha, refs, found, row[_REFS], row[_FOUND], bool(text))
                    continue
        stale, bare, near = analyzer.findings(name, include_unmarked, fuzzy)
        found = {
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
    from serena_memory.integrity import service

    jobs = min(jobs, max(1, len(to_read) // service.PARALLEL_MIN_PER_JOB))
    if jobs > 1 and service.can_fork():
        base = service.prepared(listing, include_unmarked, fuzzy)
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
    for found, bad, gated, answers in forked(service.chunks_by_size(listing, jobs, to_read), part):
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
    rows = {row[0]: row for row in conn.execute("SELECT * FROM memo")}
    now_ns = time.time_ns()
    known: dict[str, tuple[dict[str, Any], Refs | None]] = {}  # usable as they are
    to_read: list[str] = []
    for name in listing.names:
        row = rows.get(name)
        entry = _known(row, stamps.get(name), names_key, include_unmarked, fuzzy, reachability)
        if entry is not None:
            known[name] = entry
        else:
            to_read.append(name)
    recall = _recaller(conn, names_key, frozenset(listing.names)) if to_read else None
    fresh, unreadable, refused, learned = _read_and_analyse(
        listing, to_read, rows, names_key, include_unmarked, fuzzy, jobs, recall
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
    stale, bare_high, bare_low = report.stale, report.bare_high, report.bare_low
    near_misses = report.near_misses
    for name in listing.names:
        entry = known.get(name)
        if entry is not None:
            found, refs = entry
            scanned = stamps[name][2] > 0
            if refs is not None:
                all_refs[name] = refs
        elif name in fresh:
            _sha, all_refs[name], found, _rj, _fj, scanned = fresh[name]
        else:
            continue  # unreadable, refused or gone
        if name in MAINTENANCE_NAMES or not scanned:
            continue
        sources.append(name)
        ro = name in read_only
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
    report.scanned = len(sources)
    if reachability:
        analyzer = IntegrityAnalyzer(
            {}, listing.read_only, listing.ignored, report.unreadable, listing.names
        )
        analyzer.know_references(all_refs)
        report.entry_point_exists = ENTRY_POINT in analyzer.existing
        report.unreachable = analyzer.unreachable()
        report.ignored_references = analyzer.ignored_references(sources)
    _save(conn, updates, set(rows) - set(listing.names), names_key, learned)
    return report


def _refs_json(refs: Refs) -> str:
    return json.dumps([[t, list(li)] for t, li in refs], separators=(",", ":"))


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
                    (kind, question, names_key, _answer_json(kind, answer))
                    for (kind, question), answer in learned.items()
                ],
            )
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise
