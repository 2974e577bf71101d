"""Configuration files: defaults, precise errors for broken files, merged patterns."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.core.config import DEFAULT_MAX_CHARS, load_settings
from serena_memory.core.errors import ConfigError, ReadOnlyMemoryError
from serena_memory.core.store import Context
from serena_memory.wiring import build_store


def _global_cfg(home: Path) -> Path:
    return home / "serena_config.yml"


def _project_cfg(project: Path) -> Path:
    return project / ".serena" / "project.yml"


def test_missing_files_mean_defaults(project: Path, serena_home: Path) -> None:
    settings = load_settings(project, serena_home)
    assert settings.patterns.read_only == ()
    assert settings.patterns.ignored == ()
    assert settings.global_config.base_modes == ()
    assert settings.global_config.default_max_tool_answer_chars == DEFAULT_MAX_CHARS
    assert settings.project_config.initial_prompt == ""
    s = build_store(project, home=serena_home, context=Context.AGENT)
    s.write("global/x", "anything")  # nothing read-only by default
    assert s.list().read_only_memories == []


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_empty_files_mean_defaults(project: Path, serena_home: Path, text: str) -> None:
    write_config(_global_cfg(serena_home), text)
    write_config(_project_cfg(project), text)
    settings = load_settings(project, serena_home)
    assert settings.patterns.read_only == () and settings.patterns.ignored == ()


def test_known_keys_are_read(project: Path, serena_home: Path) -> None:
    write_config(
        _global_cfg(serena_home),
        "base_modes: [no-onboarding]\ndefault_max_tool_answer_chars: 1234\n",
    )
    write_config(_project_cfg(project), "initial_prompt: Be terse.\nproject_name: demo\n")
    settings = load_settings(project, serena_home)
    assert settings.global_config.base_modes == ("no-onboarding",)
    assert settings.global_config.default_max_tool_answer_chars == 1234
    assert settings.project_config.initial_prompt == "Be terse."
    assert settings.project_config.project_name == "demo"


# (file text, key named in the message or None, words of the problem)
BROKEN = [
    ("read_only_memory_patterns: [unclosed\n", None, "invalid YAML"),
    ("a: b: c\n", None, "invalid YAML"),
    ("\tread_only_memory_patterns: []\n", None, "invalid YAML"),
    ("- just\n- a list\n", None, "top level must be a mapping"),
    ("just a string\n", None, "top level must be a mapping"),
    ("read_only_memory_patterns: 'global/.*'\n", "read_only_memory_patterns", "single string"),
    ("ignored_memory_patterns: {a: 1}\n", "ignored_memory_patterns", "expected a list"),
    ("ignored_memory_patterns: 3\n", "ignored_memory_patterns", "expected a list"),
    ("read_only_memory_patterns: [ok, 3]\n", "read_only_memory_patterns", "item 2"),
    ("ignored_memory_patterns: [[nested]]\n", "ignored_memory_patterns", "must be a string"),
    ("read_only_memory_patterns: ['(unclosed']\n", "read_only_memory_patterns", "invalid regex"),
    ("ignored_memory_patterns: ['*star']\n", "ignored_memory_patterns", "invalid regex"),
]
GLOBAL_ONLY = [
    ("base_modes: no-memories\n", "base_modes", "single string"),
    ("default_max_tool_answer_chars: lots\n", "default_max_tool_answer_chars", "whole number"),
    ("default_max_tool_answer_chars: -5\n", "default_max_tool_answer_chars", "positive"),
]
PROJECT_ONLY = [
    ("initial_prompt: [a, b]\n", "initial_prompt", "expected a string"),
]


def _assert_names_everything(exc: ConfigError, path: Path, key: str | None, problem: str) -> None:
    message = str(exc)
    assert str(path) in message
    if key:
        assert f"'{key}'" in message
    assert problem in message
    assert "\n" not in message.strip()


@pytest.mark.parametrize(("text", "key", "problem"), BROKEN + GLOBAL_ONLY)
def test_broken_global_config_is_an_error_naming_file_key_problem(
    project: Path, serena_home: Path, text: str, key: str | None, problem: str
) -> None:
    path = _global_cfg(serena_home)
    write_config(path, text)
    with pytest.raises(ConfigError) as info:
        load_settings(project, serena_home)
    _assert_names_everything(info.value, path, key, problem)


@pytest.mark.parametrize(("text", "key", "problem"), BROKEN + PROJECT_ONLY)
def test_broken_project_config_is_an_error_naming_file_key_problem(
    project: Path, serena_home: Path, text: str, key: str | None, problem: str
) -> None:
    path = _project_cfg(project)
    write_config(path, text)
    with pytest.raises(ConfigError) as info:
        load_settings(project, serena_home)
    _assert_names_everything(info.value, path, key, problem)


def test_yaml_error_gives_the_line(project: Path, serena_home: Path) -> None:
    path = _project_cfg(project)
    write_config(path, "project_name: demo\nread_only_memory_patterns: [a\nother: 1\n")
    with pytest.raises(ConfigError, match=r"line \d+"):
        load_settings(project, serena_home)


def test_non_utf8_config_is_an_error(project: Path, serena_home: Path) -> None:
    path = _project_cfg(project)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"initial_prompt: caf\xe9\n")
    with pytest.raises(ConfigError) as info:
        load_settings(project, serena_home)
    assert str(path) in str(info.value) and "UTF-8" in str(info.value)


def test_broken_config_stops_every_operation_instead_of_defaulting(
    project: Path, serena_home: Path
) -> None:
    """A silently dropped read-only pattern would let the agent overwrite protected notes."""
    s = build_store(project, home=serena_home, context=Context.AGENT)
    s.write("frozen/a", "original")
    write_config(_project_cfg(project), "read_only_memory_patterns: 'frozen/.*'\n")
    for call in (
        lambda: s.list(),
        lambda: s.read("frozen/a"),
        lambda: s.write("frozen/a", "changed"),
        lambda: s.edit("frozen/a", "original", "changed"),
        lambda: s.delete("frozen/a"),
        lambda: s.rename("frozen/a", "b"),
    ):
        with pytest.raises(ConfigError):
            call()
    assert (s.layout.memories_dir / "frozen" / "a.md").read_text() == "original"


def test_fixing_the_file_takes_effect_at_once(project: Path, serena_home: Path) -> None:
    s = build_store(project, home=serena_home, context=Context.AGENT)
    s.write("frozen/a", "x")
    path = _project_cfg(project)
    write_config(path, "read_only_memory_patterns: [broken\n")
    with pytest.raises(ConfigError):
        s.list()
    write_config(path, "read_only_memory_patterns: ['frozen/.*']\n")
    assert s.list().read_only_memories == ["frozen/a"]
    with pytest.raises(ReadOnlyMemoryError):
        s.write("frozen/a", "y")


def test_patterns_merge_additively(project: Path, serena_home: Path) -> None:
    write_config(
        _global_cfg(serena_home),
        "read_only_memory_patterns: ['global/.*']\nignored_memory_patterns: ['tmp_.*']\n",
    )
    write_config(
        _project_cfg(project),
        "read_only_memory_patterns: ['frozen/.*']\nignored_memory_patterns: ['drafts/.*']\n",
    )
    human = build_store(project, home=serena_home, context=Context.HUMAN)
    for name in ("global/style", "frozen/decisions", "core"):
        human.write(name, name)
    for raw in ("tmp_scratch.md", "drafts/x.md"):
        path = human.layout.memories_dir / raw
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("ignored")
    listing = human.list()
    assert listing.memories == ["core"]
    assert listing.read_only_memories == ["frozen/decisions", "global/style"]
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    for name in ("global/style", "frozen/decisions"):
        with pytest.raises(ReadOnlyMemoryError):
            agent.write(name, "changed")


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("global/.*", "global/style", True),
        ("global/.*", "global/team/rules", True),
        ("auth", "auth", True),
        ("auth", "auth/login", False),  # full match, not a prefix
        ("auth", "oauth", False),  # full match, not a search
        ("log", "login", False),
        ("auth/.*", "auth/login", True),
        ("auth/.*", "auth", False),
        (".*_old", "notes_old", True),
        (".*_old", "notes_old/x", False),
        ("core|style", "style", True),
        ("core|style", "core_style", False),
    ],
)
def test_patterns_match_the_whole_name(
    project: Path, serena_home: Path, pattern: str, name: str, matches: bool
) -> None:
    write_config(_project_cfg(project), f"read_only_memory_patterns: [{pattern!r}]\n")
    s = build_store(project, home=serena_home, context=Context.AGENT)
    assert s.access().is_read_only(name) is matches
    if matches:
        with pytest.raises(ReadOnlyMemoryError):
            s.write(name, "x")
    else:
        s.write(name, "x")
        assert s.read(name) == "x"
