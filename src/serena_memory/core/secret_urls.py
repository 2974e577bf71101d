"""A password in a URL (for core/secrets.py): ``scheme://user:PASSWORD@host``, Oracle's
thin URL ``user/PASSWORD@``, and Go's MySQL DSN ``user:PASSWORD@tcp(host)``; a placeholder,
a template's field, a port and a path, or the user name again (a local default) is none.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from serena_memory.core.secret_remote import default_login, remote_host
from serena_memory.core.secret_values import is_placeholder, literal_secret

# a password in a URL, including those detect-secrets misses (no user name, `!` or `$`)
# (a `#` pasted unencoded belongs to the password)
# (a token with `/` pasted unencoded too, as AWS CodeArtifact's: judged as a token then)
# (under RE2: a password running to the `@` may run far)
# (a mail address as the user, as mail relays take it: smtp://postmaster@mg.host:PASSWORD@;
# one `@` pasted unencoded in the password: the last `@` before the host ends it)
# (Oracle's thin URL writes user/PASSWORD@: jdbc:oracle:thin:scott/PASSWORD@//host)
_URL_PASSWORD = (
    r"[A-Za-z][A-Za-z0-9+.-]*://([^\s:/?#@]*(?:@[^\s:/?#@]+)?):([^\s@]*(?:@[^\s@/]*)?)@[\w\[]"
    r"|oracle:thin:([^\s:/@]+)/([^\s@/]+)@"
    # (Go's MySQL driver: user:PASSWORD@tcp(host:3306)/db, user:PASSWORD@unix(/socket)/db)
    r"|([\w.-]+):([^\s@\"'`/:]+)@(?:tcp|unix)\("
)
# the words a line must hold for the pattern to find a password
URL_WORDS = ("://", "oracle:thin:", "@tcp(", "@unix(")


@cache
def url_passwords_pattern() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_URL_PASSWORD)


# a port then a query (host:8080?to=a@b.io): no password
_PORT_QUERY = re.compile(r"\d*\?")
_PORT_PATH = re.compile(r"\d*/")


def url_password(line: str) -> bool:
    """A password in a URL (``scheme://user:PASSWORD@host``) that is not a placeholder,
    nor the user name again (``guest:guest@``, a local default) unless a named host on a
    network takes it (core/secret_remote.py)."""
    for match in url_passwords_pattern().finditer(line):
        user, password = next(
            (match.group(at, at + 1) for at in (1, 3, 5) if match.group(at + 1) is not None),
            (None, None),
        )
        if password and _url_secret(user or "", password):
            return True
        if password and default_login(password) and remote_host(_host_after(line, match)):
            return True  # a default login that a host on a network still takes
    return False


_HOST_CHARS = re.compile(r"[\w.-]*")


def _host_after(line: str, match: Any) -> str:
    """The host a URL's password is given to: the name after its ``@``."""
    found = _HOST_CHARS.match(line, match.end() - 1)
    return found.group() if found else ""


def _url_secret(user: str, password: str) -> bool:
    """Whether ``password``, after ``user`` in a URL, is one: no template's field, port and
    path or port and query, placeholder, nor the user again."""
    if password.startswith("{") and password.endswith("}"):
        return False  # a template's field: https://bot:{token}@host
    if "/" in password and (_PORT_PATH.match(password) or not literal_secret(password)):
        return False  # a port and a path (host:8080/a@b), or a path
    if _PORT_QUERY.match(password) and (password[0].isdigit() or not user):
        return False
    return (
        password != user
        and not is_placeholder(password)
        and not is_placeholder(password.strip("[]<>{}"))
    )
