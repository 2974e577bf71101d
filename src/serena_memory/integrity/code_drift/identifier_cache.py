"""The identifiers of a project's source files, kept between checks the way git keeps its
index: what the committed or staged files hold is scanned once per state of git's index.

A scan lists the source files that differ from git's index (modified, deleted) or that
git does not track (``git ls-files -m -o``). With a kept entry for the same index (same
inode, modification time and size of the index file, which git rewrites whole on every
change) that were all left out when the entry was made, only those files are scanned
again; otherwise every tracked source file but those is scanned and kept as the entry
for this index. The answer is always the set one ``git grep`` over every source file
gives.

The entry is one file under ``$SERENA_HOME/cache/code`` (never in the project), named
after the project's real path. It is used only when it is a plain file that starts with
this module's mark and schema version, names the same project and whose contents match
their checksum; anything else (missing, truncated, foreign, another version) is as good
as absent and is replaced.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from serena_memory.core import paths
from serena_memory.core.files import read_own_file
from serena_memory.integrity.code_drift.git import (
    GitStalled,
    GitUnavailable,
    locate,
    run_git,
    seal_before_fork,
    stalled,
)
from serena_memory.integrity.code_drift.symbols import DOC_EXTENSIONS
from serena_memory.integrity.workers import ForkedJob

MARK = b"serena-memory code identifiers\n"
SCHEMA_VERSION = 1
MAX_FRESH = 2000
MAX_ENTRY_BYTES = 256 * 1024 * 1024
"""A kept entry larger than this is not read (a repository's identifiers are far fewer)."""
"""More changed or untracked source files than this: one scan of everything, kept not."""

PATTERN = "[A-Za-z_][A-Za-z0-9_]*"
_STALLED_MARK = "\0git ran out of time"


def pathspec() -> list[str]:
    """The source files: all but the memories and prose documents."""
    return [".", ":(exclude).serena", *(f":(exclude,glob)**/*.{ext}" for ext in DOC_EXTENSIONS)]


def grep_args(*, untracked: bool, specs: list[str]) -> list[str]:
    """``git grep`` printing every identifier of the files ``specs`` names."""
    extra = ["--untracked"] if untracked else []
    return ["grep", "-I", "-h", "-o", "-E", *extra, "--no-color", "--no-textconv"] + [
        "-e",
        PATTERN,
        "--",
        *specs,
    ]


def entry_path(home: str | os.PathLike[str], root: str) -> Path:
    digest = hashlib.sha256(root.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return Path(home) / "cache" / "code" / f"{digest}.ids"


def _usable(folder: Path, home: str | os.PathLike[str], root: str) -> bool:
    """Under $SERENA_HOME and outside the project: a project can neither plant the entry
    nor receive it."""
    real = os.path.realpath(folder)
    return paths.is_inside(real, (os.path.realpath(home),)) and not paths.is_inside(real, (root,))


def _index_stamp(root: str) -> list[int] | None:
    repo = locate(root)
    try:
        st = os.stat(repo.index) if repo is not None else None
    except OSError:
        return None
    if st is None:
        return None
    return [st.st_ino, st.st_mtime_ns, st.st_size]


Entry = tuple[list[int], set[str], set[bytes]]
"""A kept entry: the index stamp it was made for, the files left out, the identifiers."""


def read_entry(path: Path, root: str) -> Entry | None:
    """(index stamp, files left out, identifiers) of a valid entry; None otherwise."""
    data = read_own_file(path, MAX_ENTRY_BYTES)  # a link, FIFO or device: a miss at once
    if data is None or not data.startswith(MARK):
        return None
    head, _, body = data[len(MARK) :].partition(b"\n")
    try:
        meta = json.loads(head)
    except ValueError:
        return None
    if not _valid_meta(meta, root, body):
        return None
    return meta["index"], set(meta["left_out"]), set(body.split(b"\n")) - {b""}


def _valid_meta(meta: object, root: str, body: bytes) -> bool:
    """Whether an entry's head is this version's, for ``root``, matches ``body``'s
    checksum and holds an index stamp (three integers) and a list of names."""
    if not (
        isinstance(meta, dict)
        and meta.get("schema") == SCHEMA_VERSION
        and meta.get("root") == root
        and meta.get("sha256") == hashlib.sha256(body).hexdigest()
    ):
        return False
    stamp, left_out = meta.get("index"), meta.get("left_out")
    return (
        isinstance(stamp, list)
        and len(stamp) == 3
        and all(type(v) is int for v in stamp)
        and isinstance(left_out, list)
        and all(isinstance(p, str) for p in left_out)
    )


def write_entry(
    path: Path,
    home: str | os.PathLike[str],
    root: str,
    stamp: list[int],
    left_out: set[str],
    identifiers: set[bytes],
) -> None:
    """Keep the entry (written whole, then renamed in place); nothing when it can't be."""
    folder = path.parent
    try:
        if not _usable(folder.parent.parent, home, root):
            return
        folder.mkdir(parents=True, exist_ok=True)
        if folder.is_symlink() or not _usable(folder, home, root):
            return
        body = b"\n".join(sorted(identifiers))
        meta = {
            "schema": SCHEMA_VERSION,
            "root": root,
            "index": stamp,
            "left_out": sorted(left_out),
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".ids-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(MARK + json.dumps(meta).encode() + b"\n" + body)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        return


def _grep(root: str, *, untracked: bool, specs: list[str]) -> set[bytes]:
    try:
        out = run_git(root, *grep_args(untracked=untracked, specs=specs))
    except GitUnavailable as exc:
        if not str(exc):  # status 1 with no message: nothing matched
            return set()
        raise
    return set(out.split(b"\n")) - {b""}


def scan(root: str, home: str | os.PathLike[str] | None) -> set[bytes]:
    """Every identifier of the project's source files (tracked, and untracked but not
    ignored), from the kept entry where git's index says it still holds. GitUnavailable
    when git fails."""
    if home is None:
        return _grep(root, untracked=True, specs=pathspec())
    stamp = _index_stamp(root)
    path = entry_path(home, root)
    entry = read_entry(path, root) if stamp is not None else None
    changed, modified = _changed_files(root)
    if entry is not None and entry[0] == stamp and modified <= entry[1]:
        found = _from_entry(root, entry, changed)
        if found is not None:
            return found
    if stamp is None or len(changed) > MAX_FRESH:
        return _grep(root, untracked=True, specs=pathspec())
    excluded = [":(exclude,literal)" + p for p in sorted(changed)]
    kept = _grep(root, untracked=False, specs=[*pathspec(), *excluded])
    found = kept | (_grep(root, untracked=True, specs=_literal(changed)) if changed else set())
    if _index_stamp(root) == stamp:
        write_entry(path, home, root, stamp, modified, kept)
    return found


def kept_for_index(root: str, home: str | os.PathLike[str]) -> bool:
    """Whether a scan is kept for git's index as it is now: :func:`scan` then rereads only
    the files changed since (quick enough for the start of a session)."""
    stamp = _index_stamp(root)
    entry = read_entry(entry_path(home, root), root) if stamp is not None else None
    return entry is not None and entry[0] == stamp


def _changed_files(root: str) -> tuple[set[str], set[str]]:
    """(source files that differ from git's index or that git does not track, those of
    them that differ from the index)."""
    listed = run_git(
        root, "ls-files", "-z", "-t", "-m", "-o", "--exclude-standard", "--", *pathspec()
    )
    changed: set[str] = set()
    modified: set[str] = set()
    for item in listed.decode("utf-8", "surrogateescape").split("\0"):
        if len(item) > 2:
            changed.add(item[2:])
            if item[0] != "?":
                modified.add(item[2:])
    return changed, modified


def _from_entry(root: str, entry: Entry, changed: set[str]) -> set[bytes] | None:
    """The identifiers from a kept entry for this index, with the files it left out and
    those ``changed`` scanned again; None when those are too many."""
    fresh = changed | entry[1]
    if len(fresh) > MAX_FRESH:
        return None
    found = set(entry[2])
    if fresh:
        found |= _grep(root, untracked=True, specs=_literal(fresh))
    return found


def _literal(names: set[str]) -> list[str]:
    return [":(literal)" + p for p in sorted(names)]


def _scan_for_worker(root: str, home: str | os.PathLike[str] | None) -> bytes | str:
    """:func:`scan` as a forked worker sends it back: the identifiers, one a line, or
    git's message when git failed (marked when git ran out of time)."""
    try:
        return b"\n".join(scan(root, home))
    except GitStalled:
        return _STALLED_MARK
    except GitUnavailable as exc:
        return str(exc)


class IdentifierScan:
    """:func:`scan` started now, its answer read later (:meth:`result`): a forked worker
    (:class:`~serena_memory.integrity.workers.ForkedJob`) runs it while this process reads
    the memories (only when this process runs no threads; otherwise it runs in
    :meth:`result`)."""

    def __init__(
        self, root: str, home: str | os.PathLike[str] | None, can_fork: Callable[[], bool]
    ) -> None:
        self.root = root
        self.home = home
        self._job: ForkedJob | None = None
        if home is not None and can_fork():
            seal_before_fork(root)
            self._job = ForkedJob(lambda: _scan_for_worker(root, home))

    def result(self) -> set[bytes]:
        """The identifiers; GitUnavailable when git failed."""
        if self._job is None:
            return scan(self.root, self.home)
        job, self._job = self._job, None
        out = job.result()
        if isinstance(out, bytes):
            return set(out.split(b"\n")) - {b""}
        if out == _STALLED_MARK:
            raise stalled(self.root)  # git is not asked again here for a while either
        if isinstance(out, str):
            raise GitUnavailable(out)
        return scan(self.root, None)  # the worker failed: scan here, as without a cache

    def discard(self) -> None:
        if self._job is not None:
            self._job.discard()
            self._job = None
