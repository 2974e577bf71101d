"""Secrets joined into a memory's name: a name is one word of parts joined by ``_``, ``-``,
``.`` or ``/`` (``sonar_token_squ_...``, ``redis-password-<random>``), so the rules that
read ``NAME=VALUE`` or a token after a space never see the value. A person who names a
memory after a credential and pastes the credential after its word has committed it: the
name is a file name, synced and kept in the history.

Three rules, each as a reviewer states it:

* a token of a known provider's shape starting after one of the joints
  (``do_token_dop_v1_...``): its prefix is proof enough wherever it stands;
* a secret's word (password, pass, creds, login, token, secret, API key, webhook), then, as
  the name's last part, a value drawn at random or a password a person set (words and a
  number, a word with digits and a symbol); at most two plain words between them
  (``wifi-password-lab-<random>``, ``ftp_creds_deploy_<password>``, a word, digits and
  letters after it: ``vpn_password_Copper442Vxkc``);
* a part drawn at random, both cases and digits, anywhere in the name
  (``mysql_root_<random>_on_orders-db``, ``pg_prod_api_<random>``): a name is made of words
  and ids, and a value of that shape is a pasted credential whatever stands around it.
"""

from __future__ import annotations

import re

from serena_memory.core.secret_detectors import known_token
from serena_memory.core.secret_drawn import random_looking
from serena_memory.core.secret_name_logins import login_in_name
from serena_memory.core.secret_values import (
    human_password,
    is_placeholder,
    public_value,
    strong_password,
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# a symbol a password holds (Ott3r662#), none of a name's joints
_SYMBOL = re.compile(r"[^\w.-]")
# where a name's parts join
_JOINT = re.compile(r"[-_./]")
# a name of one word: no blank, no sign of an assignment or of code (`=`, `:`, quotes,
# brackets: the other rules read those), as long as a name is (longer is code or data)
_ONE_WORD = re.compile(r"[^\s=:\"'`,;(){}<>\[\]|\\]{8,200}")
# the words that say a password or a login follows
_PASSWORD_PARTS = frozenset(
    ["password", "passwd", "pwd", "pass", "passphrase", "pw", "creds", "credentials", "login"]
)
# the words that say a token or a key follows (``key`` only after ``api``: a cache key,
# a sort key name data)
_TOKEN_PARTS = frozenset(["token", "secret", "apikey", "webhook", "pat", "key"])
# the letters after a part's digits (Copper442 -> VxkcXHJU)
_AFTER_DIGITS = re.compile(r"\d+([A-Za-z]+)")


def _mixed_after_digits(part: str) -> bool:
    """Whether letters of both cases follow digits in ``part`` (``Copper442VxkcXHJU``): a
    generator's tail, never a word with a counter (``rotation2024``) nor a name's term
    (``S256challenge``)."""
    found = _AFTER_DIGITS.search(part)
    tail = found.group(1) if found else ""
    return bool(tail) and not tail.islower() and not tail.isupper()


# what a name may say between the secret's word and its value: where or whose it is
_PLAIN_WORD = re.compile(r"[a-z]{2,12}|[A-Z]{2,12}")
# words and a number, as a generator makes a password (nimbus-pylon-866): two words or more
# of three letters or more, then two to four digits that are no year
# (or the number joined to the last word: glacier_lantern_glacier92, three words or more)
_WORDS_AND_NUMBER = re.compile(
    r"[A-Za-z]{3,12}(?:[-_.][A-Za-z]{3,12})+[-_.](?!19\d\d|20\d\d)\d{2,4}"
    r"|[A-Za-z]{3,12}(?:[-_.][A-Za-z]{3,12}){2,}(?<!\d)(?!19\d\d|20\d\d)\d{2,4}"
)
# what such words may not be: a note about a password, not one (rotation-plan-2024)
_ABOUT = _words(
    """
    policy policies rotation rotate rotated reset notes note plan setup migration guide
    howto how faq docs doc readme issue bug fix incident postmortem review change changes
    update updated old new draft todo checklist runbook spec design meeting
    """
)


def name_secret(name: str) -> str | None:
    """The kind of a secret joined to a name's words or drawn as one of its parts: what a
    memory's name is asked of this module, in one call."""
    return joined_secret(name) or drawn_part(name)


def joined_secret(name: str) -> str | None:
    """The kind of a secret joined into ``name`` (a memory's name, or a line of one word)."""
    if _ONE_WORD.fullmatch(name) is None or _JOINT.search(name) is None:
        return login_in_name(name)  # (a user's `:` or an assignment's `=` inside)
    for joint in _JOINT.finditer(name):
        kind = known_token(name[joint.end() :])
        if kind is not None:
            return kind
    return _worded_value(name) or login_in_name(name)


# where a pasted value's parts end in a name: its joints, and a flattened URL's `@` and `+`
_PART_END = re.compile(r"[-_./@+]")


def drawn_part(name: str) -> str | None:
    """The kind of a part of ``name`` (a memory's name: a text's line of one word may be a
    key's or a certificate's base64) drawn at random: lower and upper case letters and
    digits, 16 characters or more, made of no words."""
    if _ONE_WORD.fullmatch(name) is None or public_value(name):
        return None  # (a publishable key's parts: pk.eyJ1...)
    for part in _PART_END.split(name):
        mixed = not part.islower() and not part.isupper() and any(map(str.isdigit, part))
        if mixed and random_looking(part):
            return "value drawn at random in a memory's name"
    return None


def _worded_value(name: str) -> str | None:
    """The kind of the value after a secret's word in ``name``: its last part, or all
    that follows the word (a passphrase's words, a token holding joints)."""
    parts = _JOINT.split(name.rstrip("/"))
    lowered = [part.lower() for part in parts]
    for at, word in enumerate(lowered[:-1]):
        between = parts[at + 1 : -1]
        # (a service and its account between: grafana-svc_billing-VALUE)
        near = len(between) <= 3 and all(map(_PLAIN_WORD.fullmatch, between))
        tail = name[len("".join(parts[: at + 1])) + at + 1 :]  # after the word and its joint
        drawn = (near and random_looking(parts[-1])) or _drawn_tail(tail)
        last = parts[-1] if near else ""
        if word in _PASSWORD_PARTS and (drawn or _password_after(last, tail, between)):
            return "password in a memory's name"
        if _login_value(word, last, tail, parts[at + 1 :]):
            return "password in a memory's name"
        if word in _TOKEN_PARTS and (word != "key" or lowered[at - 1 : at] == ["api"]) and drawn:
            return "token in a memory's name"
    return None


# words that say a login follows but are no password's word alone (auth, as in
# auth-flow): a value with a password's symbol after them is one
_LOGIN_PARTS = frozenset(["auth", "basicauth", "requirepass"])
# words that name a connection's URL, whose password a flattened name keeps
# (postgres-url-USER_PASSWORD@HOST)
_URL_PARTS = frozenset(["url", "uri", "dsn", "conn", "connstr"])
# capitalised words, then a number that is no year (HarborGlacier5511, Tundra-River4347,
# Falcon_River4008): a password a generator or a person made, set after its word
_CAPITALISED_AND_NUMBER = re.compile(
    r"[A-Z][a-z]{2,12}(?:[-_.]?[A-Z][a-z]{2,12})+[-_.]?(?!(?:19|20)\d\d(?!\d))\d{2,4}[!?#*]?"
)
# four consonants or more starting a part, the case changing inside them after its small
# letters (rVqk): no word's (a word's consonants keep one case, or a capital starts it)
_UNSPOKEN = re.compile(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4,}")


def _login_value(word: str, last: str, tail: str, after: list[str]) -> bool:
    """Whether what follows ``word`` in a name is a login's password the other readings
    pass: capitalised words and a number or a short drawn value after a password's word,
    a password with a symbol after ``auth`` (redis-auth-VALUE), a URL's password flattened
    after ``url`` (``last``: the name's last part, empty when too far from the word)."""
    if word in _PASSWORD_PARTS:
        return _set_tail(tail)
    if word in _LOGIN_PARTS:
        return bool(last) and _SYMBOL.search(last) is not None and strong_password(last)
    return word in _URL_PARTS and _flattened_password(after)


def _set_tail(tail: str) -> bool:
    """Whether all that follows a password's word in a name is a password set or drawn:
    capitalised words and a number (none of them a word about passwords nor one a number
    counts), or a short value drawn at random with a joint inside (``rVqk-oy50``)."""
    words = {word.lower() for word in re.findall(r"[A-Z][a-z]+", tail)}
    if _CAPITALISED_AND_NUMBER.fullmatch(tail):
        return not _ABOUT.intersection(words) and not _COUNTED.intersection(words)
    runs = (_UNSPOKEN.match(part) for part in _JOINT.split(tail))
    unspoken = any(run and re.search(r"^[a-z]+[A-Z][a-z]", run.group()) for run in runs)
    return unspoken and any(map(str.isdigit, tail)) and strong_password(tail)


def _flattened_password(after: list[str]) -> bool:
    """Whether the parts after a URL's word hold its password flattened into the name: a
    part with ``@`` (where the host followed), letters of both cases and digits, strong
    (``Granite@4078harbor``), never a mail address's small letters."""
    return any("@" in part and not part.islower() and strong_password(part) for part in after[:3])


def _password_after(last: str, tail: str, between: list[str]) -> bool:
    """Whether what follows a password's word is a password a person set."""
    return _password_value(last, tail) or _set_password(last, adjacent=not between)


def _drawn_tail(tail: str) -> bool:
    """Whether all that follows a secret's word is one value drawn at random, joints and
    all (a webhook's id and token): both cases and 24 characters or more."""
    return len(tail) >= 24 and not tail.islower() and not tail.isupper() and random_looking(tail)


def _password_value(last: str, tail: str) -> bool:
    """Whether a name ends in a password a person set after its word: ``last``, a strong
    last part holding a symbol or a letter after its digits (empty when too far from the
    word), or ``tail``, all that
    follows the word, words and a number (none of the words one that describes a
    password)."""
    if last and _SYMBOL.search(last) and strong_password(last) and not is_placeholder(last):
        return True
    if last and _mixed_after_digits(last) and human_password(last):
        return True  # a word, digits and letters (Copper442Vxkc): no word with a counter
    words = {word.lower() for word in _JOINT.split(tail)}
    words |= {word.rstrip("0123456789") for word in words}  # (glacier92: glacier)
    return (
        _WORDS_AND_NUMBER.fullmatch(tail) is not None
        and not _ABOUT.intersection(words)
        and not _COUNTED.intersection(words)
        and not is_placeholder(tail)
    )


# words a number counts in a name (login_page_tests_part12, sprint14): no password's
_COUNTED = _words(
    """
    part step phase round sprint week day month page chapter section test tests item issue
    ticket run batch stage level case version release attempt try retry every
    """
)


# both cases and digits in one part (Nimbus04velve, QSaqIrnBE79CMO): a password, never a
# name's word (a name's parts are one case, or a word capitalised: OAuth2 is short)
_CASES_AND_DIGITS = re.compile(r"(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=\D*\d)[A-Za-z0-9]{8,64}")
# digits between letters (Nimbus04velve), or case changing often (QSaqIrnBE79CMO): drawn or
# set, never a PascalCase name with a counter (MyService2)
_DIGITS_INSIDE = re.compile(r"[A-Za-z]{3}\d+[A-Za-z]")
_CASE_CHANGE = re.compile(r"[a-z][A-Z]|[A-Z][a-z]")
# capitalised words and numbers (Base64Encoded, MyService2x): a name's term (possessive:
# linear)
_PASCAL_CASE = re.compile(r"(?:[A-Z][a-z]++|\d++[a-z]?+)++")
# letters then digits, or digits inside (hunter2, blue42sky): a password's shape right after
# the word, unless it names a version, a count, an algorithm or a protocol
_LETTERS_AND_DIGITS = re.compile(r"(?=[a-z0-9]*[a-z][a-z0-9]*\d)(?=[a-z0-9]*\d)[a-z][a-z0-9]{5,40}")
_TECHNICAL = re.compile(
    r"(?:v|r|rev|sha|md|argon|pbkdf|base|utf|oauth|aes|rsa|ipv|http|ec|tls|ssl|des|bcrypt"
    r"|scrypt|x|s|k|k8s|ed|p|ver|version|phase|gen|tier|level|node|db|rfc|iso)\d+[a-z]?\d*"
)


def _set_password(last: str, *, adjacent: bool) -> bool:
    """Whether ``last`` (the name's last part, near its password word) is a password a
    person set: both cases and digits anywhere near the word (``Nimbus04velve``), or, just
    after the word, letters with digits (``hunter2``) that name no version, count, date,
    algorithm or protocol."""
    if not last or is_placeholder(last.lower().strip("0123456789")):
        return False
    if _drawn_or_set(last):
        return True
    letters = last.rstrip("0123456789").lower()
    return (
        adjacent
        and _LETTERS_AND_DIGITS.fullmatch(last) is not None
        and _TECHNICAL.fullmatch(last) is None
        and letters not in _ABOUT
        and letters not in _COUNTED
        and re.search(r"(?:19|20)\d\d$", last) is None
        and re.fullmatch(r"[a-z]{1,4}\d{2,}", last) is None  # a ticket's or an id's: ops311
    )


def _drawn_or_set(part: str) -> bool:
    """Whether ``part`` holds both cases and digits as a password does: digits between
    letters or the case changing often, never capitalised words with a number."""
    if not _CASES_AND_DIGITS.fullmatch(part) or _PASCAL_CASE.fullmatch(part):
        return False
    shaped = _DIGITS_INSIDE.search(part) or len(_CASE_CHANGE.findall(part)) >= 4
    return bool(shaped) and human_password(part)
