"""The path gate: where a memory file or folder may lead, and which folders are projects.

A project is often someone else's repository, so every file below its ``.serena/`` folder
is untrusted: ``core.md -> ~/.ssh/id_rsa`` or ``core.md -> /dev/zero`` must not be read,
and a topic folder linked to ``/etc`` must not be written into. Every file access of the
store goes through this module:

- a symlink (a file or a folder, at any depth) is followed only when its resolved target
  lies inside the scope's own root (the project folder for project memories,
  ``$SERENA_HOME`` for global ones) or inside a folder the person listed under
  ``allowed_memory_roots`` in the global configuration;
- only regular files are memories (never a fifo, socket or device), and a memory larger
  than :data:`MAX_MEMORY_BYTES` is refused before it is read whole;
- the file-system root, the home folder and the folders above it are never a project.

Resolution walks the path one component at a time from a trusted anchor (the project
folder or ``$SERENA_HOME``, as the person gave it), so a link anywhere on the way is seen.
A read also checks, after opening, where the open file really is (on Linux), so a link
swapped in between the check and the open is caught too.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from serena_memory.core.errors import (
    MemoryStoreError,
    MemoryTooLargeError,
    NotAMemoryFileError,
    NotAProjectError,
    OutsidePathError,
)

MEMORY_SIZE_BUDGET = 4000
"""Characters a memory should stay under, as the conventions (memory_maintenance) say: a
screenful or two, read whole by an agent. Beyond it the agent is told to split it, and an
import splits a file at its headings."""
MAX_MEMORY_BYTES = 16 * 1024 * 1024
"""The largest memory file that is read. Memories are notes read whole into an agent's
context (the tools answer at most 150,000 characters by default) and `check` holds every
memory in memory at once; real memories are a few kilobytes, rarely over a megabyte. 16 MiB
leaves room for pasted logs while keeping one hostile or mistaken file from filling memory."""

MAX_CONFIG_BYTES = 1024 * 1024
"""The largest project configuration file that is read (a real one is a few hundred bytes)."""

_PROC_FD = "/proc/self/fd"


def is_inside(path: str, roots: Sequence[str]) -> bool:
    """Whether the (real, absolute) ``path`` is one of ``roots`` or below one of them."""
    for root in roots:
        if path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep):
            return True
    return False


class Scope(NamedTuple):
    """One memories folder and where links inside it may lead.

    ``anchor`` is the real path of the trusted folder the person chose (the project folder
    or ``$SERENA_HOME``); ``parts`` lead from it to the memories folder; ``allowed`` are the
    real folders links may resolve into; ``where`` names the scope's own root in messages;
    ``config`` is the global configuration file that can widen ``allowed``.
    """

    anchor: str
    parts: tuple[str, ...]
    allowed: tuple[str, ...]
    where: str
    config: str

    @property
    def folder(self) -> str:
        """The memories folder as written (not resolved), for messages."""
        return os.path.join(self.anchor, *self.parts)

    def refusal(self, what: str, target: str) -> str:
        text = f"{what} is a symlink to {target}, outside {self.where}, so it is not followed"
        if self.config:
            text += f"; if you trust that folder, add it to allowed_memory_roots in {self.config}"
        return text


def resolve(scope: Scope, rel: Sequence[str], what: str) -> str:
    """The real path of ``rel`` (components below the memories folder), every symlink on
    the way checked against ``scope.allowed``; raises :class:`OutsidePathError`.

    Components that do not exist yet are appended as written: they will be created inside
    the last real folder, which is inside the allowed roots.
    """
    current = scope.anchor
    parts = (*scope.parts, *rel)
    for i, part in enumerate(parts):
        candidate = os.path.join(current, part)
        try:
            st = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            return os.path.join(current, *parts[i:])
        except OSError as exc:  # a link loop on the way, a name too long, no permission
            raise _unreachable(what, candidate, exc.strerror or str(exc)) from None
        if stat.S_ISLNK(st.st_mode):
            target = os.path.realpath(candidate)
            if os.path.islink(target):  # realpath stops where links go round in a loop
                raise _unreachable(what, candidate, "its symlinks go round in a loop")
            if not is_inside(target, scope.allowed):
                shown = what if i == len(parts) - 1 else f"{what}: {candidate}"
                raise OutsidePathError(scope.refusal(shown, target))
            current = target
        else:
            current = candidate
    return current


def _unreachable(what: str, where: str, why: str) -> NotAMemoryFileError:
    return NotAMemoryFileError(
        f"{what} can't be reached at {where} ({why}); fix or remove the link on the way"
    )


def file_kind(mode: int) -> str:
    """What an entry that is not a regular file is, in words (``a fifo``, ``a device``...)."""
    if stat.S_ISFIFO(mode):
        return "a fifo"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _not_regular(what: str, mode: int) -> NotAMemoryFileError:
    return NotAMemoryFileError(
        f"{what} is {file_kind(mode)}, not a regular file; only regular files are memories "
        "(move it away)"
    )


def _too_large(what: str, size: int | None, limit: int) -> MemoryTooLargeError:
    has = f"has {size:,} bytes, more" if size is not None else "is larger"
    return MemoryTooLargeError(
        f"{what} {has} than the limit of {limit:,} bytes, so it is not read; split it into "
        "smaller memories"
    )


def utf8_size(text: str) -> int:
    """How many bytes ``text`` has in UTF-8, without building them when it is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def refuse_oversized(what: str, size: int, nothing: str = "nothing was changed") -> None:
    """Refuse a text of ``size`` bytes for ``what`` (a memory) when it is more than a memory
    may have: the bound every way of making a memory's text checks, the same the read
    applies, so nothing is written that no entry point could read again."""
    if size > MAX_MEMORY_BYTES:
        raise MemoryTooLargeError(
            f"{what} would have {size:,} bytes, more than the limit of {MAX_MEMORY_BYTES:,} "
            f"bytes a memory may have, so {nothing}; split it into smaller memories"
        )


def read_regular_file(
    real: str, allowed: Sequence[str], what: str, limit: int = MAX_MEMORY_BYTES
) -> bytes:
    """The bytes of the regular file at the resolved path ``real``.

    Refused before anything is read: a fifo, socket or device (opening some of them
    blocks or has effects), a file over ``limit`` bytes, and a file that turns out, once
    open, to lie outside ``allowed`` (a link swapped in since ``real`` was resolved).
    ``FileNotFoundError`` and ``IsADirectoryError`` pass through for the caller to word.
    """
    st = os.lstat(real)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(real)
    if stat.S_ISLNK(st.st_mode):  # resolved paths hold no link: it changed since
        raise OutsidePathError(f"{what} changed into a symlink while it was opened; try again")
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(what, st.st_mode)
    if st.st_size > limit:
        raise _too_large(what, st.st_size, limit)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        if exc.filename is None:
            exc.filename = real
        raise
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise _not_regular(what, opened.st_mode)
        check_opened(fd, allowed, what)
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, 1024 * 1024)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:  # grew since the check
                raise _too_large(what, None, limit)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_memory_texts(
    files: Iterable[tuple[str, str, Sequence[str]]],
) -> dict[str, str | OSError | MemoryStoreError | UnicodeDecodeError]:
    """The text of each memory ``(name, resolved path, allowed folders)``, each read as
    :func:`read_regular_file` reads it, in one call (a listing reads a folder's files):
    its UTF-8 text, or why it was not read (``FileNotFoundError``: gone since it was
    listed; ``UnicodeDecodeError``: not UTF-8)."""
    found: dict[str, str | OSError | MemoryStoreError | UnicodeDecodeError] = {}
    for name, real, allowed in files:
        try:
            found[name] = read_regular_file(real, allowed, f"memory '{name}'").decode("utf-8")
        except (OSError, MemoryStoreError, UnicodeDecodeError) as exc:
            found[name] = exc
    return found


def check_opened(fd: int, allowed: Sequence[str], what: str) -> None:
    """Refuse an open file or folder that turns out to lie outside ``allowed`` (a link
    swapped into its path since the path was resolved); checked where the system says
    where an open file is (Linux), a no-op elsewhere."""
    where = _opened_path(fd)
    if where is not None and not is_inside(where, allowed):
        raise OutsidePathError(
            f"{what} turned out to be {where} once opened, outside the allowed folders; "
            "nothing was read or written there"
        )


def _opened_path(fd: int) -> str | None:
    """Where an open file really is, where the system says (Linux); else None."""
    try:
        return os.readlink(f"{_PROC_FD}/{fd}")
    except OSError:
        return None


# -- listing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkippedFile:
    """An entry of a memories folder that looks like a memory or topic but is not read."""

    name: str  # the memory (or topic) name it would have; '' for the memories folder itself
    path: str  # where it is, as written
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "path": self.path, "reason": self.reason}

    def describe(self) -> str:
        return f"{self.path}: {self.reason}"


class MemoryScan(NamedTuple):
    """What a memories folder holds: each memory's real file, and what was skipped."""

    files: dict[str, str]  # memory name (relative to the folder) -> real path
    skipped: list[SkippedFile]
    global_names: frozenset[str] = frozenset()  # of a store's scan: those of the global scope


def real_folder(scope: Scope) -> str:
    """The scope's real memories folder, every link on the way checked (its message names
    the folder as written, which only the scope knows)."""
    return resolve(scope, (), f"the memories folder {scope.folder}")


def scan(scope: Scope, skip_top: frozenset[str] = frozenset()) -> MemoryScan:
    """Every memory below the scope's folder, with the entries that were skipped and why.

    Links are followed only into the allowed folders, each real folder is visited once (a
    link loop can't hang a listing), hidden entries are never memories (temporary files,
    journals), and only regular ``*.md`` files are memories. A broken link, a link that
    leads outside and a ``*.md`` that is not a regular file are reported, never dropped
    silently.
    """
    try:
        root = real_folder(scope)
    except OutsidePathError as exc:
        return MemoryScan({}, [SkippedFile("", scope.folder, str(exc))])
    listing = _Listing(scope, skip_top)
    listing.walk(root)
    listing.skipped.sort(key=lambda s: s.path)
    return MemoryScan(listing.files, listing.skipped)


# where a link in a memories folder really leads and what is there: (real path, is a
# folder, is a regular file, its mode)
_Found = tuple[str, bool, bool, int]


class _Listing:
    """One :func:`scan` in progress: the folders still to visit and what was found."""

    def __init__(self, scope: Scope, skip_top: frozenset[str]) -> None:
        self.scope = scope
        self.skip_top = skip_top
        self.files: dict[str, str] = {}
        self.skipped: list[SkippedFile] = []
        self.seen: set[tuple[int, int]] = set()  # real folders visited, by device and inode
        self.stack: list[tuple[str, str]] = []  # (real folder, its name prefix)

    def walk(self, root: str) -> None:
        self.stack.append((root, ""))
        while self.stack:
            folder, prefix = self.stack.pop()
            self._visit(self._entries(folder, prefix), prefix)

    def _entries(self, folder: str, prefix: str) -> list[os.DirEntry[str]]:
        """The entries of a folder not visited yet; none when it is gone or was visited,
        and none, reported, when it can't be read."""
        try:
            st = os.stat(folder)
            key = (st.st_dev, st.st_ino)
            if key in self.seen:
                return []
            self.seen.add(key)
            return list(os.scandir(folder))
        except FileNotFoundError:
            return []
        except OSError as exc:
            if not prefix and isinstance(exc, NotADirectoryError):
                raise MemoryStoreError(
                    f"the memories folder {self.scope.folder} is a file, not a folder; move it away"
                ) from None
            self._skip(prefix.rstrip("/"), prefix, _os_reason(exc))
            return []

    def _visit(self, entries: list[os.DirEntry[str]], prefix: str) -> None:
        """Take in one folder's entries: memories found, folders to visit, what is skipped.
        The common case (a regular file or folder) is handled inline: a listing goes
        through every entry."""
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            listed = rel[:-3] if name.endswith(".md") else rel
            try:
                if entry.is_symlink():
                    found = self._follow(entry, rel, listed)
                    if found is None:
                        continue
                    real, is_dir, is_file, mode = found
                else:
                    real, mode = entry.path, 0
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue  # gone since the folder was listed
            if is_dir:
                if prefix or name not in self.skip_top:
                    self.stack.append((real, rel + "/"))
            elif name.endswith(".md"):
                if is_file:
                    self.files[listed] = real
                else:
                    self._skip_not_regular(entry, listed, rel, mode)

    def _follow(self, entry: os.DirEntry[str], rel: str, listed: str) -> _Found | None:
        """Where a symlink leads, or None (reported) when it is broken or leads outside."""
        target = os.path.realpath(entry.path)
        try:
            mode = os.stat(entry.path).st_mode
        except OSError as exc:
            self._skip(listed, rel, _broken_link_reason(entry.path, exc))
            return None
        if not is_inside(target, self.scope.allowed):
            if stat.S_ISDIR(mode) or entry.name.endswith(".md"):
                self._skip(listed, rel, self.scope.refusal("it", target))
            return None
        return target, stat.S_ISDIR(mode), stat.S_ISREG(mode), mode

    def _skip(self, listed: str, rel: str, reason: str) -> None:
        self.skipped.append(SkippedFile(listed, _shown(self.scope, rel), reason))

    def _skip_not_regular(self, entry: os.DirEntry[str], listed: str, rel: str, mode: int) -> None:
        """Report a ``*.md`` that is not a regular file (``mode`` is known for a link)."""
        if not mode:
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                return  # gone since the folder was listed
        kind = file_kind(mode)
        self._skip(listed, rel, f"{kind}, not a regular file; only regular files are memories")


def _shown(scope: Scope, rel: str) -> str:
    return os.path.join(scope.folder, rel)


def _os_reason(exc: OSError) -> str:
    return f"can't be read: {exc.strerror or exc}"


def _broken_link_reason(path: str, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        try:
            return f"broken symlink (its target {os.readlink(path)} does not exist)"
        except OSError:
            return "broken symlink"
    import errno

    if exc.errno == errno.ELOOP:
        return "symlink loop (the link leads back to itself)"
    return _os_reason(exc)


# -- projects -------------------------------------------------------------------------------


def refuse_non_project(real: str) -> None:
    """Raise :class:`NotAProjectError` for the file-system root, the home folder and any
    folder above it: as a project, they would open every file of the person (or of every
    person) to the agent's exploration tools, and put memories in the wrong place."""
    path = Path(real)
    if path == Path(path.anchor):
        raise NotAProjectError(
            f"{real} is the root of the file system, which is never a project; give the "
            "path of the project's own folder"
        )
    home = Path(os.path.realpath(Path.home()))
    if path == home:
        raise NotAProjectError(
            f"{real} is your home folder, which is never a project; give the path of the "
            "project's own folder"
        )
    if home.is_relative_to(path):
        raise NotAProjectError(
            f"{real} holds your home folder, so it is never a project; give the path of the "
            "project's own folder"
        )


def project_folder(raw: str | os.PathLike[str], base: str | Path | None = None) -> Path:
    """The real path of the project folder ``raw`` (``~`` expanded, relative to ``base``
    or the current folder), or one clear error: it does not exist, is a file, or is a
    folder that is never a project (:func:`refuse_non_project`). Every entry point that
    takes a project folder goes through here."""
    if isinstance(raw, str) and not raw.strip():
        raise NotAProjectError("give the path of the project folder")
    path = Path(os.path.expanduser(os.fspath(raw).strip() if isinstance(raw, str) else raw))
    if not path.is_absolute():
        path = Path(base or os.getcwd()) / path
    if not path.exists():
        raise NotAProjectError(
            f"project folder {path} does not exist; give the path of an existing folder"
        )
    if not path.is_dir():
        raise NotAProjectError(f"project folder {path} is a file, not a folder")
    real = os.path.realpath(path)
    refuse_non_project(real)
    return Path(real)
