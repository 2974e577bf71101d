"""The error vocabulary: every failure a front-end reports is worded by one function."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from serena_memory.core.errors import (
    EXPECTED_ERRORS,
    MemoryNotFoundError,
    PatternError,
    describe,
)
from serena_memory.core.patterns import OutsidePattern
from serena_memory.core.store import MemoryStore


def raised(action) -> BaseException:
    with pytest.raises(BaseException) as info:
        action()
    return info.value


def test_library_errors_keep_their_own_sentence(store: MemoryStore) -> None:
    exc = raised(lambda: store.read("nope"))
    assert isinstance(exc, MemoryNotFoundError)
    assert describe(exc) == str(exc) == "memory 'nope' not found"


def test_a_file_system_error_names_its_file(tmp_path: Path) -> None:
    missing = tmp_path / "gone.txt"
    assert describe(raised(missing.read_text)) == (
        f"file system error: No such file or directory ({missing})"
    )
    target = tmp_path / "folder"
    target.mkdir()
    (target / "inside").write_text("x")
    source = tmp_path / "file"
    source.write_text("x")
    # a rename names the place it could not write to, not its source
    message = describe(raised(lambda: os.rename(source, target)))
    assert message.endswith(f"({target})")


def test_undecodable_input_and_deep_nesting_say_what_to_do() -> None:
    decoding = describe(raised(lambda: b"caf\xe9".decode("utf-8")))
    assert decoding.startswith("the input is not valid UTF-8 (unexpected end of data")
    assert "at byte 3" in decoding
    nested = raised(lambda: json.loads("[" * 100_000 + "]" * 100_000))
    assert isinstance(nested, RecursionError)
    assert describe(nested).startswith("the input is nested too deeply to process")


def test_a_pattern_nested_too_deeply_is_one_pattern_error() -> None:
    exc = raised(lambda: OutsidePattern("(" * 3000 + ")" * 3000, "the regex needle"))
    assert isinstance(exc, PatternError)
    assert describe(exc).startswith("the regex needle: '((((")
    assert "\n" not in describe(exc)


def test_every_expected_error_is_one_line_and_bugs_are_named_as_such() -> None:
    for kind in EXPECTED_ERRORS:
        assert "\n" not in describe(kind("x"))
    assert describe(KeyError("k")) == "unexpected KeyError: 'k'"


def test_a_remedy_is_worded_by_each_front_end() -> None:
    """The library names what to do as an operation; a person reads a command, an agent a
    tool."""
    from serena_memory.core.errors import HistoryError, Remedy, describe
    from serena_memory.mcp.errors import for_agent

    exc = HistoryError("pick an entry with ", remedy=Remedy("history", "auth/login"))
    assert describe(exc) == str(exc) == "pick an entry with `serena memories history auth/login`"
    assert for_agent(exc) == "pick an entry with the memory_history tool (memory_name 'auth/login')"
    other = HistoryError("see ", remedy=Remedy("conflicts"))
    assert for_agent(other) == "see the user's command `serena memories conflicts`"
