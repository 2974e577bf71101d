"""Values in a secret's shape that are no secret (for core/secrets.py): a fake that
documents a shape, a key its provider publishes (AWS's, Stripe's and jwt.io's examples,
the Azure emulator's), a key made for browsers, an identifier (a Twilio account SID), a
JWT made for browsers or for tests, an access key's id said to be deleted or given
alone, or named in a signed request's credential scope.
"""

from __future__ import annotations

import re

from serena_memory.core.secret_encrypted import said_encrypted
from serena_memory.core.secret_naming import public_name
from serena_memory.core.secret_values import PUBLISHED_KEYS, filler, is_placeholder

# keys made to be sent by browsers, public when their name says so:
# NEXT_PUBLIC_FIREBASE_API_KEY=AIza...
BROWSER_KEYS = frozenset(["Google API key"])
_NAME_BEFORE = re.compile(r"([A-Za-z_][\w.-]{0,80})[\"'`]?\s*[:=]\s*[\"'`]?$")


def fake(token: str) -> bool:
    """A token that documents a shape: a placeholder, or its random part one character
    repeated (``ghp_`` and zeros)."""
    return is_placeholder(token) or filler(token)


def named_public(line: str, token: str) -> bool:
    at = line.find(token)
    match = _NAME_BEFORE.search(line, max(0, at - 100), max(at, 0))
    return match is not None and public_name(match.group(1))


def published(token: str) -> bool:
    """Whether ``token`` is (or ends a name's assignment of) a key its provider publishes."""
    bare = token.strip("'\"`;,")
    return bare.strip("=") in PUBLISHED_KEYS or bare.endswith(tuple(PUBLISHED_KEYS))


# a Twilio account's SID, alone or after its name (TWILIO_ACCOUNT_SID=AC...)
_ACCOUNT_SID = re.compile(r"(?:^|[^A-Za-z0-9])AC[0-9a-f]{32}$")
# the claims of jwt.io's debugger sample (John Doe, 1234567890): its token is on every
# tutorial's page, whatever signature a copy of it carries
_JWT_IO_SAMPLE = re.compile(rb'"sub"\s*:\s*"1234567890"\s*,\s*"name"\s*:\s*"John Doe"')


# a name that says its value is a key's identifier, then that value: the identifier
# names the key and is sent with every request; the secret is the other half
_ID_NAME = re.compile(r"(?i)(?:_|\b)(?:sid|key_?id|id)[\"'`]?\s*[:=]\s*[\"'`]?[A-Za-z0-9]{16,}$")


def public_token(kind: str, token: str) -> bool:
    """A detector's match that is no secret: a Twilio account SID (an identifier), a JWT
    made for browsers (Supabase's anon key), a key Microsoft publishes for its emulator."""
    if published(token):
        return True
    if kind.startswith("Twilio") and _ACCOUNT_SID.search(token) is not None:
        return True
    if _ID_NAME.search(token) is not None:
        return True  # TWILIO_API_KEY_SID=SK...: a key's id, its secret is another value
    if kind == "JSON Web Token":
        parts = token.split(".")
        if len(parts) >= 2:
            # unsigned (alg none, no signature: a test vector), or made for browsers
            unsigned = re.search(rb'"alg"\s*:\s*"none"', _decoded(parts[0].split("=")[-1]))
            claims = _decoded(parts[1])
            anon = re.search(rb'"role"\s*:\s*"anon"', claims)
            sample = _JWT_IO_SAMPLE.search(claims) is not None  # whatever its signature
            return bool(unsigned and not "".join(parts[2:])) or anon is not None or sample
    return False


_JWT = re.compile(r"eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*")


def public_jwt(line: str) -> bool:
    """Whether ``line`` is one JWT no one can use (jwt.io's sample, an anon key, unsigned):
    what a label above it names is no secret either."""
    found = _JWT.search(line)
    return (
        found is not None
        and not line.replace(found.group(), "").strip(" `'\"")
        and (public_token("JSON Web Token", found.group()))
    )


def _decoded(part: str) -> bytes:
    """A JWT's part decoded (nothing when it is no base64)."""
    import base64
    import binascii

    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        return b""


# an access key's id (AWS's, a Twilio API key's SID), which names its secret and is none,
# said to be deleted or revoked
_KEY_ID = re.compile(r"\b(?:(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|SK[0-9a-f]{32})[`'\"]?$")
_RETIRED = re.compile(r"(?i)\b(?:deleted|revoked|deactivated|disabled|inactive)\b")


# ...or said to be given alone: its secret half kept elsewhere or never written down
_ID_ALONE = re.compile(
    r"(?i)\bonly the (?:access )?(?:key )?id\b|\bthe id only\b|\bid alone\b"
    r"|\bsecret(?: (?:half|part|key))?\b[^.;\n]{0,20}?\b(?:never|not (?:here|stored|written)"
    r"|(?:is |lives |stays |kept )?in (?:the )?(?:vault|secrets manager|ssm|parameter store))"
)
# a key's id in a SigV4 credential scope (Credential=ID/20250114/region/service/aws4_request,
# URL-encoded in a presigned URL): a signed request names the key, its signature is bound
# to that one request and expires; the secret is never in it
_IN_SCOPE = re.compile(
    r"(?i:credential=)((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?i:/|%2F)\d{8}(?i:/|%2F)"
)
_ANY_KEY_ID = re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|SK[0-9a-f]{32}")


def retired_id(line: str, token: str) -> bool:
    """Whether ``token`` is an access key's id that ``line`` says is deleted or revoked
    or given alone, or that a signed request names in its credential scope."""
    key_id = _ANY_KEY_ID.search(token)
    if key_id is None:
        return False
    if any(scope.group(1) == key_id.group() for scope in _IN_SCOPE.finditer(line)):
        return True
    if _KEY_ID.search(token) is None:
        return False
    return _RETIRED.search(line) is not None or _ID_ALONE.search(line) is not None


# a public key by its context: a browser's key (restricted to referrers, visible in a page,
# loaded by a script tag), a client-side or frontend token
_PUBLIC_CONTEXT = re.compile(
    r"(?i)\b(?:client-side|front-?end (?:token|key)|publishable|referr?ers?|page source"
    r"|web source|snippet|search-only|web (?:config|sdk)|firebase ?config"
    r"|(?:meant|made|safe) for (?:the )?browsers?|ships? to (?:every )?browsers?"
    r"|(?:sent|used|loaded|read) (?:by|in|from) (?:the |every |a )?browsers?"
    r"|safe to expose|meant to be public|not (?:a )?secret)\b"
    # a page's script tag loading a browser's API: its URL reaches every visitor
    r"|<script\b[^>\n]{0,80}?\bsrc="
)


def public_context(line: str, at: int) -> bool:
    """Whether the words before ``at`` on ``line`` say its value is public by design, or
    ciphertext (no usable credential either)."""
    found = _PUBLIC_CONTEXT.search(line, max(0, at - 120), at)
    if found is not None and denied(line[max(0, found.start() - 24) : found.start()]):
        found = None  # "never ship to browser", "not client-side": a secret said so
    return found is not None or said_encrypted(line, at)


# a denial just before a public's words: what follows is kept from browsers, a secret
_DENIED = re.compile(r"(?i)\b(?:never|not|don'?t|do not|must not|no)\s+(?:\w+\s+){0,2}$")


def denied(before: str) -> bool:
    """Whether ``before`` (the words just before a public's words) ends in a denial."""
    return _DENIED.search(before) is not None


# "public" said of where a service listens (a public IP, an internet-facing host): the
# value there is more exposed, never public by design
_NOT_EXPOSURE = r"(?!\s+(?:ip|ips|ipv[46]|host|address|subnet|endpoint|network|internet|dns|port))"
# a remark after a value that says it is public: `KEY=VALUE  # client-side env key`,
# `KEY=VALUE (public key; the secret is separate)`; never one saying it is not
_REMARK_PUBLIC = re.compile(
    r"(?i)\s(?:#|//|\(|-\s|—|–)[^\n]{0,60}?\b(?:public" + _NOT_EXPOSURE + r"|publishable"
    r"|client-side|browser|front-?end|safe to (?:expose|share|commit)|by design"
    # ...or that every visitor receives it: in a page's source, a web snippet
    r"|page source|(?:visible|shipped|sent) to (?:every |each |all )?(?:visitors?|users?|clients?)"
    r"|analytics\.js|web snippet)\b"
)
_REMARK_NOT = re.compile(r"(?i)\b(?:not|never|isn't|is not)\s+(?:\w+\s+)?(?:public|safe)\b")


def remarked_public(line: str, at: int) -> bool:
    """Whether a remark after ``at`` on ``line`` (a comment, an aside) says the value there
    is public by design, or the words right after it say it ships to browsers ("lives in
    the browser bundle", "is embedded in the page")."""
    if _SHIPPED.match(line, at) is not None:
        return True
    remark = _REMARK_PUBLIC.search(line, at)
    return remark is not None and _REMARK_NOT.search(remark.group()) is None


# the words right after a value that say every visitor's browser or app receives it
_SHIPPED = re.compile(
    r"(?i)[`'\"]?\s+(?:lives|ships|sits|goes|is\s+embedded|is\s+loaded|is\s+served)\s+(?:in|into|with)"
    r"\s+(?:the\s+|our\s+|every\s+)?(?:browser|front-?end|client|web\s+page|page|bundle|mobile\s+app|app)\b"
)


# a line that quotes a published example: an RFC's, a specification's, a project's docs'
# ("the Kubernetes docs' Secret example", "the OAuth spec example", "a sample from our docs")
_PUBLISHED_EXAMPLE = re.compile(
    r"(?i)\bRFC[ -]?\d{3,5}\b"
    r"|\b(?:docs?|documentation|spec|specification)['’]?s?\s+(?:\w+\s+){0,2}(?:example|sample)s?\b"
    r"|\b(?:example|sample)s?\s+(?:\w+\s+){0,2}(?:from|in|of)\s+(?:(?:the|our|its)\s+)?"
    r"(?:[\w.]+['’]?s?\s+)?(?:docs|documentation|spec|specification|readme)\b"
    # a provider's documentation that shows it ("Slack's docs show", "documented by
    # Microsoft, the same on every machine")
    r"|\b[A-Z][\w.]{1,30}['’]s\s+(?:docs|documentation)\s+(?:show|shows|use|uses)\b"
    r"|\b(?:documented|published)\s+by\s+(?:the\s+)?[A-Z]\w+"
)


def published_example(line: str) -> bool:
    """Whether ``line`` says it quotes an example an RFC, a specification or documentation
    publishes (whatever it holds is known to everyone)."""
    lower = line.lower()
    if not any(map(lower.__contains__, ("rfc", "doc", "spec", "readme", "published by"))):
        return False
    return _PUBLISHED_EXAMPLE.search(line) is not None


# a remark that says the value is harmless: public by design (`— meant for the browser`,
# `// the web config is public`), or used by tests alone (`# test DB only`)
_REMARK_HARMLESS = re.compile(
    r"(?i)\s(?:#|//|--|\(|—|–)[^\n]{0,60}?\b(?:(?:meant|made) for (?:the )?browsers?"
    r"|(?:is|are) public|public by design|tests?(?:\s+\w+)?\s+only|only\s+(?:for|in)\s+tests?"
    # a development chain's or tool's published default key (Anvil's, Hardhat's accounts)
    r"|(?:public|published|well-known|default)\s+(?:test|dev(?:elopment)?)\s+(?:private\s+)?keys?)\b"
)


def remarked_harmless(line: str) -> bool:
    """Whether a remark on ``line`` says the value said there is harmless: public by
    design or used by tests alone (a remark that says it is not public is none)."""
    remark = _REMARK_HARMLESS.search(line)
    return remark is not None and _REMARK_NOT.search(remark.group()) is None


def public_line(line: str) -> bool:
    """Whether ``line`` says a browser's key on it or below it is public by design (a
    Firebase config, a remark after the key)."""
    return public_context(line, len(line)) or remarked_harmless(line)
