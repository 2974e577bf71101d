"""What the secret gate (core/secrets.py) calls a secret's name and a literal secret value,
whatever form the line takes: ``DB_PASSWORD_PROD`` is a secret's name and ``KEY_ID`` is not;
a long varied value is a secret, a word, a path, a piece of code, a reference or a
placeholder (``${VAR}``, ``<your-password>``) is not.
"""

from __future__ import annotations

import math
import re
from collections import Counter

# a value in one of these shapes documents where a secret goes, it is not one; judged on
# the value alone (a real token in a URL naming `yourcompany` is still a token)
_PLACEHOLDER = re.compile(
    r"x{4,}|\*{3,}|\.\.\.|…|•{3,}|example|replace|your|changeme|change_me|dummy|placeholder"
    r"|redacted|sample|fake|not[-_ ]?a[-_ ]?real|not[-_ ]real|\$\{|\$\(|\{\{|%\("
    # "change me" in other languages (Portuguese, Spanish, French, German, Italian, Dutch)
    r"|(?:troque|mude|altere)[-_ ]?me|c[aá]mbia(?:me|lo)|changez[-_ ]?moi|[aà][-_ ]changer"
    r"|bitte[-_ ]?(?:ä|ae)ndern|(?:ä|ae)ndere?[-_ ]?mich|da[-_ ]cambiare|wijzig[-_ ]?mij"
    # a Windows or NuGet variable: %NUGET_PAT%
    r"|^%[A-Za-z_][\w.]*%$"
    # a value that says it guards nothing: Django's django-insecure-..., a test-only key
    # (a key Django's startproject generated, 50 random characters after the prefix, is
    # a key in use: only a short one is a fixture's)
    r"|insecure(?![-_][^\s\"'`]{40})|test[-_]only|do[-_ ]?not[-_ ]?use"
    r"|1password|lastpass|keepass|bitwarden|dashlane"  # where a password is kept, not it
    r"|^(?:password|passwd|pass|pwd|secret|token|key|apikey|api_key|changeit|hunter2|test|guest"
    r"|admin|root|postgres|mysql|redis|user|username)$"
    # the word itself with digits or symbols, as fixtures and docs spell a password: Password123!
    r"|^(?:p[a@]ss?w[o0]rd|secret|test)[\d!@#$%^&*.]{1,6}$"
    r"|^my(?:password|passwd|pwd|pass|secret|token|apikey|key)\d*(?![A-Za-z0-9])",  # a guide's
    re.IGNORECASE,
)
# a bracketed word says what goes there: <password>, <API_KEY>, <Your Token>
_BRACKETED = re.compile(
    r"<(?:[a-z][a-z0-9]{2,}(?:[ _.:-][a-z0-9]+)*|[a-z]{2}(?:[ _.:-][a-z0-9]+)+"
    r"|[A-Z][A-Z0-9]{2,}(?:[ _.-][A-Z0-9]+)*"
    r"|[A-Z][a-z]{2,}(?: [A-Za-z][a-z]+)*)>"
)
# a name's words: API_KEYS, secretKeyBase, db-password-prod, aws_secret_access_key
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SECRET_WORD = re.compile(
    r"(?:key|token|secret|password|passwd|pwd|pass|passphrase|credential|cred|psk)s?$"
    # a personal access token (GH_PAT, AZURE_DEVOPS_PAT)
    r"|^pats?$"
    # a password's abbreviation as a name's word (GRAFANA_ADMIN_PW, ROOTPW)
    r"|^[a-z]*pw$"
    # the key of a signature or of a hash (DOWNLOAD_HMAC, PASSWORD_PEPPER)
    r"|^(?:hmac|pepper)$"
    # a session cookie (_app_session=...) and an auth header (X-Device-Auth): the word whole
    r"|^(?:session|auth)$"
    # a bearer token, a token's short name (AUTH_BEARER, GH_TOK), a secret key's (STRIPE_SK),
    # a server's salt (a signing salt, AUTH_SALT); the last two joined to a word, never alone
    r"|^(?:bearer|tok|salt|sk)$",
    re.I,
)
# what may follow a secret's word in its name and leave it one: SECRET_KEY_BASE,
# DB_PASSWORD_PROD, SESSION_SECRET_V2, API_KEYS (not KEY_ID, TOKEN_URL, PASSWORD_FILE)
_NAME_SUFFIXES = frozenset(
    [
        "base",
        "v",
        "prod",
        "production",
        "staging",
        "stg",
        "stage",
        "dev",
        "development",
        "live",
        "test",
        "old",
        "new",
        "current",
        "prev",
        "previous",
        "next",
        "primary",
        "secondary",
        "backup",
        "main",
        "value",
        "val",
        "raw",
        "plain",
        "plaintext",
        "b64",
        "base64",
        "hex",
        "str",
        "string",
        "local",
        # the role or copy of a database or service it opens: DB_PASS_REPLICA
        "replica",
        "master",
        "reader",
        "writer",
        "readonly",
        "ro",
        "rw",
        "admin",
        "root",
        # the environment or copy it opens, as teams abbreviate them: CLIENT_SECRET_PRD
        "prd",
        "uat",
        "qa",
        "preprod",
        "nonprod",
        "sandbox",
        "sbx",
        "int",
        "ci",
        "e2e",
        "perf",
        "dr",
        "internal",
        "external",
        "legacy",
        "temp",
        "tmp",
        "active",
        "standby",
    ]
)
# words that make a key public by design (PublicKey, NEXT_PUBLIC_*, SUPABASE_ANON_KEY,
# InstrumentationKey), or a keyboard's (hotkey)
# (and a browser's key: GOOGLE_MAPS_BROWSER_KEY, restricted to the sites that send it)
_PUBLIC_WORDS = frozenset(
    ["public", "publishable", "pub", "anon", "instrumentation", "hotkey", "browser"]
)
# a key of data, not a secret: DynamoDB's partition and sort keys, a cache or Redis key
DATA_KEY_WORDS = frozenset(
    [
        "partition",
        "sort",
        "range",
        "cache",
        "foreign",
        "composite",
        "shard",
        "routing",
        "idempotency",
        "dedup",
        "dedupe",
        "lookup",
        "object",
        "row",
        "redis",
        "kv",
        "bucket",
        "s3",
        "map",
    ]
)
# the secret's words that say a password: its value may be words and digits
_PASSWORD_WORDS = frozenset(["password", "passwd", "pwd", "pass", "passphrase", "psk", "pw"])
# quoted in prose, but no password: a URL (its own rule judges it), a path, an option
_NOT_IN_PROSE = re.compile(r"://|^[\w.$~-]*(?:/[\w.$~{}-]*)+$|^--?[a-z][\w-]*(?:=|$)")
# a value that names a key or is public by design: an ARN, a public SSH key, a Stripe
# publishable key, an encrypted value (EJSON, sops, Ansible Vault)
_PUBLIC_VALUE = re.compile(
    r"^(?:arn:|ssh-(?:rsa|ed25519|dss)\b|sk-(?:ssh|ecdsa)-|ecdsa-sha2-|pk_(?:live|test)_|phc_|pk\.eyJ"
    r"|AC[0-9a-f]{32}$"  # a Twilio account's SID: an identifier
    r"|client-[A-Za-z0-9]{20,}$"  # a feature-flag SDK's client key (Statsig's): browsers hold it
    # a Braintree tokenization key, a Datadog client token: made for browsers
    r"|(?:production|sandbox)_[a-z0-9]{8}_[a-z0-9]{16}$|pub[0-9a-f]{32}$"
    r"|EJ\[\d:|ENC[\[(]|\$ANSIBLE_VAULT|vault:|age1[a-z0-9]{50,})"
    # a Sealed Secret's ciphertext: a two-byte session key length (512 bytes or so) first
    # (its first bytes 02 00 or 02 01 encode as AgA or AgB)
    r"|^Ag(?:[A-Za-z0-9+/]{200,}|[AB][A-Za-z0-9+/]{100,})"
    # a GPG key's id or fingerprint, in the capitals gpg prints them
    r"|^(?:0x)?(?:[0-9A-F]{8}|[0-9A-F]{16}|[0-9A-F]{40})$"
)
# the Azure Storage emulator's account key, Stripe's documentation test keys (they reach
# only Stripe's demo account) and the signature of jwt.io's sample token
PUBLISHED_KEYS = frozenset(
    (
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        # the token GitHub's documentation shows
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        # the RFCs' examples: Basic's Aladdin:open sesame (RFC 7617), OAuth's access and
        # refresh tokens (RFC 6749), the JWS signature and PKCE verifier (RFC 7515, 7636)
        "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
        "2YotnFZFEjr1zCsicMWpAA",
        "tGzv3JOkF0XG5Qx2TlKWIA",
        "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        # the HMAC key of the JWS example (RFC 7515, appendix A.1)
        "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
        # the test keys captcha providers publish, which always pass: reCAPTCHA v2's site
        # key and secret, Cloudflare Turnstile's
        "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
        "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
        "1x0000000000000000000000000000000AA",
        "2x0000000000000000000000000000000AA",
    )
)
_HEX_OR_UUID = re.compile(r"[0-9a-f]{7,64}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}", re.I)
# a value that is code or a reference, not a literal: a call, a subscript, a generic type,
# a template or JSX expression, an environment lookup, a memory reference
NOT_A_VALUE = re.compile(
    # a call or subscript (get_token(user), cfg["x"], re.compile(...)): a name of three
    # letters or a dotted one, then what code holds: closed, or lower-case arguments
    r"^(?=[A-Za-z_]{3}|[A-Za-z_]\w*(?:\.|::))[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*"
    r"(?:[(\[][\w.,()\[\] '\":-]*[)\]]|[(\[](?-i:[a-z0-9_.,()\[\]{}* '\"])*)$"
    r"|^[A-Za-z_][\w.:]*<.*>$|^[(\[{]"  # a generic type; a tuple, list, dict or template
    r"|^\$env:|^os\.|^env\.|^process\.env|^mem:"
    r"|^(?:true|false|null|none|nil|undefined)\b|^[A-Z]+(?:_[A-Z]+)+$"
    r"|^\$2[abxy]?\$\d\d\$|^\$argon2"  # password hashes
    r"|^\*[0-9A-F]{40}$"  # MySQL's native password hash: IDENTIFIED BY PASSWORD '*HEX'
    # a crypt(3) hash, alone or after its user (htpasswd, /etc/shadow): metrics:$apr1$...
    r"|^(?:[\w.@-]{1,64}:)?\$(?:1|5|6|y|apr1|md5|sha1|scrypt|pbkdf2[\w-]*|7)\$[^\s$]{1,80}\$"
    r"|^(?:~|\.{1,2})?/[\w./-]+$"  # paths
    r"|^@[\w.~/-]+$"  # a file to read the value from: vault kv put ... key=@file.txt
    # a reference to a secret store (op://vault/item/field, ref+vault://..., a Key Vault
    # reference) or any URL holding no login: a password in a URL is its own rule's
    r"|^[a-z][a-z0-9+.-]*://[^@\s]*$|^@Microsoft\.KeyVault\(|^projects/[^/]+/secrets/",
    re.IGNORECASE,
)
# an attribute (settings.SECRET_KEY): code unless quoted, where it is a string literal such
# as a password of two words (Badger.Walnut95)
_ATTRIBUTE = re.compile(r"^[A-Za-z_]+\d*(?:\.[A-Za-z_]+\d*)+$")
# ...but capitalised words with digits at the end are a password of words (a word, a dot,
# a word and digits)
# (or a small word then capitalised ones: velvet.Marble261, never an attribute's case)
_WORDS_AND_DIGITS = re.compile(r"^[A-Za-z][a-z]+(?:\.[A-Z][a-z]+)+\d{2,}$")
# words in a list (password,token,secret): what a setting lists, never a secret
# a regular expression (api[_-]?key, gh[ps]_[A-Za-z0-9]{36}): a pattern that finds secrets
_REGEX = re.compile(r"\][?*+{]|\\[dwsb]|\(\?[:=!<]")
# a path or a reference of small words: kv/data/prod/api#token
_WORD_PATH = re.compile(r"[a-z][a-z0-9_.-]*(?:[/#][a-z][a-z0-9_.-]*)+")
_WORD_LIST = re.compile(r"[A-Za-z_-]+(?:,[A-Za-z_-]+)+")
# names, paths, words in capitals and choices (IDENTIFY|OK|ESCALATE)
WORDS = re.compile(
    r"[a-z]+(?:[./:_|-][a-z]+)*|[A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]+(?:[./:_|-][A-Z]+)*"
)
# words joined: SECRET-outside-the-folders, a-token-for-tests-0123
_JOINED_WORDS = re.compile(
    r"(?:[a-z]+|[A-Z]+|[A-Z][a-z]+|\d+)(?:[-_.](?:[a-z]+|[A-Z]+|[A-Z][a-z]+|\d+))+"
)
MIN_ASSIGNED_LENGTH = 10
MIN_ASSIGNED_ENTROPY = 3.0  # bits per character; words and counters stay below


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


# a shell or compose variable ($DB_PASS, $token): one case, where a password that starts
# with `$` mixes cases and digits ($marble221Cobalt, quoted as a literal)
_REFERENCE = re.compile(r"^\$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[A-Za-z_][A-Za-z_]*)$")
# a token's random part filled with one character (ghp_000...): a known fake
_FILLER = re.compile(r"([A-Za-z0-9])\1{11}")


def is_placeholder(value: str) -> bool:
    """Whether a matched value is a placeholder or reference rather than a secret."""
    return bool(
        _PLACEHOLDER.search(value) or _BRACKETED.search(value) or _REFERENCE.match(value)
    ) or (len(value) >= 8 and len(set(value)) <= 3)


def filler(token: str) -> bool:
    """Whether a provider token's random part is one character repeated: a fake."""
    return _FILLER.search(token) is not None


def not_a_value(value: str, *, quoted: bool = False) -> bool:
    """Whether ``value`` is code or a reference rather than a literal; a ``quoted`` value
    (a string literal, a shell word) is never an attribute."""
    attribute = _ATTRIBUTE.match(value) and not _WORDS_AND_DIGITS.match(value)
    return bool(NOT_A_VALUE.search(value) or (not quoted and attribute))


def literal_secret(value: str, *, quoted: bool = False) -> bool:
    """Whether a value assigned to a secret's name is a literal secret: long, varied, not a
    word, path, reference, placeholder or piece of code."""
    if len(value) < MIN_ASSIGNED_LENGTH or not_a_value(value, quoted=quoted):
        return False
    if is_placeholder(value):
        return False
    bare = value.rstrip(")]};,")  # without the end of the code around it
    return (
        not not_a_value(bare, quoted=quoted)
        and entropy(bare) >= MIN_ASSIGNED_ENTROPY
        and not WORDS.fullmatch(bare)
        and not _JOINED_WORDS.fullmatch(bare)
        and not _WORD_LIST.fullmatch(bare)
        and not _WORD_PATH.fullmatch(bare)
        and _REGEX.search(bare) is None
    )


def public_value(value: str) -> bool:
    """Whether ``value`` is public by design or by its shape: an ARN, a public key, a
    publishable key, an encrypted value."""
    return _PUBLIC_VALUE.search(value) is not None or value.endswith(tuple(PUBLISHED_KEYS))


def public_name(name: str) -> bool:
    """Whether ``name`` says its value is public (``NEXT_PUBLIC_...``, ``PublicKey``)."""
    return _public_words([word.lower() for word in _NAME_WORDS.findall(name)])


# the prefixes a bundler inlines into the page it serves (VITE_, REACT_APP_, GATSBY_): a
# value under them is public once built, whatever the rest of its name says
_BUNDLED = (["vite"], ["gatsby"], ["react", "app"])
# words that make the key after them public: a CAPTCHA's site key, a search-only key
# (a client token: Datadog's, Paddle's, Braintree's, each made for browsers)
_PUBLIC_PAIRS = frozenset([("site", "key"), ("search", "only"), ("client", "token")])
# the analytics and realtime services whose browser snippet holds their key or token (their
# secrets are named so: MIXPANEL_API_SECRET, PUSHER_APP_SECRET)
_BROWSER_SERVICES = frozenset(["mixpanel", "segment", "amplitude", "rudderstack", "pusher"])


# the words the tests below need, one of them at least
_PUBLIC_HINTS = (
    frozenset(["vite", "gatsby", "react", "site", "search", "client"]) | _BROWSER_SERVICES
)


def _public_words(words: list[str]) -> bool:
    """Whether a name's ``words`` say its value is public: a public word, a bundler's
    prefix, a site key or a search-only key."""
    if _PUBLIC_WORDS.intersection(words) or "sitekey" in words:
        return True
    if _PUBLIC_HINTS.isdisjoint(words):
        return False  # most names: none of the words below
    if _BROWSER_SERVICES.intersection(words) and words[-1] in ("key", "token"):
        return "secret" not in words and "service" not in words
    if any(words[: len(prefix)] == prefix for prefix in _BUNDLED) and len(words) > 2:
        return True
    return any(pair in _PUBLIC_PAIRS for pair in zip(words, words[1:], strict=False))


# words that make a token no credential: a page's cursor, an OAuth state or PKCE verifier;
# a hash of the secret (detect-secrets' baseline `hashed_secret`, `sha256_token`)
_NO_CREDENTIAL_WORDS = frozenset(
    ["next", "page", "continuation", "cursor", "pagination", "state", "nonce", "pkce"]
    + ["verifier", "challenge", "cancellation", "sync", "idempotency"]
    + ["hashed", "hash", "sha", "md5", "digest", "checksum", "fingerprint"]
)
# names that alone say no secret: a key (a cache's, a keybinding's), a session (a work
# session's), auth (a setting); joined to another word they do (_app_session, X-Device-Auth)
_ALONE = (["key"], ["keys"], ["session"], ["sessions"], ["auth"], ["salt"], ["sk"])


def secret_name(name: str) -> bool:
    """Whether ``name`` says its value is a secret: a secret's word (``key``, ``token``,
    ``password``...) as its last word or followed only by words such as ``base``, ``prod``
    or ``v2`` (``SECRET_KEY_BASE``, ``DB_PASSWORD_PROD``, ``API_KEYS``); not ``KEY_ID``
    nor a name alone ``key`` (a cache key, a keybinding, a database's key), nor a key
    public by design (``PublicKey``, ``NEXT_PUBLIC_...``, ``SUPABASE_ANON_KEY``)."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    if not words or _no_login_secret(words):
        return False
    return _ends_in_secret_word(words)


def _no_login_secret(words: list[str]) -> bool:
    """Whether a name's ``words`` say its value is no secret that logs in, whatever word
    ends the name: public by design, a word alone (a cache's key, a work session), Helm's
    existingSecret (a Secret's name), a CSRF token, a page's cursor or an OAuth state
    (nextPageToken, CONTINUATION_TOKEN, oauth_state_key)."""
    return (
        _public_words(words)
        or words in _ALONE
        or words[0] == "existing"
        or words[0].startswith(("csrf", "xsrf"))
        or bool(_NO_CREDENTIAL_WORDS.intersection(words[:-1]))
    )


def _ends_in_secret_word(words: list[str]) -> bool:
    """Whether a name's last word, past the suffixes (``base``, ``prod``, ``v2``), is a
    secret's word: not a data key's ``key`` (``PARTITION_KEY``, ``CACHE_KEY``), which
    names no secret."""
    for at in range(len(words) - 1, -1, -1):
        word = words[at]
        if _SECRET_WORD.search(word):
            before = words[at - 1] if at else ""  # a record's key: PARTITION_KEY, GSI1SK
            return not (
                (word.startswith("key") and before in DATA_KEY_WORDS)
                or (word == "sk" and before.isdigit())
            )
        if not _name_suffix(word):
            return False
    return False


def _name_suffix(word: str) -> bool:
    """Whether ``word`` may follow a secret's word in its name and leave it a secret's: a
    suffix such as ``base`` or ``prod``, a version (``v2``), a number."""
    version = word.startswith("v") and word[1:].isdigit()
    return word in _NAME_SUFFIXES or version or word.isdigit()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# words after a password's first word that say the value is about the password, not it:
# PASSWORD_MIN_LENGTH, PASSWD_FILE, PASSWORD_RESET_URL
_ABOUT_PASSWORD = _words(
    """
    file path dir url uri length len min max policy reset hash hasher hashers salt
    expiry expires expire days age rounds iterations algo algorithm strength field label
    prompt mode type store manager command cmd var regex pattern rule rules hint
    required enabled disabled auth provider source method format encoding timeout ttl
    lifetime history complexity validator validators change changed changes sha md5
    digest hashed bcrypt argon crypt encrypted enc cipher ciphertext fingerprint
    checksum id name user username env key
    """
)


# a secret's words first in a name, then what it opens: TOKEN_GITHUB_CI, API_KEY_STRIPE
_LEADING: tuple[list[str], ...] = (
    *(["password"], ["passwd"], ["pwd"], ["passphrase"], ["secret"], ["token"], ["apikey"]),
    *(["api", "key"], ["api", "token"], ["access", "token"], ["auth", "token"]),
)
# an environment variable's name, in capitals: where a token's words lead only as a setting
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# words after them that name something else than the secret: its version, its ARN
_NOT_THE_SECRET = _words("version arn ref region account project audience issuer scope scopes")


def leading_secret_name(name: str) -> bool:
    """Whether ``name`` starts with a secret's words and names what it opens after them
    (``PASSWD_FTP_UPLOAD``, ``TOKEN_GITHUB_CI``), not a setting about the secret
    (``PASSWORD_MIN_LENGTH``, ``TOKEN_URL``); a token's value must still be random, and
    only a password's word leads a name in code's case."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    lead = next((len(first) for first in _LEADING if words[: len(first)] == first), 0)
    if "." in name or (lead and words[0] not in _PASSWORD_WORDS and not _ENV_NAME.fullmatch(name)):
        return False  # code's names (token.content, tokenResponse): only a password's lead
    return (
        0 < lead < len(words)
        and not _ABOUT_PASSWORD.intersection(words[lead:])
        and not _NOT_THE_SECRET.intersection(words[lead:])
        and not _public_words(words)
    )


# the words of a secret that a name may qualify after them (WIFI_PASSWORD_OFFICE)
_QUALIFIED = frozenset(["password", "passwd", "pwd", "passphrase", "token", "secret", "key"])


def qualified_secret_name(name: str) -> bool:
    """Whether ``name`` has a secret's word followed by one or two words saying whose or
    where it is (``WIFI_PASSWORD_OFFICE``, ``DRONE_TOKEN_droneci``, ``hmac_key_payments``),
    none saying the value is about the secret (``TOKEN_URL``, ``KEY_ID``) nor a data key's
    (``CACHE_KEY_PREFIX``); its value must still be drawn at random or a strong password."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    for at, word in enumerate(words[:-1]):
        after = words[at + 1 :]
        if word not in _QUALIFIED or len(after) > 2 or any(part.isdigit() for part in after):
            continue
        if word == "key" and (at == 0 or words[at - 1] in DATA_KEY_WORDS):
            continue
        return not (
            _ABOUT_PASSWORD.intersection(after)
            or _NOT_THE_SECRET.intersection(after)
            or _NO_CREDENTIAL_WORDS.intersection(words)
            or _public_words(words)
        )
    return False


def password_name(name: str) -> bool:
    """Whether ``name`` names a password, its word joined or not (PGPASSWORD, DB_PASSWORDS)."""
    return any(
        word.lower().rstrip("s").endswith(_PASSWORD_ENDINGS) or word.lower() in _PASSWORD_WORDS
        for word in _NAME_WORDS.findall(name)
    )


# (and a directive's word: Redis' requirepass, a keystore's storepass; never bypass, compass)
_PASSWORD_ENDINGS: tuple[str, ...] = (
    *("password", "passwd", "passphrase", "pwd", "rootpw", "bindpw"),
    *(
        f"{who}pass"
        for who in ("require", "auth", "master", "root", "admin", "db", "bind", "store")
    ),
)


def literal_value(name: str, value: str, *, quoted: bool = False) -> bool:
    """Whether ``value``, assigned to the secret's name ``name``, is a literal secret; a
    password may be words and digits (``cobalt-copper-velvet-19``)."""
    value = value.strip("'\"`")
    if _PUBLIC_VALUE.search(value) or value in PUBLISHED_KEYS:
        return False
    if literal_secret(value, quoted=quoted):
        return True
    if quoted and _SYMBOL.search(value) and strong_password(value, quoted=True):
        return True  # a short strong password quoted for any secret's name (SECRET_KEY)
    if passphrase(value) and not _INSTRUCTION.intersection(re.split(r"[-_.+~]", value.lower())):
        return True  # a generator's words and a number, for any secret's name (APP_SECRET)
    # a password's value may be words and digits, or short and strong (a word, a year, `!`)
    return password_name(name) and (
        passphrase(value)
        or strong_password(value, quoted=quoted)
        or human_password(value)
        or set_password(value)
        or paired_words(value)
    )


# words that tell how to make a secret, in a value that is an instruction, not a passphrase
# (generate-with-openssl-rand-hex-32)
_INSTRUCTION = _words(
    "generate generated use set run replace put enter fill paste with from openssl rand random"
    " hex base64 uuid"
)


# two to four words of five letters or more joined, as a person sets a password to
# remember (copper-juniper); no words that describe a value instead of being one
_PAIRED_WORDS = re.compile(r"[a-z]{5,10}(?:[-.][a-z]{5,10}){1,3}")
_DESCRIBING = _words(
    """
    empty string value values secret secrets password passwords required generated
    random default disabled enabled unset blank change later ignored stored inside vault
    config environment variable provided below above managed rotated debug release local
    android testing staging production
    """
)


_SYMBOL = re.compile(r"[^\w\s]")


def paired_words(value: str) -> bool:
    """Whether ``value`` is words joined that make a password (``copper-juniper``)."""
    return (
        _PAIRED_WORDS.fullmatch(value) is not None
        and not _DESCRIBING.intersection(re.split(r"[-.]", value))
        and not is_placeholder(value)
    )


# a short password a person set: a word and digits, with a symbol or none (maple30, SABLE_72)
_SET_PASSWORD = re.compile(r"[A-Za-z][A-Za-z_.!@#%&*+-]{2,}\d{1,4}[!?#*]?")


def set_password(value: str) -> bool:
    """Whether ``value``, given to a password's name, is a short password a person set: a
    word (no default's: admin, postgres, test) then digits (one after five letters)."""
    if not 6 <= len(value) <= 24 or not _SET_PASSWORD.fullmatch(value) or is_placeholder(value):
        return False
    letters = re.sub(r"[^A-Za-z]", "", value).lower()
    enough = 5 if value.rstrip("!?#*")[-2:-1].isalpha() else 4  # one digit: a longer word
    return len(letters) >= enough and not _DEFAULT_WORDS.fullmatch(letters)


# words joined with digits, as a password generator makes them (maple-nimbus-orbit-63)
_PASSPHRASE = re.compile(r"[A-Za-z]{3,}(?:[-_.+~][A-Za-z]{3,}){2,}[-_.+~]?\d{1,4}[!?.*#$%^&]?")


def passphrase(value: str) -> bool:
    return bool(_PASSPHRASE.fullmatch(value)) and not is_placeholder(value)


def strong_password(value: str, *, quoted: bool = False) -> bool:
    """Whether a value standing where a password goes looks like one: a passphrase of
    words and digits, or eight characters or more mixing letters with digits or symbols
    (``Winter2021*``, ``Orb1t^1cin``); never a word, a path, a URL, a hash, an option or a
    placeholder."""
    value = value.strip("'\"`").rstrip(".,;:)")
    if len(value) < 8 or is_placeholder(value) or not_a_value(value, quoted=quoted):
        return False
    if _NOT_IN_PROSE.search(value) and not _drawn_with_slashes(value):
        return False
    if _HEX_OR_UUID.fullmatch(value) or _dollar(value) or _PUBLIC_VALUE.search(value):
        return False
    if passphrase(value):
        return True
    if _JOINED_WORDS.fullmatch(value) and not re.search(r"\d", value):
        return False  # words joined: Well-tested, Read-Only
    classes = sum(
        bool(re.search(pattern, value)) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w\s]")
    )
    return bool(re.search(r"[A-Za-z]", value)) and classes >= 3 and len(set(value)) >= 6


# base64 with its slashes: parts of letters of both cases and digits, none short
_BASE64_PARTS = re.compile(r"[A-Za-z0-9+]{8,}(?:/[A-Za-z0-9+]{8,}){1,3}={0,2}")


def _drawn_with_slashes(value: str) -> bool:
    """Whether ``value``, shaped as a path, is drawn at random (base64 holds ``/``): long
    parts, both cases, drawn as a whole (a path's parts are words: SubModule2/ProjectName)."""
    from serena_memory.core.secret_drawn import random_looking

    return (
        _BASE64_PARTS.fullmatch(value) is not None
        and not value.islower()
        and not value.isupper()
        and random_looking(value)
    )


# what default and demo passwords are made of (admin123, postgres1, testpass01): with
# digits only after them, a local default or a fixture's, never one a person must keep
_DEFAULT_WORDS = re.compile(
    r"(?:admin|administrator|test|testing|tester|pass|passwd|password|pwd|pw|secret|root|user"
    r"|guest|demo|dev|local|default|example|sample|changeme|change|qwerty|letmein|welcome"
    r"|postgres|postgresql|mysql|mariadb|redis|mongo|mongodb|rabbit|rabbitmq|minio|oracle"
    r"|sa|db|app|my|super|temp|tmp|dummy|fake|foo|bar|abc)+"
)
# a ticket, a version or a build: JIRA-1234, v2.3.1, build-2024
_NOT_A_PASSWORD = re.compile(r"[A-Z]{2,10}-\d+|v?\d+(?:\.\d+)+[\w.-]*|[a-z]+[-_.]\d+")


# a word and a random tail, as generators suggest (thistle_w7p7dq): a letter after a digit
# in it (not a counter's build_2024, a name's reset_abc123, a word's snake_case)
WORD_AND_TAIL = re.compile(r"[a-z]{4,10}[._](?=[a-z0-9]*\d[a-z])[a-z0-9]{5,8}")


def human_password(value: str) -> bool:
    """Whether a value said to be a password (after its word, beside a user) is one: a
    strong one, or eight characters or more of letters and digits that are no default
    word with a counter (``admin123``), no ticket, version or hex id (``pvbgr6432``,
    ``I4ZNQLN8BS``: short passwords people set)."""
    value = value.strip("'\"`").rstrip(".,;:)")
    if strong_password(value):
        return True
    if WORD_AND_TAIL.fullmatch(value) and not is_placeholder(value):
        return True
    if len(value) < 8 or len(set(value)) < 6 or not (value.isascii() and value.isalnum()):
        return False
    if value.isalpha():  # letters alone: drawn at random when their case keeps changing
        return len(re.findall(r"[a-z][A-Z]|[A-Z][a-z]", value)) >= 4 and not is_placeholder(value)
    if value.isdigit() or is_placeholder(value):
        return False
    if _HEX_OR_UUID.fullmatch(value) or _NOT_A_PASSWORD.fullmatch(value):
        return False
    letters = re.sub(r"\d", "", value).lower()
    return not (re.fullmatch(r"[A-Za-z]+\d+", value) and _DEFAULT_WORDS.fullmatch(letters))


def _dollar(value: str) -> bool:
    """Whether ``value`` starting with ``$`` is a reference or a crypt hash ($6$salt$...),
    not a password that starts with the symbol."""
    return value.startswith("$") and (not value[1:2].isalpha() or "$" in value[1:])


def quoted_secret(word: str, value: str) -> bool:
    """Whether ``value``, quoted after the word ``word`` in prose (password, token, API
    key...), is a secret: a literal secret with a digit or a symbol that is no hash, path,
    URL or public value, or, after a password's word, a strong password."""
    return (
        literal_secret(value)
        and re.search(r"[^A-Za-z]", value) is not None  # a digit or a symbol: no word
        and re.search(r"[A-Za-z]", value) is not None
        and not _HEX_OR_UUID.fullmatch(value)
        and not _NOT_IN_PROSE.search(value)
        and not _PUBLIC_VALUE.search(value)
    ) or (word.lower() in _PASSWORD_WORDS and human_password(value))
