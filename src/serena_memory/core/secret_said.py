"""Secrets as people say them (for core/secrets.py): a password or token in a sentence,
after the word that names it ("the admin password is now `...`", "pw `...`"), a login
given as ``user / password`` or ``user:password`` after the word login or creds, and a
password in a Markdown table (in a column headed Password, or beside a host and a user).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from serena_memory.core.secret_drawn import derived_name
from serena_memory.core.secret_naming import DATA_KEY_WORDS, secret_name
from serena_memory.core.secret_public import public_context, remarked_public
from serena_memory.core.secret_values import (
    entropy,
    human_password,
    literal_secret,
    literal_value,
    passphrase,
    public_value,
    quoted_secret,
    strong_password,
)

# a value quoted after a secret's word, with what stands between them:
# "the admin password is now `VALUE`", "client secret `VALUE`"
_PROSE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(password|passphrase|passwd|secret|token|api[ _-]?key)(?![A-Za-z0-9])"
    r"([^`'\"\n]{0,40}?)"
    r"(?<![^\s:=(])[`'\"]([^\s`'\"]{10,})[`'\"](?!\w)"
)
# a mail address: the user a password belongs to
_MAIL_ADDRESS = re.compile(r"[\w.+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,4}", re.I)
# nothing but a verb or a colon between the word and a hex value or a UUID: a secret's own value
# ("client secret `HEX`"), where "the token's sha256 is `HEX`" names a hash
_RIGHT_AFTER = re.compile(r"\s*(?:is|was|[:=])?\s*")
_HEX_SECRET = re.compile(r"[0-9a-f]{32,128}")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_SHORT_HEX = re.compile(r"[0-9a-f]{16,31}")
# a password said in a sentence, unquoted: "the passphrase is WORDS-AND-DIGITS", "user
# admin, pass VALUE", "WPA2 key VALUE", "reset the password to VALUE"
_SAID_PASSWORD = (
    r"(?i)\b(password|passphrase|passwd|pass|pwd|pw|psk|wpa2?[ -](?:key|passphrase)"
    r"|wi-?fi (?:key|password))\b(?:\s+(is|was|=|is now|now is|set to|reset to|to))?"
    r"(?:\s*[*_]{0,2}[:=][*_]{0,2}\s*|[*_]{0,2}\s+)[`'\"]?([^\s`'\"]{8,80})(?:$|[\s`'\"])"
)
# "to" says a value only after a verb that sets one: "reset the password to VALUE", never
# "add the password to VAULT-NAME"
_SETTING_VERB = re.compile(r"(?i)\b(?:re)?set\b|\bchang|\brotat|\bupdat")
# a login given after the word that says it: "login is USER / VALUE", "creds: USER:VALUE"
_LOGIN = (
    r"(?i)\b(?:log[ -]?in|logon|sign[ -]?in|creds|credentials|basic[ -]?auth)\b"
    r"[^\n]{0,60}?(?:^|[\s`'\"(])"
    r"([\w.@+-]{2,64})[`'\"]?(?:\s+/\s+|:| : )[`'\"]?([^\s`'\"]{8,80})"
)


def quoted_value(line: str) -> str | None:
    """The kind of a value quoted after a secret's word, when it is one."""
    for match in _PROSE.finditer(line):
        word, between, value = match.groups()
        before = line[max(0, match.start() - 30) : match.start()]
        if no_credential(line, match.start()) or HASH_OF.search(before + between):
            continue
        if re.search(r"(?i)\b(?:names?|ids?)\b|e\.g\.|\bexample|such as|\blike\b", between):
            continue  # "the secret name is `db-creds`": what names the secret; an example
        if derived_name(value):
            continue  # a pod's or a job's name: rotate-secrets-cronjob-HASH
        if public_value(value):
            continue  # a published example: Stripe's documentation key
        if _PUBLIC_BEFORE.search(line, max(0, match.start() - 20), match.start()):
            continue  # "the public token `...`": public by its word
        if public_context(line, match.start(3)) or remarked_public(line, match.end()):
            continue  # "the client-side token `...`", "`...` (safe for the browser)"
        if _MAIL_ADDRESS.fullmatch(value):
            continue  # the account's address (a SQL row's email column), never its password
        if quoted_secret(word, value) or _hex_secret(word, between, value):
            return f"{word.lower()} in quotes"
    return None


def _hex_secret(word: str, between: str, value: str) -> bool:
    return (
        word.lower() in ("secret", "token", "api key", "api_key", "api-key", "apikey")
        and _RIGHT_AFTER.fullmatch(between) is not None
        and (_HEX_SECRET.fullmatch(value) or _UUID.fullmatch(value)) is not None
        and entropy(value) >= 3.0
    )


# a secret said a few words after its word: "the VPN shared secret is VALUE", "Jenkins
# password changed to VALUE", "api key for the geocoder: VALUE", "password auth — it's VALUE"
_SAID_AFTER = (
    r"(?i)\b(password|passphrase|passwd|pass|pwd|pw|secret|token|api[ _-]?key"
    # an SNMP community string: a device's password
    r"|(?:totp|otp|mfa|2fa) seed|snmp[ -]?(?:v[123]c? )?community|community[ -]string)"
    # the words between, and an aside in parentheses: "root password (console only): VALUE"
    r"\b([^\n\"{}=]{0,40}?(?:\([^\n()]{1,80}\))?)(?:\s(is|was|to|are|it's|it’s)(?:\s+now)?\s*:?|:|\s(?:->|=>|→))"
    r"[*_]{0,2}\s+[`'\"]?"
    r"([^\s`'\"]{8,100})(?:$|[\s`'\"])"
)
# words between that say the value is something else than the secret (its hash, its id...)
# or an example of its shape (a generator makes them like ...)
_SOMETHING_ELSE = re.compile(
    r"(?i)hash|\bsha-?\d*\b|\bmd5\b|digest|checksum|fingerprint|\bid\b|name|format|prefix"
    r"|header|length|'s\b|\bjti\b|claim|accessor"
    r"|file|path|url|endpoint|expir|ttl|scope|type|policy|rotat|stored|kept|\bread\b(?!/)|set in"
    r"|generat|example|e\.g\.|such as|like|look|version|revision|serial|\bcount|number"
)
# what a value named after a secret is when the words before say so: "sha256 of the token:",
# "accessor of my token" (Vault's, which looks a token up and logs in nowhere)
HASH_OF = re.compile(r"(?i)hash|\bsha-?\d*\b|\bmd5\b|digest|checksum|fingerprint|accessor")
_PUBLIC = re.compile(r"(?i)public|publishable|anon\b|client-side|front-?end (?:token|key)")
_PASSWORD_HINTS = ("pass", "pw", "psk", "wpa", "wi-fi", "wifi")
_PASSWORD_WORDS = ("password", "passphrase", "passwd", "pass", "pwd", "pw")


@cache
def _sentences() -> tuple[Any, Any, Any]:
    """The sentences' patterns under RE2: time linear in the line's length."""
    from serena_memory.core.secret_tokens import linear

    return linear(_SAID_PASSWORD), linear(_SAID_AFTER), linear(_VALUE_FIRST)


# a sentence's or a field's end, then a capitalised label: what the value after it is
_NEW_LABEL = re.compile(r"[.;|]\s+[A-Z][\w-]*\s*$")


def said_secret(line: str) -> str | None:
    """The kind of a password or a random token said a few words after its word."""
    for match in _sentences()[1].finditer(line):
        word, between, connector, value = match.groups()
        if _hyphenated(match):
            continue
        before = line[max(0, match.start() - 30) : match.start()]
        if _SOMETHING_ELSE.search(between) or _PUBLIC.search(before + between):
            continue
        if public_context(line, match.end(2)):
            continue  # "frontend token (meant for browsers): VALUE"
        if _NEW_LABEL.search(between):
            continue  # "Token: see Vault. Org: VALUE": the value's own label
        if HASH_OF.search(before) or no_credential(line, match.start()):
            continue
        if connector and connector.lower() == "to" and not _SETTING_VERB.search(line):
            continue
        value = value.rstrip(".,;:)")
        password = word.lower() in _PASSWORD_WORDS or "community" in word.lower()
        if human_password(value) if password else random_token(value, named=True):
            return f"{word.lower()} in a sentence"
    return None


# tokens that are no credential, named by the word before: a CSRF token, an OAuth state or
# nonce, a PKCE verifier, a page's cursor
_NO_CREDENTIAL = re.compile(
    r"(?i)\b(?:csrf|xsrf|anti-?forgery|state|nonce|pkce|verifier|challenge|page|pagination"
    r"|cursor|continuation|next|sync|request"
    # said to be no secret: "Account SID (not secret by itself)"
    r"|\bnot(?: a)?)[\s_-]*$"
)


def no_credential(line: str, at: int) -> bool:
    """Whether the secret's word at ``at`` names a token that is no credential."""
    return _NO_CREDENTIAL.search(line, max(0, at - 30), at) is not None


# a key or token's value right after its words, with a colon or none: "pre-shared key
# `VALUE`", "API token VALUE", "private key 0xHEX"
_KEY_SAID = (
    r"(?i)\b(api[ _-]?(?:key|token)|access[ _-]token|auth[ _-]token"
    r"|(?:private|pre-?shared|shared|secret|signing|master|encryption|hmac|unseal|recovery"
    r"|integration)[ _-]key|(?:totp|otp|mfa|2fa)[ _-](?:seed|secret)"
    # an app's secret beside its id: "client secret VALUE", "client id ID, secret VALUE"
    r"|(?:client|app|application|consumer|webhook|signing|shared|hmac)[ _-]secret|secret)\b[`'\"]?"
    r"\s*(?:(?:is|was|=|:)\s*)?[`'\"]?(?:0x)?([A-Za-z0-9_+/=.~-]{16,200})(?:$|[\s`'\",;)])"
)


@cache
def _key_said() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_KEY_SAID)


def key_said(line: str) -> str | None:
    """The kind of a random key or token right after the words that name it."""
    for match in _key_said().finditer(line):
        before = line[max(0, match.start() - 30) : match.start()]
        if _hyphenated(match) or HASH_OF.search(before) or _PUBLIC.search(before):
            continue
        if no_credential(line, match.start()) or public_context(line, match.start(2)):
            continue
        if remarked_public(line, match.end(2)) and not _ANOTHER_KEY.search(line, match.end(2)):
            continue  # "API key `...` in `Bugsnag.start()` (public in the bundle)"
        value = match.group(2).rstrip(".,;:)")
        if value.startswith((".", "-")):
            continue  # the name goes on: secret.key=..., secret-key-ref
        if match.group(1).lower() == "secret" and not generated(value):
            continue  # the word alone names much else: a Secret's name, a path
        if random_token(value):
            return f"{match.group(1).lower()} in a sentence"
    return None


# the word right before a secret's word that says it is public ("the public token")
_PUBLIC_BEFORE = re.compile(r"(?i)\b(?:public|publishable|anon)[\s_-]+$")
# a remark after a key that names a key again is about another one ("the search key is
# in the frontend config"), not the one it follows
_ANOTHER_KEY = re.compile(r"(?i)\b(?:keys?|tokens?|secrets?)\b")


def generated(value: str) -> bool:
    """Whether ``value`` mixes capitals, small letters and digits over 20 characters or
    more, as a generated token does and no name or path of words does."""
    return (
        len(value) >= 20
        and all(re.search(pattern, value) for pattern in ("[a-z]", "[A-Z]", r"\d"))
        and "/" not in value
    )


def _hyphenated(match: Any) -> bool:
    """Whether the word the match starts with is joined to another by a hyphen."""
    start, end = match.span(1)
    line = match.string
    return line[start - 1 : start] == "-" or line[end : end + 1] == "-"


def random_token(value: str, *, named: bool = False) -> bool:
    """A token's value: long, varied, letters and digits (or 32 hex digits and more); a
    UUID only when the words ``named`` it a token (Heroku's and Postmark's are UUIDs)."""
    if public_value(value) or (_UUID.fullmatch(value) and not named):
        return False  # public, or an identifier
    if _UUID.fullmatch(value):
        return entropy(value) >= 3.0
    if _HEX_SECRET.fullmatch(value):
        return entropy(value) >= 3.0
    if _SHORT_HEX.fullmatch(value):
        return False  # fewer than 32 hex digits: a commit's or an object's short id
    return (
        len(value) >= 16
        and literal_secret(value)
        and re.search(r"\d", value) is not None
        and re.search(r"[A-Za-z]", value) is not None
        and entropy(value) >= 3.5
    )


# a password quoted before the words that say what it is: "use `VALUE` as the keystore
# password"
_VALUE_FIRST = (
    r"(?i)(?:[`'\"]([^\s`'\"]{8,80})[`'\"]\s+(?:as|is|was)\s+(?:the|our|my|your|a|an)?\s*"
    # or unquoted, first on its line: "VALUE is the password for the build VM"
    r"|^\s*([^\s`'\"]{8,80})\s+(?:is|was)\s+(?:the|our|my|your|a|an)\s+)"
    r"(?:[\w-]+\s+){0,3}?(?:password|passphrase|passwd|pwd)\b"
)


# a random token quoted, then the words that say it is a key, a secret or a token: "`x =
# "VALUE"` — that's the HMAC key the verifier uses" (a vague name, the prose names it)
_TOKEN_FIRST = re.compile(
    r"(?i)[`'\"]([A-Za-z0-9+/=_.-]{24,200})[`'\"]{1,3}[ \t]*(?:[—–-][ \t]*|[,:][ \t]*)?"
    r"(?:that's|that is|it's|it is|is|was|as)\s+(?:the|our|my|a|an)\s+((?:[\w-]+\s+){0,3}?)"
    r"(?:key|secret|token)s?\b(?!\s+(?:id|name|hash|fingerprint|format|prefix)\b)"
)


def token_named_after(line: str) -> str | None:
    """The kind of a random token quoted before the words that name it a key, a secret or
    a token (none when those words say it is something else: a hash, a public key)."""
    for match in _TOKEN_FIRST.finditer(line):
        between = match.group(2)
        if _SOMETHING_ELSE.search(between) or _PUBLIC.search(between):
            continue
        if DATA_KEY_WORDS.intersection(between.lower().split()):
            continue  # a partition's, a cache's key: a record's, no secret
        if random_token(match.group(1)):
            return "key in a sentence"
    return None


def said_password(line: str) -> str | None:
    """The kind of a strong password said after a password's word, unquoted, or quoted
    before the words that say it is one."""
    if not any(map(line.lower().__contains__, _PASSWORD_HINTS)):
        return None  # no password's word: most lines
    said, _, value_first = _sentences()
    for match in said.finditer(line):
        word, connector, value = match.groups()
        to = connector is not None and connector.lower() == "to"
        if _hyphenated(match):
            continue  # part of a name: base-passwd, pass-through
        if to and not _SETTING_VERB.search(line, 0, match.start()):
            continue
        if _ARGUMENT.fullmatch(value.strip("`'\"")):
            continue  # "pass `verified=False`": an argument given
        if strong_password(value) or (_said_to_be(line, match, word) and human_password(value)):
            return "password in a sentence"
    if any(
        strong_password(match.group(1) or match.group(2)) for match in value_first.finditer(line)
    ):
        return "password in a sentence"
    return None


# code quoted in a cell: an argument given a string, a call (issue_id="ISSUE-123"), a
# script's name (Invoke-PesterTests.ps1)
_CODE = re.compile(r"\w=[\"'(]|\w\(|^[A-Za-z][\w-]*\.[a-z]{1,4}\d?$")
_ARGUMENT = re.compile(r"[a-z_]\w*=\w+")
# a user named before: "user ADMIN pass VALUE"
_USER_BEFORE = re.compile(r"(?i)\b(?:user(?:name)?|login|account)\b")


def _said_to_be(line: str, match: Any, word: str) -> bool:
    """Whether the words around a value say it is a password, not only a word that may be
    a verb (``pass``): a password's whole word, a colon or ``is``, or a user named before."""
    return (
        word.lower() in ("password", "passphrase", "passwd", "pwd")
        or match.group(2) is not None
        or ":" in line[match.end(1) : match.start(3)]
        or _USER_BEFORE.search(line, 0, match.start()) is not None
    )


# a user and a password, each quoted as code: `breakglass` / `VALUE`
_QUOTED_LOGIN = re.compile(r"`[\w.@+-]{2,64}`\s+(?:/|and)\s+`([^\s`]{8,80})`")
# a device's or a server's administrator, then its password: "admin / VALUE", "root:VALUE"
_ADMIN_LOGIN = re.compile(
    r"(?i)(?<![\w.@/-])(?:admin|administrator|root|superuser|sa|ubuntu|pi|ec2-user)"
    r"(\s+/\s+|/|:|\s+with\s+)[`'\"]?([^\s`'\"/:=]{8,80})"
)
_ADMIN_WORDS = ("admin", "root", "superuser", "sa:", "sa /", "ubuntu", "pi:", "pi /", "ec2-user")


def _admin_login(line: str) -> bool:
    """An administrator's password after its name: a password a person set after a slash
    (``admin / VALUE``), a strong one after a colon or a slash alone (``admin/VALUE``), a
    generated one after "with"."""
    for match in _ADMIN_LOGIN.finditer(line):
        if line[match.end() : match.end() + 1] == "=":
            continue  # a name given its own value (admin / ADMIN_PASSWORD=...): not this rule's
        separator, value = match.group(1).strip().lower(), match.group(2)
        if match.group(1) == "/":  # admin/VALUE, no spaces: a path's look, a strong one only
            separator = ":"
        judge = {"/": human_password, ":": strong_password}.get(separator, all_classes)
        if judge(value):
            return True
    return False


_LOGIN_WORDS = ("login", "log in", "log-in", "logon", "sign", "cred", "basic")


@cache
def _login() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_LOGIN)


def assigned_said(line: str, lower: str) -> str | None:
    """The kind of a secret said as a login, a row of a table with no heading known, or
    under a password's label on ``line``: what a line is asked of this module, in one call
    (``lower``: the line in small letters)."""
    return login_pair(line, lower) or table_row(line, {}) or labelled_password(line)


def login_pair(line: str, lower: str) -> str | None:
    """The kind of a user and a password given together: after an administrator's name,
    quoted as code, or after login or creds (``lower``: the line in lower case, for quick
    tests that most lines fail)."""
    if ":" not in line and "/" not in line and " with " not in line and "` and" not in line:
        return None  # no separator a login holds: most lines
    if any(map(lower.__contains__, _ADMIN_WORDS)) and _admin_login(line):
        return "login in a sentence"
    if ("` /" in line or "` and" in line) and _quoted_login(line):
        return "login in a sentence"
    if ":" not in line and " / " not in line:
        return None
    if any(map(lower.__contains__, _LOGIN_WORDS)) and _login_after_word(line):
        return "login in a sentence"
    return None


def _quoted_login(line: str) -> bool:
    """A user and a generated password or a passphrase, each quoted as code."""
    quoted = _QUOTED_LOGIN.search(line)
    return quoted is not None and (all_classes(quoted.group(1)) or passphrase(quoted.group(1)))


def _login_after_word(line: str) -> bool:
    """A user and a password after login, sign-in or creds (a URL is none)."""
    for match in _login().finditer(line):
        user, value = match.groups()
        if value.startswith("/") or user.lower() in ("http", "https", "ssh", "ftp", "sftp"):
            continue  # a URL, not a login
        if human_password(value):
            return True
    return False


# a value after a label's colon, a slash or a dash: "MySQL root: VALUE", "Wifi: NAME /
# VALUE", "Router admin pwd - VALUE"
_LABELLED = r"(?:[:/—–-])\s+([^\s`'\"]{10,40})(?:$|[\s),;])"
# what a generated password holds that names, versions and paths do not (`@` is in a
# pinned task's or action's name, SonarCloudPrepare@1; `+` in a licence's, LGPLv3+)
_PASSWORD_SYMBOLS = "!#$%^&*~?@"
# letters of both cases mixed inside a run, as a generator draws them (yurlG, WREhb), where
# a composite key's words are in one case each (ORDER#2024-06-01#8f3e2a1c)
_MIXED_CASE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
# (nor a mail address, nor a task's version after `@`)
_NOT_IN_PASSWORD = re.compile(
    r"[/:=(){}\[\]<>\\]|^\$|@[\w-]+\.[A-Za-z]{2,}|@v?\d[\d.]*$"
    r"|@[A-Za-z][a-z]+$"  # a symbol's version, a package's tag: LZ4F_freeCDict@Base
)


@cache
def _labelled() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_LABELLED)


def labelled_password(line: str) -> str | None:
    """The kind of a generated password after a label: capitals and small letters mixed,
    digits and a symbol such as ``!`` or ``%``, which names, versions, keys and paths never
    all hold."""
    if not any(map(line.__contains__, _PASSWORD_SYMBOLS)):
        return None
    for match in _labelled().finditer(line):
        value = match.group(1).rstrip(".,;")
        if _NOT_IN_PASSWORD.search(value) or not any(map(value.__contains__, _PASSWORD_SYMBOLS)):
            continue
        if all_classes(value) and _MIXED_CASE.search(value) and entropy(value) >= 3.0:
            return "password after a label"
    return None


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
# a cell that is a login: `user / VALUE`
_LOGIN_CELL = re.compile(r"([\w.@+-]{2,64})\s+/\s+(\S{8,80})")
_USER_CELL = re.compile(r"[A-Za-z][\w.@-]{1,40}")
_HOST_CELL = re.compile(r"://|^[\w-]+(?:\.[\w-]+)+(?::\d+)?$")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def table_columns(line: str, following: str, columns: dict[int, str]) -> dict[int, str]:
    """The columns of the Markdown table ``line`` belongs to whose header names a secret
    (Password, API token: "secret") or a key alone ("key": an API key when its values are
    random tokens, a keybinding or a cache key when not), kept over its rows; a header is
    the line above the rule."""
    if not line.lstrip().startswith("|"):
        return {}
    if _TABLE_RULE.match(following):
        headers = enumerate(_cells(line))
        return {i: kind for i, cell in headers if (kind := _header_kind(cell))}
    return columns


def _header_kind(cell: str) -> str:
    name = cell.strip("`* ").replace(" ", "_")
    if secret_name(name):
        return "secret"
    return "key" if name.lower() in ("key", "keys") else ""


def table_row(line: str, columns: dict[int, str]) -> str | None:
    """A password in a Markdown table's row: in a column headed Password (or Secret,
    Token...), quoted in any cell and strong (letters, digits and symbols), a cell
    ``user / VALUE``, or a random value right after a user, past a host."""
    if not line.lstrip().startswith("|") or _TABLE_RULE.match(line):
        return None
    cells = _cells(line)
    if any(_cell_secret(i, cells, columns) for i in range(len(cells))):
        return "password in a table"
    return None


def _cell_secret(i: int, cells: list[str], columns: dict[int, str]) -> bool:
    cell = cells[i]
    value = cell.strip("`")
    login = _LOGIN_CELL.fullmatch(value)
    if login is not None:
        return strong_password(login.group(2))
    if " " in value:
        return False
    if _column_secret(columns.get(i), value):
        return True
    name = cells[i - 1].strip("`") if i else ""
    if name and secret_name(name) and literal_value(name, value, quoted=True):
        return True  # a table of names and values: | API_KEY | VALUE |
    if cell.startswith("`") and len(value) >= 12 and all_classes(value):
        return _CODE.search(value) is None
    return i >= 2 and _after_host_and_user(cells[:i]) and _random(value)


def _column_secret(header: str | None, value: str) -> bool:
    """Whether ``value`` is a secret in a column headed by a secret's name (a password may
    be words and digits) or by Key (a random token, never a keybinding)."""
    if header == "secret":
        return human_password(value) or literal_value("password", value)
    return header == "key" and random_token(value)


def _after_host_and_user(before: list[str]) -> bool:
    return _USER_CELL.fullmatch(before[-1].strip("`")) is not None and any(
        _HOST_CELL.search(cell.strip("`")) for cell in before[:-1]
    )


def _random(value: str) -> bool:
    return len(value) >= 12 and strong_password(value, quoted=True) and entropy(value) >= 3.5


def all_classes(value: str) -> bool:
    return strong_password(value) and all(
        re.search(pattern, value) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w\s]")
    )


# a label that names a secret and ends the line, then the value alone at the start of the
# next one: "Azure DevOps PAT for the feed:" then "`VALUE`"
_LABEL_ABOVE = re.compile(
    r"(?i)\b(password|passphrase|passwd|token|pat|secret|client[ _-]secret|api[ _-]?key"
    r"|(?:secret|private|access|signing|encryption)[ _-]key)\b([^\n]{0,80}):[*_]{0,2}\s*$"
)
_FAKE = re.compile(r"(?i)\bfake\b|fixture|dummy|mock|placeholder|not (?:a )?real")
_VALUE_BELOW = re.compile(r"\s*(?:[-*>]\s+)?[`'\"]?([^\s`'\"]{8,200})[`'\"]?(?:\s|$)")


# how a label's line ends: its colon, or the emphasis or spaces after it (the scan passes
# only the lines below those)
LABEL_ENDS = frozenset(":*_ ")


def value_below(label: str, line: str) -> str | None:
    """The kind of a secret alone at the start of ``line`` when ``label``, the line above,
    names it and ends with a colon."""
    if not label.rstrip(" *_").endswith(":"):
        return None  # most lines
    named, value = _LABEL_ABOVE.search(label), _VALUE_BELOW.match(line)
    if named is None or value is None:
        return None
    word, between = named.group(1).lower(), re.sub(r"\([^)]*\)", "", named.group(2))
    before = label[max(0, named.start() - 30) : named.start()]
    if (
        _SOMETHING_ELSE.search(between)
        or _PUBLIC.search(before + between)
        or HASH_OF.search(before)
    ):
        return None
    if _FAKE.search(label):
        return None  # a fixture (fake, generated by make fixtures)
    secret = value.group(1).rstrip(".,;")
    if human_password(secret) if word in _PASSWORD_WORDS else random_token(secret, named=True):
        return f"{word} below its label"
    return None
