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

from serena_memory.core.secret_drawn import DERIVED, SID, UUID, derived_name, random_looking
from serena_memory.core.secret_encoded import decoded_text
from serena_memory.core.secret_lookalikes import cut_after
from serena_memory.core.secret_naming import DATA_KEY_WORDS, secret_name
from serena_memory.core.secret_public import denied, public_context, remarked_public
from serena_memory.core.secret_said import HASH_OF, generated, random_token
from serena_memory.core.secret_templates import inside_template
from serena_memory.core.secret_values import (
    IN_ORDER,
    entropy,
    human_password,
    is_placeholder,
    literal_value,
    passphrase,
    public_value,
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
_HEX = re.compile(r"(?:0x)?[0-9a-f]{32,128}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*")
# an identifier in code's shape (TENANT_ID, clientId): what it names is no secret's unless
# its name says so
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*")
# a template's or a shell's expression the value is inside of
_INSIDE_EXPRESSION = ("{", "$", "%", "{{", "${", "{%", "$(")
# after a value, words that say it is none: "(hash of requirements.txt)", "# cache key",
# "(client-side by design)"
_AFTER_ELSE = re.compile(
    r"(?i)[`'\"]?\s*(?:#|//|\(|-\s|—|–)[^\n]{0,60}?\b(?:cache|idempotency|hash|checksum"
    r"|digest|example|fake|dummy|mock|stub|fixture|public|publishable|client-side|by design"
    r"|not (?:a |the )?(?:secret|key|token))"
)


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
        return _named_literal(name, value, quoted=quoted)
    if kind in _KIND_FITS:
        return _KIND_FITS[kind](value)
    return _token_fits(value, distance, bare_key=bare_key)


def _named_literal(name: str, value: str, *, quoted: bool) -> bool:
    """Whether ``value`` after a secret's identifier is a literal secret: not a name in
    code's case (reviewDecision) nor a file's name, which are code and no secret."""
    if _CODE_NAME.fullmatch(value) or re.search(r"\.[a-z]{1,5}$", value):
        return False
    return literal_value(name, value, quoted=quoted)


def _password_fits(value: str) -> bool:
    """A password: as people make them, or a passphrase of words."""
    return human_password(value) or passphrase(value)


def _hex_key_fits(value: str) -> bool:
    """An alerting service's integration key (PagerDuty's): 32 hex digits, drawn."""
    return len(value) == 32 and _HEX.fullmatch(value) is not None and entropy(value) >= 3.0


def _code_fits(value: str) -> bool:
    """A recovery code in its shape (groups of letters and digits, or six to ten digits)
    of five different characters or more, or a recovery key drawn at random."""
    return (_CODE.fullmatch(value) is not None and len(set(value)) >= 5) or random_looking(value)


def _token_fits(value: str, distance: int, *, bare_key: bool) -> bool:
    """Whether ``value`` is the token or key a word ``distance`` words before names: a
    random one from afar (a sentence's subject), another only right after its word."""
    if derived_name(value):
        return False
    if random_looking(value):
        return distance <= 14
    if distance > 6:
        return False
    if bare_key and not generated(value):
        return False  # `key: HEX`, `key: UUID`: a cache's or a record's key
    return _plain_token_fits(value, distance)


def _plain_token_fits(value: str, distance: int) -> bool:
    """Whether a value that does not look random is still a token by its shape: a UUID
    right after its word (Heroku's, Postmark's), a long number or hex of many digits."""
    if UUID.fullmatch(value):
        return distance <= 2 and entropy(value) >= 3.0
    if value.isdigit():
        return len(value) >= 16 and len(set(value)) >= 6
    if _HEX.fullmatch(value):
        return entropy(value) >= 3.0 and len(set(value)) >= 8
    return False


# the kinds of secret whose values are judged by their shape alone
_KIND_FITS: dict[str, Callable[[str], bool]] = {
    "password": _password_fits,
    "hex key": _hex_key_fits,
    "code": _code_fits,
}


# what names a code that logs in once without the second factor, or a vault's recovery key
_RECOVERY = _set("recovery backup 2fa mfa emergency scratch restore")
# a recovery code's shape: groups of letters and digits, or of digits
_CODE = re.compile(r"[A-Za-z0-9]{4,8}(?:-[A-Za-z0-9]{4,8}){1,11}|\d{6,10}")


# a program's or a package's name (update-passwd, base-passwd): no variable
_PROGRAM = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
_REFERENCE = re.compile(r"#\d{3,}|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}$")  # Bug#53857, XXH3_SIZE_MIN
# the letters of scripts written without spaces between words (kana, CJK ideographs,
# Hangul, Thai): a run holding them is a sentence's words, never a token or a password
_UNSPACED_SCRIPT = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# a variable the shell expands, alone or leading a path or a URL ($CI_API_V4_URL/projects)
_EXPANDED = re.compile(r"\$\{?[A-Za-z_]\w*\}?(?:[/:.?]|$)")


def _naming(word: str, before: str) -> str | None:
    """The kind of secret ``word`` names (``password``, ``token``, ``name``), given the word
    ``before`` it; None when it names none or names a public, a data or no credential."""
    low = word.lower().rstrip(".")
    bare = low[:-1] if low.endswith("s") and low[:-1] in _TOKEN_WORDS else low
    kind = _word_naming(bare, before)
    if kind is not None or bare in _GENERIC_WORDS:
        return kind  # (a generic word after a public's or a data's word names none)
    return _identifier_naming(word, low)


# the words that name a token or a key unless the word before says it is no credential's
_GENERIC_WORDS = ("key", "auth", "secret", "token")
# the words before `pass` that make it a password (app pass, wifi pass), not a permit
_PASS_OF = ("app", "wifi", "wi-fi")


def _word_naming(bare: str, before: str) -> str | None:
    """The kind of secret a word of prose names (``bare``: in lower case, a plural's s
    gone), given the word ``before`` it: a recovery key is a code, a routing key a hex key."""
    if bare in _PASSWORD_WORDS or bare == "pass" and before in _PASS_OF:
        return "password"
    if bare in ("code", "codes", "key") and before in _RECOVERY:
        return "code"
    if bare == "key" and before in ("routing", "integration"):
        return "hex key"  # an alerting service's (PagerDuty's): 32 hex digits, not a queue's
    if bare in _GENERIC_WORDS:
        if before in _NOT_SECRET_KEY or before in _NOT_CREDENTIAL_TOKEN:
            return None
        return "token"
    return "token" if bare in _TOKEN_WORDS else None


def _identifier_naming(word: str, low: str) -> str | None:
    """``name`` when ``word`` is a secret's identifier (DB_PASSWORD, apiToken, requirepass,
    PGPASSWORD), not a program's (update-passwd), nor a function's (getUserTokens), nor a
    word that only ends like one (tiktoken, hotkey)."""
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
    words = _words_to_read(before)
    if not words:
        return None
    last = words[-1].lower()
    if last in _NAMES_WHO or last in (",", ";", "|"):
        return None  # "password for alice.smith2024": the user's name, not the password
    if last == "to" and not _SETTING.search(before):
        return None
    return _read_back(before, words, value, connected=last in _CONNECTORS, quoted=quoted)


def _words_to_read(before: str) -> list[str]:
    """The last words ``before`` a value (asides left out), or none when the value is
    inside a template's expression or an aside before it says it is else."""
    if before.rstrip().endswith(_INSIDE_EXPRESSION):
        return []  # ${DB_PASS:?set it}, {{ .Values.password }}
    if "(" in before and any(_aside_else(aside) for aside in _ASIDE.findall(before)):
        return []  # "token (sha256, for the audit): VALUE"
    return _WORD.findall(_ASIDE.sub(" ", before))[-16:]


# the marks that give a value, not counted as words between a name and its value
_MARKS = (":", "=", "-", "—", "–", "->", "=>", "→")


def _read_back(
    before: str, words: list[str], value: str, *, connected: bool, quoted: bool
) -> str | None:
    """The kind :func:`_judge` finds reading ``words`` back from the value (``connected``:
    a mark or a verb gives it to what is named before): the first word that names a secret
    decides; a word that says else, another name or a label of its own stops the reading."""
    distance, crossed = 0, False
    for at in range(len(words) - 1, -1, -1):
        word = words[at]
        low = word.lower().rstrip(".")
        if low in _ELSE or low in ("|", ";") or HASH_OF.search(low):
            return None
        previous = words[at - 1].lower() if at else ""
        kind = None if _called(before, word) else _naming(word, previous)
        if kind is not None:
            return _named_kind(
                kind,
                words,
                at,
                value,
                distance,
                crossed=crossed,
                connected=connected,
                quoted=quoted,
            )
        if _IDENTIFIER.fullmatch(word):
            return None  # another name's value: key="TENANT_ID" value="..."
        if _own_label(words, at):
            return None  # "Token: see Vault. Org: VALUE": the value's own label
        crossed = crossed or _sentence_ends(words, at)
        if word not in _MARKS:
            distance += 1
    return None


def _sentence_ends(words: list[str], at: int) -> bool:
    """Whether a sentence ends at ``words[at]``: a full stop, then a capital."""
    return words[at].endswith(".") and at + 1 < len(words) and words[at + 1][:1].isupper()


def _named_kind(
    kind: str,
    words: list[str],
    at: int,
    value: str,
    distance: int,
    *,
    crossed: bool,
    connected: bool,
    quoted: bool,
) -> str | None:
    """The kind of secret ``value`` is when ``words[at]`` names one of ``kind``,
    ``distance`` words before it (``crossed``: a sentence ends between): none when the words
    before the name say else, when another sentence names it and it is not random, when it
    is not near its name (nor given to it) or does not fit what the name says."""
    word = words[at]
    if _named_else(words, at):
        return None  # "not secret by itself", "sha256 of the token", "remote cache action key"
    ended = word.endswith(".") and distance == 0  # "... 5 tokens. [VALUE]"
    near = (distance == 0 and not ended) or connected
    if crossed and not random_looking(value):
        return None  # another sentence names it: only a random token reads across
    low = word.lower().rstrip(".")
    previous = words[at - 1].lower() if at else ""
    bare_key = low in ("key", "keys") and (not previous or not previous[0].isalnum())
    if UUID.fullmatch(value) and _RENEWED.search(" ".join(words[-4:])) and distance <= 8:
        distance = 0  # "the access key ... new value is UUID": a rotated key's new value
    fits = _value_fits(kind, value, word, distance, bare_key=bare_key, quoted=quoted)
    return _kind_said(kind, word) if near and fits else None


# a data key's words (a cache's, a partition's), which name the key's compound noun
# (not a store's: an S3 or a Redis secret key is a credential; nor routing: PagerDuty's)
_DATA_KEY_WORDS = _set("cache partition sort range shard idempotency dedup dedupe lookup")


def _named_else(words: list[str], at: int) -> bool:
    """Whether the words before the secret's word ``words[at]`` say its value is else."""
    return _said_before(words[max(0, at - 8) : at]) or _data_key(words, at)


def _data_key(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` is a key of data a data key's word names a few words before
    ("bazel remote cache action key HASH"), not a credential."""
    near = map(str.lower, words[max(0, at - 3) : at])
    return words[at].lower() in ("key", "keys") and not _DATA_KEY_WORDS.isdisjoint(near)


# the words that give a rotated secret's new value: "new value is", "new one:"
_RENEWED = re.compile(r"(?i)\bnew (?:value|one|key|token|secret)(?: is| was)?(?: :)?$")


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
        if word in (",", ";", ":", "|") or len(word) >= 16 and random_looking(word):
            return False  # (a value of its own ends the words: "access id GOOG1... secret")
        low = word.lower()
        if low in _BEFORE_ELSE or HASH_OF.search(low) is not None:
            return True
    return False


def _aside_else(aside: str) -> bool:
    """Whether an aside says the value is else: its hash, an example, a public key (not the
    algorithm a key signs with: HMAC-SHA256)."""
    if "hmac" in aside.lower():
        return False
    words = _WORD.findall(aside)
    return any(
        (w.lower() in _BEFORE_ELSE and not denied(" ".join(words[:at]) + " ")) or HASH_OF.search(w)
        for at, w in enumerate(words)
    )


def _kind_said(kind: str, word: str) -> str:
    """The kind a refusal names, from the word that named the value (its placeholder is
    made of it: ``<redis-pass>``, ``<token>``)."""
    if kind == "name":
        return "value assigned to " + word.strip(".-_`")[:40]
    if kind == "code":
        return "recovery code"
    if kind == "hex key":
        return "integration key in a sentence"
    return f"{word.lower().rstrip('.')} in a sentence"


def _said_else(line: str, start: int, end: int) -> bool:
    """Whether the words around a value say it is public or no secret after all."""
    return (
        public_context(line, start)
        or _AFTER_ELSE.match(line, end, end + 80) is not None
        or remarked_public(line, end)
        or cut_after(line, start, end)  # cut short: sk.eyJ1I[...]
    )


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
    if _looked_up_or_encoded(line, start, value):
        return None
    if _UNSPACED_SCRIPT.search(value):
        return None  # words of a language written without spaces, run into a word: prose
    quoted = start > 0 and line[start - 1] in "`'\""
    kind = _judge(line[max(0, start - WINDOW) : start], value, quoted=quoted)
    if kind is not None and not _said_else(line, start, match.end()):
        return kind
    return None


def _looked_up_or_encoded(line: str, start: int, value: str) -> bool:
    """Whether ``value`` at ``start`` is a shell's variable ($CI_API_V4_URL/projects), a
    template's lookup, or base64 of a word (a Secret's ``password: cG9zdGdyZXM=``)."""
    if _EXPANDED.match(value) or inside_template(line, start, value):
        return True
    decoded = decoded_text(value)
    return decoded is not None and not human_password(decoded.strip())


def _plausible(value: str) -> bool:
    """Whether ``value`` holds a digit, or small letters and two capitals or more: what a
    secret holds and a word does not (one pass over it); not the digits or the alphabet in
    order, typed to show a shape."""
    if IN_ORDER.search(value) is not None:
        return False
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
    if _HEX.fullmatch(value) or UUID.fullmatch(value) or SID.fullmatch(value):
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
    if DERIVED.fullmatch(value) or public_value(value) or is_placeholder(value):
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
