"""`serena setup CLIENT` against real configuration files in a temporary home."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def setup(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(
        "setup", *args, env={"XDG_CONFIG_HOME": None, "CODEX_HOME": None, "HOME": str(home)}
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
    written = path.read_bytes()
    again = setup(home, client)
    assert again.returncode == 0 and "already set up" in again.stdout
    assert path.read_bytes() == written  # the entry was right: nothing changed
    assert json.loads(backup.read_text(encoding="utf-8")) == before  # the first original


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
    # written for every clone: `serena` from the PATH, the project found where Claude Code
    # starts the server (this machine's paths never go into a file teams commit)
    assert entry["command"] == "serena"
    assert entry["args"] == ["start-mcp-server", "--context", "coding", "--project-from-cwd"]
    assert str(project) not in (project / ".mcp.json").read_text(encoding="utf-8")
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


def assert_refused_untouched(done: subprocess.CompletedProcess[str], files: dict[Path, bytes]):
    """One sentence on stderr, no traceback, and every file byte for byte as it was."""
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1
    assert done.stderr.rstrip().endswith(")") or done.stderr.rstrip().endswith(".")
    for path, content in files.items():
        assert path.read_bytes() == content
        assert not path.with_name(path.name + ".bak").exists()


@pytest.mark.parametrize(("client", "folder"), [("cursor", ".cursor"), ("vscode", ".vscode")])
def test_a_symlinked_config_folder_in_the_project_is_refused(
    home: Path, tmp_path: Path, client: str, folder: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / folder).symlink_to(elsewhere, target_is_directory=True)
    done = setup(home, client, "--project", str(project))
    assert_refused_untouched(done, {})
    assert "outside the project" in done.stderr and str(elsewhere) in done.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_config_folder_inside_the_project_is_followed(
    home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "shared-config").mkdir(parents=True)
    (project / ".cursor").symlink_to(project / "shared-config", target_is_directory=True)
    done = setup(home, "cursor", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert (
        "serena-memory"
        in json.loads((project / "shared-config" / "mcp.json").read_text())["mcpServers"]
    )


def test_a_symlinked_config_file_in_the_project_is_refused(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".cursor").mkdir(parents=True)
    target = tmp_path / "victim.json"
    target.write_text('{"mcpServers": {}}', encoding="utf-8")
    (project / ".cursor" / "mcp.json").symlink_to(target)
    done = setup(home, "cursor", "--project", str(project))
    assert_refused_untouched(done, {target: b'{"mcpServers": {}}'})
    assert (project / ".cursor" / "mcp.json").is_symlink()


def test_a_symlinked_backup_name_is_replaced_not_followed(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text('{"mcpServers": {}}', encoding="utf-8")
    victim = tmp_path / "victim"
    victim.write_text("keep me\n", encoding="utf-8")
    (project / ".mcp.json.bak").symlink_to(victim)
    done = setup(home, "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    backup = project / ".mcp.json.bak"
    assert not backup.is_symlink() and backup.read_text() == '{"mcpServers": {}}'


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"tipsShown": 1e999, "mcpServers": {}}', "1e999"),
        ('{"limit": -1E400}', "-1E400"),
        ('{"ratio": NaN}', "NaN"),
        ('{"ratio": Infinity}', "Infinity"),
        ('{"x": 1.00000000000000000001}', "1.00000000000000000001"),
        ('{"theme": "dark", "theme": "light"}', '"theme" twice'),
        ('{"mcpServers": {"a": {"command": "x", "command": "y"}}}', '"command" twice'),
        ('{"list": [{"k": 1, "k": 1}]}', '"k" twice'),
    ],
)
def test_a_json_file_that_would_not_come_back_unchanged_is_refused(
    home: Path, content: str, said: str
) -> None:
    path = home / ".claude.json"
    path.write_text(content, encoding="utf-8")
    done = setup(home, "claude-code")
    assert_refused_untouched(done, {path: content.encode()})
    assert said in done.stderr and str(path) in done.stderr


def test_exact_numbers_and_escapes_are_written_back_as_valid_json(home: Path) -> None:
    path = home / ".claude.json"
    content = '{"n": 1e5, "big": 123456789012345678901234567890, "f": 0.1, "s": "\\ud800"}'
    path.write_text(content, encoding="utf-8")
    done = setup(home, "claude-code")
    assert done.returncode == 0, done.stderr
    after = json.loads(path.read_text(encoding="utf-8"))
    before = json.loads(content)
    assert {k: after[k] for k in before} == before
    assert "Infinity" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "content",
    [
        'model = "a"\nmodel = "b"\n',
        '[mcp_servers.other]\ncommand = "x"\n\n[mcp_servers.other]\ncommand = "y"\n',
        '[mcp_servers.other]\ncommand = "x"\ncommand = "y"\n',
        "tools = { a = 1, a = 2 }\n",
    ],
)
def test_a_toml_file_with_a_key_twice_is_refused(home: Path, content: str) -> None:
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(content, encoding="utf-8")
    done = setup(home, "codex")
    assert_refused_untouched(done, {path: content.encode()})
    assert "untouched" in done.stderr


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(
    document=st.dictionaries(st.text(), JSON_VALUES, max_size=6), indent=st.sampled_from([None, 2])
)
def test_any_valid_json_file_keeps_every_value(document: dict, indent: int | None) -> None:
    """Whatever a valid file holds, setup adds its entry and gives every value back."""
    import tempfile

    from serena_memory.setup.clients import Client, ServerCommand, setup_client

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mcp.json"
        path.write_text(json.dumps(document, indent=indent), encoding="utf-8")
        client = Client(
            "cursor", "Cursor", user_file=lambda: path, project_file=None, servers_key="mcpServers"
        )
        server = ServerCommand("serena", ("start-mcp-server",))
        try:
            setup_client(client, server, None)
        except Exception as exc:  # only a document whose servers key is not an object
            assert not isinstance(document.get("mcpServers", {}), dict), exc
            assert path.read_text(encoding="utf-8") == json.dumps(document, indent=indent)
            return
        after = json.loads(path.read_text(encoding="utf-8"))
        servers = after.pop("mcpServers")
        assert servers.pop("serena-memory") == {"command": "serena", "args": ["start-mcp-server"]}
        if "mcpServers" in document:
            assert servers == document["mcpServers"]
        assert after == {k: v for k, v in document.items() if k != "mcpServers"}


URL = "http://127.0.0.1:8000/mcp"


def stored_token(serena_home: Path) -> str:
    return (serena_home / "mcp-token").read_text(encoding="utf-8").strip()


@pytest.mark.parametrize("client", ["claude-code", "cursor", "vscode", "codex"])
def test_url_entry_carries_the_servers_authorization_header(
    home: Path, serena_home: Path, client: str
) -> None:
    import stat

    done = setup(home, client, "--url", URL)
    assert done.returncode == 0, done.stderr
    header = {"Authorization": f"Bearer {stored_token(serena_home)}"}
    if client == "codex":
        path = home / ".codex" / "config.toml"
        entry = tomllib.loads(path.read_text(encoding="utf-8"))["mcp_servers"]["serena-memory"]
        assert entry == {"url": URL, "http_headers": header}
    else:
        relative, key = JSON_FILES[client]
        path = home / relative
        entry = json.loads(path.read_text(encoding="utf-8"))[key]["serena-memory"]
        expected = {"url": URL, "headers": header}
        if client != "cursor":
            expected["type"] = "http"
        assert entry == expected
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the token is readable by its owner only
    again = setup(home, client, "--url", URL + "2")  # another server: the entry changes
    assert again.returncode == 0 and "Updated" in again.stdout
    assert stat.S_IMODE(path.with_name(path.name + ".bak").stat().st_mode) == 0o600


@pytest.mark.slow  # a real HTTP server process
def test_a_client_set_up_with_url_reaches_the_running_server(
    home: Path, project: Path, serena_home: Path
) -> None:
    """The server's printed URL given to setup: the entry's URL and header are all a client
    needs, and they are the ones the server printed."""
    import anyio
    from mcp_support import HttpServer, http_server, ok

    with http_server(["--project", str(project), "--no-dashboard"]) as server:
        done = setup(home, "claude-code", "--url", server.url)
        assert done.returncode == 0, done.stderr
        entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["serena-memory"]
        assert entry["url"] == server.url
        assert f"Authorization: {entry['headers']['Authorization']}" == server.header
        as_set_up = HttpServer(entry["url"], None, [])

        async def go() -> str:
            async with as_set_up.connect(headers=entry["headers"]) as client:
                return await ok(client, "write_memory", memory_name="from-setup", content="x\n")

        assert "from-setup" in anyio.run(go)
    assert (project / ".serena" / "memories" / "from-setup.md").read_text() == "x\n"


def test_url_with_no_auth_writes_no_token(home: Path, serena_home: Path) -> None:
    done = setup(home, "cursor", "--url", URL, "--no-auth")
    assert done.returncode == 0, done.stderr
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["serena-memory"]
    assert entry == {"url": URL}
    assert not (serena_home / "mcp-token").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["claude-desktop", "--url", URL], "Claude Desktop takes HTTP servers only through"),
        (["cursor", "--url", URL, "--project", "."], "leave out --project"),
        (["cursor", "--url", "ftp://example.org/mcp"], "is not an http:// or https:// URL"),
    ],
)
def test_url_entries_that_cant_be_written_safely_are_one_sentence(
    home: Path, args: list[str], said: str
) -> None:
    done = setup(home, *args)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1
    assert said in done.stderr
    assert not any(home.rglob("*.json"))
