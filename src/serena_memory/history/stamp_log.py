"""The stamps of one history, changed a few at a time: an append-only log next to the
stamps file.

A write from a short-lived process (the command line) commits the memories it touched
without reading or rewriting the stamps of every other file: it appends one line saying
"the branch went from tree A to tree B, and these files now have these stamps". A process
that compares the whole folder loads the stamps file and replays the lines that continue
its tree, one after the other; a line that does not continue it is skipped, so a stale or
damaged log only makes that process read more files, never miss a change.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from serena_memory.core.files import open_regular

LOG_FILE = "serena-memory-stamps.log"
LOG_MAX_BYTES = 4 * 1024 * 1024
"""A log longer than this is folded into the stamps file by the next write (a whole-folder
comparison), so replaying it stays cheap."""
CATCH_UP_FILE = "serena-memory-catch-up"
"""Present when a recording failed: the next write compares the whole folder again."""


def log_path(repo_path: Path) -> Path:
    return repo_path / LOG_FILE


def append(repo_path: Path, before: str | None, after: str, files: dict[str, Any]) -> None:
    """One transition of the branch's tree, with the stamps of the files it changed (None:
    the file is gone). Called under the folder's lock, so lines never interleave."""
    line = json.dumps({"from": before, "to": after, "files": files}, separators=(",", ":"))
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    fd = open_regular(log_path(repo_path), flags)
    if fd is None:  # a FIFO, link or folder in its place: ours to replace, never to wait on
        remove(repo_path)
        fd = open_regular(log_path(repo_path), flags | os.O_EXCL)
    if fd is None:
        raise FileExistsError(f"{log_path(repo_path)} is not a regular file")
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def read(repo_path: Path, offset: int) -> tuple[list[dict[str, Any]], int]:
    """The well-formed lines from byte ``offset`` on, and the offset after the last whole
    line (a line being written is read next time)."""
    try:
        fd = open_regular(log_path(repo_path), os.O_RDONLY)
        if fd is None:  # a FIFO or link: nothing to replay (and no wait)
            return [], offset
        with os.fdopen(fd, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return [], offset
    end = data.rfind(b"\n") + 1
    lines: list[dict[str, Any]] = []
    for raw in data[:end].splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if (
            isinstance(item, dict)
            and isinstance(item.get("to"), str)
            and isinstance(item.get("files"), dict)
            and (item.get("from") is None or isinstance(item.get("from"), str))
        ):
            lines.append(item)
    return lines, offset + end


def replay(
    stamps: dict[str, list[Any]], synced: str | None, lines: list[dict[str, Any]]
) -> str | None:
    """Apply the lines that continue ``synced`` to ``stamps``; returns the tree reached."""
    for item in lines:
        if synced is None or item["from"] != synced:
            continue
        for rel, value in item["files"].items():
            if value is None:
                stamps.pop(rel, None)
            elif isinstance(value, list) and len(value) == 5:
                stamps[rel] = value
        synced = item["to"]
    return synced


def size(repo_path: Path) -> int:
    try:
        return os.stat(log_path(repo_path)).st_size
    except OSError:
        return 0


def identity(repo_path: Path) -> tuple[int, int] | None:
    """(inode, size) of the log, or None when there is none."""
    try:
        st = os.stat(log_path(repo_path))
    except OSError:
        return None
    return (st.st_ino, st.st_size)


def remove(repo_path: Path) -> None:
    with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
        os.unlink(log_path(repo_path))
