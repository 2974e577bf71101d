"""The secret gate's rules over lines: what a secret spans more than one line of (a
private key, a PuTTY key, a name and its value in two fields, recovery codes), found in a
text whole before its lines are read one by one (core/secrets.py). A key kept encrypted
is one only with its passphrase beside it (core/secret_encrypted.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from serena_memory.core.secret_encrypted import encrypted_key, passphrase_given
from serena_memory.core.secret_files import recovery_codes
from serena_memory.core.secret_naming import secret_name
from serena_memory.core.secret_values import is_placeholder, literal_value, strong_password

# a PEM private key's header, also wrapped over lines as a ticket or a mail wraps it
_PEM_HEADER = (
    r"-{4,5}[ \t]?BEGIN[ \t\r\n]{1,4}(?:[A-Z0-9]{1,12}[ \t\r\n]{1,4}){0,4}PRIVATE"
    r"[ \t\r\n]{1,4}KEY(?:[ \t\r\n]{1,4}BLOCK)?[ \t]?-{4,5}"
)
# a PuTTY key's private lines (the public ones are no secret)
_PUTTY_PRIVATE = r"Private-Lines:[ \t]*\d+[ \t]*\r?\n[ \t]*[A-Za-z0-9+/]{16,}"
# a secret's name and its value in two fields of one JSON object, as Postman exports them
_KEY_THEN_VALUE = (
    r"\"(?:key|name|Name)\"\s{0,40}:\s{0,40}\"([^\"\n]{1,80})\"\s{0,40},\s{0,40}"
    r"\"(?:value|Value)\"\s{0,40}:\s{0,40}\"([^\"\n]{1,500})\""
    # a Kubernetes container's env, a compose or CI list: `- name: NAME` then `value: VALUE`
    r"|(?m:^[ \t]*-?[ \t]*name:[ \t]*[\"']?([A-Za-z_][\w.-]{0,80})[\"']?[ \t]*\r?\n"
    r"[ \t]*value:[ \t]*[\"']?([^\"'\n]{1,500}?)[\"']?[ \t]*$)"
)
_KEY_BODY = re.compile(r"[A-Za-z0-9+/]{40}")
# a shared (symmetric) key in armour: OpenVPN's static key (tls-auth, tls-crypt), a key
# labelled SECRET or SYMMETRIC; whoever holds it decrypts or forges what it protects
_SHARED_KEY_HEADER = re.compile(
    r"-{5}BEGIN (?:OpenVPN Static key V\d|[A-Z0-9]{1,12} (?:SECRET|SYMMETRIC) KEY)-{5}"
)
_SHARED_KEY_BODY = re.compile(r"[0-9a-fA-F]{32}|[A-Za-z0-9+/]{40}")
# a Caddyfile's basic_auth block: a user and its password on each line, which Caddy wants
# hashed (bcrypt, `$2a$...`, or that in base64, `JDJh...`): a plain one is a secret
_BASIC_AUTH_BLOCK = re.compile(
    r"(?im)^[ \t]*basic_?auth\b[^\n{]{0,200}\{[ \t]*\r?\n"
    r"((?:[ \t]*[^\s{}]{1,80}[ \t]+[^\s{}]{1,200}[ \t]*\r?\n){1,20})"
)

# a Kubernetes secret read and decoded, then its value printed on the next line
_DECODED_SECRET = (
    r"(?i)\bget\s+secrets?\b[^\n]{0,300}\|\s*base64\s+(?:-d|-D|--decode)\b[^\n]{0,100}\r?\n"
    r"[ \t]*([^\s]{8,200})[ \t]*(?:\r?\n|$)"
)


@cache
def _decoded_secret() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_DECODED_SECRET)


def decoded_secrets(text: str) -> Iterator[tuple[int, str]]:
    """The values printed below a command that reads a Kubernetes secret and decodes it:
    the secret itself, when it is a strong password and no placeholder."""
    if "base64" not in text or "secret" not in text.lower():
        return
    for match in _decoded_secret().finditer(text):
        value = match.group(1)
        if strong_password(value) and not is_placeholder(value):
            yield _line_at(text, match.start(1)), "decoded Kubernetes secret"


@cache
def _block_patterns() -> tuple[Any, Any, Any]:
    from serena_memory.core.secret_tokens import linear

    return linear(_PEM_HEADER), linear(_PUTTY_PRIVATE), linear(_KEY_THEN_VALUE)


def blocks(text: str) -> Iterator[tuple[int, str]]:
    """(line, kind) of the secrets that span lines: a private key (its header, when key
    material follows it: a header named in prose is none), a PuTTY key's private lines, a
    secret's name and value in two JSON fields, two-factor recovery codes."""
    if "odes" in text:  # (most texts hold no codes: the pattern is not run)
        yield from ((line, "two-factor recovery codes") for line in recovery_codes(text))
    yield from decoded_secrets(text)
    if "asic" in text and "{" in text:
        yield from _basic_auth_blocks(text)
    if "-----BEGIN" in text:
        yield from _shared_keys(text)
    pairs = '"key"' in text or "ame" in text
    if "PRIVATE" not in text and "Private-Lines" not in text and not pairs:
        return  # (most texts hold none: the patterns are not run)
    pem, putty, key_value = _block_patterns()
    yield from _private_keys(text, pem)
    for match in putty.finditer(text):
        if _usable(text, match.start(), match.end()):
            yield _line_at(text, match.start()), "PuTTY private key"
    if pairs:
        yield from _named_pairs(text, key_value)


def _line_at(text: str, at: int) -> int:
    """The line (from 1) of ``text`` that holds the character at ``at``."""
    return text.count("\n", 0, at) + 1


def _private_keys(text: str, pem: Any) -> Iterator[tuple[int, str]]:
    """The PEM headers followed by key material (escaped newlines read as newlines, as a
    key pasted into JSON holds them): a header named in prose is no key."""
    for match in pem.finditer(text):
        body = text[match.end() : match.end() + 400].replace("\\n", "\n")
        if _KEY_BODY.search(body) and _usable(text, match.start(), match.end()):
            yield _line_at(text, match.start()), "Private Key"


def _usable(text: str, start: int, end: int) -> bool:
    """Whether the private key at ``start:end`` opens something as written: kept in the
    clear, or encrypted with its passphrase given in the same text."""
    return not encrypted_key(text, start, end) or passphrase_given(text)


def _shared_keys(text: str) -> Iterator[tuple[int, str]]:
    """The armoured shared keys followed by key material (a header named in prose is none)."""
    for match in _SHARED_KEY_HEADER.finditer(text):
        if _SHARED_KEY_BODY.search(text, match.end(), match.end() + 200):
            yield _line_at(text, match.start()), "shared key"


def _named_pairs(text: str, key_value: Any) -> Iterator[tuple[int, str]]:
    """A secret's name and its literal value in two fields (a Postman export's ``key`` and
    ``value``, a container's ``name:`` then ``value:``), found on the value's line."""
    for match in key_value.finditer(text):
        json_pair = match.group(2) is not None  # else the YAML form's groups (3, 4)
        name = match.group(1) or match.group(3)
        value = match.group(2) or match.group(4)
        if secret_name(name) and literal_value(name, value, quoted=True):
            at = match.start(2) if json_pair else match.start(4)
            yield _line_at(text, at), "value assigned to " + name


def _basic_auth_blocks(text: str) -> Iterator[tuple[int, str]]:
    """The lines of a Caddyfile's ``basic_auth`` block that give a user a plain password
    (a hash, as Caddy wants it, is none)."""
    for match in _BASIC_AUTH_BLOCK.finditer(text):
        first = _line_at(text, match.start(1))
        for offset, entry in enumerate(match.group(1).splitlines()):
            value = entry.split()[-1]
            if value.startswith(("$2", "JDJ", "$argon")) or is_placeholder(value):
                continue
            if strong_password(value) or literal_value("password", value, quoted=True):
                yield first + offset, "password in a basic_auth block"
