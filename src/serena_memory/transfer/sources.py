"""Reading source files as untrusted input: inside the project, bounded, UTF-8.

A source folder is often someone else's (a cloned repository, a shared note folder), so
the source folder is reached through the path gate (:mod:`serena_memory.core.paths`) from
where it is looked for, the project folder or the path the person named (a
``memory-bank -> ..`` link out of the project is refused); a file is read only when its
real path lies inside the real source folder (a link out of it is refused), only regular
files are read, each is bounded in size, the number of files is bounded, and text that
is not UTF-8 is one sentence naming the file.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.errors import (
    InvalidNameError,
    MemoryStoreError,
    NotAMemoryFileError,
    OutsidePathError,
)

MAX_SOURCE_BYTES = 2 * 1024 * 1024
"""The largest source file read: real instruction and note files are a few kilobytes."""
MAX_SOURCE_FILES = 2000
"""The most files one import reads; a folder with more is not a memory source."""
MAX_WALK_DEPTH = 12
"""How deep below the source folder files are looked for."""
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "dist", "build", "target"})


class SourceError(MemoryStoreError):
    """A source can't be imported (missing, too large, not UTF-8, not that format)."""


Progress = Callable[[str], None]


@dataclass(frozen=True)
class Reach:
    """Where one import may read. ``anchor`` is the folder its source is looked for in,
    trusted as it is: the project folder, or the path the person named on the command
    line. A source below it is reached through the path gate: a link on the way is
    followed only into ``roots`` (the anchor's real path, and the project's)."""

    anchor: str
    roots: tuple[str, ...]
    where: str  # the anchor in words, for refusals

    @classmethod
    def project(cls, root: str | os.PathLike[str]) -> Reach:
        """Sources the project holds, found without the person naming them."""
        real = os.path.realpath(root)
        return cls(real, (real,), f"the project folder {real}")

    @classmethod
    def named(
        cls, path: str | os.PathLike[str], project: str | os.PathLike[str] | None = None
    ) -> Reach:
        """A source at ``path``, which the person named (a file: its folder)."""
        given = Path(path).expanduser().absolute()
        folder = given if given.is_dir() or not given.exists() else given.parent
        roots: tuple[str, ...] = (os.path.realpath(folder),)
        if project is not None:
            roots += (os.path.realpath(project),)
        return cls(str(folder), roots, f"{folder}, the folder you named")

    def refusal(self, path: str | os.PathLike[str]) -> str | None:
        """Why ``path`` (the anchor or below it) is out of reach, or None when it is not:
        a link on the way leads outside the roots, or it lies elsewhere altogether."""
        absolute = os.path.abspath(path)
        rel = os.path.relpath(absolute, self.anchor)
        hint = "; give the path it leads to on the command line to import from there"
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            if paths.is_inside(os.path.realpath(absolute), self.roots):
                return None
            return f"{absolute} lies outside {self.where}{hint}"
        parts = () if rel == os.curdir else tuple(rel.split(os.sep))
        scope = paths.Scope(self.anchor, parts, self.roots, self.where, "")
        try:
            paths.resolve(scope, (), str(absolute))
        except (OutsidePathError, NotAMemoryFileError) as exc:
            return str(exc) + hint
        return None


class SourceFolder:
    """The real folder files of one import are read from, and what has been read."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        progress: Progress | None = None,
        reach: Reach | None = None,
    ) -> None:
        given = Path(root).expanduser()
        if not given.is_dir():
            raise SourceError(f"{given} is not a folder; give the folder the source lives in")
        refused = (reach or Reach.named(given)).refusal(given)
        if refused is not None:
            raise SourceError(f"the source folder is out of reach: {refused}")
        self.given = given.absolute()
        self.real = os.path.realpath(given)
        self.files_read = 0
        self.progress = progress

    def inside(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` (followed through every link) lies inside the source folder."""
        return paths.is_inside(os.path.realpath(path), (self.real,))

    def rel(self, path: Path) -> str:
        """The path relative to the source folder, with forward slashes."""
        try:
            return path.absolute().relative_to(self.given).as_posix()
        except ValueError:
            return Path(os.path.relpath(os.path.realpath(path), self.real)).as_posix()

    def read(self, path: Path) -> str:
        """The text of a source file; refused outside the folder, over the size limit, not
        a regular file, or not UTF-8 (each one sentence naming the file)."""
        shown = self.rel(path)
        real = os.path.realpath(path)
        if not paths.is_inside(real, (self.real,)):
            raise SourceError(
                f"{shown} leads outside the source folder {self.real}, so it is not read; "
                "copy the file into the folder to import it"
            )
        self.files_read += 1
        if self.files_read > MAX_SOURCE_FILES:
            raise SourceError(
                f"the source folder {self.real} holds more than {MAX_SOURCE_FILES} files to "
                "import; import a smaller folder"
            )
        if self.progress is not None:
            self.progress(shown)
        try:
            data = paths.read_regular_file(real, (self.real,), shown, MAX_SOURCE_BYTES)
        except FileNotFoundError:
            raise SourceError(f"{shown} does not exist in {self.real}") from None
        except IsADirectoryError:
            raise SourceError(f"{shown} is a folder, not a file") from None
        except MemoryStoreError as exc:
            raise SourceError(
                str(exc).replace("into smaller memories", "into smaller files")
            ) from None
        return decode_source(shown, data)

    def walk(self, suffixes: tuple[str, ...], start: Path | None = None) -> Iterator[Path]:
        """Files below ``start`` (default: the folder) whose names end in ``suffixes``,
        sorted, skipping hidden and build folders and links that lead out of the folder."""
        base = start or self.given
        for folder, dirs, files in os.walk(base, followlinks=False):
            depth = len(Path(folder).relative_to(base).parts)
            dirs[:] = sorted(
                d
                for d in dirs
                if not d.startswith(".")
                and d not in SKIPPED_FOLDERS
                and depth < MAX_WALK_DEPTH
                and self.inside(os.path.join(folder, d))
            )
            for name in sorted(files):
                if name.lower().endswith(suffixes) and not name.startswith("."):
                    yield Path(folder, name)


def decode_source(shown: str, data: bytes) -> str:
    """UTF-8 text (a byte-order mark dropped); anything else is one sentence."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{shown} is not valid UTF-8 (byte {exc.start}: {exc.reason}); re-save it as "
            "UTF-8 and import again"
        ) from None


_NOT_NAME = re.compile(r"[^a-z0-9_\-]+")


def slug(text: str, fallback: str = "note") -> str:
    """A name segment a person recognises and a ``mem:`` reference can spell: lower case
    letters, digits, ``_`` and ``-`` (accents dropped, other runs become ``_``)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    out = _NOT_NAME.sub("_", plain.lower()).strip("_-")
    return out[:80].strip("_-") or fallback


def path_name(rel: str) -> str:
    """A memory name for a relative file path: each segment slugged, the suffix dropped."""
    parts = rel.split("/")
    last = parts[-1]
    for suffix in (".mdc", ".md", ".markdown", ".txt"):
        if last.lower().endswith(suffix):
            last = last[: -len(suffix)]
            break
    return "/".join([*(slug(p, "folder") for p in parts[:-1]), slug(last)])


def topic_name(topic: str) -> str:
    """The topic an import writes under, through the name gate."""
    try:
        name = N.normalize_name(topic)
    except InvalidNameError as exc:
        raise SourceError(f"the topic {topic!r} can't be used: {exc}") from None
    if N.is_global(name):
        raise SourceError("an import writes project memories; choose a topic outside global/")
    return name
