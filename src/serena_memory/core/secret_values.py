"""What the secret gate (core/secrets.py) calls a secret's name and a literal secret value,
whatever form the line takes: ``DB_PASSWORD_PROD`` is a secret's name and ``KEY_ID`` is not;
a long varied value is a secret, a word, a path, a piece of code, a reference or a
placeholder (``${VAR}``, ``<your-password>``) is not.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from serena_memory.core.secret_encoded import decoded_text
from serena_memory.core.secret_encrypted import ENCRYPTED_SHAPE
from serena_memory.core.secret_lookalikes import lookalike
from serena_memory.core.secret_naming import PASSWORD_WORDS, password_name, word_set
from serena_memory.core.secret_references import file_reference

# a value in one of these shapes documents where a secret goes, it is not one; judged on
# the value alone (a real token in a URL naming `yourcompany` is still a token)
_PLACEHOLDER = re.compile(
    r"x{4,}|\*{3,}|\.\.\.|…|•{3,}|example|replace|your|changeme|change_me|dummy|placeholder"
    r"|redacted|sample|fake|not[-_ ]?a[-_ ]?real|not[-_ ]real|\$\{|\$\(|\{\{|%\("
    # a template's other marks (Ruby's and Octopus's #{...}, Jinja's {% %}, ERB's <%= %>)
    # and a format's field alone (printf's %s, Go's %v, Python's {} and {0})
    r"|#\{|\{%|<%|^%[-+#0-9.]*[sdrvqx]$|^\{\d*\}$"
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
    # (or spelt with digits and symbols for letters: P@ssw0rd, Pa$$word)
    r"|^(?:p[a@4][s$5]{1,2}w[o0]rd|secret|test)[\d!@#$%^&*.]{0,6}$"
    r"|^my(?:password|passwd|pwd|pass|secret|token|apikey|key)\d*(?![A-Za-z0-9])",  # a guide's
    re.IGNORECASE,
)
# a bracketed word says what goes there: <password>, <API_KEY>, <Your Token>
_BRACKETED = re.compile(
    r"<(?:[a-z][a-z0-9]{2,}(?:[ _.:-][a-z0-9]+)*|[a-z]{2}(?:[ _.:-][a-z0-9]+)+"
    r"|[A-Z][A-Z0-9]{2,}(?:[ _.-][A-Z0-9]+)*"
    r"|[A-Z][a-z]{2,}(?: [A-Za-z][a-z]+)*"
    # words in any script and case (<şifreniz>, <hier-Token-eintragen>, <ваш_ключ>)
    r"|[^\W\d_]{2,}(?:[ _.:-][^\W\d_]+)+|[a-zA-Z]*[^\W\da-zA-Z_][^\W\d_]*)>"
)
# quoted in prose, but no password: a URL (its own rule judges it), a path, an option
_NOT_IN_PROSE = re.compile(r"://|^[\w.$~-]*(?:/[\w.$~{}-]*)+$|^--?[a-z][\w-]*(?:=|$)")
# a value that names a key or is public by design: an ARN, a public SSH key, a Stripe
# publishable key, an encrypted value (EJSON, sops, Ansible Vault)
_PUBLIC_VALUE = re.compile(
    r"^(?:arn:|ssh-(?:rsa|ed25519|dss)\b|sk-(?:ssh|ecdsa)-|ecdsa-sha2-|pk_(?:live|test)_|phc_|pk\.eyJ"
    r"|AC[0-9a-f]{32}$"  # a Twilio account's SID: an identifier
    r"|client-[A-Za-z0-9]{20,}$"  # a feature-flag SDK's client key (Statsig's): browsers hold it
    # LaunchDarkly's mobile key and New Relic's browser key: apps and pages ship them
    r"|mob-[0-9a-f]{8}-[0-9a-f]{4}-|NRJS-[0-9a-f]{19}\b"
    # a Braintree tokenization key, a Datadog client token: made for browsers
    r"|(?:production|sandbox)_[a-z0-9]{8}_[a-z0-9]{16}$|pub[0-9a-f]{32}$"
    r"|age1[a-z0-9]{50,})"
    # an encrypted value (EJSON, sops, Ansible Vault, KMS, a Sealed Secret)
    rf"|{ENCRYPTED_SHAPE}"
    # a GPG key's id or fingerprint, in the capitals gpg prints them
    r"|^(?:0x)?(?:[0-9A-F]{8}|[0-9A-F]{16}|[0-9A-F]{40})$"
)
# the Azure Storage emulator's account key, Stripe's documentation test keys (they reach
# only Stripe's demo account) and the signature of jwt.io's sample token
PUBLISHED_KEYS = frozenset(
    (
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        # the Azure Cosmos DB emulator's key, the same on every machine
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
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
        # the TOTP seed Google Authenticator's wiki shows in its otpauth:// example
        "JBSWY3DPEHPK3PXP",
        # the development chains' published default accounts (Anvil's, Hardhat's and
        # Ganache's mnemonic `test test ... junk`): every tutorial's key, funds on no chain
        "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
        "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
        "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
        "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
        "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
        "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
        "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
        "dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
        "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
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
    # a call whose first argument is a name of words (Sign(testSecret, ...), a Ruby
    # symbol's dig(:stripe, ...), a pointer's &cfgKey): code, whatever follows it
    r"|^[A-Za-z_][\w.]*\([:&*]?(?-i:[a-z]+(?:[A-Z][a-z]+)*)(?:[,)]|$)"
    r"|^[A-Za-z_][\w.:]*<.*>$|^[(\[{]"  # a generic type; a tuple, list, dict or template
    r"|^\$env:|^os\.|^env\.|^process\.env|^mem:"
    r"|^(?:true|false|null|none|nil|undefined)\b|^[A-Z]+(?:_[A-Z]+)+$"
    r"|^\$2[abxy]?\$\d\d\$|^\$argon2"  # password hashes
    r"|^\*[0-9A-F]{40}$"  # MySQL's native password hash: IDENTIFIED BY PASSWORD '*HEX'
    # a crypt(3) hash, alone or after its user (htpasswd, /etc/shadow): metrics:$apr1$...
    r"|^(?:[\w.@-]{1,64}:)?\$(?:1|5|6|y|apr1|md5|sha1|scrypt|pbkdf2[\w-]*|7)\$[^\s$]{1,80}\$"
    r"|^(?:~|\.{1,2})?/[\w./-]+$"  # paths
    # a file to read the value from (vault kv put ... key=@file.txt, @-, @secrets): a path's
    # dot or slash, or a word; a value drawn after `@` (@Hyn1AytVhXZhZt) is a password
    r"|^@(?:[\w~-]*[./~][\w.~/-]*|[a-z][a-z_-]*|-)$"
    # another assignment, judged on its own: `creds: AWS_SECRET_ACCESS_KEY=...`
    r"|^(?-i:[A-Z][A-Z0-9]{0,30}(?:_[A-Z0-9]{1,30}){1,8})=[^=\s]"
    # a reference to a secret store (op://vault/item/field, ref+vault://..., a Key Vault
    # reference) or any URL holding no login: a password in a URL is its own rule's
    r"|^[a-z][a-z0-9+.-]*://[^@\s]*$|^@Microsoft\.KeyVault\(|^projects/[^/]+/secrets/"
    # (a store's scheme then a path: ssm:/prod/db/password, a parameter's name)
    r"|^[a-z][a-z0-9+.-]{1,20}:/[\w./#:-]*$",
    re.IGNORECASE,
)
# an attribute (settings.SECRET_KEY): code unless quoted, where it is a string literal such
# as a password of two words (Badger.Walnut95)
_ATTRIBUTE = re.compile(r"^[A-Za-z_]+\d*(?:\.[A-Za-z_]+\d*)+$")
# ...but capitalised words with digits at the end are a password of words (a word, a dot,
# a word and digits)
# (or a small word then capitalised ones: velvet.Marble261, never an attribute's case)
_WORDS_AND_DIGITS = re.compile(
    r"^[A-Za-z][a-z]+(?:\.[A-Z][a-z]+)+\d{2,}$"
    # (or the digits before the dot: Meadow6635.Bas, Raven_3252.Ke; no attribute's name
    # is a capitalised word with a number of years' length)
    r"|^[A-Z][a-z]+_?\d{3,}\.[A-Z][a-z]{1,12}$"
)
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


# what a person types for a value's shape: the digits or the alphabet in order
# (abcdef0123456789), never a value drawn at random
IN_ORDER = re.compile(r"0123456789|1234567890|abcdefghij|ABCDEFGHIJ")


def is_placeholder(value: str) -> bool:
    """Whether a matched value is a placeholder or reference rather than a secret: a
    word that says so, a bracketed name, a variable, a character repeated (a token's
    random part filled with zeros) or the digits or letters in order."""
    return bool(
        _PLACEHOLDER.search(value)
        or _BRACKETED.search(value)
        or _REFERENCE.match(value)
        or _FILLER.search(value.lstrip("A"))  # (a Twitter bearer token starts with 22 A's)
        or IN_ORDER.search(value)
        or lookalike(value)  # cut short, a slot: glpat-8apT[truncated], __API_TOKEN__
    ) or (len(value) >= 8 and len(set(value)) <= 3)


def filler(token: str) -> bool:
    """Whether a provider token's random part is one character repeated: a fake."""
    return _FILLER.search(token) is not None


def not_a_value(value: str, *, quoted: bool = False) -> bool:
    """Whether ``value`` is code or a reference rather than a literal; a ``quoted`` value
    (a string literal, a shell word) is never an attribute."""
    attribute = _ATTRIBUTE.match(value) and not _WORDS_AND_DIGITS.match(value)
    return bool(
        NOT_A_VALUE.search(value)
        or (not quoted and attribute)
        or password_hash(value)
        or file_reference(value)
    )


# a password's hash in the formats that store them, alone or after its user (htpasswd,
# /etc/shadow): crypt(3)'s `$id$` (bcrypt's $2b$, yescrypt's $y$, Apache's $apr1$), the PHC
# string ($argon2id$v=19$...), Django's `pbkdf2_sha256$ROUNDS$SALT$HASH` and PostgreSQL's
# SCRAM verifier: what a login checks a password against, never the password
_PASSWORD_HASH = re.compile(
    r"^[\"'`]?(?:[\w.@-]{1,64}:)?(?:\$(?:2[abxy]?|1|5|6|y|gy|7|apr1|md5|sha1|scrypt|argon2(?:id|i|d)"
    r"|pbkdf2[\w-]*)|(?:pbkdf2_sha(?:1|256|512)|argon2|bcrypt(?:_sha256)?|scrypt|crypt|sha1|md5))"
    r"\$[^\s$]{1,80}\$|^SCRAM-SHA-(?:1|256)\$\d{1,7}:[^\s$]{1,80}\$"
)


def password_hash(value: str) -> bool:
    """Whether ``value`` is a password's stored hash (bcrypt, argon2, Django's PBKDF2,
    SCRAM), which cannot be replayed as the password."""
    return _PASSWORD_HASH.match(value) is not None


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
    publishable key, an encrypted value, a password's hash, a JWT's header alone."""
    return (
        _PUBLIC_VALUE.search(value) is not None
        or value.endswith(tuple(PUBLISHED_KEYS))
        or password_hash(value)
        or jwt_header(value)
    )


# what a JWT's header says: how it is signed and with which key, never a claim
_HEADER_FIELDS = frozenset(["alg", "kid", "typ", "cty", "x5t", "x5t#S256", "jku", "x5u", "enc"])


def jwt_header(value: str) -> bool:
    """Whether ``value`` is a JWT's first part alone (``eyJhbGciOi...`` with no payload nor
    signature after a dot): it names the algorithm and the key, and signs nothing."""
    if not value.startswith("eyJ") or "." in value or len(value) > 400:
        return False
    import base64
    import binascii
    import json

    try:
        header = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header and set(header) <= _HEADER_FIELDS


def literal_value(name: str, value: str, *, quoted: bool = False) -> bool:
    """Whether ``value``, assigned to the secret's name ``name``, is a literal secret; a
    password may be words and digits (``cobalt-copper-velvet-19``)."""
    value = value.strip("'\"`")
    if _known_harmless(value):
        return False
    decoded = decoded_text(value)
    if decoded is not None:  # base64 or hex of text: judged as that text
        return literal_value(name, decoded.strip(), quoted=True)
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


def _known_harmless(value: str) -> bool:
    """Whether ``value`` is public by its shape, a published key or a password's hash."""
    published = value in PUBLISHED_KEYS or value.removeprefix("0x") in PUBLISHED_KEYS
    return bool(_PUBLIC_VALUE.search(value) or published or password_hash(value))


# words that tell how to make a secret, in a value that is an instruction, not a passphrase
# (generate-with-openssl-rand-hex-32)
_INSTRUCTION = word_set(
    "generate generated use set run replace put enter fill paste with from openssl rand random"
    " hex base64 uuid"
)


# two to four words of five letters or more joined, as a person sets a password to
# remember (copper-juniper); no words that describe a value instead of being one
_PAIRED_WORDS = re.compile(r"[a-z]{5,10}(?:[-.][a-z]{5,10}){1,3}")
_DESCRIBING = word_set(
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
    return len(letters) >= enough and not DEFAULT_WORDS.fullmatch(letters)


# words joined with digits, as a password generator makes them (maple-nimbus-orbit-63)
_PASSPHRASE = re.compile(r"[A-Za-z]{3,}(?:[-_.+~][A-Za-z]{3,}){2,}[-_.+~]?\d{1,4}[!?.*#$%^&]?")


def passphrase(value: str) -> bool:
    return bool(_PASSPHRASE.fullmatch(value)) and not is_placeholder(value)


def strong_password(value: str, *, quoted: bool = False) -> bool:
    """Whether a value standing where a password goes looks like one: a passphrase of
    words and digits, or eight characters or more mixing letters with digits or symbols
    (``Winter2021*``, ``Orb1t^1cin``); never a word, a path, a URL, a hash, an option or a
    placeholder."""
    value = bare(value)
    decoded = decoded_text(value)
    if decoded is not None and decoded.strip() != value:
        return strong_password(decoded.strip(), quoted=True)  # base64 of text: that text
    if len(value) < 8 or is_placeholder(value) or not_a_value(value, quoted=quoted):
        return False
    if _NOT_IN_PROSE.search(value) and not _drawn_with_slashes(value):
        return False
    if _HEX_OR_UUID.fullmatch(value) or _dollar(value) or _PUBLIC_VALUE.search(value):
        return False
    return _strong_shape(value)


def _strong_shape(value: str) -> bool:
    """Whether a literal is shaped as a strong password: a passphrase, or letters mixed with
    digits and symbols (three classes of characters), never words joined (Read-Only)."""
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
DEFAULT_WORDS = re.compile(
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
    value = bare(value)
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
    return not (re.fullmatch(r"[A-Za-z]+\d+", value) and DEFAULT_WORDS.fullmatch(letters))


def bare(value: str) -> str:
    """``value`` without its quotes and the punctuation after it, or nothing when it is a
    placeholder (judged before its end is cut: ``sk-ant-api03-...``)."""
    return "" if is_placeholder(value) else value.strip("'\"`").rstrip(".,;:)")


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
    ) or (word.lower() in PASSWORD_WORDS and human_password(value))
