"""`serena setup` as a person runs it, through the real command line: twice, on a VS Code
file with comments, in a project a team commits, and for Codex with a project."""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.setup import jsonc

BIN = str(Path(sys.executable).parent)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def setup(home: Path, *args: str, path: str | None = None, serena_home: bool = True):
    env = {"XDG_CONFIG_HOME": None, "CODEX_HOME": None, "HOME": str(home)}
    env["PATH"] = path if path is not None else "/usr/bin:/bin"
    if not serena_home:
        env["SERENA_HOME"] = None
    return run_cli("setup", *args, env=env)


def test_setup_twice_keeps_the_first_backup_and_changes_nothing(home: Path) -> None:
    path = home / ".claude.json"
    original = '{"theme": "dark", "mcpServers": {"other": {"command": "x"}}}'
    path.write_text(original, encoding="utf-8")
    first = setup(home, "claude-code")
    assert first.returncode == 0, first.stderr
    written = path.read_bytes()
    again = setup(home, "claude-code")
    assert again.returncode == 0
    assert "already set up" in again.stdout and "nothing was changed" in again.stdout
    assert path.read_bytes() == written
    backup = path.with_name(".claude.json.bak")
    assert backup.read_text(encoding="utf-8") == original
    changed = setup(home, "claude-code", "--url", "http://127.0.0.1:9/mcp", "--no-auth")
    assert changed.returncode == 0 and "Updated" in changed.stdout
    assert backup.read_text(encoding="utf-8") == original  # still the very first file


VSCODE_WITH_COMMENTS = """{
  // servers this workspace uses
  "servers": {
    "docs": {"type": "http", "url": "https://example.com//mcp"}, // the docs server
    /* a block
       comment */
  },
  "inputs": [],
}
"""


def test_vscode_file_with_comments_is_read_and_its_comments_kept(
    home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "app"
    (project / ".vscode").mkdir(parents=True)
    path = project / ".vscode" / "mcp.json"
    path.write_text(VSCODE_WITH_COMMENTS, encoding="utf-8")
    done = setup(home, "vscode", "--project", str(project), path=BIN)
    assert done.returncode == 0, done.stderr
    text = path.read_text(encoding="utf-8")
    for kept in ("// servers this workspace uses", "// the docs server", "/* a block"):
        assert kept in text
    data = jsonc.loads(text)
    assert data["servers"]["docs"]["url"] == "https://example.com//mcp"
    entry = data["servers"]["serena-memory"]
    assert entry["command"] == "serena"
    assert entry["args"] == [
        "start-mcp-server",
        "--context",
        "coding",
        "--project",
        "${workspaceFolder}",
    ]
    assert path.with_name("mcp.json.bak").read_text(encoding="utf-8") == VSCODE_WITH_COMMENTS


def test_a_refused_file_suggests_a_command_that_works(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "app"
    (project / ".vscode").mkdir(parents=True)
    path = project / ".vscode" / "mcp.json"
    path.write_text('{"servers": {/* never closed }', encoding="utf-8")
    done = setup(home, "vscode", "--project", str(project), path=BIN)
    assert done.returncode == 1
    assert "not valid JSON with comments" in done.stderr
    suggested = re.search(r"`(serena setup [^`]+)`", done.stderr)
    assert suggested is not None, done.stderr
    words = shlex.split(suggested.group(1))
    printed = setup(home, *words[2:], path=BIN)
    assert printed.returncode == 0, printed.stderr
    assert '"serena-memory"' in printed.stdout
    assert path.read_text(encoding="utf-8") == '{"servers": {/* never closed }'


@pytest.mark.parametrize(
    ("client", "relative", "key"),
    [
        ("claude-code", ".mcp.json", "mcpServers"),
        ("cursor", ".cursor/mcp.json", "mcpServers"),
        ("vscode", ".vscode/mcp.json", "servers"),
    ],
)
def test_a_projects_shared_file_works_for_every_clone(
    home: Path, tmp_path: Path, client: str, relative: str, key: str
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    done = setup(home, client, "--project", str(project), path=BIN, serena_home=False)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr
    text = (project / relative).read_text(encoding="utf-8")
    assert str(tmp_path) not in text and sys.executable not in text
    entry = json.loads(text)[key]["serena-memory"]
    assert entry["command"] == "serena"
    if client == "claude-code":
        assert "approve" in done.stdout  # the one-time question of Claude Code, announced


def test_machine_specific_values_in_a_shared_file_are_warned_about(
    home: Path, tmp_path: Path, serena_home: Path
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    done = setup(home, "claude-code", "--project", str(project))  # no serena on this PATH
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("Warning: ")]
    assert len(warnings) == 2
    assert "`serena` is not on this machine's PATH" in warnings[0]
    assert f"SERENA_HOME={serena_home}" in warnings[1]
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["serena-memory"]
    assert entry["env"] == {"SERENA_HOME": str(serena_home)}


def test_serena_home_is_forwarded_to_a_user_entry(home: Path, serena_home: Path) -> None:
    done = setup(home, "cursor")
    assert done.returncode == 0, done.stderr
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert entry["serena-memory"]["env"] == {"SERENA_HOME": str(serena_home)}
    assert "Warning" not in done.stderr  # the person's own file: nothing shared


def test_codex_with_a_project_says_it_ties_every_session_to_it(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    done = setup(home, "codex", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert "Codex has no project file" in done.stderr
    assert "every Codex session" in done.stderr
    config = tomllib.loads((home / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert config["mcp_servers"]["serena-memory"]["args"][-1] == str(project.resolve())


# -- JSON with comments: reading and changing in place -----------------------------------------
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
_COMMENTS = st.sampled_from(["", " // a // comment\n", " /* b, } */ ", "\n/* c\n d */\n"])


def _with_comments(text: str, draw) -> tuple[str, list[str]]:
    """JSON text with a comment after some of its punctuation (outside strings)."""
    out, added, in_string, escaped = [], [], False, False
    for char in text:
        out.append(char)
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in ",:{[":
            comment = draw(_COMMENTS)
            out.append(comment)
            if comment:
                added.append(comment)
    return "".join(out), added


@settings(max_examples=150, deadline=None)
@given(document=st.dictionaries(st.text(max_size=5), _JSON, max_size=4), data=st.data())
def test_json_with_comments_reads_and_changes_in_place(document: dict, data) -> None:
    for indent in (None, 2):
        text, comments = _with_comments(json.dumps(document, indent=indent), data.draw)
        assert jsonc.loads(text) == document
        entry = {"command": "serena", "args": ["start-mcp-server"]}
        changed = jsonc.set_member(text, ("servers", "serena-memory"), entry)
        expected = json.loads(json.dumps(document))
        if isinstance(expected.get("servers"), dict):
            expected["servers"]["serena-memory"] = entry
            for comment in comments:
                assert comment.strip() in changed
            assert jsonc.loads(changed) == expected
        elif "servers" not in expected:
            expected["servers"] = {"serena-memory": entry}
            assert jsonc.loads(changed) == expected
            for comment in comments:
                assert comment.strip() in changed
