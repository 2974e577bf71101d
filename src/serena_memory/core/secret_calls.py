"""A password given to a call in code (for core/secrets.py): a function whose name says it
logs in, authenticates or opens a connection (``smtp.login``, ``smtp.PlainAuth``,
``DriverManager.getConnection``, ``new PDO``, ``new NetworkCredential``, ``basic_auth``)
called with string literals, one of them after the first a user's password. The first
literal is a host, a DSN or a user, never the password, so it is not judged."""

from __future__ import annotations

import re

from serena_memory.core.secret_code import unwrapped
from serena_memory.core.secret_drawn import random_looking
from serena_memory.core.secret_values import human_password

# the words a line must hold (in lower case) before its calls are read: a call's name's
# end and its parenthesis (most lines of code call none)
CALL_WORDS: tuple[str, ...] = ("login(", "auth(", "connect", "credential(", "pdo(")
# (or two literals in a row, as a client's constructor takes a host, a user, a password,
# or a test fills a form's password field: `.fill('#password', VALUE)`)
CALL_WORDS += ('", "', "', '", "password")
# a call: a dotted name then its opening parenthesis (the name judged apart, not here)
_CALL = re.compile(r"\b([A-Za-z_][\w.:]{0,80})\s*\(")
# a name says it logs in or connects when it holds one of these (any case, any joiner)
_NAME_WORDS = re.compile(r"(?i)login|logon|signin|sign_in|auth|connect|credential|^(?:new\s+)?pdo$")
# a string literal, in double or single quotes, in the text after the call
_LITERAL = re.compile(r"\"([^\"\n]{0,200})\"|'([^'\n]{0,200})'")
# a literal that is a DSN, a URL or a setting, not a password
_NOT_A_PASSWORD = re.compile(r"://|=|\s|^\$\{|^%\(|^\{")


def call_password(line: str) -> bool:
    """Whether ``line`` calls a login's or a connection's function with a password among
    its string literals after the first, a client's constructor with a host, a user and a
    password, or fills a form's password field with one."""
    for call in _CALL.finditer(line):
        name = call.group(1).rsplit(".", 1)[-1].rsplit(":", 1)[-1]
        literals = [a or b for a, b in _LITERAL.findall(line[call.end() : call.end() + 300])]
        if _NAME_WORDS.search(name) is not None:
            candidates = literals[1:]
        elif _HOST.fullmatch(literals[0] if literals else "") and _login_after_host(literals):
            candidates = literals[2:3]
        elif literals and _PASSWORD_FIELD.search(literals[0]):
            candidates = literals[1:2]
        else:
            continue
        if any(_password(value) for value in candidates):
            return True
    return False


# a host: an address, or a name with a dot (db-prod-01.internal.acme.io, mysql.svc.local)
_HOST = re.compile(
    r"(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,8})(?::\d+)?"
)
# a user's name: a word (admin, app_rw, svc-billing)
_USER = re.compile(r"[a-z][\w.-]{0,31}")
# a form's password field, named as a test selects it: '#password', 'input[name=password]'
_PASSWORD_FIELD = re.compile(r"(?i)^(?:#|\[|input|\.)[^\n]{0,40}pass(?:word|wd)?\b")


# a call whose name says it takes a key, a secret or a token (Account.from_key,
# setApiKey, new SecretKeySpec, with_token): a literal given to it is that secret
_KEYED_NAME = re.compile(
    r"(?i)(?:key|secret|token)(?:spec)?$|^(?:from|with|set|use)_?(?:key|secret|token)"
    r"|^bearer_?auth$"  # an HTTP client's bearer credential: reqwest's .bearer_auth("...")
)
# ...or a cipher's or a MAC's constructor, whose first argument is its key: Fernet(b"..."),
# AES.new(b"..."), hmac.new(b"..."), HmacSha256::new_from_slice(b"...")
_CIPHER = re.compile(r"(?i)(?:^|[.:])(?:fernet|aes|hmac\w*|chacha\w*|secretbox|aesgcm)(?:[.:]|$)")
# the words a line must hold before such calls are read
KEYED_CALL_WORDS: tuple[str, ...] = ("key(", "secret(", "token(", "keyspec(", "fernet(", "aes")
KEYED_CALL_WORDS += ("hmac", "hex", "bearer_auth(", "bearerauth(")
# a string literal right after a call's parenthesis (a bytes literal's prefix before it)
_FIRST_LITERAL = re.compile(r"\s*[bBrRuU]?(?:\"([^\"\n]{0,200})\"|'([^'\n]{0,200})')")
# a key's length in hex (16, 24 or 32 bytes) decoded to bytes under a key's or a secret's
# name: key = bytes.fromhex("..."), hex.DecodeString("..."), unhexlify("...")
_HEX_DECODED_KEY = re.compile(
    r"(?i)(?:key|secret)\w{0,20}\s*:?=\s*(?:bytes\.fromhex|hex\.DecodeString|\w{0,12}\.?unhexlify)"
    r"\(\s*[\"']((?:[0-9a-f]{16}){2,4})[\"']"
)
# a private key in hex, as wallets and signers take it (0x and 64 hex digits)
_HEX_KEY = re.compile(r"(?:0x)?[0-9a-fA-F]{64}")


def keyed_call(line: str) -> bool:
    """Whether ``line`` gives a call that takes a key, a secret or a token a literal
    drawn at random (or a private key in hex) as its first argument; a name to look one
    up by (``get_secret("db-password")``) is none."""
    if _HEX_DECODED_KEY.search(line):
        return True
    line = unwrapped(line).replace("bytes.fromhex(", "")  # (its literal is the key)
    for call in _CALL.finditer(line):
        name = call.group(1).rsplit(".", 1)[-1].rsplit(":", 1)[-1]
        if _hmac_keyed(line, call, name):
            return True  # an HMAC's key, wherever its arguments put it
        cipher = _CIPHER.search(":" + call.group(1)) is not None
        if not cipher and _KEYED_NAME.search(name) is None:
            continue
        if name.lower().startswith(("get", "read", "load")):
            continue
        first = _FIRST_LITERAL.match(line, call.end())
        value = (first.group(1) or first.group(2)) if first else ""
        if _HEX_KEY.fullmatch(value) or (value and random_looking(value)):
            return True
    return False


# an HMAC's function, whose key may come after the hash's name (createHmac('sha256', KEY),
# hash_hmac('sha256', $data, KEY), hmac.New(sha256.New, []byte(KEY)))
_HMAC = re.compile(r"(?i)hmac")


def _hmac_keyed(line: str, call: re.Match[str], name: str) -> bool:
    """Whether ``call`` is an HMAC's (not a comparison of digests) and a literal drawn at
    random stands among its own arguments."""
    if not _HMAC.search(line, max(0, call.start() - 20), call.end()):
        return False
    if name.lower().startswith(("compare", "verify", "equal", "hexdigest", "digest")):
        return False
    return _random_literal(_arguments(line, call.end()))


def _arguments(line: str, start: int) -> str:
    """The text of a call's arguments from ``start`` (after its parenthesis) to the
    parenthesis that closes it (300 characters at most)."""
    depth = 0
    for at in range(start, min(len(line), start + 300)):
        if line[at] == "(":
            depth += 1
        elif line[at] == ")":
            if depth == 0:
                return line[start:at]
            depth -= 1
    return line[start : start + 300]


def _random_literal(arguments: str) -> bool:
    """Whether a literal drawn at random (or a key in hex) stands among ``arguments``."""
    return any(
        _HEX_KEY.fullmatch(value) or random_looking(value)
        for value in (a or b for a, b in _LITERAL.findall(arguments))
    )


def _login_after_host(literals: list[str]) -> bool:
    """Whether a call given a host first gives a user's name second."""
    return len(literals) >= 3 and _USER.fullmatch(literals[1]) is not None


def _password(value: str) -> bool:
    return human_password(value) and _NOT_A_PASSWORD.search(value) is None
