"""Read-only views of the project's files, so onboarding works in clients without file tools.

Every path is confined to the project root (symlinks included), ``.gitignore`` files are
honoured the way git reads them (nested files, negation) through ``pathspec``, and every
answer has a size limit, so one careless call can't flood the agent's context. Nothing here
writes.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.patterns import OutsidePattern

MAX_SEARCH_FILE_BYTES = 2 * 1024 * 1024
MAX_SEARCH_FILES = 20_000
MAX_READ_FILE_BYTES = 20 * 1024 * 1024
MAX_MATCHES_PER_FILE = 200
BINARY_SNIFF_BYTES = 8192
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})


class ExplorationError(MemoryStoreError):
    """A path outside the project, a missing file, an answer over its limit..."""


class AnswerTooLongError(ExplorationError):
    pass


def check_answer_size(text: str, limit: int, hint: str) -> str:
    """Return ``text`` if it fits ``limit`` characters, else raise saying how to narrow it."""
    if len(text) > limit:
        raise AnswerTooLongError(
            f"the answer has {len(text)} characters, more than the limit of {limit}; {hint}"
        )
    return text


MAX_GLOB_CHARS = 2000
"""The longest glob argument (all its space-separated globs together)."""
MAX_GLOB_PATTERNS = 1000
"""The most patterns a glob argument may stand for once its braces are expanded: each
``{a,b}`` doubles them, so twenty would otherwise be a million."""
GLOB_BACKEND = "re2"
"""pathspec's matching engine for every glob and ``.gitignore`` line: RE2 matches in time
linear in the path, where backtracking makes ``*a*a*a*a*a*a*a*a*b`` take minutes."""

_INNER_BRACES = re.compile(r"\{([^{}]*)\}")


def _expand_braces(pattern: str, origin: str, room: int) -> list[str]:
    """``*.{ts,tsx}`` -> ``*.ts``, ``*.tsx`` (innermost braces first), refused as soon as it
    would stand for more than ``room`` patterns."""
    done: list[str] = []
    todo = [pattern]
    while todo:
        current = todo.pop()
        match = _INNER_BRACES.search(current)
        if match is None:
            done.append(current)
            continue
        head, tail = current[: match.start()], current[match.end() :]
        options = match.group(1).split(",")
        if len(done) + len(todo) + len(options) > room:
            raise ExplorationError(
                f"{origin} stands for more than {MAX_GLOB_PATTERNS} patterns once its braces "
                "are expanded (each {{a,b}} multiplies them); use fewer alternatives or a wildcard"
            )
        todo.extend(head + option + tail for option in reversed(options))
    return done


def compile_globs(globs: str, origin: str = "the glob"):
    """A pathspec for one or more globs (separated by spaces, commas outside braces are
    kept), or None for an empty string. ``origin`` names the argument in errors."""
    globs = (globs or "").strip()
    if not globs:
        return None
    if len(globs) > MAX_GLOB_CHARS:
        raise ExplorationError(
            f"{origin} has {len(globs)} characters, more than the limit of {MAX_GLOB_CHARS}; "
            "give fewer or shorter globs"
        )
    from pathspec import GitIgnoreSpec

    patterns: list[str] = []
    for part in globs.split():
        patterns.extend(_expand_braces(part, origin, MAX_GLOB_PATTERNS - len(patterns)))
    return GitIgnoreSpec.from_lines(patterns, backend=GLOB_BACKEND)


@dataclass
class _IgnoreLevel:
    base: str  # folder of the .gitignore, relative to the root ('' for the root)
    spec: object


class ProjectFiles:
    """The project's file tree as the agent may see it."""

    def __init__(self, root: str | Path, extra_skipped_dirs: frozenset[str] = frozenset()):
        self.root = Path(os.path.realpath(root))
        self.extra_skipped_dirs = extra_skipped_dirs
        self._specs: dict[str, object | None] = {}

    # -- confinement -----------------------------------------------------------------------
    def resolve(self, relative_path: str) -> tuple[Path, str]:
        """(absolute real path, posix path relative to the root) or ExplorationError.

        Absolute paths are accepted when they point inside the project, since agents often
        pass them; anything that leaves the root, directly or through a symlink, is refused.
        """
        if not isinstance(relative_path, str):
            raise ExplorationError("the path must be text")
        if "\x00" in relative_path:
            raise ExplorationError("the path contains a NUL character")
        raw = relative_path.strip() or "."
        joined = os.path.normpath(os.path.join(self.root, raw.replace("\\", "/")))
        real = os.path.realpath(joined)
        if not _inside(real, str(self.root)):
            raise ExplorationError(
                f"'{relative_path}' is outside the project folder {self.root}; "
                "give a path relative to the project root"
            )
        rel = os.path.relpath(real, self.root)
        return Path(real), "" if rel == "." else Path(rel).as_posix()

    # -- reading ---------------------------------------------------------------------------
    def read_regular(self, path: Path, what: str, limit: int) -> bytes:
        """The bytes of ``path`` if it is a regular file of the project of at most ``limit``
        bytes; a fifo, socket or device is never opened for reading (it could block the
        caller for ever), a larger file is never read whole. Raises ExplorationError, or
        FileNotFoundError / IsADirectoryError for the caller to word."""
        from serena_memory.core.errors import MemoryTooLargeError, NotAMemoryFileError
        from serena_memory.core.paths import file_kind, read_regular_file

        real = os.path.realpath(path)
        try:
            return read_regular_file(real, (str(self.root),), what, limit)
        except NotAMemoryFileError:
            try:
                kind = file_kind(os.stat(real).st_mode)
            except OSError:
                kind = "not a regular file"
            raise ExplorationError(
                f"{what} is {kind}, not a regular file; only regular files are read"
            ) from None
        except MemoryTooLargeError:
            raise ExplorationError(
                f"{what} is larger than {limit:,} bytes, too large to read through this tool"
            ) from None

    def read_small(self, path: Path) -> bytes | None:
        """A project file such as a ``.gitignore`` (at most ``MAX_SEARCH_FILE_BYTES``), or
        None when it is missing, not a regular file, too large or unreadable."""
        try:
            return self.read_regular(path, str(path), MAX_SEARCH_FILE_BYTES)
        except (OSError, MemoryStoreError):
            return None

    # -- .gitignore ------------------------------------------------------------------------
    def _spec_for(self, folder_rel: str):
        if folder_rel in self._specs:
            return self._specs[folder_rel]
        lines: list[str] = []
        folder = self.root / folder_rel if folder_rel else self.root
        data = self.read_small(folder / ".gitignore")
        if data is not None:
            lines = data.decode("utf-8", errors="replace").splitlines()
        if not folder_rel:
            data = self.read_small(self.root / ".git" / "info" / "exclude")
            if data is not None:
                lines = data.decode("utf-8", errors="replace").splitlines() + lines
        spec = None
        if any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            from pathspec import GitIgnoreSpec

            try:
                spec = GitIgnoreSpec.from_lines(lines, backend=GLOB_BACKEND)
            except ValueError:  # a line git itself ignores, such as a lone "!"
                spec = GitIgnoreSpec.from_lines(_valid_patterns(lines), backend=GLOB_BACKEND)
        self._specs[folder_rel] = spec
        return spec

    def is_ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether git would ignore ``rel`` itself (its parents are checked by the walk, and
        by :meth:`is_ignored_path` for single paths)."""
        name = rel.rsplit("/", 1)[-1]
        if is_dir and (name in ALWAYS_SKIPPED_DIRS or name in self.extra_skipped_dirs):
            return True
        parts = rel.split("/")
        decision: bool | None = None
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            spec = self._spec_for(base)
            if spec is None:
                continue
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            include = spec.check_file(sub).include
            if include is not None:
                decision = include
        return bool(decision)

    def is_ignored_path(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` or any folder above it is ignored."""
        if not rel:
            return False
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if self.is_ignored("/".join(parts[:i]), True):
                return True
        return self.is_ignored(rel, is_dir)

    # -- walking ---------------------------------------------------------------------------
    def entries(
        self, rel_dir: str, *, recursive: bool, skip_ignored: bool = True
    ) -> Iterator[tuple[str, bool]]:
        """(posix path relative to the root, is_dir) below ``rel_dir``, sorted per folder.

        Symlinked folders are not followed (no cycles, no escapes); symlinked files are
        listed only when they point inside the project.
        """
        stack = [rel_dir]
        while stack:
            current = stack.pop()
            subdirs: list[str] = []
            for entry in self._folder_entries(current):
                rel = f"{current}/{entry.name}" if current else entry.name
                is_dir = self._listed_kind(entry)
                if is_dir is None or not self._shown(rel, entry.name, is_dir, skip_ignored):
                    continue
                yield rel, is_dir
                if is_dir:
                    subdirs.append(rel)
            if recursive:
                stack.extend(reversed(subdirs))

    def _folder_entries(self, current: str) -> list[os.DirEntry[str]]:
        """The entries of a folder of the project, sorted by name; none if it can't be read."""
        folder = self.root / current if current else self.root
        try:
            with os.scandir(folder) as it:
                return sorted(it, key=lambda e: e.name)
        except OSError:
            return []

    def _listed_kind(self, entry: os.DirEntry[str]) -> bool | None:
        """Whether an entry is listed as a folder (True) or a file (False); None when it is
        not listed: gone, a link that escapes the project, or a linked folder."""
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            return None
        if not is_link:
            return is_dir
        target = os.path.realpath(entry.path)
        if not _inside(target, str(self.root)) or os.path.isdir(target):
            return None
        return False

    def _shown(self, rel: str, name: str, is_dir: bool, skip_ignored: bool) -> bool:
        """Whether a listed entry is shown: never a version control folder, and nothing git
        ignores when ignored files are skipped."""
        if is_dir and name in ALWAYS_SKIPPED_DIRS:
            return False
        return not (skip_ignored and self.is_ignored(rel, is_dir))

    def walk(self, rel_dir: str = "", *, skip_ignored: bool = True) -> Iterator[str]:
        """Every file below ``rel_dir`` (recursively)."""
        for rel, is_dir in self.entries(rel_dir, recursive=True, skip_ignored=skip_ignored):
            if not is_dir:
                yield rel


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives on Windows
        return False


def _is_binary(head: bytes) -> bool:
    return b"\x00" in head


# -- the four operations ----------------------------------------------------------------------
def list_dir(
    root: str | Path, relative_path: str, recursive: bool, skip_ignored_files: bool = True
) -> dict[str, list[str]]:
    """{"dirs": [...], "files": [...]} below ``relative_path``, paths relative to the root."""
    files = ProjectFiles(root)
    path, rel = files.resolve(relative_path)
    if not path.exists():
        raise ExplorationError(f"'{relative_path}' does not exist in the project")
    if not path.is_dir():
        raise ExplorationError(f"'{relative_path}' is a file, not a folder; use read_file")
    dirs: list[str] = []
    found: list[str] = []
    for entry, is_dir in files.entries(rel, recursive=recursive, skip_ignored=skip_ignored_files):
        (dirs if is_dir else found).append(entry)
    return {"dirs": dirs, "files": found}


def find_file(
    root: str | Path, file_mask: str, relative_path: str = ".", skip_ignored_files: bool = True
) -> dict[str, list[str]]:
    """Files whose name matches ``file_mask`` (``*`` and ``?`` wildcards) below a folder."""
    if not isinstance(file_mask, str) or not file_mask.strip():
        raise ExplorationError("file_mask is empty; give a name or a mask such as '*.py'")
    files = ProjectFiles(root)
    path, rel = files.resolve(relative_path)
    if not path.is_dir():
        raise ExplorationError(f"'{relative_path}' is not a folder of the project")
    mask = file_mask.strip()
    if len(mask) > MAX_GLOB_CHARS:
        raise ExplorationError(
            f"file_mask has {len(mask)} characters, more than the limit of {MAX_GLOB_CHARS}; "
            "give a shorter mask"
        )
    matches = [
        f
        for f in files.walk(rel, skip_ignored=skip_ignored_files)
        if fnmatch.fnmatchcase(f.rsplit("/", 1)[-1], mask)
    ]
    return {"files": matches}


def search_for_pattern(
    root: str | Path,
    substring_pattern: str,
    *,
    context_lines_before: int = 0,
    context_lines_after: int = 0,
    paths_include_glob: str = "",
    paths_exclude_glob: str = "",
    relative_path: str = "",
    skip_ignored_files: bool = True,
    multiline: bool = True,
    code_files_only: bool = False,
) -> dict[str, list[str]]:
    """Regex search over text files; per file, the matching lines (``N:text``) with context
    lines (``N-text``) and ``--`` between separate groups."""
    if not isinstance(substring_pattern, str) or substring_pattern == "":
        raise ExplorationError("substring_pattern is empty; give a regular expression")
    pattern = OutsidePattern(substring_pattern, "substring_pattern", multiline=multiline)
    before = max(0, int(context_lines_before))
    after = max(0, int(context_lines_after))
    wanted = _PathFilter.of(paths_include_glob, paths_exclude_glob, code_files_only)
    files = ProjectFiles(root)
    results: dict[str, list[str]] = {}
    candidates = _search_candidates(files, relative_path, skip_ignored_files)
    for count, candidate in enumerate(candidates):
        if count >= MAX_SEARCH_FILES:
            raise ExplorationError(
                f"more than {MAX_SEARCH_FILES} files to search; narrow relative_path or "
                "paths_include_glob"
            )
        if not wanted.keeps(candidate):
            continue
        text = _read_text_for_search(files, files.root / candidate)
        lines = [] if text is None else _match_lines(text, pattern, before, after)
        if lines:
            results[candidate] = lines
    return results


@dataclass(frozen=True)
class _PathFilter:
    """Which files a search looks into: the include and exclude globs, and the code
    files' extensions when only code is searched."""

    include: Any  # a pathspec, or None for every file
    exclude: Any  # a pathspec, or None for no file
    extensions: Container[str] | None

    @classmethod
    def of(cls, include: str, exclude: str, code_files_only: bool) -> _PathFilter:
        extensions: Container[str] | None = None
        if code_files_only:
            from serena_memory.agent.project_facts import LANGUAGES

            extensions = LANGUAGES
        return cls(
            compile_globs(include, "paths_include_glob"),
            compile_globs(exclude, "paths_exclude_glob"),
            extensions,
        )

    def keeps(self, rel: str) -> bool:
        if self.include is not None and not self.include.match_file(rel):
            return False
        if self.exclude is not None and self.exclude.match_file(rel):
            return False
        return self.extensions is None or os.path.splitext(rel)[1].lower() in self.extensions


def _search_candidates(
    files: ProjectFiles, relative_path: str, skip_ignored: bool
) -> Iterable[str]:
    """The files a search goes through: the one file named, or every file below the
    folder named (walked lazily); ExplorationError for anything else."""
    path, rel = files.resolve(relative_path)
    if path.is_file():
        return [rel]
    if path.is_dir():
        return files.walk(rel, skip_ignored=skip_ignored)
    if path.exists():
        from serena_memory.core.paths import file_kind

        raise ExplorationError(
            f"'{relative_path}' is {file_kind(path.stat().st_mode)}, not a regular file; "
            "only regular files are searched"
        )
    raise ExplorationError(f"'{relative_path}' does not exist in the project")


def _read_text_for_search(files: ProjectFiles, path: Path) -> str | None:
    """The text of a regular file to search; None for anything else (skipped)."""
    data = files.read_small(path)
    if data is None:
        return None
    if _is_binary(data[:BINARY_SNIFF_BYTES]):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _match_lines(text: str, pattern: OutsidePattern, before: int, after: int) -> list[str]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    lines = text.split("\n")
    hit: set[int] = set()
    import bisect

    for matches, match in enumerate(pattern.finditer(text), start=1):
        first = bisect.bisect_right(starts, match.start()) - 1
        last_pos = match.end() - 1 if match.end() > match.start() else match.start()
        last = bisect.bisect_right(starts, last_pos) - 1
        hit.update(range(first, last + 1))
        if matches >= MAX_MATCHES_PER_FILE:
            break
    if not hit:
        return []
    shown: set[int] = set()
    for index in hit:
        shown.update(range(max(0, index - before), min(len(lines), index + after + 1)))
    out: list[str] = []
    previous = None
    for index in sorted(shown):
        if previous is not None and index != previous + 1:
            out.append("--")
        mark = ":" if index in hit else "-"
        out.append(f"{index + 1}{mark}{lines[index].rstrip(chr(13))}")
        previous = index
    return out


def read_file(root: str | Path, relative_path: str, start_line: int = 0, end_line=None) -> str:
    """Lines ``start_line``..``end_line`` (0-based, inclusive; negative start counts from the
    end) of a UTF-8 text file of the project."""
    text = _read_text(ProjectFiles(root), relative_path)
    if start_line == 0 and end_line is None:
        return text
    return _line_range(text, start_line, end_line, relative_path)


def _read_text(files: ProjectFiles, relative_path: str) -> str:
    """The whole text of a UTF-8 text file of the project; ExplorationError otherwise."""
    path, _rel = files.resolve(relative_path)
    if path.is_dir():
        raise ExplorationError(f"'{relative_path}' is a folder; use list_dir")
    try:
        data = files.read_regular(path, f"'{relative_path}'", MAX_READ_FILE_BYTES)
    except FileNotFoundError:
        raise ExplorationError(f"'{relative_path}' does not exist in the project") from None
    except OSError as exc:
        raise ExplorationError(f"'{relative_path}' can't be read: {exc.strerror}") from None
    if _is_binary(data[:BINARY_SNIFF_BYTES]):
        raise ExplorationError(f"'{relative_path}' is a binary file, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExplorationError(
            f"'{relative_path}' is not UTF-8 text (byte {exc.start}: {exc.reason})"
        ) from None


def _line_range(text: str, start_line: int, end_line: Any, relative_path: str) -> str:
    """Lines ``start_line``..``end_line`` of ``text`` as :func:`read_file` counts them."""
    lines = text.splitlines(keepends=True)
    start = int(start_line)
    if start < 0:
        start = max(0, len(lines) + start)
    stop = len(lines) if end_line is None else int(end_line) + 1
    if end_line is not None and int(end_line) < 0:
        stop = len(lines) + int(end_line) + 1
    if start >= len(lines) and lines:
        raise ExplorationError(
            f"start_line {start_line} is past the end of '{relative_path}' ({len(lines)} lines)"
        )
    if stop <= start and lines:
        raise ExplorationError(f"end_line {end_line} is before start_line {start_line}")
    return "".join(lines[start:stop])


def _valid_patterns(lines: list[str]) -> list[str]:
    """The lines of a .gitignore that are patterns; git skips the others, so do we."""
    from pathspec import GitIgnoreSpec

    valid = []
    for line in lines:
        try:
            GitIgnoreSpec.from_lines([line], backend=GLOB_BACKEND)
        except ValueError:
            continue
        valid.append(line)
    return valid
