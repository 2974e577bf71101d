"""Whether the symbols memories mention occur in the project's source files: every
identifier of the tracked and untracked (not ignored) source files, taken by one
``git grep`` (or from the kept scan of
:mod:`serena_memory.integrity.code_drift.identifier_cache`), or, without git, the regular
files below the project read through the path gate. Memories and prose documents are not
searched: prose that mentions a symbol is not its definition.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.paths import read_regular_file
from serena_memory.integrity.code_drift.git import GitJob, GitStalled, GitUnavailable, run_git
from serena_memory.integrity.code_drift.project import ProjectFiles

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.identifier_cache import IdentifierScan

DOC_EXTENSIONS = ("md", "mdx", "rst", "txt", "adoc")
"""Not searched for symbols: prose that mentions a symbol is not its definition."""
NO_GIT_MAX_SOURCE_BYTES = 1024 * 1024


def find_words(
    files: ProjectFiles, words: Iterable[str], identifiers: set[bytes] | None = None
) -> set[str]:
    """Which of ``words`` occur as whole words in the project's source files (memories and
    prose documents excluded): one ``git grep`` for all of them."""
    wanted = sorted(set(words))
    if not wanted:
        return set()
    if files.git:
        present = identifiers if identifiers is not None else source_identifiers(files)
        return {w for w in wanted if w.encode() in present}
    return _find_words_on_disk(files, wanted)


def start_identifier_scan(root: str) -> GitJob:
    """The ``git grep`` of :func:`source_identifiers`, started: every identifier of the
    source files, once, whatever the number of symbols asked (a fixed-string search for
    thousands of words at once is slow)."""
    excludes = [f":(exclude,glob)**/*.{ext}" for ext in DOC_EXTENSIONS]
    return GitJob(
        root,
        "grep",
        "-I",
        "-h",
        "-o",
        "-E",
        "--untracked",
        "--no-color",
        "--no-textconv",
        "-e",
        "[A-Za-z_][A-Za-z0-9_]*",
        "--",
        ".",
        ":(exclude).serena",
        *excludes,
    )


def source_identifiers(
    files: ProjectFiles, started: GitJob | IdentifierScan | None = None
) -> set[bytes]:
    """Every identifier in the tracked and untracked (not ignored) source files
    (``started``: :func:`start_identifier_scan` run in the project's root, or the kept
    scan of :mod:`serena_memory.integrity.code_drift.identifier_cache`); GitStalled when git
    ran out of time."""
    if files.git:
        try:
            out = (started or start_identifier_scan(files.root)).result()
            if isinstance(out, set):
                return out
        except GitStalled:
            raise  # the caller goes on without symbols and says so
        except GitUnavailable as exc:
            if not str(exc):  # status 1 with no message: nothing matched
                return set()
            raise MemoryStoreError(
                f"the project's source files could not be searched for symbols ({exc}); "
                "run the check again, or leave symbols out"
            ) from None
        return set(out.split(b"\n"))
    return set()


def _find_words_on_disk(files: ProjectFiles, wanted: Sequence[str]) -> set[str]:
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in wanted) + r")\b")
    found: set[str] = set()
    allowed = (files.root,)
    for rel in files.files:
        if rel.startswith(".serena/") or rel.rsplit(".", 1)[-1].lower() in DOC_EXTENSIONS:
            continue
        path = os.path.join(files.root, rel)
        try:
            if os.path.islink(path) or os.path.getsize(path) > NO_GIT_MAX_SOURCE_BYTES:
                continue
            data = read_regular_file(path, allowed, f"file {rel}", NO_GIT_MAX_SOURCE_BYTES)
        except (OSError, MemoryStoreError):
            continue
        if b"\0" in data[:8000]:
            continue
        found.update(pattern.findall(data.decode("utf-8", "replace")))
        if len(found) == len(wanted):
            break
    return found


def files_with_word(files: ProjectFiles, word: str) -> list[str]:
    """The source files (memories and prose documents excluded) that hold ``word`` as a
    whole word, by one ``git grep`` (none without git)."""
    if not files.git:
        return []
    excludes = [f":(exclude,glob)**/*.{ext}" for ext in DOC_EXTENSIONS]
    try:
        out = run_git(
            files.root,
            "grep",
            "-I",
            "-l",
            "-z",
            "-w",
            "-F",
            "--untracked",
            "--no-color",
            "--no-textconv",
            "-e",
            word,
            "--",
            ".",
            ":(exclude).serena",
            *excludes,
        )
    except GitUnavailable:
        return []  # nothing matched, or git could not tell
    return sorted(p for p in out.decode("utf-8", "replace").split("\0") if p)
