"""An account's password said in prose (for core/secrets.py): a well-known account then
a slash and its password (``Local Keycloak: admin/admin123``, ``sa / Passw0rd!``), and a
default password said to be still in use (``the admin account still uses `changeme` as
its password``, ``root is still VALUE``).

A password people set after a well-known account's name is often weak (a word and a
counter, a default spelt with digits): the account's name and the slash say what it is,
so letters with a digit or a symbol are enough. A route (``admin/users``), a path
(``root/src2/main``) or a file (``root/build2.log``) is none. A default word alone is a
password too when the sentence says the account still uses it; an example config
(``password: changeme``) says nothing of the kind and is kept.
"""

from __future__ import annotations

import re

from serena_memory.core.secret_values import DEFAULT_WORDS, NOT_A_VALUE, strong_password

# a well-known account (administrators, databases' superusers, guests), a slash with or
# without spaces, and a value with no further slash (not a path's next folder)
_ACCOUNT_SLASH = re.compile(
    r"(?i)(?<![\w.@/$-])[`'\"]?(admin|administrator|root|sa|postgres|guest|superuser|sysadmin"
    r"|user|elastic|neo4j|tomcat|vagrant|ubnt|minioadmin)[`'\"]?(\s*/\s*)[`'\"]?"
    r"([^\s`'\"/:=,;()<>]{6,64})[`'\"]?(?![\w/])"
)
# a value that says it stands for one: YourStrong!Passw0rd, example123, xxxx
_SAYS_PLACEHOLDER = re.compile(
    r"(?i)your|example|sample|replace|change_?me|dummy|fake|placeholder|redacted|x{4}|\*{3}|\.\.\."
)
_DIGIT_OR_SYMBOL = re.compile(r"[\d!#$%^&*~?@+]")
# a version, a ticket, a build, a file, a hex id or a run of digits: no password
_NOT_A_PASSWORD = re.compile(
    r"(?i)v?\d+(?:\.\d+)+[\w.-]*|[A-Z]{2,10}-\d+|[\w-]+\.[a-z]{1,5}|[0-9a-f]{7,64}|\d+[a-z]?"
    r"|[a-z]+[-_]v?\d+"
)


def account_slash_password(line: str) -> bool:
    """A well-known account then a slash and a password: letters with a digit or a symbol
    (``admin/admin123``, ``sa / Passw0rd!``), not a route, a path, a file nor a version."""
    in_use = _STILL.search(line) is not None  # (then a default's word counts: Changeme5005!)
    if not in_use and _DOCUMENTED.search(line):
        return False  # a default login a product ships with, as its docs give it
    for match in _ACCOUNT_SLASH.finditer(line):
        value = match.group(3).rstrip(".,;:)")
        if not _LEAD.search(line[: match.start()]) or not _account_password(match.group(1), value):
            continue
        if in_use or _SAYS_PLACEHOLDER.search(value) is None:
            return True
    return False


# what stands before a login said in prose: a label's colon or dash, a bracket, the line's
# start, or a word that introduces one (`docker pull postgres/...`, `fork user/...` are none)
_LEAD = re.compile(
    r"(?i)(?:^|[:(,\u2014\u2013>]|\s-|\b(?:login|logins|creds|credentials|is|are|uses|use|with"
    r"|as|account|accounts|password|pw|still|set|on|via|by)\b)\s{0,3}[*_]{0,2}$"
)
# a login said to be a product's default or its docs' example
_DOCUMENTED = re.compile(
    r"(?i)\bdefaults?\b|\bexample|\be\.g\.|\bdocs?\b|\bdocumentation\b|\bships\s+with\b"
)
# a word with a counter (project2, data01) is a name; a default's word with one is the
# password people set (admin123, root2024)
_NAME_AND_NUMBER = re.compile(r"([A-Za-z]+)[-_]?\d+")


def _account_password(account: str, value: str) -> bool:
    return (
        len(value) >= 6
        and value.lower() != account.lower()
        and re.search(r"[A-Za-z]", value) is not None
        and _DIGIT_OR_SYMBOL.search(value) is not None
        and _NOT_A_PASSWORD.fullmatch(value) is None
        and NOT_A_VALUE.search(value) is None
        and not value.startswith(("$", "%", "{", "*"))
        and _counted_default(value)
    )


def _counted_default(value: str) -> bool:
    """Whether ``value``, when it is a word and a counter, is a default's word counted."""
    counted = _NAME_AND_NUMBER.fullmatch(value)
    return counted is None or DEFAULT_WORDS.fullmatch(counted.group(1).lower()) is not None


# a sentence that says an account still holds its password (not rotated, never changed)
_STILL = re.compile(
    r"(?i)\bstill\b|\bnever\s+(?:been\s+)?(?:changed|rotated)\b"
    r"|\b(?:nobody|no one)\s+(?:has\s+|ever\s+)?(?:changed|rotated)\b"
    r"|\bn(?:o|')t\s+(?:yet\s+)?(?:been\s+)?(?:changed|rotated)\b"
)
_STILL_VALUE = re.compile(r"(?i)\bstill\s+(?:is\s+|uses\s+)?[`'\"]?([^\s`'\",;]{8,64})")
_PASSWORD_SYMBOL = re.compile(r"[!#$%^&*~?@+]")
_ACCOUNT = re.compile(r"(?i)\b(?:admin|administrator|root|account|user|login|superuser)\b")
# the password quoted: "uses `VALUE` as its password", "password `VALUE`", "password is
# 'VALUE'", "password: `VALUE`"
_QUOTED_PASSWORD = re.compile(
    r"(?i)\b(?:uses|use|using|with|has)\s+([`'\"])([^\s`'\"]{4,64})\1\s+as\s+(?:its|the|their|his"
    r"|her|a)?\s*password\b"
    r"|\bpassword\s*(?:is\s+|:\s*|=\s*)?([`'\"])([^\s`'\"]{4,64})\3"
)


def default_password_in_use(line: str) -> bool:
    """A password quoted as an account's, or a product's default login given as a pair,
    in a sentence that says the account still uses it: a default word (``changeme``,
    ``admin / admin``) counts, as it opens that account to anyone."""
    if _STILL.search(line) is None:
        return False
    if _default_pair(line):
        return True
    if _ACCOUNT.search(line) is None:
        return False
    for match in _QUOTED_PASSWORD.finditer(line):
        value = match.group(2) or match.group(4)
        if re.fullmatch(r"\$\w+|\$\{[^}]*\}|<[^>]*>|\*+|x+|\.+", value, re.I) is None:
            return True
    # unquoted, a strong one with a password's symbol: "root on the old NAS is still VALUE"
    return any(
        strong_password(value) and _PASSWORD_SYMBOL.search(value) is not None
        for value in _STILL_VALUE.findall(line)
    )


ACCOUNT_WORDS = ("/",)
IN_USE_WORDS = ("still", "never", "nobody", "no one", "not changed", "not rotated", "n't")


# a product's default account (its admin, its superuser, its service user) then its
# password after a slash or a colon, said by a word that introduces a login or a label:
# "still has SYSTEM/oracle", "is still guest:guest", "creds: Admin / zabbix"
_DEFAULT_PAIR = re.compile(
    r"(?i)(?:[:\u2014\u2013]|\b(?:is|are|uses|use|with|has|have|as|still|creds"
    r"|credentials|login|logins)\b)\s{0,3}[`'\"]?(admin|administrator|root|sa|system|sys"
    r"|postgres|guest|superuser|elastic|neo4j|tomcat|minioadmin|ubnt|pi|vagrant|manager"
    r"|oracle|jenkins|grafana|rabbitmq)[`'\"]?(?:\s*/\s*|:)[`'\"]?([A-Za-z0-9!#$%^&*~?@+._-]{3,64})"
    r"[`'\"]?(?![\w/:.@-])"
)
# the same said in words: "login admin, password admin", "user `deploy`, password same as
# the user name"
_LOGIN_THEN_PASSWORD = re.compile(
    r"(?i)\b(?:login|user(?:name)?|account)\s+[`'\"]?([\w.@-]{2,40})[`'\"]?,?\s+(?:and\s+)?"
    r"(?:password|passwd|pw|pass)\s+(?:is\s+)?(?:(the\s+)?same\s+as\s+(?:the\s+)?"
    r"(?:user(?:\s?name)?|login|account)|[`'\"]?([A-Za-z0-9!#$%^&*~?@+._-]{3,64}))"
)


# what an account's name pairs with when no login: a file's owner and group (root:root,
# chown), a scope or a permission (admin:read)
_OWNERSHIP = re.compile(r"(?i)\bchown|\bowner|\bgroup\b|\bscopes?\b|\bpermission|\brole")
_NOT_A_LOGIN = frozenset(
    ["read", "write", "readwrite", "readonly", "all", "wheel", "staff", "users", "root", "nobody"]
)


def _default_pair(line: str) -> bool:
    """Whether ``line`` gives a default account's login: the account and a password (a
    word, as defaults are), never a placeholder, a file's owner and group, a scope, nor a
    route's or a file's next part."""
    if _OWNERSHIP.search(line) is None:
        for match in _DEFAULT_PAIR.finditer(line):
            value = match.group(2).rstrip(".,;")
            if value.lower() not in _NOT_A_LOGIN and _login_password(value):
                return True
    for match in _LOGIN_THEN_PASSWORD.finditer(line):
        value = match.group(1) if match.group(3) is None else match.group(3).rstrip(".,;")
        if _login_password(value):
            return True
    return False


def _login_password(value: str) -> bool:
    return (
        re.search(r"[A-Za-z0-9]", value) is not None
        and _SAYS_PLACEHOLDER.search(value) is None
        and re.fullmatch(r"\$\w+|x+|\*+|\.+|(?i:password|passwd|pass|pw|secret)", value) is None
    )
