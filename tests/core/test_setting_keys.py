"""No setting is ignored in silence: a near-miss of one of ours, or one of ours in the wrong
file, is refused naming the file, the key and the closest known key; any other unknown key
is told on stderr; the keys Serena's own tools keep in the same files still work."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_cli, write_config
from hypothesis import given
from hypothesis import strategies as st

from serena_memory.agent.modes import ModeError, load_mode
from serena_memory.core.config import load_settings
from serena_memory.core.errors import ConfigError
from serena_memory.core.setting_keys import GLOBAL_KEYS, PROJECT_KEYS, SERENA_GLOBAL_KEYS
from serena_memory.core.store import Context
from serena_memory.wiring import build_store


def test_a_misspelled_review_setting_is_refused_not_ignored(
    project: Path, serena_home: Path
) -> None:
    cfg = serena_home / "serena_config.yml"
    write_config(cfg, "memory_agent_write: propose\n")
    with pytest.raises(ConfigError) as caught:
        build_store(project, home=serena_home, context=Context.AGENT).write("core", "# Core\n")
    message = str(caught.value)
    assert str(cfg) in message and "'memory_agent_write'" in message
    assert "did you mean 'memory_agent_writes'?" in message
    assert not (project / ".serena" / "memories" / "core.md").exists()


def test_the_command_line_says_it_in_one_line(project: Path, serena_home: Path) -> None:
    write_config(project / ".serena" / "project.yml", "ignored_memory_pattern: ['x']\n")
    result = run_cli("memories", "list", str(project))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "did you mean 'ignored_memory_patterns'?" in lines[0]


def test_a_global_only_key_in_a_project_file_is_told_to_move(
    project: Path, serena_home: Path
) -> None:
    write_config(project / ".serena" / "project.yml", "memory_sync_remote: me@host:m.git\n")
    with pytest.raises(ConfigError, match="read from serena_config.yml .* only.*move it there"):
        load_settings(project, serena_home)
    write_config(project / ".serena" / "project.yml", "")
    write_config(serena_home / "serena_config.yml", "initial_prompt: hi\n")
    with pytest.raises(ConfigError, match="project.yml only"):
        load_settings(project, serena_home)


def test_the_keys_serena_keeps_in_the_same_files_still_work(
    project: Path, serena_home: Path
) -> None:
    write_config(
        serena_home / "serena_config.yml",
        "web_dashboard: true\nlanguage_backend: LSP\nread_only_memory_patterns: ['global/.*']\n"
        "projects: []\nexcluded_tools: []\n",
    )
    write_config(
        project / ".serena" / "project.yml",
        "languages: [python]\nignore_all_files_in_gitignore: true\nread_only: false\n"
        "project_name: demo\n",
    )
    settings = load_settings(project, serena_home)
    assert settings.project_config.project_name == "demo"
    assert settings.patterns.read_only


def test_a_mode_file_with_an_unknown_key_is_refused(serena_home: Path) -> None:
    write_config(serena_home / "modes" / "terse.yml", "description: d\nprompts: be brief\n")
    with pytest.raises(ModeError, match="'prompts' is not a setting; did you mean 'prompt'"):
        load_mode("terse", serena_home)


def test_every_setting_is_documented() -> None:
    docs = "".join(p.read_text(encoding="utf-8") for p in (REPO_ROOT / "docs").glob("*.md"))
    assert [k for k in sorted(GLOBAL_KEYS | PROJECT_KEYS) if k not in docs] == []


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=30))
def test_any_key_is_known_refused_by_name_or_told(tmp_path_factory, key: str) -> None:
    """Every key is either read (or Serena's, taken without a word), refused naming it (a
    near-miss of ours, ours in the wrong file, a value of the wrong type), or told on
    stderr as having no effect: never ignored in silence, never a traceback."""
    import contextlib
    import io

    home = tmp_path_factory.mktemp("home")
    (home / "serena_config.yml").write_text(f"'{key}': 1\n", encoding="utf-8")
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            load_settings(None, home)
    except ConfigError as exc:
        assert f"'{key}'" in str(exc)
        return
    if key in GLOBAL_KEYS | SERENA_GLOBAL_KEYS:
        assert err.getvalue() == ""
    else:
        assert f"key '{key}' has no effect here" in err.getvalue()
