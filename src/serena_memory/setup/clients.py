"""Registering this install's MCP server with a coding agent's client, in one command.

Each client keeps its MCP servers in a file of its own: JSON under ``mcpServers`` (Claude
Code, Claude Desktop, Cursor), JSON under ``servers`` (VS Code) or TOML under
``mcp_servers`` (Codex). An entry either starts this install's server (stdio) or connects to a
running streamable-HTTP server by URL, with the ``Authorization: Bearer`` header that
server requires (``headers``, or ``http_headers`` in Codex's TOML).

Setting up merges one entry into that file: the other servers and
settings stay as they are, the previous file is kept as a backup, and a file that cannot be
read as its format is refused untouched, since rewriting what we could not parse would lose
the person's settings.

A valid file is never turned into an invalid or different one: a JSON file with a key given
twice (which parser keeps which?) or a number that would not be written back as it was
(``1e999`` would come back as ``Infinity``, which is not JSON) is refused untouched too, and
the new text is read back with the same rules before it is written. In a project, the files
written (the configuration and its backup) stay inside the project folder: a configuration
folder that is a symlink leading out of the project, or a configuration file that is a
symlink, is refused rather than followed.

A project's file is shared (teams commit it), so its entry names nothing of this machine:
`serena` from the PATH, and the project found from where the client starts it. The first
backup is kept: running setup again never replaces the original file's copy with an
already changed one, and an entry that is already right changes nothing. VS Code allows
comments in its file (JSON with comments): they are read and kept (setup/jsonc.py).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from serena_memory.core.errors import MemoryStoreError, OutsidePathError
from serena_memory.core.files import atomic_write
from serena_memory.core.paths import Scope, resolve

SERVER_NAME = "serena-memory"


class ClientSetupError(MemoryStoreError):
    """A client configuration that cannot be changed safely."""


@dataclass(frozen=True)
class ServerCommand:
    """How a client starts this install's MCP server."""

    command: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    @classmethod
    def for_this_install(cls, project: Path | None, client: Client) -> ServerCommand:
        """The ``serena`` script next to the running interpreter (so the entry keeps working
        whatever PATH the client has); ``python -m`` where there is no such script. It
        names the client's context, so the client is handed the tools it lacks."""
        script = Path(sys.executable).parent / ("serena.exe" if os.name == "nt" else "serena")
        prefix: tuple[str, ...] = ()
        command = str(script)
        if not script.is_file():
            command, prefix = sys.executable, ("-m", "serena_memory.cli")
        args: tuple[str, ...] = (*prefix, "start-mcp-server", "--context", client.context)
        if project is not None:
            args = (*args, "--project", str(project))
        return cls(command, args, _forwarded_env())

    @classmethod
    def for_every_clone(cls, client: Client) -> ServerCommand:
        """For a project's shared file: `serena` from the PATH (`serena-memory` when the
        `serena` there is another program's, serena-agent's most likely), the project found
        from where the client starts the server (or named by the client's own variable)."""
        args = ("start-mcp-server", "--context", client.context, *client.shared_project_args)
        return cls(_name_on_path(), args, _forwarded_env())


def _name_on_path() -> str:
    """``serena`` unless the ``serena`` on the PATH is not this install's (serena-agent
    installs one too), then ``serena-memory``, the name only serena-memory installs."""
    found = shutil.which("serena")
    if found is None or os.path.realpath(found).startswith(os.path.realpath(sys.prefix)):
        return "serena"
    ours = Path(sys.executable).parent / "serena"
    if ours.is_file() and os.path.samefile(found, ours):
        return "serena"
    return "serena-memory"


def _forwarded_env() -> tuple[tuple[str, str], ...]:
    """SERENA_HOME, when set: the client starts the server without this shell's settings."""
    home = os.environ.get("SERENA_HOME")
    return (("SERENA_HOME", home),) if home else ()


@dataclass(frozen=True)
class HttpServer:
    """A streamable-HTTP server a client connects to: its URL and the bearer token it
    requires (None: a server started with --no-auth)."""

    url: str
    token: str | None

    @classmethod
    def checked(cls, url: str, token: str | None) -> HttpServer:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ClientSetupError(
                f"{url} is not an http:// or https:// URL; give the URL the server printed, "
                "such as http://127.0.0.1:8000/mcp"
            )
        return cls(url, token)

    @property
    def headers(self) -> dict[str, str]:
        return {} if self.token is None else {"Authorization": f"Bearer {self.token}"}


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
    # how its file names an HTTP server: the "type" value ("" for none), the headers key;
    # None: the client takes HTTP servers only through its own settings
    http_type: str | None = "http"
    headers_key: str = "headers"
    # how an entry in the project's shared file finds the project
    shared_project_args: tuple[str, ...] = ("--project-from-cwd",)
    comments: bool = False  # its JSON file may hold comments (JSON with comments)
    # which tools it is handed (agent/contexts.py): coding clients have file tools of their own
    context: str = "coding"

    def config_file(self, project: Path | None) -> Path:
        if project is not None and self.project_file is not None:
            return self.project_file(project)
        return self.user_file()

    def entry(self, server: ServerCommand | HttpServer) -> dict[str, Any]:
        if isinstance(server, HttpServer):
            return self._http_entry(server)
        entry: dict[str, Any] = {"command": server.command, "args": list(server.args)}
        if server.env:
            entry["env"] = dict(server.env)
        if self.vscode_style:
            entry = {"type": "stdio", **entry}
        return entry

    def _http_entry(self, server: HttpServer) -> dict[str, Any]:
        if self.http_type is None:
            raise ClientSetupError(
                f"{self.label} takes HTTP servers only through its own settings, not its "
                "file; set it up without --url (it then starts the server itself)"
            )
        entry: dict[str, Any] = {"type": self.http_type} if self.http_type else {}
        entry["url"] = server.url
        if server.headers:
            entry[self.headers_key] = server.headers
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
            http_type=None,
            context="desktop",
        ),
        Client(
            "cursor",
            "Cursor",
            user_file=lambda: Path.home() / ".cursor" / "mcp.json",
            project_file=lambda p: p / ".cursor" / "mcp.json",
            servers_key="mcpServers",
            http_type="",
            shared_project_args=("--project", "${workspaceFolder}"),
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
            http_type="",
            headers_key="http_headers",
        ),
        Client(
            "vscode",
            "VS Code",
            user_file=lambda: _app_support("Code", "User", "mcp.json"),
            project_file=lambda p: p / ".vscode" / "mcp.json",
            servers_key="servers",
            vscode_style=True,
            shared_project_args=("--project", "${workspaceFolder}"),
            comments=True,
        ),
    )
}


@dataclass(frozen=True)
class SetupResult:
    path: Path
    backup: Path | None
    replaced: bool  # an entry of the same name was there before
    text: str  # the file's new content
    unchanged: bool = False  # the entry was already right: nothing was written


def render_entry(client: Client, server: ServerCommand | HttpServer) -> str:
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


def _by_hand(client: Client, project: Path | None) -> str:
    """The command that prints the entry to paste, as a person types it."""
    where = f" --project {project}" if project is not None and client.project_file else ""
    return f"`serena setup {client.key}{where} --print`"


def setup_warnings(
    client: Client, server: ServerCommand | HttpServer, project: Path | None
) -> list[str]:
    """What a person should know before the entry is written: something of this machine in
    a file the project shares, or a user-wide entry tied to one project."""
    path = client.config_file(project)
    said = []
    shared = project is not None and client.project_file is not None
    if shared and isinstance(server, ServerCommand):
        name = server.command
        if name in ("serena", "serena-memory") and shutil.which(name) is None:
            said.append(
                f"`{name}` is not on this machine's PATH, and the entry in {path} starts it "
                "from the PATH (the file is shared with everyone who clones the project); "
                f"put this install's `{name}` on the PATH so the client finds it"
            )
        elif name == "serena-memory":
            said.append(
                f"the `serena` on this machine's PATH is another program's (serena-agent's?), "
                f"so the entry in {path} starts `serena-memory`, this install's other name"
            )
        for key, value in server.env:
            said.append(
                f"{key} is set, so the entry in {path} carries {key}={value}, a folder of "
                "this machine, into a file shared with everyone who clones the project; "
                f"unset {key} before running setup to leave it out"
            )
    elif project is not None and isinstance(server, ServerCommand):
        said.append(
            f"{client.label} has no project file, so this entry in your own {path} serves "
            f"{project} in every {client.label} session; leave out --project to serve the "
            f"project found from the folder {client.label} starts in"
        )
    return said


def setup_client(
    client: Client,
    server: ServerCommand | HttpServer,
    project: Path | None,
    before_write: Callable[[], None] | None = None,
) -> SetupResult:
    """Merge this server's entry into the client's configuration file (created if absent),
    keeping a backup of the file as it was before the first setup next to it.

    An entry that holds a token goes only into the person's own file (a project's is
    often committed), and the file and its backup are then readable by their owner only.
    An entry that is already right writes nothing. ``before_write`` is called once the
    change is known to be safe, just before anything is written (to warn a person).
    """
    secret = isinstance(server, HttpServer) and server.token is not None
    if secret and project is not None:
        raise ClientSetupError(
            "an HTTP entry holds the server's token, so it goes into your own configuration "
            "file, not the project's (which is often committed); leave out --project"
        )
    client.entry(server)  # a client that can't take this form says so before any file is read
    path = client.config_file(project)
    hand = _by_hand(client, project)
    inside: tuple[str, ...] | None = None
    if project is not None and client.project_file is not None:
        inside = (_inside_project(path, project, hand),)
    raw, original = _read_config(path, hand)
    merge = _merge_toml if client.toml else _merge_json
    text, replaced = merge(client, server, path, original, hand)
    kept = _kept_backup(path)
    if text == original:
        return SetupResult(path, kept, replaced, text, unchanged=True)
    if before_write is not None:
        before_write()
    backup = _write_config(path, raw, text, kept, inside, 0o600 if secret else None)
    return SetupResult(path, backup, replaced, text)


def _read_config(path: Path, hand: str) -> tuple[bytes | None, str | None]:
    """The bytes and text of a client's configuration file, (None, None) when there is
    none; refused when it is a symlink, a folder or not UTF-8."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ClientSetupError(
            f"{path} is not a regular file (a symlink or a folder), so it was left untouched; "
            f"add this entry by hand instead ({hand} shows it)"
        )
    try:
        raw = path.read_bytes() if path.exists() else None
        original = raw.decode("utf-8") if raw is not None else None
    except UnicodeDecodeError:
        raise ClientSetupError(
            f"{path} is not UTF-8 text and was left untouched; fix it or add the entry by hand "
            f"({hand} shows it)"
        ) from None
    return raw, original


def _kept_backup(path: Path) -> Path | None:
    """The backup of the file as it was before the first setup, if one is there."""
    backup = path.with_name(path.name + ".bak")
    return backup if backup.is_file() and not backup.is_symlink() else None


def _write_config(
    path: Path,
    raw: bytes | None,
    text: str,
    kept: Path | None,
    inside: tuple[str, ...] | None,
    mode: int | None,
) -> Path | None:
    """Write the new configuration, after backing up the file as it was when no backup is
    kept yet; the backup in force afterwards, if any."""
    backup = path.with_name(path.name + ".bak")
    if raw is not None and kept is None:
        # the first original is kept: a later run never replaces it with a changed file.
        # Written, not copied: a link planted at the backup's name is replaced, not followed
        atomic_write(backup, raw, inside=inside, mode=mode)
    atomic_write(path, text.encode("utf-8"), inside=inside, mode=mode)
    return backup if raw is not None else kept


def _inside_project(path: Path, project: Path, hand: str) -> str:
    """The real folder of a project's configuration file, refused when a symlink on the way
    (``.cursor -> ~/elsewhere``) leads out of the project: setup writes only inside it."""
    root = os.path.realpath(project)
    parts = path.relative_to(project).parts
    scope = Scope(root, parts[:-1], (root,), f"the project {root}", "")
    try:
        folder = resolve(scope, (), f"the configuration folder {path.parent}")
    except OutsidePathError as exc:
        raise ClientSetupError(
            f"{exc}; setup writes only inside the project, so add the entry by hand "
            f"({hand} shows it)"
        ) from None
    return folder


class _Refused(ValueError):
    """A JSON document that would not be written back as it was read."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Refused(f"has the key {json.dumps(key)} twice in one object")
        seen[key] = value
    return seen


def _exact_float(text: str) -> float:
    value = float(text)
    try:
        same = Decimal(text) == Decimal(repr(value))
    except InvalidOperation:  # inf, nan
        same = False
    if not same:
        raise _Refused(f"has the number {text}, which would not be written back as it is")
    return value


def _no_constant(name: str) -> Any:
    raise _Refused(f"has {name}, which is not JSON")


def _strict_json(text: str) -> Any:
    """``json.loads`` that refuses what it would not give back unchanged: duplicate keys,
    ``NaN``/``Infinity`` and numbers a float can't hold exactly."""
    return json.loads(
        text,
        object_pairs_hook=_no_duplicates,
        parse_float=_exact_float,
        parse_constant=_no_constant,
    )


def _dump_json(data: Any) -> str:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape: keep it escaped
        text = json.dumps(data, indent=2) + "\n"
    return text


def _merge_json(
    client: Client,
    server: ServerCommand | HttpServer,
    path: Path,
    original: str | None,
    hand: str,
) -> tuple[str, bool]:
    from serena_memory.setup import jsonc

    data = _read_json(client, path, original, hand)
    if not isinstance(data, dict):
        raise ClientSetupError(
            f"{path} does not hold a JSON object and was left untouched; fix it or add the "
            f"entry by hand ({hand} shows it)"
        )
    servers = data.setdefault(client.servers_key, {})
    if not isinstance(servers, dict):
        raise ClientSetupError(
            f"{path}: '{client.servers_key}' is not a JSON object; the file was left untouched"
        )
    entry = client.entry(server)
    replaced = SERVER_NAME in servers
    if original is not None and servers.get(SERVER_NAME) == entry:
        return original, replaced  # already right: nothing to write
    servers[SERVER_NAME] = entry
    if client.comments and original is not None and original.strip():
        # changed in place: the person's comments and layout stay
        text = jsonc.set_member(original, (client.servers_key, SERVER_NAME), entry)
        written = jsonc.loads(text, _strict_json)
    else:
        text = _dump_json(data)
        written = _strict_json(text)
    if written != data:  # read back with the same rules: never a changed file
        raise ClientSetupError(
            f"{path} could not be written back unchanged, so it was left untouched; add the "
            f"entry by hand ({hand} shows it)"
        )
    return text, replaced


def _read_json(client: Client, path: Path, original: str | None, hand: str) -> Any:
    """What a client's JSON file holds ({} when it is missing or blank), read strictly;
    a file that can't be read that way is refused untouched."""
    from serena_memory.setup import jsonc

    if original is None or not original.strip():
        return {}
    kind = "JSON with comments" if client.comments else "JSON"
    try:
        return jsonc.loads(original, _strict_json) if client.comments else _strict_json(original)
    except jsonc.JsoncError as exc:
        raise ClientSetupError(
            f"{path} is not valid {kind} ({exc}) and was left untouched; fix it or add "
            f"the entry by hand ({hand} shows it)"
        ) from None
    except json.JSONDecodeError as exc:
        raise ClientSetupError(
            f"{path} is not valid {kind} (line {exc.lineno}: {exc.msg}) and was left "
            f"untouched; fix it or add the entry by hand ({hand} shows it)"
        ) from None
    except _Refused as exc:
        raise ClientSetupError(
            f"{path} {exc}, so it was left untouched; fix it or add the entry by hand "
            f"({hand} shows it)"
        ) from None
    except RecursionError:
        raise ClientSetupError(
            f"{path} is nested too deeply to be read and was left untouched; add the entry "
            f"by hand ({hand} shows it)"
        ) from None


def _merge_toml(
    client: Client,
    server: ServerCommand | HttpServer,
    path: Path,
    original: str | None,
    hand: str,
) -> tuple[str, bool]:
    import tomllib

    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        tomllib.loads(original or "")  # the strict reading: a key given twice is refused
        document = tomlkit.parse(original or "")
    except (TOMLKitError, tomllib.TOMLDecodeError) as exc:
        raise ClientSetupError(
            f"{path} is not valid TOML ({exc}) and was left untouched; fix it or add the "
            f"entry by hand ({hand} shows it)"
        ) from None
    servers = document.get(client.servers_key)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document[client.servers_key] = servers
    elif not isinstance(servers, dict):
        raise ClientSetupError(
            f"{path}: '{client.servers_key}' is not a table; the file was left untouched"
        )
    entry = client.entry(server)
    replaced = SERVER_NAME in servers
    current = servers.get(SERVER_NAME)
    if original is not None and current is not None and tomlkit.item(current).unwrap() == entry:
        return original, replaced  # already right: nothing to write
    servers[SERVER_NAME] = entry
    text = tomlkit.dumps(document)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise ClientSetupError(
            f"{path} could not be written back as valid TOML, so it was left untouched; add "
            f"the entry by hand ({hand} shows it)"
        ) from None
    return text, replaced
