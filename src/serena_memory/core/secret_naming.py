"""What a setting's name says about its value (for the secret gate): that it is a secret
(``DB_PASSWORD``, ``SECRET_KEY_BASE``, ``TOKEN_GITHUB_CI``, ``WIFI_PASSWORD_OFFICE``), a
password (its value may then be words and digits), or public by design (``NEXT_PUBLIC_*``,
a site key), or no credential at all (a cache's key, a page's cursor, a hash of a secret).
"""

from __future__ import annotations

import re

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
    # a public key by a mesh's name for it (Tailscale's nodekey:, discokey:) or its short one
    + ["pubkey", "nodekey", "discokey"]
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
PASSWORD_WORDS = frozenset(["password", "passwd", "pwd", "pass", "passphrase", "psk", "pw"])


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
    # an encrypted value's name (encrypted_password, DB_PASSWORD_CIPHERTEXT): ciphertext
    + ["encrypted", "ciphertext", "sealed"]
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


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# words after a password's first word that say the value is about the password, not it:
# PASSWORD_MIN_LENGTH, PASSWD_FILE, PASSWORD_RESET_URL
_ABOUT_PASSWORD = word_set(
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
_NOT_THE_SECRET = word_set("version arn ref region account project audience issuer scope scopes")
# (or its identifier: a key's SID, fingerprint or thumbprint names it, the secret is apart)
_NOT_THE_SECRET |= word_set("sid fingerprint thumbprint kid")


def leading_secret_name(name: str) -> bool:
    """Whether ``name`` starts with a secret's words and names what it opens after them
    (``PASSWD_FTP_UPLOAD``, ``TOKEN_GITHUB_CI``), not a setting about the secret
    (``PASSWORD_MIN_LENGTH``, ``TOKEN_URL``); a token's value must still be random, and
    only a password's word leads a name in code's case."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    lead = next((len(first) for first in _LEADING if words[: len(first)] == first), 0)
    if "." in name or (lead and words[0] not in PASSWORD_WORDS and not _ENV_NAME.fullmatch(name)):
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
        word.lower().rstrip("s").endswith(_PASSWORD_ENDINGS) or word.lower() in PASSWORD_WORDS
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
