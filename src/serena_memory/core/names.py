"""Memory names: the single place where user-given names are normalized and validated.

Every entry point (CLI, MCP tools, dashboard) goes through :func:`normalize_name`, so a
name that is refused here is refused everywhere, and aliases such as ``mem:x``, ``x.md``
or ``./x`` can't slip past the read-only and ignored patterns.
"""

from __future__ import annotations

import os
import re

from serena_memory.core.errors import InvalidNameError

GLOBAL_TOPIC = "global"
MEM_PREFIX = "mem:"
MEMORY_SUFFIX = ".md"
# the conventions memory onboarding seeds from the shipped template, in either scope
MAINTENANCE = "memory_maintenance"

# Control characters (C0, DEL, C1) never make sense in a name; bidi controls and
# zero-width characters make one name look like another; lone surrogates (undecodable
# command-line bytes) would make a file name that is not UTF-8.
_FORBIDDEN_CHARS = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
# Characters Windows refuses in file names: a new memory that a teammate on another OS
# can't check out is worse than a refused name. A file that already has one (saved by a
# person on Linux or macOS) stays readable, editable and renamable.
_NON_PORTABLE_CHARS = re.compile(r'[<>:"|?*]')
_DRIVE = re.compile(r"^[A-Za-z]:")
# File systems cap a file or folder name at 255 bytes (the last segment also carries
# `.md`), and a name of hundreds of topics would outgrow a path or Python's recursion
# while its folders are made; refusing both here beats an OS error half-way through.
MAX_SEGMENT_BYTES = 255
MAX_NAME_CHARS = 1000


def normalize_name(raw: str) -> str:
    """Return the canonical form of a memory name, or raise InvalidNameError saying why."""
    if not isinstance(raw, str):
        raise InvalidNameError(f"memory name must be a string, got {type(raw).__name__}")
    name = _bare(raw)
    _check_whole(raw, name)
    segments = name.split("/")
    for segment in segments:
        _check_segment(raw, segment)
    for segment in segments[:-1] + [segments[-1] + MEMORY_SUFFIX]:
        if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
            raise InvalidNameError(
                f"memory name {_preview(raw)} has a part {_preview(segment)} longer than the "
                f"{MAX_SEGMENT_BYTES} bytes a file or folder name can have; shorten it"
            )
    if name == GLOBAL_TOPIC:
        raise InvalidNameError(
            "'global' alone is not a memory name: global memories are named 'global/NAME'"
        )
    return name


def _bare(raw: str) -> str:
    """The name without spaces around it, its ``mem:`` prefix and its ``.md`` suffixes,
    with ``/`` between topics."""
    name = raw.strip()
    if name.startswith(MEM_PREFIX):
        name = name[len(MEM_PREFIX) :]
    while name.endswith(MEMORY_SUFFIX):  # all of them: `x.md.md` must not list as `x.md`
        name = name[: -len(MEMORY_SUFFIX)]
    return name.replace("\\", "/")


def _check_whole(raw: str, name: str) -> None:
    """Refuse a bare name that is empty, too long, absolute, prefixed twice or holds a
    forbidden character."""
    if not name:
        raise InvalidNameError(f"memory name {raw!r} is empty")
    if len(name) > MAX_NAME_CHARS:
        raise InvalidNameError(
            f"memory name {_preview(raw)} has {len(name)} characters, more than the "
            f"{MAX_NAME_CHARS} allowed; choose a shorter name"
        )
    if name.startswith("/") or _DRIVE.match(name):
        raise InvalidNameError(f"memory name {raw!r} is an absolute path; use a relative name")
    if name.startswith(MEM_PREFIX):  # `mem:mem:x`: the listed name would read another file
        raise InvalidNameError(
            f"memory name {raw!r} starts with 'mem:' twice; 'mem:' is only the reference prefix"
        )
    bad = _FORBIDDEN_CHARS.search(name)
    if bad:
        raise InvalidNameError(
            f"memory name {raw!r} contains the character {bad.group()!r}, "
            "which is not allowed in memory names"
        )


def _check_segment(raw: str, segment: str) -> None:
    """Refuse a topic or file segment that is empty, leads out, is hidden or is padded."""
    if segment == "":
        raise InvalidNameError(f"memory name {raw!r} has an empty topic segment")
    if segment in (".", ".."):
        raise InvalidNameError(
            f"memory name {raw!r} contains a {segment!r} segment; "
            "names may not point outside their memories folder"
        )
    if segment.startswith("."):
        raise InvalidNameError(
            f"memory name {raw!r} has a segment starting with '.'; hidden files and "
            "folders are never listed as memories"
        )
    if segment != segment.strip():
        raise InvalidNameError(f"memory name {raw!r} has a segment with leading or trailing spaces")


def check_stored_name(name: object) -> str:
    """Validate a name recorded by the store itself (a folder listing's relative path
    without ``.md``, as kept in the rename journal), without normalizing it.

    Listed names may spell files :func:`normalize_name` would alias (``notes .md``,
    ``x.md.md``), so they are taken as they are; what must never pass is anything that
    leaves its memories folder or reaches a hidden file (the journal, temporary files):
    absolute paths, ``.``/``..``/hidden/empty segments, control characters, separators or
    drive letters of this system inside a segment. Returns the name unchanged.
    """
    if not isinstance(name, str) or not name:
        raise InvalidNameError(f"{name!r} is not a memory name")
    if len(name) > MAX_NAME_CHARS:
        raise InvalidNameError(f"memory name {_preview(name)} is longer than {MAX_NAME_CHARS}")
    bad = _FORBIDDEN_CHARS.search(name)
    if bad:
        raise InvalidNameError(f"memory name {name!r} contains the character {bad.group()!r}")
    segments = name.split("/")
    for segment in segments:
        if segment in ("", ".", "..") or segment.startswith("."):
            raise InvalidNameError(
                f"memory name {name!r} has an empty, hidden, '.' or '..' segment, so it could "
                "name a file outside its memories folder"
            )
        if any(sep in segment for sep in _SYSTEM_SEPARATORS):
            raise InvalidNameError(f"memory name {name!r} contains a path separator or drive")
    for segment in segments[:-1] + [segments[-1] + MEMORY_SUFFIX]:
        if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
            raise InvalidNameError(f"memory name {_preview(name)} has a part that is too long")
    if name == GLOBAL_TOPIC:
        raise InvalidNameError("'global' alone is not a memory name")
    return name


# Besides "/", the separators this system's paths know ("\\" on Windows), where a name
# segment holding one would address another folder.
_SYSTEM_SEPARATORS = tuple(sep for sep in {os.sep, os.altsep} if sep and sep != "/") + (
    () if os.sep == "/" else (":",)
)


def _preview(text: str, limit: int = 60) -> str:
    """A long name, cut for a message that must stay one readable line."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def check_portable(name: str) -> str:
    """Refuse a *new* name that some systems can't store; returns the name unchanged."""
    bad = _NON_PORTABLE_CHARS.search(name)
    if bad:
        raise InvalidNameError(
            f"memory name {name!r} contains the character {bad.group()!r}, which some "
            "systems (Windows) can't have in a file name; choose a name without it"
        )
    return name


def is_global(name: str) -> bool:
    """Whether a normalized name lives in the global (cross-project) scope."""
    return name.startswith(GLOBAL_TOPIC + "/")


def topic_of(name: str) -> str:
    """The topic path of a normalized name ('' for a top-level memory)."""
    return name.rpartition("/")[0]


def last_segment(name: str) -> str:
    return name.rpartition("/")[2]


def normalize_topic(raw: str) -> str:
    """Normalize a topic filter; '' means every memory. 'global' is a valid topic."""
    topic = (raw or "").strip().replace("\\", "/").strip("/")
    if topic.startswith(MEM_PREFIX):
        topic = topic[len(MEM_PREFIX) :]
    if not topic:
        return ""
    if topic == GLOBAL_TOPIC:
        return topic
    return normalize_name(topic)


def in_topic(name: str, topic: str) -> bool:
    return not topic or name == topic or name.startswith(topic + "/")
