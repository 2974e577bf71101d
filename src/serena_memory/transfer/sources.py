"""Reading source files as untrusted input: inside the source folder, bounded, UTF-8.

A source folder is often someone else's (a cloned repository, a shared note folder), so a
file is read only when its real path lies inside the real source folder (a link out of it
is refused), only regular files are read, each is bounded in size, the number of files is
bounded, and text that is not UTF-8 is one sentence naming the file.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.errors import InvalidNameError, MemoryStoreError

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


class SourceFolder:
    """The real folder files of one import are read from, and what has been read."""

    def __init__(self, root: str | os.PathLike[str], progress: Progress | None = None) -> None:
        given = Path(root).expanduser()
        if not given.is_dir():
            raise SourceError(f"{given} is not a folder; give the folder the source lives in")
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
