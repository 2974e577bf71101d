"""Settings are declared once: the files are checked against the declaration, its messages
say what a value must be in one sentence, and the settings reference is written from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO_ROOT, write_config
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core import settings_schema as schema
from serena_memory.core.config import load_settings, load_sync_config
from serena_memory.core.errors import ConfigError


def _file(project: Path, home: Path, key: str) -> Path:
    if schema.files_of(key) == schema.PROJECT:
        return project / ".serena" / "project.yml"
    return home / "serena_config.yml"


def _load(project: Path, home: Path) -> tuple[Any, Any]:
    return load_settings(project, home), load_sync_config(home)


# (a line of a file, the message after "FILE: key 'KEY': "), as they read before the
# declaration took over the checking
MESSAGES = {
    "memory_agent_writes: reviews": "expected direct, propose or read-only, got 'reviews'",
    "memory_listing_budget: 100": "expected a whole number of tokens, at least 500, got 100",
    "memory_listing_budget: true": "expected a whole number of tokens, at least 500, got True",
    "memory_history_keep_days: -1": "expected a whole number of days (0 keeps everything), got -1",
    "default_max_tool_answer_chars: 0": "expected a positive whole number, got 0",
    "memory_history: 'yes'": "expected true or false, got a string",
    "memory_history_dir: '  '": "expected the path of a folder, got a string",
    "memory_sync: sometimes": "expected manual or auto, got 'sometimes'",
    "memory_sync_remote: 3": "expected the URL of a git repository, got a number",
    "memory_sync_project_remotes: {/a: 3}": "expected the URL of a git repository, got a number",
    "memory_sync_project_remotes: [a]": "expected a mapping of project folders to URLs, got a list",
    "memory_sync_team_topic: a/b": "expected one topic name, got 'a/b'",
    "base_modes: x": "expected a list of strings, got a single string (write it as ['x'])",
    "ignored_memory_patterns: [a, 2]": "item 2 must be a string, got a number",
    "initial_prompt: [a]": "expected a string, got a list",
    "project_name: {a: 1}": "expected a string, got a dict",
}  # fmt: skip


@pytest.mark.parametrize(("line", "message"), MESSAGES.items())
def test_a_wrong_value_is_one_sentence_saying_what_it_must_be(
    project: Path, serena_home: Path, line: str, message: str
) -> None:
    key = line.split(":")[0]
    path = _file(project, serena_home, key)
    write_config(path, line + "\n")
    with pytest.raises(ConfigError) as caught:
        _load(project, serena_home)
    assert str(caught.value) == f"{path}: key '{key}': {message}"


@pytest.mark.parametrize(
    "key", sorted(schema.keys_in(schema.GLOBAL) | schema.keys_in(schema.PROJECT))
)
def test_a_key_with_no_value_is_as_if_it_were_not_written(
    project: Path, serena_home: Path, key: str
) -> None:
    defaults = _load(project, serena_home)
    write_config(_file(project, serena_home, key), f"{key}:\n")
    assert _load(project, serena_home) == defaults


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("initial_prompt", "0"),  # a falsy value of the wrong kind used to pass unseen
        ("project_name", "false"),
        ("memory_sync_project_remotes", "[]"),
        ("memory_sync_team_topic", "/"),  # used to name the folder global//
    ],
)
def test_a_value_of_the_wrong_kind_is_refused_even_when_it_looks_empty(
    project: Path, serena_home: Path, key: str, value: str
) -> None:
    write_config(_file(project, serena_home, key), f"{key}: {value}\n")
    with pytest.raises(ConfigError, match=f"key '{key}': expected"):
        _load(project, serena_home)


def test_the_defaults_are_the_declared_ones(project: Path, serena_home: Path) -> None:
    settings_, sync = _load(project, serena_home)
    declared = schema.DEFAULTS
    assert settings_.listing_budget == declared.memory_listing_budget == 2000
    assert settings_.global_config.default_max_tool_answer_chars == 150_000
    assert settings_.agent_writes == declared.memory_agent_writes == "direct"
    assert settings_.history_enabled is declared.memory_history is True
    assert (sync.mode, sync.team_topic, sync.team_writable) == ("manual", "team", False)


# values a person might write, of every YAML kind
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet="ab/ -~.:@", max_size=8),
)
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.dictionaries(st.text(alphabet="ab/", min_size=1, max_size=3), _SCALARS, max_size=2),
)
_READ = {
    "memory_listing_budget": lambda s, _y: s.listing_budget,
    "memory_history_keep_days": lambda s, _y: s.history_keep_days,
    "memory_agent_writes": lambda s, _y: s.agent_writes,
    "base_modes": lambda s, _y: list(s.global_config.base_modes),
    "default_max_tool_answer_chars": lambda s, _y: s.global_config.default_max_tool_answer_chars,
    "memory_sync": lambda _s, y: y.mode,
    "memory_sync_team_writable": lambda _s, y: y.team_writable,
    "initial_prompt": lambda s, _y: s.project_config.initial_prompt,
}


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(sorted(_READ)), value=_VALUES)
def test_any_value_is_read_as_written_or_refused_naming_the_key(
    tmp_path_factory: pytest.TempPathFactory, key: str, value: Any
) -> None:
    root = tmp_path_factory.mktemp("case")
    project, home = root / "project", root / "home"
    path = _file(project, home, key)
    write_config(path, yaml.safe_dump({key: value}))
    try:
        loaded = _load(project, home)
    except ConfigError as exc:
        assert str(exc).startswith(f"{path}: key '{key}': ")
        assert "\n" not in str(exc)
        return
    assert value is None or _READ[key](*loaded) == value


def test_the_settings_reference_is_written_from_the_declaration() -> None:
    from test_docs import _generator  # the generator script, loaded as the docs tests do

    generator = _generator()
    page = generator.settings_reference()
    assert generator.stale({generator.SETTINGS_DOC: page}) == [], (
        "run: python scripts/gen_reference.py"
    )
    for entry in schema.entries():
        row = next(line for line in page.splitlines() if line.startswith(f"| `{entry.key}` |"))
        assert entry.default in row and entry.expects in row
    global_only = page.split("## The global file only")[1].split("## The project file only")[0]
    assert "| `memory_sync_remote` |" in global_only
    assert "| `initial_prompt` |" not in global_only


def test_an_unknown_key_points_to_the_reference(
    project: Path, serena_home: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    write_config(serena_home / "serena_config.yml", "zzzz_qqqq: 1\n")
    _load(project, serena_home)  # said, and nothing stops
    err = capfd.readouterr().err
    assert "'zzzz_qqqq' has no effect here" in err and "see docs/reference/settings.md" in err
    assert (REPO_ROOT / "docs" / "reference" / "settings.md").is_file()
