"""Logins joined into a memory's name: people name a note after the account it is about
and paste the account's password after it (``hetzner-root-<password>``,
``vpn/kenji:<password>``, ``mysql-root-Silver-Saffron-43.txt``), or keep a provider's key
or their recovery codes in the name itself. core/secret_names.py reads a value after a
password's or a token's word; these are the shapes a reviewer reads with no such word:

* a strong password ending the name after a joint, ``:`` or ``=``: letters of both cases,
  a digit and a password's symbol (``!#$%^&*~?``), which no name's words hold;
* after ``=`` or ``:``, any password when the name before it says whose or what it is
  (``admin``, ``root``, ``pw``...);
* after an account's word (``admin``, ``root``, ``superuser``), capitalised words and a
  number (``White-Osprey-55``), as a generator makes a password; after a Wi-Fi's word,
  words and a number of any case (``black-fjord-80``);
* recovery codes after their words (``2fa-backup-codes-46249302-60107452``);
* 32 hex digits or more beside a token's or a signing key's word
  (``twilio-<hex>-authtoken``, ``jwt-signing-<hex>``), unless a hash's word names them;
  a one-time password's base32 seed after its words (``mfa-seed-<base32>``);
* a login pasted as a URL's part without its scheme (``postgres:<password>@pg-main``).
"""

from __future__ import annotations

import re

from serena_memory.core.secret_values import human_password, is_placeholder, strong_password

_KIND = "password in a memory's name"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# a name of one word: no blank, quote or bracket (code and prose are read elsewhere)
_ONE_WORD = re.compile(r"[^\s\"'`,;(){}<>\[\]|\\]{8,200}")
# where a value may start in a name: after a joint, a user's colon or an assignment's `=`
_START = re.compile(r"[-_./:=@]")
# a symbol a password holds and no name, base64 or mark does (not `+`, `=`, `:`, `@`)
_SYMBOLS = re.compile(r"[!#$%^&*~?]")
# a password hash in crypt's form ($apr1$salt$hash), which holds `$` and mixed cases
_CRYPT = re.compile(r"\$[\w.]{1,12}\$")
# the words that say whose the password after `=` or `:` is
_ACCOUNT_WORDS = _words(
    """
    admin administrator root superuser su sa sysadmin pw pwd pass passwd password login
    creds user wifi wlan vpn
    """
)
# capitalised words and a number that is no year (White-Osprey-55, Silver-Saffron-43)
_CAPITALISED_AND_NUMBER = re.compile(
    r"[A-Z][a-z]{2,12}(?:[-_.]?[A-Z][a-z]{2,12})+[-_.]?(?!(?:19|20)\d\d(?!\d))\d{2,4}[!?#*]?"
)
# words and a number that is no year (black-fjord-80): a Wi-Fi's key as people set it
_WORDS_AND_NUMBER = re.compile(r"[a-z]{3,12}(?:[-_][a-z]{3,12})+[-_](?!(?:19|20)\d\d)\d{2,4}")
# the accounts a generated password is set for, and the Wi-Fi's words
_ACCOUNTS = _words("admin administrator root superuser sysadmin sa")
_WIFI = _words("wifi wlan wi-fi ssid")
# what such words may be instead: a note's subject (Release-Notes-12, Sprint-Review-42)
_ABOUT = _words(
    """
    notes note review plan guide setup sprint release version part step page chapter
    section test tests issue ticket meeting floor room building channel band
    """
)
# a setting's name in capitals given a value (DB_PASSWORD_CIPHERTEXT=..., GSI1SK=USER#...)
_SETTING = re.compile(r"[A-Z][A-Z0-9_]*[=:]")
# a file's extension, left out of the value (mysql-root-Silver-Saffron-43.txt)
_EXTENSION = re.compile(r"\.(?:txt|md|yaml|yml|json|env|cfg|conf|ini|log)$")
# recovery codes after their words: two groups or more of six to ten digits, or of four or
# five letters and digits
_CODES = re.compile(
    r"(?i)(?:recovery|backup|2fa|mfa|scratch|emergency)[-_]codes?[-_:=]"
    r"(?:\d{6,10}|[a-z0-9]{4,5}-[a-z0-9]{4,5})(?:[-_ ,](?:\d{6,10}|[a-z0-9]{4,5}-[a-z0-9]{4,5}))+$"
)
# 32 hex digits or more as a part of the name, and the words beside it
_HEX_PART = re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32,128}(?![A-Za-z0-9])")
_TOKEN_WORDS = re.compile(
    r"(?i)(?:auth[-_]?token|token|secret|api[-_]?key|apikey|access[-_]?key|signing|hmac)$"
    r"|^(?:auth[-_]?token|token|secret|api[-_]?key|apikey|access[-_]?key|signing|hmac)"
)
# a one-time password's seed in base32 (what an authenticator app is given), right after
# its words: mfa-seed-UDQ5PUW3..., totp_secret_JBSW...
_SEED = re.compile(
    r"(?i:seed|totp|otp|mfa|2fa)[-_./:=](?:(?i:seed|secret|key)[-_./:=])?[A-Z2-7]{16,64}$"
)
# a login pasted as a URL's part without its scheme: postgres:Lantern2023!@pg-main
_USER_AT_HOST = re.compile(r"(?:^|[-_./:])[\w.-]{1,40}:([^:@/\s]{6,64})@[A-Za-z0-9][\w.-]{1,80}$")
# words and a number anywhere among them, any case (tidewater-glacier-Tango-23-cinder): a
# Wi-Fi's passphrase as a generator or a person makes it, three words or more
_PASSPHRASE = re.compile(
    r"[A-Za-z][a-z]{2,11}(?:[-_][A-Za-z][a-z]{2,11})*[-_](?!(?:19|20)\d\d)\d{2,4}"
    r"(?:[-_][A-Za-z][a-z]{2,11})*"
)
_HASH_WORDS = re.compile(r"(?i)sha|hash|digest|checksum|commit|md5|etag|cache|build|blob")


def login_in_name(name: str) -> str | None:
    """The kind of a login, a password or a key joined into ``name`` (a memory's name, or a
    text's line of one word) in one of the shapes above."""
    if _ONE_WORD.fullmatch(name) is None or "://" in name or _CRYPT.search(name):
        return None
    if _SETTING.match(name):
        return None  # an env's or a setting's assignment: the assignment rules read it
    name = _EXTENSION.sub("", name)
    if _CODES.search(name) or _hex_beside_token(name) or _login_at_host(name):
        return _KIND
    for start in list(_START.finditer(name))[-6:]:  # the last few: a value ends the name
        before, value = name[: start.start()], name[start.end() :]
        if "/" in value or not value or is_placeholder(value):
            continue
        if _strong_tail(before, value) or _given(before, start.group(), value):
            return _KIND
        if _after_account(before, value):
            return _KIND
    return None


def _login_at_host(name: str) -> bool:
    """Whether ``name`` ends in a login pasted without its URL's scheme (``USER:VALUE@HOST``)
    whose value is a password, or in a one-time password's seed after its words."""
    if _SEED.search(name):
        return True
    login = _USER_AT_HOST.search(name)
    return login is not None and (strong_password(login.group(1)) or human_password(login.group(1)))


def _strong_tail(before: str, value: str) -> bool:
    """Whether ``value``, the end of a name after words (``before``), is a strong password
    holding a symbol: both cases, a digit, no mark of an assignment nor base64's ``+``."""
    if (
        not 8 <= len(value) <= 40
        or re.search(r"[=:+@]", value)
        or not re.search("[a-z]{2}", before, re.I)
    ):
        return False
    cases = re.search("[a-z]", value) and re.search("[A-Z]", value)
    symbol = _SYMBOLS.search(value)
    return bool(cases and re.search(r"\d", value) and symbol) and strong_password(value)


def _given(before: str, mark: str, value: str) -> bool:
    """Whether ``value`` is given by ``=`` or ``:`` to words naming an account or a
    password (``staging-admin-pw-is-1=VALUE``, ``keycloak-admin=VALUE``)."""
    if mark not in "=:":
        return False
    words = {part.lower() for part in re.split(r"[-_./@]", before)}
    if not words & _ACCOUNT_WORDS:
        return False
    has_digit = re.search(r"\d", value) is not None
    return has_digit and (strong_password(value) or human_password(value))


def _after_account(before: str, value: str) -> bool:
    """Whether ``value`` follows an account's word as a generated password does:
    capitalised words and a number after ``admin`` or ``root``, words and a number after a
    Wi-Fi's word (with at most one word between: ``wifi-office-...``)."""
    parts = [part.lower() for part in re.split(r"[-_./:=@]", before)]
    words = {part.lower() for part in re.findall(r"[A-Za-z]+", value)}
    if words & _ABOUT:
        return False
    if parts[-1:] and parts[-1] in _ACCOUNTS and _CAPITALISED_AND_NUMBER.fullmatch(value):
        return True
    if not set(parts[-2:]) & _WIFI:
        return False
    if _WORDS_AND_NUMBER.fullmatch(value) is not None:
        return True
    return _PASSPHRASE.fullmatch(value) is not None and len(re.findall(r"[A-Za-z]+", value)) >= 3


def _hex_beside_token(name: str) -> bool:
    """Whether a part of 32 hex digits or more stands right beside a token's word
    (``twilio-<hex>-authtoken``, ``sendgrid_token_<hex>``) and no hash's word names it."""
    for found in _HEX_PART.finditer(name):
        before, after = name[: found.start()].rstrip("-_./"), name[found.end() :].lstrip("-_./")
        if _HASH_WORDS.search(before[-16:]) or _HASH_WORDS.search(after[:16]):
            continue
        near_before = re.split(r"[-./]", before)[-1] if before else ""
        near_after = re.split(r"[-./]", after)[0] if after else ""
        if _TOKEN_WORDS.search(near_before) or _TOKEN_WORDS.search(near_after):
            return True
    return False
