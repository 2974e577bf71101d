"""A setting written back into a person's serena_config.yml (a sync's remote, a project's
remote) keeps everything else they wrote there: comments, key order, quotes, indentation;
and the libraries that read, check and edit the files load only when they are needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli, write_config

from serena_memory.core.config import load_sync_config, set_global_key
from serena_memory.core.errors import ConfigError

# A file as a person keeps it: Serena's own keys beside ours, comments of every kind,
# indented sequences, quoted strings, a section separated by a blank line.
PERSONS_FILE = """\
# Serena and serena-memory, on my laptop
web_dashboard: true        # the dashboard opens in a browser
log_level: 20
projects:
  - /home/me/work/billing
  - /home/me/work/site

# -- memories ------------------------------------------------------------
read_only_memory_patterns: ['global/team/.*', "decisions/.*"]   # the team's rules
memory_history_keep_days: 90
memory_sync: manual

# the end: nothing below this line
"""


def test_a_new_key_keeps_every_line_the_person_wrote(serena_home: Path) -> None:
    config = serena_home / "serena_config.yml"
    write_config(config, PERSONS_FILE)
    set_global_key(serena_home, "memory_sync_remote", "me@host:memories.git")
    assert config.read_text() == PERSONS_FILE + "memory_sync_remote: me@host:memories.git\n"
    assert load_sync_config(serena_home).remote == "me@host:memories.git"


def test_a_changed_value_stays_on_its_line_with_its_comment(serena_home: Path) -> None:
    config = serena_home / "serena_config.yml"
    text = PERSONS_FILE.replace("memory_sync: manual\n", "memory_sync_remote: old.git  # mine\n")
    write_config(config, text)
    set_global_key(serena_home, "memory_sync_remote", "new.git")
    lines = config.read_text().splitlines()
    at = text.splitlines().index("memory_sync_remote: old.git  # mine")
    assert lines[at].startswith("memory_sync_remote: new.git ") and lines[at].endswith("# mine")
    assert [line for line in lines if "memory_sync_remote" not in line] == [
        line for line in text.splitlines() if "memory_sync_remote" not in line
    ]


def test_a_mapping_keeps_the_comments_of_its_entries(serena_home: Path) -> None:
    config = serena_home / "serena_config.yml"
    write_config(
        config,
        "memory_sync_project_remotes:\n"
        "    /work/a: a.git   # the first one\n"
        "    /work/gone: gone.git\n"
        "log_level: 20\n",
    )
    set_global_key(
        serena_home, "memory_sync_project_remotes", {"/work/a": "a.git", "/work/b": "b.git"}
    )
    assert config.read_text() == (
        "memory_sync_project_remotes:\n"
        "    /work/a: a.git   # the first one\n"
        "    /work/b: b.git\n"
        "log_level: 20\n"
    )


def test_a_file_in_flow_style_is_edited_in_its_style(serena_home: Path) -> None:
    config = serena_home / "serena_config.yml"
    write_config(config, "{memory_history: true, base_modes: [x]}\n")
    set_global_key(serena_home, "memory_sync_remote", "/r.git")
    assert config.read_text() == (
        "{memory_history: true, base_modes: [x], memory_sync_remote: /r.git}\n"
    )


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_a_file_without_settings_gets_the_key_below_what_it_has(
    serena_home: Path, text: str
) -> None:
    config = serena_home / "serena_config.yml"
    write_config(config, text)
    set_global_key(serena_home, "memory_sync_remote", "/r.git")
    assert config.read_text() == text + "memory_sync_remote: /r.git\n"


def test_a_key_written_twice_leaves_the_file_alone_with_one_sentence(serena_home: Path) -> None:
    config = serena_home / "serena_config.yml"
    original = "# mine\nlog_level: 10\nlog_level: 20\n"
    write_config(config, original)
    with pytest.raises(ConfigError) as caught:
        set_global_key(serena_home, "memory_sync_remote", "/r.git")
    assert "add `memory_sync_remote: /r.git` to it by hand" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert config.read_text() == original


def test_sync_remembers_its_remote_in_the_persons_file(
    tmp_path: Path, project: Path, serena_home: Path
) -> None:
    remote = tmp_path / "memories.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    config = serena_home / "serena_config.yml"
    write_config(config, PERSONS_FILE)
    result = run_cli("memories", "sync", "--remote", str(remote), cwd=project)
    assert result.returncode == 0, result.stderr
    assert config.read_text() == PERSONS_FILE + f"memory_sync_remote: {remote}\n"


def _modules_loaded_by_a_listing(project: Path) -> set[str]:
    """The modules `serena memories list` imports (python -X importtime), in a real process."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "serena_memory.cli", "memories", "list"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),  # SERENA_HOME: the test's own
    )
    assert done.returncode == 0, done.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}


def test_a_command_that_only_reads_the_settings_does_not_load_the_yaml_editor(
    project: Path, serena_home: Path
) -> None:
    """The editor costs the start of every command that would import it; only writes need it."""
    write_config(serena_home / "serena_config.yml", PERSONS_FILE)
    imported = _modules_loaded_by_a_listing(project)
    assert "yaml" in imported and "msgspec" in imported  # the file was read and checked
    assert not any(name.startswith("ruamel") for name in imported)


def test_a_command_that_finds_no_configuration_loads_neither_parser_nor_checker(
    project: Path, serena_home: Path
) -> None:
    imported = _modules_loaded_by_a_listing(project)
    assert not imported & {"yaml", "msgspec"}
    assert not any(name.startswith("ruamel") for name in imported)
