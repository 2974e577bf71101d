"""`serena setup CLIENT` against real configuration files in a temporary home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

SERENA = [sys.executable, "-m", "serena_memory.cli"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def setup(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "CODEX_HOME")}
    env["HOME"] = str(home)
    return subprocess.run(
        [*SERENA, "setup", *args], capture_output=True, text=True, env=env, timeout=60
    )


def assert_starts_this_install(entry: dict) -> None:
    """The entry's command really starts this install's server."""
    assert Path(entry["command"]).is_absolute()
    assert entry["args"][: len(entry["args"])].count("start-mcp-server") == 1
    done = subprocess.run(
        [entry["command"], *entry["args"], "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "--transport" in done.stdout


JSON_FILES = {
    "claude-code": (".claude.json", "mcpServers"),
    "claude-desktop": (".config/Claude/claude_desktop_config.json", "mcpServers"),
    "cursor": (".cursor/mcp.json", "mcpServers"),
    "vscode": (".config/Code/User/mcp.json", "servers"),
}


@pytest.mark.parametrize("client", sorted(JSON_FILES))
def test_json_client_keeps_other_servers_and_settings_and_a_backup(home: Path, client: str) -> None:
    relative, key = JSON_FILES[client]
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    before = {"theme": "dark", key: {"other": {"command": "other-server", "args": ["x"]}}}
    path.write_text(json.dumps(before), encoding="utf-8")
    done = setup(home, client)
    assert done.returncode == 0, done.stderr
    assert str(path) in done.stdout and "Added" in done.stdout
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after["theme"] == "dark"
    assert after[key]["other"] == before[key]["other"]
    entry = after[key]["serena-memory"]
    assert_starts_this_install(entry)
    if client == "vscode":
        assert entry["type"] == "stdio"
    backup = path.with_name(path.name + ".bak")
    assert json.loads(backup.read_text(encoding="utf-8")) == before
    again = setup(home, client)
    assert again.returncode == 0 and "Updated" in again.stdout
    assert len(json.loads(path.read_text(encoding="utf-8"))[key]) == 2


def test_missing_file_is_created_without_backup(home: Path) -> None:
    done = setup(home, "cursor")
    assert done.returncode == 0, done.stderr
    path = home / ".cursor" / "mcp.json"
    assert list(json.loads(path.read_text(encoding="utf-8"))["mcpServers"]) == ["serena-memory"]
    assert not path.with_name("mcp.json.bak").exists()


def test_codex_toml_keeps_comments_and_other_servers(home: Path) -> None:
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    original = '# my settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "other"  # keep me\n'
    path.write_text(original, encoding="utf-8")
    done = setup(home, "codex", "--project", str(home))
    assert done.returncode == 0, done.stderr
    text = path.read_text(encoding="utf-8")
    assert text.startswith(original)  # every byte the person wrote stays
    data = tomllib.loads(text)
    assert data["mcp_servers"]["other"] == {"command": "other"}
    entry = data["mcp_servers"]["serena-memory"]
    assert entry["args"][-2:] == ["--project", str(home.resolve())]
    assert_starts_this_install(entry)
    assert path.with_name("config.toml.bak").read_text(encoding="utf-8") == original


@pytest.mark.parametrize(
    ("client", "relative", "content"),
    [
        ("cursor", ".cursor/mcp.json", '{"mcpServers": {"a": 1},'),
        ("cursor", ".cursor/mcp.json", "[1, 2]"),
        ("claude-code", ".claude.json", '{"mcpServers": ["not", "an", "object"]}'),
        ("codex", ".codex/config.toml", "[mcp_servers\nbroken"),
        ("codex", ".codex/config.toml", 'mcp_servers = "text"\n'),
    ],
)
def test_invalid_file_is_refused_untouched(
    home: Path, client: str, relative: str, content: str
) -> None:
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    done = setup(home, client)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1
    assert "untouched" in done.stderr
    assert path.read_text(encoding="utf-8") == content
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_project_entry_goes_into_the_projects_own_file(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = setup(home, "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    entry = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"][
        "serena-memory"
    ]
    assert entry["args"][-2:] == ["--project", str(project.resolve())]
    assert not (home / ".claude.json").exists()


def test_print_writes_nothing(home: Path) -> None:
    done = setup(home, "codex", "--print")
    assert done.returncode == 0, done.stderr
    body = "\n".join(line for line in done.stdout.splitlines() if not line.startswith("# "))
    assert "serena-memory" in tomllib.loads(body)["mcp_servers"]
    assert not any(home.rglob("*"))


def test_unknown_client_is_a_usage_error(home: Path) -> None:
    done = setup(home, "emacs")
    assert done.returncode == 2
    assert "claude-code" in done.stderr
