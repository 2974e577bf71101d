"""A password said for a machine or a service, quoted (for core/secrets.py): ``sudo
password on the build VM is `buildbot```, ``the Wi-Fi password for the lab is 'lemonade'``.

A sentence that names where a password opens (on a host, for a service) and quotes what
it is gives a working login, however short or plain the word: people set such words, and
the other rules, which want a strong shape from a value said without a place, pass them.
A documented default (``the default password for the demo is `demo```), a placeholder or
a reference (``$SUDO_PASS``, ``<password>``) is none.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from serena_memory.core.secret_values import DEFAULT_WORDS, is_placeholder

# (whose) password on / for / of (the) PLACE is `VALUE`
_PLACE_PASSWORD = (
    r"(?i)\b(?:password|passwd|passphrase|pw)\s+(?:on|for|of)\s+(?:the\s+|our\s+)?"
    r"[^\n.;:`'\"]{1,40}?\s(?:is|was)\s+(?:still\s+)?"
    r"(?:`([^\s`'\"]{4,64})`|'([^\s`'\"]{4,64})'|\"([^\s`'\"]{4,64})\")"
)
# a product's documented login, an example, a test's
_DOCUMENTED = re.compile(
    r"(?i)\bdefaults?\b|\bexample|\be\.g\.|\bdocs?\b|\bdocumentation\b|\bships\s+with\b"
    r"|\btests?\b|\bfixtures?\b|\bdemo\b|\bsample\b"
)
# what a quoted word says instead of a password: that there is none, or where it is
_NO_PASSWORD = re.compile(
    r"(?i)empty|blank|none|null|nil|unset|required|optional|hidden|same|secret|random"
    r"|generated|vault|keychain|keyring|prompt|\$.*|<.*|\{.*|%.*%"
)
PLACE_WORDS = (" on ", " for ", " of ")


@cache
def _pattern() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_PLACE_PASSWORD)


def place_password(line: str) -> bool:
    """Whether ``line`` quotes a password as the one on a named host or for a service."""
    if "password" not in line.lower() and "pw" not in line.lower():
        return False
    if _DOCUMENTED.search(line):
        return False
    for match in _pattern().finditer(line):
        value = next(group for group in match.groups() if group is not None)
        if _NO_PASSWORD.fullmatch(value) or is_placeholder(value):
            continue
        if DEFAULT_WORDS.fullmatch(value.lower().rstrip("0123456789")):
            continue  # admin, test123: a default's word, not one a person chose
        return True
    return False
