"""What a configuration file said, remembered from one command to the next.

Parsing YAML and checking its values against the declaration
(:mod:`serena_memory.core.settings_schema`) take two libraries whose import is most of a
command's start-up when a configuration file exists (PyYAML, msgspec). What a file says
follows from its bytes alone, and whether the values are good follows from the values and
the declaration alone, so both answers are kept in ``$SERENA_HOME/cache/settings.json``
under digests of what they follow from: an unchanged file costs a hash and a small JSON
read, and any change (of the file, of the declaration, of this package's version) is a
miss that parses and checks again. Only answers that JSON keeps exactly are kept (a date
or a number used as a key is parsed every time), and a file or a value that failed is
never kept, so its message comes again.

The cache is the person's own, like the global configuration beside it, and is trusted no
further than its shape: anything unexpected in it (not JSON, too big, a link, wrong types)
is a miss, and a cache that cannot be written is no error.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from serena_memory.core.files import replace_cache_file
from serena_memory.core.process import PROCESS

CACHE_NAME = "settings.json"
MAX_CACHE_BYTES = 256 * 1024
MAX_ENTRIES = 32  # per kind: a person's global file and the projects they switch between
_FORMAT = 1


def cache_path(home: Path) -> Path:
    return home / "cache" / CACHE_NAME


@functools.cache
def _fingerprint() -> str:
    """What every kept answer depends on besides its input: the declaration of the
    settings, and the code that parses and checks them (by its files' stamps, which any
    upgrade or edit changes; asking the installed version would cost an import)."""
    from serena_memory.core import config, settings_schema

    stamps = []
    for module in (config, settings_schema):
        with contextlib.suppress(OSError, TypeError):
            st = os.stat(module.__file__ or "")
            stamps.append(f"{st.st_mtime_ns}:{st.st_size}")
    text = f"{_FORMAT}\0{stamps}\0{settings_schema.SETTINGS!r}"
    return hashlib.sha256(text.encode()).hexdigest()


def digest(kind: str, data: bytes) -> str:
    return hashlib.sha256(f"{_fingerprint()}\0{kind}\0".encode() + data).hexdigest()


def canonical(value: Any) -> bytes | None:
    """``value`` as JSON bytes when JSON gives it back exactly, else None."""
    if not _json_exact(value):
        return None
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False).encode()


def _json_exact(value: Any, depth: int = 0) -> bool:
    if depth > 32:
        return False
    if value is None or type(value) in (str, bool, int):
        return True
    if type(value) is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if type(value) is list:
        return all(_json_exact(item, depth + 1) for item in value)
    if type(value) is dict:
        return all(type(k) is str and _json_exact(v, depth + 1) for k, v in value.items())
    return False


def parsed(home: Path, raw: bytes) -> dict[str, Any] | None:
    """The mapping a file of these bytes was parsed into before, if it was kept."""
    found = _entries(home, "parsed").get(digest("parsed", raw))
    return found if isinstance(found, dict) else None


def remember_parsed(home: Path, raw: bytes, mapping: dict[str, Any]) -> None:
    if canonical(mapping) is not None:
        _remember(home, "parsed", digest("parsed", raw), mapping)


def known_good(home: Path, values: dict[str, Any]) -> bool:
    """Whether these values were checked against the declaration before and passed."""
    text = canonical(values)
    if text is None:
        return False
    kept = _kept()
    if (home, text) in kept.good:
        return True
    if _entries(home, "good").get(digest("good", text)) is True:
        kept.good.add((home, text))
        return True
    return False


def remember_good(home: Path, values: dict[str, Any]) -> None:
    text = canonical(values)
    if text is not None:
        _kept().good.add((home, text))
        _remember(home, "good", digest("good", text), True)


class _Kept:
    """What this process knows of each home's cache."""

    def __init__(self) -> None:
        self.good: set[tuple[Path, bytes]] = set()  # values known good, by home
        self.loaded: dict[Path, dict[str, Any]] = {}  # each home's cache, read once


def _kept() -> _Kept:
    return PROCESS.owned(_Kept)


def _entries(home: Path, kind: str) -> dict[str, Any]:
    loaded = _kept().loaded
    if home not in loaded:
        loaded[home] = _read_cache(home)
    return _entries_of(loaded[home], kind)


def _read_cache(home: Path) -> dict[str, Any]:
    """The cache file's contents; {} for anything but a small regular JSON file (a FIFO,
    a device or a link there is a miss at once, not a wait)."""
    from serena_memory.core.files import read_own_file

    text = read_own_file(cache_path(home), MAX_CACHE_BYTES)
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _remember(home: Path, kind: str, key: str, value: Any) -> None:
    """Keep one answer (the newest :data:`MAX_ENTRIES` of each kind); never fails."""
    data = dict(_read_cache(home))  # another command may have kept answers meanwhile
    entries = {k: v for k, v in _entries_of(data, kind).items() if k != key}
    entries[key] = value
    data = {k: data[k] for k in ("parsed", "good") if isinstance(data.get(k), dict)}
    data[kind] = dict(list(entries.items())[-MAX_ENTRIES:])
    _kept().loaded[home] = data
    text = json.dumps(data, ensure_ascii=False).encode()
    if len(text) <= MAX_CACHE_BYTES:
        replace_cache_file(cache_path(home), text, ".settings-")


def _entries_of(data: dict[str, Any], kind: str) -> dict[str, Any]:
    found = data.get(kind)
    return found if isinstance(found, dict) else {}
