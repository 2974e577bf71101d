"""A login said in prose (for core/secrets.py): an app password after the words that name
it, a user's password given as "logged in as USER with VALUE", an account reset to a
value, a user and a password after a service's label, a Wi-Fi key, a userlist's pair."""

from __future__ import annotations

import re
from collections.abc import Callable

from serena_memory.core.secret_drawn import random_looking
from serena_memory.core.secret_said import all_classes
from serena_memory.core.secret_values import WORD_AND_TAIL, human_password, is_placeholder

# an app password, as Google and Microsoft print it: four groups of four small letters
_APP_PASSWORD = re.compile(
    r"(?i)\bapp(?:lication)?[ -](?:specific[ -])?passwords?\b[^\n]{0,80}?"
    r"[\s:`'\"]([a-z]{4}([ -]?)[a-z]{4}\2[a-z]{4}\2[a-z]{4})(?![a-z])"
)


# ...or the same four groups given to a password's setting (a mail client's, as Gmail's
# SMTP takes it): `password: abcd efgh ijkl mnop`
_APP_PASSWORD_SET = re.compile(
    r"(?i)\b(?:password|passwd|pass|pwd)[\"']?\s*[:=]\s*[\"']?"
    r"([a-z]{4}( )[a-z]{4}\2[a-z]{4}\2[a-z]{4})[\"']?\s*$"
)


def app_password(line: str) -> bool:
    """An app password after the words that name it, or given to a password's setting:
    four groups of four small letters."""
    drawn = [match for match in _APP_PASSWORD_SET.finditer(line) if _unspeakable(match.group(1))]
    for match in [*_APP_PASSWORD.finditer(line), *drawn]:
        letters = match.group(1).replace(" ", "").replace("-", "")
        if letters.islower() and len(set(letters)) >= 8 and not _alphabet_run(letters):
            return True
    return False


def _unspeakable(groups: str) -> bool:
    """Whether four groups of letters were drawn, not words (``keep your eyes open``): a
    group without a vowel, and at most one vowel in three of them."""
    vowels = [sum(letter in "aeiouy" for letter in group) for group in groups.lower().split()]
    return min(vowels) == 0 and sum(count <= 1 for count in vowels) >= 3


def _alphabet_run(letters: str) -> bool:
    return any(letters[i : i + 4] in "abcdefghijklmnopqrstuvwxyz" for i in range(len(letters) - 3))


# a login said as "logged in as USER with VALUE", "ssh as USER using VALUE"
_LOGGED_IN_AS = re.compile(
    r"(?i)\b(?:logged|log|logs|signed|sign|connect(?:ed|s)?)\s+(?:in\s+|on\s+)?as\s+[`'\"]?"
    r"[\w.@+-]{2,64}[`'\"]?\s+(?:with|using|and|/)\s+(?:password\s+)?[`'\"]?([^\s`'\"]{8,80})"
)
# an account reset or set to a value: "the firewall admin account was reset to `VALUE`"
_ACCOUNT_SET = re.compile(
    r"(?i)\b(?:account|admin|user|login|root)\b[^\n]{0,30}?\b(?:re)?set\s+to\s+[`'\"]([^\s`'\"]{8,80})[`'\"]"
)
# an account set to a value, the account named between: "set the Keycloak realm admin to
# `VALUE`", "changed the root account to VALUE"
_SET_ACCOUNT_TO = re.compile(
    r"(?i)\b(?:re)?set\b[^\n]{0,40}?\b(?:admin|administrator|root|superuser|account|login)"
    r"(?:'s)?(?:\s+(?:password|pw|pass))?\s+to\s+[`'\"]?([^\s`'\"]{8,80})"
)
# a user then a password after a service's label: "SFTP for the agency: agency / VALUE"
# (the line ends there, or an aside follows: "... / VALUE — it has real data access",
# "... / VALUE (shared account)")
_LABELLED_LOGIN = re.compile(
    r":\s+[`'\"]?[\w.@+-]{2,64}[`'\"]?\s+/\s+[`'\"]?([^\s`'\"/]{8,80})[`'\"]?"
    r"(?:\s*\.?$|\s+[—–-]\s|[,;]\s|\s+\()"
)
# a Wi-Fi network's key: "the Wi-Fi ... is `NAME`, key VALUE"; or the password alone
# after its label, generated ("wifi: VALUE": a network's name has no such tail)
_WIFI_KEY = re.compile(
    r"(?i)\b(?:wi-?fi|wlan|ssid)\b[^\n]{0,80}?\bkey\s*:?\s+[`'\"]?([^\s`'\",;]{8,63})"
)
_WIFI_ALONE = re.compile(
    r"(?i)\b(?:wi-?fi|wlan)(?:\s+(?:password|pass|pw))?\s*:\s+([^\s`'\",;]{8,63})$"
)
# a login's address then its password after an arrow: "root@nas → VALUE"
_ADDRESS_ARROW = re.compile(
    r"(?<![\w.@-])[a-z_][\w.-]{0,31}@[\w.-]{2,64}\s*(?:→|->|=>)\s*[`'\"]?([^\s`'\"]{8,80})"
)
# a file or an archive locked with a password: "the zip is encrypted with VALUE"
_ENCRYPTED_WITH = re.compile(
    r"(?i)\b(?:encrypted|protected|locked)\s+(?:with|by)\s+(?:the\s+)?(?:password\s+)?"
    r"[`'\"]?([^\s`'\",;]{8,80})"
)
# a user then its password after an arrow: "Kibana elastic user -> VALUE"
_USER_ARROW = re.compile(
    r"(?i)\b(?:user|login|account|admin|root)\s*(?:→|->|=>)\s*[`'\"]?([^\s`'\"]{8,80})"
)
# a login named then its password: "use login `USER` with VALUE"
_LOGIN_WITH = re.compile(
    r"(?i)\b(?:login|username|user)\s+[`'\"]?[\w.@+-]{2,64}[`'\"]?\s+(?:with|and)\s+"
    r"(?:password\s+)?[`'\"]?([^\s`'\"]{8,80})"
)
# a Wi-Fi network described, then its password alone after a colon
_WIFI_DESCRIBED = re.compile(r"(?i)\b(?:wi-?fi|wlan)\b[^\n:]{0,80}:\s+([^\s`'\",;]{8,63})$")
# two quoted fields, a user and a password, as pgbouncer's userlist holds them
# (alone on its line, or after a label: `pgbouncer userlist.txt: "app" "VALUE"`)
_QUOTED_PAIR = re.compile(r"(?:^\s*|:\s+)\"[\w.@-]{1,64}\"\s+\"([^\"\s]{8,200})\"\s*$")


# each form with the words (in lower case) a line must hold for it, and its value's test
_LOGINS: tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[str], bool]], ...] = (
    ((" as ",), _LOGGED_IN_AS, human_password),
    (("set to",), _ACCOUNT_SET, human_password),
    (("set ",), _SET_ACCOUNT_TO, random_looking),
    ((" / ",), _LABELLED_LOGIN, lambda value: human_password(value) or _paired_tail(value)),
    (("wi-fi", "wifi", "wlan", "ssid"), _WIFI_KEY, human_password),
    (("wi-fi", "wifi", "wlan"), _WIFI_ALONE, lambda value: _generated(value)),
    (("→", "->", "=>"), _ADDRESS_ARROW, human_password),
    (("encrypted", "protected", "locked"), _ENCRYPTED_WITH, lambda value: _generated(value)),
    (("→", "->", "=>"), _USER_ARROW, lambda value: _generated(value)),
    (("login ", "user "), _LOGIN_WITH, lambda value: _generated(value)),
    (("wi-fi", "wifi", "wlan"), _WIFI_DESCRIBED, lambda value: _generated(value)),
    (('" "',), _QUOTED_PAIR, lambda value: _userlist_password(value)),
)


def login_said(line: str) -> bool:
    """A user's password said as a login: logged in as a user with it, an account reset to
    it, a user and password after a label, a Wi-Fi key, a userlist's quoted pair."""
    lower = line.lower()
    for words, pattern, judge in _LOGINS:
        if not any(map(lower.__contains__, words)):
            continue
        match = pattern.search(line)
        if match is None or _EXAMPLE_LOGIN.search(match.group()):
            continue  # e2e-user@example.com / e2e-password: a fixture's
        if judge(match.group(1).rstrip(".,;)")):
            return True
    return False


# a word and a tail of letters and digits, as a user's password beside its name (mailer /
# delta.tska01): any tail that holds both, where alone it would need a letter after a digit
_TAIL = re.compile(r"[a-z]{4,10}[._](?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{5,8}")


def _userlist_password(value: str) -> bool:
    """Whether a userlist's second field is a password in clear, not its stored hash
    (``md5`` and 32 hex digits, a SCRAM verifier)."""
    if re.fullmatch(r"md5[0-9a-f]{32}", value) or value.startswith("SCRAM-"):
        return False
    return all_classes(value) or random_looking(value)


def _paired_tail(value: str) -> bool:
    return _TAIL.fullmatch(value) is not None and not is_placeholder(value)


def _generated(value: str) -> bool:
    """Whether ``value`` alone after a network's label is a password, not the network's
    name (office-5G): a word and a random tail, or all classes with a password's symbol."""
    if WORD_AND_TAIL.fullmatch(value) is not None:
        return not is_placeholder(value)
    return all_classes(value) and _SYMBOL.search(value) is not None


_SYMBOL = re.compile(r"[!#$%^&*~?@]")
_EXAMPLE_LOGIN = re.compile(r"(?i)@example\.|password`?\s*$|[-_]password\b")
LOGIN_WORDS = tuple(word for words, _, _ in _LOGINS for word in words)
