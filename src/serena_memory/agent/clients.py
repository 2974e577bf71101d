"""Registering this install's MCP server with a coding agent's client, in one command.

Each client keeps its MCP servers in a file of its own: JSON under ``mcpServers`` (Claude
Code, Claude Desktop, Cursor), JSON under ``servers`` (VS Code) or TOML under
``mcp_servers`` (Codex). Setting up merges one entry into that file: the other servers and
settings stay as they are, the previous file is kept as a backup, and a file that cannot be
read as its format is refused untouched, since rewriting what we could not parse would lose
the person's settings.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.files import atomic_write

SERVER_NAME = "serena-memory"


class ClientSetupError(MemoryStoreError):
    """A client configuration that cannot be changed safely."""


@dataclass(frozen=True)
class ServerCommand:
    """How a client starts this install's MCP server."""

    command: str
    args: tuple[str, ...]

    @classmethod
    def for_this_install(cls, project: Path | None) -> ServerCommand:
        """The ``serena`` script next to the running interpreter (so the entry keeps working
        whatever PATH the client has); ``python -m`` where there is no such script."""
        script = Path(sys.executable).parent / ("serena.exe" if os.name == "nt" else "serena")
        prefix: tuple[str, ...] = ()
        command = str(script)
        if not script.is_file():
            command, prefix = sys.executable, ("-m", "serena_memory.cli")
        args: tuple[str, ...] = (*prefix, "start-mcp-server")
        if project is not None:
            args = (*args, "--project", str(project))
        return cls(command, args)


@dataclass(frozen=True)
class Client:
    """One client: where its configuration lives and how an entry looks there."""

    key: str
    label: str
    user_file: Callable[[], Path]
    project_file: Callable[[Path], Path] | None
    servers_key: str
    toml: bool = False
    vscode_style: bool = False

    def config_file(self, project: Path | None) -> Path:
        if project is not None and self.project_file is not None:
            return self.project_file(project)
        return self.user_file()

    def entry(self, server: ServerCommand) -> dict[str, Any]:
        entry: dict[str, Any] = {"command": server.command, "args": list(server.args)}
        if self.vscode_style:
            entry = {"type": "stdio", **entry}
        return entry


def _app_support(*parts: str) -> Path:
    """The per-user application-data folder of desktop apps on this system."""
    home = Path.home()
    system = platform.system()
    if system == "Darwin":
        return home.joinpath("Library", "Application Support", *parts)
    if system == "Windows":
        return Path(os.environ.get("APPDATA", home / "AppData" / "Roaming")).joinpath(*parts)
    return Path(os.environ.get("XDG_CONFIG_HOME", home / ".config")).joinpath(*parts)


CLIENTS: dict[str, Client] = {
    c.key: c
    for c in (
        Client(
            "claude-code",
            "Claude Code",
            user_file=lambda: Path.home() / ".claude.json",
            project_file=lambda p: p / ".mcp.json",
            servers_key="mcpServers",
        ),
        Client(
            "claude-desktop",
            "Claude Desktop",
            user_file=lambda: _app_support("Claude", "claude_desktop_config.json"),
            project_file=None,
            servers_key="mcpServers",
        ),
        Client(
            "cursor",
            "Cursor",
            user_file=lambda: Path.home() / ".cursor" / "mcp.json",
            project_file=lambda p: p / ".cursor" / "mcp.json",
            servers_key="mcpServers",
        ),
        Client(
            "codex",
            "Codex",
            user_file=lambda: (
                Path(os.environ.get("CODEX_HOME", Path.home() / ".codex")) / "config.toml"
            ),
            project_file=None,
            servers_key="mcp_servers",
            toml=True,
        ),
        Client(
            "vscode",
            "VS Code",
            user_file=lambda: _app_support("Code", "User", "mcp.json"),
            project_file=lambda p: p / ".vscode" / "mcp.json",
            servers_key="servers",
            vscode_style=True,
        ),
    )
}


@dataclass(frozen=True)
class SetupResult:
    path: Path
    backup: Path | None
    replaced: bool  # an entry of the same name was there before
    text: str  # the file's new content


def render_entry(client: Client, server: ServerCommand) -> str:
    """The entry as it would stand in the client's file, for a person to paste."""
    entry = client.entry(server)
    if client.toml:
        import tomlkit

        document = tomlkit.document()
        table = tomlkit.table(is_super_table=True)
        table.add(SERVER_NAME, entry)
        document.add(client.servers_key, table)
        return tomlkit.dumps(document)
    return json.dumps({client.servers_key: {SERVER_NAME: entry}}, indent=2) + "\n"


def setup_client(client: Client, server: ServerCommand, project: Path | None) -> SetupResult:
    """Merge this server's entry into the client's configuration file (created if absent),
    keeping a backup of the previous file next to it."""
    path = client.config_file(project)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ClientSetupError(f"{path} is not a regular file; add this entry by hand instead")
    original = path.read_text(encoding="utf-8") if path.exists() else None
    merge = _merge_toml if client.toml else _merge_json
    text, replaced = merge(client, server, path, original)
    backup = None
    if original is not None:
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
    atomic_write(path, text.encode("utf-8"))
    return SetupResult(path, backup, replaced, text)


def _merge_json(
    client: Client, server: ServerCommand, path: Path, original: str | None
) -> tuple[str, bool]:
    data: Any = {}
    if original is not None and original.strip():
        try:
            data = json.loads(original)
        except json.JSONDecodeError as exc:
            raise ClientSetupError(
                f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}) and was left "
                "untouched; fix it or add the entry by hand (serena setup --print shows it)"
            ) from None
    if not isinstance(data, dict):
        raise ClientSetupError(
            f"{path} does not hold a JSON object and was left untouched; fix it or add the "
            "entry by hand (serena setup --print shows it)"
        )
    servers = data.setdefault(client.servers_key, {})
    if not isinstance(servers, dict):
        raise ClientSetupError(
            f"{path}: '{client.servers_key}' is not a JSON object; the file was left untouched"
        )
    replaced = SERVER_NAME in servers
    servers[SERVER_NAME] = client.entry(server)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n", replaced


def _merge_toml(
    client: Client, server: ServerCommand, path: Path, original: str | None
) -> tuple[str, bool]:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(original or "")
    except TOMLKitError as exc:
        raise ClientSetupError(
            f"{path} is not valid TOML ({exc}) and was left untouched; fix it or add the "
            "entry by hand (serena setup --print shows it)"
        ) from None
    servers = document.get(client.servers_key)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document[client.servers_key] = servers
    elif not isinstance(servers, dict):
        raise ClientSetupError(
            f"{path}: '{client.servers_key}' is not a table; the file was left untouched"
        )
    replaced = SERVER_NAME in servers
    servers[SERVER_NAME] = client.entry(server)
    return tomlkit.dumps(document), replaced
