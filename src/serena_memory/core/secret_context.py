"""A candidate secret judged by what stands around it (for core/secrets.py): a random value
is a secret when the words before it name one ("the hcloud token (read/write): VALUE",
"Set `REDIS_PASS` to `VALUE`", "Value of X_API_KEY on prod: VALUE") and none of the words
between says it is something else (its id, its hash, a public or publishable key, a cache
key). People paste secrets into sentences, lists and tables with any words around them, so
the rule reads the words, not the line's shape; what a secret's value is stays the same
as everywhere (core/secret_values.py).

Every pattern here runs on a window of at most :data:`WINDOW` characters before a value,
and the values are found by splitting the line: time linear in the line's length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from serena_memory.core.secret_public import public_context
from serena_memory.core.secret_said import HASH_OF, all_classes, generated, random_token
from serena_memory.core.secret_values import (
    DATA_KEY_WORDS,
    derived_name,
    entropy,
    human_password,
    is_placeholder,
    literal_value,
    not_a_value,
    passphrase,
    public_value,
    secret_name,
)


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


WINDOW = 140  # characters read before a value: a sentence's words up to its subject
# a line may name a secret in a sentence only if it holds one of these (in lower case)
CONTEXT_WORDS: tuple[str, ...] = ("key", "token", "secret", "pass", "pw", "psk", "cred", "auth")
CONTEXT_WORDS += ("seed", "pat", "codes", "code ", "code:")

# a value: a run between blanks, quotes and brackets (a password may hold `,` `;` `!` `@`)
_VALUE = re.compile(r"[^\s`'\"()<>\[\]{}|]{8,}")
# the words of a window, read backwards: words (with dots and hyphens: e.g., client-side),
# and the marks that say a value follows (`:`, `=`, `->`) or a new field starts (`|`, `;`)
_WORD = re.compile(r"[A-Za-z0-9][\w.@-]*|->|=>|→|[:=|;,—–-]")
# an aside in parentheses: "token (read/write, project `prod`): VALUE"
_ASIDE = re.compile(r"\([^()\n]{0,100}\)")
# what a value named after a secret's word is when one of these stands between: not the
# secret (its id, hash, name, path, expiry...), an example of its shape, or a public key
_ELSE = _set(
    """
    id ids sid uid guid kid jti hash hashed hashes sha sha1 sha256 sha512 md5 digest
    checksum fingerprint thumbprint name names url uri endpoint path file filename commit
    version revision serial format prefix suffix length ttl expires expiry expiration
    expired example examples e.g. e.g eg sample samples generator like looks shape pattern
    placeholder fake dummy mock accessor claim ref reference arn variable var env public
    publishable anon client-side frontend front-end browser browsers documented docs
    documentation not fingerprinted salt iv nonce idempotency encrypted ciphertext masked
    redacted truncated
    """
)
# words that make a key a public or a data key, said right before it: a site key, a search-
# only key, a host's or a GPG key (its id or fingerprint), a cache key
_NOT_SECRET_KEY = (
    _set(
        """
    public publishable pub anon site browser frontend front-end client-side search
    search-only gpg pgp gnupg ssh host deploy minisign signify message record event entry item
    index dict json table column field registry sccache ccache kms cmk hsm
    """
    )
    | DATA_KEY_WORDS
)
# tokens that are no credential: a CSRF token, an OAuth state, a page's cursor
_NOT_CREDENTIAL_TOKEN = _set(
    """
    csrf xsrf anti-forgery state nonce pkce verifier challenge page pagination cursor
    continuation next sync request cancellation bucket refill
    """
)
# the words that name a password, and a token or key (in lower case, after a plural's s)
_PASSWORD_WORDS = _set("password passwort passphrase passwd pwd pw psk")
_TOKEN_WORDS = _set("token secret key apikey api-key credential creds cred seed pat")
# the marks and words that give a value to what is named before them
_CONNECTORS = _set(": = is was are to now -> => → - — –")
# a setting verb, for a value given "to" a name: "Set `NAME` to `VALUE`", "reset to VALUE"
_SETTING = re.compile(r"(?i)\b(?:re)?set\b|\bchang|\brotat|\bupdat")
# a word that names what the value is, right before it: a user's name, not the password
_NAMES_WHO = _set("user username login account email for of named called by as")
# a derived name: a word, then a hash (pip-3f66..., deps-d449...): a cache key, a tag
_DERIVED = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_:.][0-9a-f]{16,}")
# a word's run of letters (Service, refresh, TOKEN): what names and code are made of
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{4,}|[A-Z]{5,}")
_HEX = re.compile(r"(?:0x)?[0-9a-f]{32,128}")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*")
# an identifier in code's shape (TENANT_ID, clientId): what it names is no secret's unless
# its name says so
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*")
# a Twilio SID (two capitals, then 32 hex digits): an identifier
_SID = re.compile(r"[A-Z]{2}[0-9a-f]{32}")
_SHORT_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
# a template's or a shell's expression the value is inside of
_INSIDE_EXPRESSION = ("{", "$", "%", "{{", "${", "{%", "$(")
# after a value, words that say it is none: "(hash of requirements.txt)", "# cache key",
# "(client-side by design)"
_AFTER_ELSE = re.compile(
    r"(?i)[`'\"]?\s*(?:#|//|\(|-\s|—|–)[^\n]{0,60}?\b(?:cache|idempotency|hash|checksum"
    r"|digest|example|fake|dummy|mock|stub|fixture|public|publishable|client-side|by design"
    r"|not (?:a |the )?(?:secret|key|token))"
)


def random_looking(value: str) -> bool:
    """Whether ``value`` is drawn at random: 16 characters or more of mixed classes, not made
    of words (``AuthService.refreshToken2``) nor a derived name (``pip-<hash>``)."""
    if len(value) < 16 or not_a_value(value) or "://" in value or _DERIVED.fullmatch(value):
        return False
    if _SID.fullmatch(value) or derived_name(value) or _UUID.fullmatch(value):
        return False  # (a UUID is judged by the words that name it)
    if public_value(value) or is_placeholder(value):
        return False
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", r"\d"))
    if classes < 2 or entropy(value) < 3.5 or (len(value) < 32 and _SHORT_HEX.fullmatch(value)):
        return False  # (a commit's or an object's short id)
    if any(_word(part) for part in _PATH_PART.findall(value)):
        return False  # a path of words
    if classes == 2 and not re.search("[A-Z]", value):
        return _interleaved(value)
    wordy = sum(len(run) for run in _WORD_RUN.findall(value) if _word(run))
    return wordy / len(value) < 0.35


# a path's part between slashes, made of letters
_PATH_PART = re.compile(r"(?<=[/\\])[a-z]{4,}(?=[/\\])")
_VOWELS = frozenset("aeiouAEIOU")
_CONSONANTS = re.compile(r"[^aeiouyAEIOUY]{4}")


def _word(run: str) -> bool:
    """Whether a run of letters reads as a word (Service, refresh, TOKEN): a vowel in four
    letters or more (two in a run of four: Role, Auth) and no four consonants in a row,
    where a drawn run (xfddls, gxqa) has not."""
    vowels = sum(c in _VOWELS for c in run)
    needed = 2 if len(run) == 4 else len(run) / 4
    return vowels >= needed and _CONSONANTS.search(run) is None


def _interleaved(value: str) -> bool:
    """Whether small letters and digits alternate as a generator draws them (one in six a
    digit or more, a change between a letter and a digit every eight characters), not as a
    name with a number does (``rotate_tokens_v2``)."""
    digits = sum(c.isdigit() for c in value)
    changes = sum(a.isdigit() != b.isdigit() for a, b in zip(value, value[1:], strict=False))
    return digits * 6 >= len(value) and changes * 8 >= len(value) and "_" not in value


# a name in code's case, words alone (reviewDecision, TokenRow): no secret
_CODE_NAME = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z][a-z]+){2,}")


def _value_fits(
    kind: str, value: str, name: str, distance: int, *, bare_key: bool, quoted: bool
) -> bool:
    """Whether ``value`` is a secret named by a word of ``kind`` (``password``, ``token``, or
    ``name``: a secret's identifier) ``distance`` words before it (``bare_key``: the word
    ``key`` alone, which names a cache's or a record's key as often; ``quoted``: the value is
    quoted, a literal, where a bare one after a name may be code)."""
    if kind == "name":
        if _CODE_NAME.fullmatch(value) or re.search(r"\.[a-z]{1,5}$", value):
            return False  # reviewDecision, a file's name: code, no secret
        return literal_value(name, value, quoted=quoted)
    if kind == "password":
        return human_password(value) or passphrase(value)
    if kind == "hex key":
        return len(value) == 32 and _HEX.fullmatch(value) is not None and entropy(value) >= 3.0
    if kind == "code":
        return (_CODE.fullmatch(value) is not None and len(set(value)) >= 5) or random_looking(
            value
        )
    if derived_name(value):
        return False
    if random_looking(value):
        return distance <= 14
    if distance > 6:
        return False
    if bare_key and not generated(value):
        return False  # `key: HEX`, `key: UUID`: a cache's or a record's key
    if _UUID.fullmatch(value):
        # a token's or a key's UUID right after its word (Heroku's, Postmark's)
        return distance <= 2 and entropy(value) >= 3.0
    if value.isdigit():
        return len(value) >= 16 and len(set(value)) >= 6
    if _HEX.fullmatch(value):
        return entropy(value) >= 3.0 and len(set(value)) >= 8
    return False


# what names a code that logs in once without the second factor, or a vault's recovery key
_RECOVERY = _set("recovery backup 2fa mfa emergency scratch restore")
# a recovery code's shape: groups of letters and digits, or of digits
_CODE = re.compile(r"[A-Za-z0-9]{4,8}(?:-[A-Za-z0-9]{4,8}){1,11}|\d{6,10}")


# a program's or a package's name (update-passwd, base-passwd): no variable
_PROGRAM = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
_REFERENCE = re.compile(r"#\d{3,}|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}$")  # Bug#53857, XXH3_SIZE_MIN


def _naming(word: str, before: str) -> str | None:
    """The kind of secret ``word`` names (``password``, ``token``, ``name``), given the word
    ``before`` it; None when it names none or names a public, a data or no credential."""
    low = word.lower().rstrip(".")
    bare = low[:-1] if low.endswith("s") and low[:-1] in _TOKEN_WORDS else low
    if bare in _PASSWORD_WORDS or bare == "pass" and before in ("app", "wifi", "wi-fi"):
        return "password"
    if bare in ("code", "codes", "key") and before in _RECOVERY:
        return "code"
    if bare == "key" and before in ("routing", "integration"):
        return "hex key"  # an alerting service's (PagerDuty's): 32 hex digits, not a queue's
    if bare in ("key", "auth", "secret", "token"):
        if before in _NOT_SECRET_KEY or before in _NOT_CREDENTIAL_TOKEN:
            return None
        return "token"
    if bare in _TOKEN_WORDS:
        return "token"
    if _NAME.fullmatch(word) and secret_name(word) and not _PROGRAM.fullmatch(word):
        return None if _FUNCTION.match(word) else "name"
    one_case = word.islower() or word.isupper()
    if len(word) > 4 and word.isalpha() and one_case and low.endswith(_PASSWORD_ENDS):
        return "name"  # requirepass, PGPASSWORD (not tiktoken, hotkey)
    return None


_PASSWORD_ENDS = ("pass", "password", "passwd", "pwd")
# a function's name, a verb first (getUserTokens, revokeAgentToken): what code calls, never
# a variable holding the secret
_FUNCTION = re.compile(
    r"(?:get|set|mint|revoke|create|fetch|load|save|update|delete|remove|has|is|use|make"
    r"|build|parse|read|write|handle|on|validate|verify|refresh|rotate|generate|issue|list"
    r"|find|check|ensure|init|reset|store|encode|decode|hash|sign|exchange)[A-Z]"
)


def _judge(before: str, value: str, *, quoted: bool) -> str | None:
    """The kind of secret ``value`` is, read from the words ``before`` it (nearest first): the
    first word that names a secret decides, unless a word on the way says the value is else."""
    if before.rstrip().endswith(_INSIDE_EXPRESSION):
        return None  # ${DB_PASS:?set it}, {{ .Values.password }}
    if "(" in before and any(_aside_else(aside) for aside in _ASIDE.findall(before)):
        return None  # "token (sha256, for the audit): VALUE"
    words = _WORD.findall(_ASIDE.sub(" ", before))[-16:]
    if not words:
        return None
    last = words[-1].lower()
    if last in _NAMES_WHO or last in (",", ";", "|"):
        return None  # "password for alice.smith2024": the user's name, not the password
    connected = last in _CONNECTORS
    if last == "to" and not _SETTING.search(before):
        return None
    distance, crossed = 0, False
    for at in range(len(words) - 1, -1, -1):
        word = words[at]
        low = word.lower().rstrip(".")
        if low in _ELSE or low in ("|", ";") or HASH_OF.search(low):
            return None
        previous = words[at - 1].lower() if at else ""
        kind = None if _called(before, word) else _naming(word, previous)
        if kind is not None:
            if _said_before(words[max(0, at - 8) : at]):
                return None  # "not secret by itself", "sha256 of the token", "accessor of my token"
            ended = word.endswith(".") and distance == 0  # "... 5 tokens. [VALUE]"
            near = (distance == 0 and not ended) or connected
            if crossed and not random_looking(value):
                return None  # another sentence names it: only a random token reads across
            bare_key = low in ("key", "keys") and (not previous or not previous[0].isalnum())
            fits = _value_fits(kind, value, word, distance, bare_key=bare_key, quoted=quoted)
            return _kind_said(kind, word) if near and fits else None
        if _IDENTIFIER.fullmatch(word):
            return None  # another name's value: key="TENANT_ID" value="..."
        if _own_label(words, at):
            return None  # "Token: see Vault. Org: VALUE": the value's own label
        crossed = crossed or (
            word.endswith(".") and at + 1 < len(words) and words[at + 1][:1].isupper()
        )
        if word not in (":", "=", "-", "—", "–", "->", "=>", "→"):
            distance += 1
    return None


def _called(before: str, word: str) -> bool:
    """Whether ``word`` stands in ``before`` as a function called (``all_checks_pass()``)."""
    at = before.rfind(word)
    return at >= 0 and before[at + len(word) : at + len(word) + 1] == "("


def _own_label(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` is a label of its own: a capitalised word with a colon after
    it, starting a sentence or a field (``Org:``, ``; Account:``)."""
    return (
        at + 1 < len(words)
        and words[at + 1] == ":"
        and words[at][:1].isupper()
        and (at == 0 or words[at - 1].endswith(".") or words[at - 1] in (";", ",", "|", "-"))
    )


# said right before a secret's word, what makes the value something else
_BEFORE_ELSE = _set(
    """
    not accessor example sample fake dummy public publishable anon search-only encrypted
    ciphertext hashed salted masked redacted truncated fixture fixtures mock stub id sid
    browser browsers client-side frontend front-end
    """
)


def _said_before(words: list[str]) -> bool:
    """Whether the few ``words`` before a secret's word (back to a comma or a colon) say the
    value is else: "not secret", "sha256 of the token", "accessor of my token"."""
    for word in reversed(words):
        if word in (",", ";", ":", "|"):
            return False
        low = word.lower()
        if low in _BEFORE_ELSE or HASH_OF.search(low) is not None:
            return True
    return False


def _aside_else(aside: str) -> bool:
    """Whether an aside says the value is else: its hash, an example, a public key (not the
    algorithm a key signs with: HMAC-SHA256)."""
    if "hmac" in aside.lower():
        return False
    return any(w.lower() in _BEFORE_ELSE or HASH_OF.search(w) for w in _WORD.findall(aside))


def _kind_said(kind: str, word: str) -> str:
    """The kind a refusal names, from the word that named the value (its placeholder is
    made of it: ``<redis-pass>``, ``<token-in-a-sentence>``)."""
    if kind == "name":
        return "value assigned to " + word.strip(".-_`")[:40]
    if kind == "code":
        return "recovery code"
    if kind == "hex key":
        return "integration key in a sentence"
    return f"{word.lower().rstrip('.')} in a sentence"


def _said_else(line: str, start: int, end: int) -> bool:
    """Whether the words around a value say it is public or no secret after all."""
    return public_context(line, start) or _AFTER_ELSE.match(line, end, end + 80) is not None


# where a secret's word may end on a line: a value is judged only when one stands before it
# (the word's end, or the first character after it)
_HINT = (
    r"(?i)(?:pass(?:word|wd|phrase)?|pwd|pw|psk|tokens?|secrets?|keys?|auth|creds?|credentials?"
    r"|seed|pat|(?:recovery|backup|2fa|mfa|emergency|scratch)[ _-]codes?)(?:[^a-z]|$)"
)


@cache
def _hints() -> Any:
    """:data:`_HINT` under RE2: a pass over the line seven times quicker than :mod:`re`'s."""
    from serena_memory.core.secret_tokens import linear

    return linear(_HINT)


def named_in_sentence(line: str) -> str | None:
    """The kind of a secret named by the words before it on ``line``: a token, a key or a
    password said in a sentence, a list or a note, with any words between (see
    :func:`_judge`). Only the values up to :data:`WINDOW` characters after a secret's word
    are read (most lines hold none)."""
    if not any(map(line.lower().__contains__, CONTEXT_WORDS)):
        return None
    done = 0
    for hint in _hints().finditer(line):
        start = max(done, hint.start())
        done = hint.end() + WINDOW
        for match in _VALUE.finditer(line, start):
            if match.start() > done:
                break  # a value is read whole, however far it runs
            done = max(done, match.end())
            kind = _value_kind(line, match)
            if kind is not None:
                return kind
    return None


def _value_kind(line: str, match: re.Match[str]) -> str | None:
    """The kind of secret the value ``match`` is, judged by the words before it."""
    value = match.group().rstrip(".,;:")
    if len(value) < 8 or not _plausible(value):
        return None  # a word: no secret
    if "=" in value.rstrip("=") or value.endswith(":") or value.startswith(("@", "-")):
        return None  # an assignment (its own rule's), a label, a file, a flag
    start = match.start()
    if start and line[start - 1] not in " \t`'\"(:=|":
        return None  # inside a word, a path or after a bracket
    if line[match.end() : match.end() + 1] == "(" or _REFERENCE.search(value):
        return None  # a call: OAuthToken(...); an issue: Bug#53857
    quoted = start > 0 and line[start - 1] in "`'\""
    kind = _judge(line[max(0, start - WINDOW) : start], value, quoted=quoted)
    if kind is not None and not _said_else(line, start, match.end()):
        return kind
    return None


def _plausible(value: str) -> bool:
    """Whether ``value`` holds a digit, or small letters and two capitals or more: what a
    secret holds and a word does not (one pass over it)."""
    if _DIGIT_OR_CHANGE.search(value) is not None:
        return True
    return _TWO_CAPITALS.search(value) is not None and _SMALL.search(value) is not None


_DIGIT_OR_CHANGE = re.compile(r"\d|[a-z][A-Z]")
_TWO_CAPITALS = re.compile(r"[A-Z][^A-Z]*[A-Z]")  # (each start runs to the next capital)
_SMALL = re.compile(r"[a-z]")


# a line that names a secret, then on the next line a label and a random value: "create the
# Jira API token" then "paste into CI: VALUE", "The key was generated..." then "Current
# value: VALUE"
_LABEL_VALUE = re.compile(
    r"^\s*(?:[-*>]\s+)?(?:\[[ xX]\]\s+)?([^:`\n]{1,40}):\s*[`'\"]?(\S{16,200})\s*$"
)
_NAMED_ABOVE = re.compile(r"(?i)\b(?:token|secret|api[ _-]?key|key|password|credentials?)s?\b")
_PUBLIC_ABOVE = re.compile(
    r"(?i)public|publishable|client-side|frontend|browser|no key|search-only"
)


# the words of a label that give the value named above and name nothing of their own
_GENERIC_LABEL = _set(
    """
    value current new paste pasted copy copied here this that use used set into the
    actual real full raw generated created rotated prod staging production it's
    """
)


def named_above(above: str, line: str) -> str | None:
    """The kind of a random value after a label on ``line`` when the line ``above`` names a
    secret (and says it is no public one)."""
    match = _LABEL_VALUE.match(line)
    if match is None or not _NAMED_ABOVE.search(above) or _PUBLIC_ABOVE.search(above):
        return None
    label, value = match.group(1), match.group(2).rstrip("`'\".,;")
    if not all(len(word) <= 3 or word.lower() in _GENERIC_LABEL for word in label.split()):
        return None  # "Account: ...", "Messaging service: ...": a label of its own
    if _HEX.fullmatch(value) or _UUID.fullmatch(value) or _SID.fullmatch(value):
        return None  # a commit, a run's id: a hex value needs its name on its own line
    if random_looking(value) or (
        random_token(value, named=True) and len(value) >= 20 and not derived_name(value)
    ):
        return "value below the words that name it"
    return None


# where a field's name starts: the line's start (after a list's mark), or after a JSON
# object's brace or comma
_FIELD_START = re.compile(r"(?:^\s*(?:[-*]\s+)?|[{,]\s*)[\"']?$")


def name_alone(name: str, value: str, line: str, at: int) -> bool:
    """Whether a value given to a name alone ``key`` or ``auth`` (a cache's key, a setting,
    usually) is a secret: a random token of mixed case (an rclone or Redis AUTH), or one a
    credential record gives beside a provider or an account."""
    if name.strip("\"'").lower() not in ("key", "auth"):
        return False
    if not _FIELD_START.search(line, 0, at):
        return False  # words before it: "API key: VALUE" is the context rule's to judge
    value = value.strip("\"'`")
    if _DERIVED.fullmatch(value) or public_value(value) or is_placeholder(value):
        return False
    if random_looking(value) and re.search(r"[A-Z]", value) and re.search(r"[a-z]", value):
        return True
    record = re.search(
        r"(?i)[\"']?(?:provider|account|scopes?|client_id|app_id)[\"']?\s*[:=]", line
    )
    return record is not None and (
        (_HEX.fullmatch(value) is not None and entropy(value) >= 3.0)
        or random_token(value, named=True)
    )


# an app password, as Google and Microsoft print it: four groups of four small letters
_APP_PASSWORD = re.compile(
    r"(?i)\bapp(?:lication)?[ -](?:specific[ -])?passwords?\b[^\n]{0,80}?"
    r"[\s:`'\"]([a-z]{4}([ -]?)[a-z]{4}\2[a-z]{4}\2[a-z]{4})(?![a-z])"
)


def app_password(line: str) -> bool:
    """An app password after the words that name it: four groups of four small letters."""
    for match in _APP_PASSWORD.finditer(line):
        letters = match.group(1).replace(" ", "").replace("-", "")
        if letters.islower() and len(set(letters)) >= 8 and not _alphabet_run(letters):
            return True
    return False


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
_LABELLED_LOGIN = re.compile(
    r":\s+[`'\"]?[\w.@+-]{2,64}[`'\"]?\s+/\s+[`'\"]?([^\s`'\"/]{8,80})[`'\"]?\s*\.?$"
)
# a Wi-Fi network's key: "the Wi-Fi ... is `NAME`, key VALUE"
_WIFI_KEY = re.compile(
    r"(?i)\b(?:wi-?fi|wlan|ssid)\b[^\n]{0,80}?\bkey\s*:?\s+[`'\"]?([^\s`'\",;]{8,63})"
)
# two quoted fields, a user and a password, as pgbouncer's userlist holds them
_QUOTED_PAIR = re.compile(r"^\s*\"[\w.@-]{1,64}\"\s+\"([^\"\s]{8,200})\"\s*$")


# each form with the words (in lower case) a line must hold for it, and its value's test
_LOGINS: tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[str], bool]], ...] = (
    ((" as ",), _LOGGED_IN_AS, human_password),
    (("set to",), _ACCOUNT_SET, human_password),
    (("set ",), _SET_ACCOUNT_TO, random_looking),
    ((" / ",), _LABELLED_LOGIN, human_password),
    (("wi-fi", "wifi", "wlan", "ssid"), _WIFI_KEY, human_password),
    (('" "',), _QUOTED_PAIR, all_classes),
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


_EXAMPLE_LOGIN = re.compile(r"(?i)@example\.|password`?\s*$|[-_]password\b")
LOGIN_WORDS = tuple(word for words, _, _ in _LOGINS for word in words)
