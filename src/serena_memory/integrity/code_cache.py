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
import time
from collections.abc import Callable
from pathlib import Path

from serena_memory.core import paths
from serena_memory.integrity.code_git import GitUnavailable, run_git
from serena_memory.integrity.code_symbols import DOC_EXTENSIONS

MARK = b"serena-memory code identifiers\n"
SCHEMA_VERSION = 1
MAX_FRESH = 2000
"""More changed or untracked source files than this: one scan of everything, kept not."""

PATTERN = "[A-Za-z_][A-Za-z0-9_]*"


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
    try:
        where = run_git(root, "rev-parse", "--git-path", "index").decode().strip()
        st = os.stat(os.path.join(root, where))
    except (GitUnavailable, OSError, UnicodeDecodeError):
        return None
    return [st.st_ino, st.st_mtime_ns, st.st_size]


def read_entry(path: Path, root: str) -> tuple[list[int], set[str], set[bytes]] | None:
    """(index stamp, files left out, identifiers) of a valid entry; None otherwise."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        data = path.read_bytes()
        if not data.startswith(MARK):
            return None
        head, _, body = data[len(MARK) :].partition(b"\n")
        meta = json.loads(head)
        if (
            not isinstance(meta, dict)
            or meta.get("schema") != SCHEMA_VERSION
            or meta.get("root") != root
            or meta.get("sha256") != hashlib.sha256(body).hexdigest()
        ):
            return None
        stamp, left_out = meta.get("index"), meta.get("left_out")
        if not (
            isinstance(stamp, list)
            and len(stamp) == 3
            and all(type(v) is int for v in stamp)
            and isinstance(left_out, list)
            and all(isinstance(p, str) for p in left_out)
        ):
            return None
    except (OSError, ValueError):
        return None
    return stamp, set(left_out), set(body.split(b"\n")) - {b""}


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
    listed = run_git(
        root, "ls-files", "-z", "-t", "-m", "-o", "--exclude-standard", "--", *pathspec()
    )
    changed: set[str] = set()  # differ from the index, or untracked
    modified: set[str] = set()  # differ from the index
    for item in listed.decode("utf-8", "surrogateescape").split("\0"):
        if len(item) > 2:
            changed.add(item[2:])
            if item[0] != "?":
                modified.add(item[2:])
    if entry is not None and entry[0] == stamp and modified <= entry[1]:
        fresh = changed | entry[1]
        if len(fresh) <= MAX_FRESH:
            found = set(entry[2])
            if fresh:
                found |= _grep(root, untracked=True, specs=_literal(fresh))
            return found
    if stamp is None or len(changed) > MAX_FRESH:
        return _grep(root, untracked=True, specs=pathspec())
    excluded = [":(exclude,literal)" + p for p in sorted(changed)]
    kept = _grep(root, untracked=False, specs=[*pathspec(), *excluded])
    found = kept | (_grep(root, untracked=True, specs=_literal(changed)) if changed else set())
    if _index_stamp(root) == stamp:
        write_entry(path, home, root, stamp, modified, kept)
    return found


def _literal(names: set[str]) -> list[str]:
    return [":(literal)" + p for p in sorted(names)]


class IdentifierScan:
    """:func:`scan` started now, its answer read later (:meth:`result`): a forked child
    runs it while this process reads the memories (only when this process runs no
    threads; otherwise it runs in :meth:`result`)."""

    def __init__(
        self, root: str, home: str | os.PathLike[str] | None, can_fork: Callable[[], bool]
    ) -> None:
        self.root = root
        self.home = home
        self._started = time.monotonic()
        self._pid: int | None = None
        self._out: int | None = None
        if home is not None and can_fork():
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child
                status = 1
                try:
                    os.close(read_end)
                    try:
                        data = b"ok\n" + b"\n".join(scan(root, home))
                    except GitUnavailable as exc:
                        data = b"git\n" + str(exc).encode("utf-8", "replace")
                    with os.fdopen(write_end, "wb") as out:
                        out.write(data)
                    status = 0
                finally:
                    os._exit(status)
            os.close(write_end)
            self._pid, self._out = pid, read_end

    def result(self) -> set[bytes]:
        """The identifiers; GitUnavailable when git failed."""
        if self._pid is None:
            return scan(self.root, self.home)
        assert self._out is not None
        with os.fdopen(self._out, "rb") as source:
            data = source.read()
        _pid, status = os.waitpid(self._pid, 0)
        self._pid = None
        kind, _, body = data.partition(b"\n")
        if status == 0 and kind == b"ok":
            return set(body.split(b"\n")) - {b""}
        if status == 0 and kind == b"git":
            raise GitUnavailable(body.decode("utf-8", "replace"))
        return scan(self.root, None)  # the child failed: scan here, as without a cache

    def discard(self) -> None:
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, 9)
            os.waitpid(self._pid, 0)
            self._pid = None
            if self._out is not None:
                os.close(self._out)
