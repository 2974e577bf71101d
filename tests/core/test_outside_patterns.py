"""Regular expressions from configuration and tool arguments run under a time limit."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from conftest import run_cli, write_config
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core.errors import EditError, PatternError, PatternTimeoutError
from serena_memory.core.patterns import OutsidePattern
from serena_memory.core.store import MemoryStore

SLOW = r"(a|aa)+$"  # exponential backtracking on a run of a's followed by another character


@pytest.mark.slow  # waits out the time limit of a regex
def test_slow_config_pattern_ends_list_with_one_clear_line(project: Path) -> None:
    write_config(project / ".serena" / "project.yml", f"read_only_memory_patterns: ['{SLOW}']\n")
    memories = project / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / ("a" * 34 + "!.md")).write_text("x", encoding="utf-8")
    started = time.monotonic()
    done = run_cli("memories", "list", str(project))
    assert time.monotonic() - started < 20
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    line = done.stderr.strip()
    assert line.startswith("Error: ") and "\n" not in line
    assert "project.yml" in line and "read_only_memory_patterns" in line
    assert "ran longer than" in line


@pytest.mark.slow  # waits out the time limit of a regex
def test_slow_edit_regex_is_refused_and_leaves_memory_and_lock_free(store: MemoryStore) -> None:
    store.write("core", "a" * 40 + "!")
    with pytest.raises(PatternTimeoutError, match="ran longer than"):
        store.edit("core", SLOW, "b", "regex")
    assert store.read("core") == "a" * 40 + "!"
    # the lock was released: another write goes through at once
    store.write("core", "after")
    assert store.read("core") == "after"


@pytest.mark.slow  # waits out the time limit of a regex
def test_slow_edit_over_cli_is_one_line(project: Path) -> None:
    memories = project / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "core.md").write_text("a" * 40 + "!", encoding="utf-8")
    done = run_cli(
        "memories", "edit", "core", str(project), "--mode", "regex", "--needle", SLOW,
        "--repl", "b",
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1
    assert (memories / "core.md").read_text(encoding="utf-8") == "a" * 40 + "!"


@pytest.mark.slow  # waits out the time limit of a regex
def test_matching_releases_the_interpreter_lock() -> None:
    """While a slow pattern runs in one thread, another thread keeps running."""
    pattern = OutsidePattern(SLOW, "test", time_limit=0.8)
    ticks = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        started = time.monotonic()
        with pytest.raises(PatternTimeoutError):
            pattern.search("a" * 40 + "!")
        ended = time.monotonic()
    finally:
        stop.set()
        ticker.join()
    # Holding the lock, the match would let the ticker tick at most once in its 0.8 s; a
    # loaded machine may pause the ticker now and then, but not for most of that time.
    during = [t for t in ticks if started < t < ended]
    # the pattern library keeps its own clock, which may end a hair before ours reads 0.8 s
    assert ended - started >= 0.7
    assert len(during) > 10, len(during)


def test_invalid_and_deeply_nested_patterns_are_clear_errors() -> None:
    with pytest.raises(PatternError, match="not a valid regular expression"):
        OutsidePattern("(unclosed", "test")
    with pytest.raises(PatternError):
        OutsidePattern("(" * 5000 + "a" + ")" * 5000, "test").search("a")
    with pytest.raises(EditError):
        from serena_memory.core.editing import apply_edit

        apply_edit("text", "(" * 5000, "x", "regex")


@pytest.mark.slow  # many generated patterns
@settings(max_examples=60, deadline=None)
@given(pattern=st.text(alphabet="ab()|+*?.$^[]{}\\0123,", max_size=20), text=st.text("ab!\n"))
def test_any_pattern_compiles_and_runs_or_is_a_clear_error(pattern: str, text: str) -> None:
    try:
        compiled = OutsidePattern(pattern, "test", time_limit=0.2)
        compiled.finditer(text)
        compiled.fullmatch(text)
    except PatternError as exc:
        assert str(exc).startswith("test: ")
