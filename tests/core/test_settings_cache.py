"""A configuration file unchanged since the last command is neither parsed nor checked
again: its answers come from the cache under SERENA_HOME, exactly as the libraries gave
them, and any change to the file, or a damaged cache, is read and checked afresh."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import write_config
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core import settings_cache
from serena_memory.core import settings_schema as schema
from serena_memory.core.config import load_settings
from serena_memory.core.errors import ConfigError

GLOBAL_TEXT = "# mine\nmemory_listing_budget: 900\nignored_memory_patterns: ['scratch/.*']\n"
PROJECT_TEXT = "memory_agent_writes: propose\nproject_name: shop\nread_only_memory_patterns: [a]\n"

# what a fresh process loads and which of the two libraries it imported for it
PROBE = """
import json, sys
from pathlib import Path
from serena_memory.core.config import load_settings
s = load_settings(Path(sys.argv[1]), Path(sys.argv[2]))
print(json.dumps({
    "budget": s.listing_budget, "writes": s.agent_writes, "name": s.project_config.project_name,
    "ignored": [p for p, _ in s.patterns.ignored],
    "read_only": [p for p, _ in s.patterns.read_only],
    "imported": sorted(m for m in ("yaml", "msgspec") if m in sys.modules),
}))
"""


def _probe(project: Path, home: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(project), str(home)],
        capture_output=True,
        text=True,
        env={**os.environ, "SERENA_HOME": str(home)},
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


@pytest.fixture
def configured(project: Path, serena_home: Path) -> tuple[Path, Path]:
    write_config(serena_home / "serena_config.yml", GLOBAL_TEXT)
    write_config(project / ".serena" / "project.yml", PROJECT_TEXT)
    return project, serena_home


def test_an_unchanged_file_costs_neither_yaml_nor_msgspec(configured: tuple[Path, Path]) -> None:
    project, home = configured
    first = _probe(project, home)
    assert first["imported"] == ["msgspec", "yaml"]
    again = _probe(project, home)
    assert again["imported"] == []
    assert {**again, "imported": None} == {**first, "imported": None}
    assert first["budget"] == 900 and first["writes"] == "propose" and first["name"] == "shop"


def test_a_changed_file_is_read_and_checked_again(configured: tuple[Path, Path]) -> None:
    project, home = configured
    _probe(project, home)
    write_config(project / ".serena" / "project.yml", PROJECT_TEXT.replace("shop", "store"))
    assert _probe(project, home)["name"] == "store"
    write_config(project / ".serena" / "project.yml", "memory_agent_writes: reviews\n")
    with pytest.raises(ConfigError, match="expected direct, propose or read-only"):
        load_settings(project, home)
    with pytest.raises(ConfigError, match="expected direct, propose or read-only"):
        load_settings(project, home)  # a wrong value is never kept as good


@pytest.mark.parametrize(
    "damage",
    [b"not json", b"[1, 2]", b'{"parsed": 3, "good": []}', b"{" * 100_000, b"x" * 300_000],
)
def test_a_damaged_cache_is_a_miss(configured: tuple[Path, Path], damage: bytes) -> None:
    project, home = configured
    first = _probe(project, home)
    settings_cache.cache_path(home).write_bytes(damage)
    again = _probe(project, home)
    assert again == first  # parsed and checked afresh, with the same answer
    assert _probe(project, home)["imported"] == []  # and kept again


def test_a_cache_that_is_a_link_is_never_followed(
    configured: tuple[Path, Path], tmp_path: Path
) -> None:
    project, home = configured
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"parsed": {}, "good": {}}), encoding="utf-8")
    cache = settings_cache.cache_path(home)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.symlink_to(elsewhere)
    assert _probe(project, home)["budget"] == 900
    assert json.loads(elsewhere.read_text(encoding="utf-8")) == {"parsed": {}, "good": {}}


def test_only_what_json_gives_back_exactly_is_kept() -> None:
    assert settings_cache.canonical({"a": [1, "x", True, None, 1.5]}) is not None
    assert settings_cache.canonical({1: "a"}) is None  # a number as a key
    assert settings_cache.canonical({"a": float("nan")}) is None
    assert settings_cache.canonical({"a": (1, 2)}) is None


_NAMES = st.lists(st.text(max_size=8), max_size=3)
_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "read_only_memory_patterns": _NAMES,
        "base_modes": _NAMES,
        "memory_listing_budget": st.integers(500, 10**6),
        "memory_history": st.booleans(),
        "memory_agent_writes": st.sampled_from(["direct", "propose", "read-only"]),
        "memory_sync": st.sampled_from(["manual", "auto"]),
        "memory_sync_project_remotes": st.dictionaries(
            st.text(min_size=1, max_size=5), st.none() | st.just("https://example.org/r.git")
        ),
        "project_name": st.text(max_size=10),
    },
)


@settings(max_examples=60, deadline=None)
@given(values=_VALUES)
def test_a_kept_answer_is_what_msgspec_gave(values: dict[str, Any]) -> None:
    """What the cache hands back for values that passed is what the check itself gives."""
    checked = msgspec.convert(values, schema._declared())
    kept = schema._as_declared(values)
    for setting in schema.SETTINGS:
        if setting.checked_by is None:
            assert getattr(kept, setting.key) == getattr(checked, setting.key), setting.key
            assert type(getattr(kept, setting.key)) is type(getattr(checked, setting.key))
