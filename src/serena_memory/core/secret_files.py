"""Secrets in the shapes of the files that hold them (for core/secrets.py): a ``.pgpass``
line, a ``.netrc`` password, a JSON Web Key's private members, a registry's encoded auth
(Docker's config.json, .npmrc). Each file's shape says the
value is a credential, whatever the value looks like (a UUID is a Heroku token in .netrc).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from serena_memory.core.secret_values import WORDS, entropy, is_placeholder, not_a_value

# a .pgpass line: host:port:database:user:password
_PGPASS = re.compile(r"^\s*[\w.-]+:(?:\d+|\*):[\w.*-]+:[\w.*@-]+:(\S{6,200})\s*$")


def pgpass(line: str) -> bool:
    """A password in a ``.pgpass`` line."""
    match = _PGPASS.match(line)
    return match is not None and not is_placeholder(match.group(1))


# a .netrc entry's password, the entry on one line or the password on its own
# (no quote, bracket or sentence's end: a sentence wrapped before "password `VALUE`)." is none)
_NETRC = re.compile(
    r"^\s*(?:machine\s+\S+\s+)?(?:login\s+\S+\s+)?password\s+([^\s`'\"()]{6,200})\s*$"
)


def netrc(line: str) -> bool:
    """A password in a ``.netrc`` entry: the word ``password`` then the value alone."""
    match = _NETRC.match(line)
    if match is None:
        return False
    value = match.group(1)
    if value.endswith(".") or value.isdigit():
        return False  # a sentence's end; digits alone, as examples show it (123456)
    return not (is_placeholder(value) or WORDS.fullmatch(value) or not_a_value(value, quoted=True))


# a JSON Web Key's private members: "d" (EC, RSA, OKP), "p", "q", "dp", "dq", "qi" (RSA)
# and "k" (a symmetric key); its "x", "y", "n", "e" are public
_JWK_PRIVATE = re.compile(r"\"(?:d|p|q|dp|dq|qi|k)\"\s*:\s*\"([A-Za-z0-9_-]{16,})\"")


def jwk_private(line: str) -> bool:
    """A JSON Web Key that holds its private part (``"kty"`` and a private member)."""
    return any(entropy(match.group(1)) >= 3.5 for match in _JWK_PRIVATE.finditer(line))


# two-factor recovery codes: the words that name them, then two codes or more, on a line
# or one a line (xxxxx-xxxxx as GitHub prints them, groups of digits as Google does); an
# aside may stand before the colon ("backup codes (unused): ...")
_CODE = r"(?:[A-Za-z0-9]{4,6}-[A-Za-z0-9]{4,6}|\d{4} ?\d{4})"
_RECOVERY_CODES = (
    r"(?i)\b(?:recovery|backup|2fa|mfa|two-factor) codes?\b(?:[^\n]{0,120}\n|[^\n:]{0,40}:)"
    rf"[ \t>*`-]*{_CODE}(?:[ \t,`;]|\r?\n[ \t>*`-]*)+{_CODE}\b"
)


@cache
def _recovery_codes() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_RECOVERY_CODES)


def recovery_codes(text: str) -> Iterator[int]:
    """The lines (from 1) that hold two-factor recovery codes: each logs in without the
    second factor."""
    if "odes" not in text:
        return
    for match in _recovery_codes().finditer(text):
        yield text.count("\n", 0, match.end()) + 1


# a PEM block encoded again in base64, as a kubeconfig's client-key-data or a Kubernetes
# Secret's tls.key holds it: `-----BEGIN` encodes as LS0tLS1CRUdJTi
_ENCODED_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}")


def encoded_private_key(line: str) -> bool:
    """A private key's PEM block in base64 (its header decoded says PRIVATE KEY)."""
    import base64
    import binascii

    for match in _ENCODED_PEM.finditer(line):
        head = match.group()[:80]
        try:
            decoded = base64.b64decode(head[: len(head) // 4 * 4], validate=True)
        except (binascii.Error, ValueError):
            continue
        if b"PRIVATE KEY" in decoded:
            return True
    return False


# `"auth": "BASE64"` (Docker's config.json), `_auth=BASE64` (.npmrc), a Kubernetes
# `.dockerconfigjson`: base64 of `user:password` (or of a config holding one)
_ENCODED_AUTH = re.compile(
    r"(?i)(?<![\w.-])[\"']?(?:auth|_auth|\.dockerconfigjson|\.dockercfg)[\"']?\s*[:=]\s*"
    r"[\"']?([A-Za-z0-9+/]{12,}={0,2})(?![\w+/=])"
)


def encoded_auth(line: str) -> bool:
    """Base64 of ``user:password`` given as a registry's auth (or a config holding one)."""
    import base64
    import binascii

    for match in _ENCODED_AUTH.finditer(line):
        try:
            decoded = base64.b64decode(match.group(1), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        user, colon, password = decoded.partition(":")
        if '"auth' in decoded or (colon and user and password and not is_placeholder(password)):
            return True
    return False


# a key written as its bytes in a JSON array (Solana's id.json keypair: 64 numbers, a
# seed: 32), on a line that says it is a key
_BYTE_ARRAY = re.compile(r"\[\s*((?:\d{1,3}\s*,\s*){31,63}\d{1,3})\s*\]")
_SAYS_KEY = re.compile(r"(?i)keypair|id\.json|secret[ _-]?key|private[ _-]?key|wallet|signer")
BYTE_KEY_WORDS = ("keypair", "id.json", "secret", "private", "wallet", "signer")


def byte_array_key(line: str) -> bool:
    """Whether ``line`` writes a key as 32 or 64 bytes in a JSON array and says it is one."""
    if _SAYS_KEY.search(line) is None:
        return False
    for match in _BYTE_ARRAY.finditer(line):
        numbers = [int(number) for number in re.split(r"\s*,\s*", match.group(1))]
        if len(numbers) in (32, 64) and max(numbers) <= 255 and len(set(numbers)) >= 16:
            return True
    return False
