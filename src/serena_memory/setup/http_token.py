"""The credential of the streamable-HTTP MCP server: which token a client must send.

A port on 127.0.0.1 is open to every process and every account on the machine, so the
HTTP server answers only requests that carry ``Authorization: Bearer TOKEN``. The token
comes from, in order:

- the environment variable ``SERENA_MCP_TOKEN`` (for a token the person manages), else
- the file ``$SERENA_HOME/mcp-token``: created with a random token, readable by its owner
  only (0600), on first use, and reused by every later start, so a client set up once
  keeps working across restarts; rotating writes a new one.

There is no command-line option for the token: every local account can read the
arguments of a running process. A token file that other accounts can read, or that is
not a regular file of this user, is refused: its token may be known to them.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from serena_memory.core.config import serena_home
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.files import atomic_write

TOKEN_ENV = "SERENA_MCP_TOKEN"
TOKEN_FILE = "mcp-token"
MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 512


class TokenError(MemoryStoreError):
    """A token that can't be used: unsafe file, unusable characters, too short."""


@dataclass(frozen=True)
class Token:
    """The token and where it came from, to say so when the server starts."""

    value: str
    source: str  # "SERENA_MCP_TOKEN" or the file's path

    @property
    def header(self) -> str:
        """The header line a client sends, exactly as it is printed."""
        return f"Authorization: Bearer {self.value}"


def token_file(home: Path | None = None) -> Path:
    return (home or serena_home()) / TOKEN_FILE


def check_token(value: str, source: str) -> str:
    """``value`` if it can stand in a header and is long enough to be guessed by nobody."""
    if not value or not all("!" <= ch <= "~" for ch in value) or len(value) > MAX_TOKEN_CHARS:
        raise TokenError(
            f"the token in {source} must be printable ASCII without spaces (at most "
            f"{MAX_TOKEN_CHARS} characters); set another one"
        )
    if len(value) < MIN_TOKEN_CHARS:
        raise TokenError(
            f"the token in {source} has {len(value)} characters, fewer than "
            f"{MIN_TOKEN_CHARS}; use a longer random one"
        )
    return value


def server_token(home: Path | None = None, *, rotate: bool = False) -> Token:
    """The token the HTTP server requires (see the module's docstring for where from)."""
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env:
        if rotate:
            raise TokenError(
                f"the token comes from {TOKEN_ENV}, so it can't be rotated here; set a new "
                "value in that variable instead"
            )
        return Token(check_token(env, TOKEN_ENV), TOKEN_ENV)
    path = token_file(home)
    if not rotate:
        stored = _read_stored(path)
        if stored is not None:
            return Token(stored, str(path))
    value = secrets.token_urlsafe(32)
    atomic_write(path, (value + "\n").encode("ascii"), mode=0o600)
    return Token(value, str(path))


def _read_stored(path: Path) -> str | None:
    """The token kept in ``path``, None when there is none yet."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TokenError(
            f"the token file {path} can't be read ({exc.strerror or exc}); it must be a "
            "regular file, not a link: remove it and start the server again"
        ) from None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_TOKEN_CHARS + 2:
            raise TokenError(
                f"the token file {path} is not a small regular file; remove it and start the "
                "server again"
            )
        if os.name == "posix" and (st.st_mode & 0o077 or st.st_uid != os.getuid()):
            raise TokenError(
                f"the token file {path} can be read by other accounts or is not yours, so its "
                "token may be known; start the server with --rotate-token for a new one "
                "(then run serena setup again)"
            )
        raw = handle.read()
    try:
        return check_token(raw.decode("ascii").strip(), str(path))
    except UnicodeDecodeError:
        raise TokenError(
            f"the token file {path} is not ASCII text; start the server with --rotate-token "
            "for a new one"
        ) from None
