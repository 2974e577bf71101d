"""The secret gate: text about to become a memory is scanned, and a memory that would hold
an API key, a private key, a password in a URL or a high-entropy value assigned to a
``*_KEY``, ``*_TOKEN`` or ``PASSWORD`` name is refused before anything is written.

Memories are committed with the code, recorded in a history and pushed by sync, so a
secret written once is published everywhere. The scanner is detect-secrets (its provider
detectors, run line by line) with a few detectors of our own for formats it does not know
and for assignments; the choice and its figures are in benchmarks/secrets_quality.py.
detect-secrets is imported on the first scan only, so commands that write nothing start
as fast as before.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any, NamedTuple

from serena_memory.core.errors import MemoryStoreError

# a value in one of these shapes documents where a secret goes, it is not one; judged on
# the value alone (a real token in a URL naming `yourcompany` is still a token)
_PLACEHOLDER = re.compile(
    r"x{4,}|\*{4,}|\.\.\.|•{3,}|example|replace|your|changeme|change_me|dummy|placeholder"
    r"|redacted|sample|fake|\$\{|\$\(|\{\{|%\(|^\$[A-Za-z_]\w*$"
    r"|^(?:password|passwd|pass|pwd|secret|token|key|apikey|api_key|changeit|hunter2|test|guest"
    r"|admin|root|postgres|mysql|redis|user|username)$",
    re.IGNORECASE,
)
# a bracketed word says what goes there: <password>, <API_KEY>, <Your Token>
_BRACKETED = re.compile(
    r"<(?:[a-z]{3,}(?:[ _.:-][a-z]+)*|[A-Z]{3,}(?:[ _.-][A-Z]+)*"
    r"|[A-Z][a-z]{2,}(?: [A-Za-z][a-z]+)*)>"
)
# a name that says its value is a secret, assigned (=, :) a value on the same line
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|pass|passphrase|credentials?)"
)
# a value runs to a space or quote; `;` and `,` belong to it unless the next field follows
_VALUE = r"((?:[^\s\"'`;,]|[;,](?![A-Za-z_][\w.-]*=|\s|$))+)"
# a whole name (taken possessively, from its first character: linear in the line's
# length), then the value, looked ahead (a name that is no secret's does not hide the
# assignment after it); the name's ending is checked in `_assigned`
_ASSIGNED = re.compile(
    rf"(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]++)(?=[\"'`]?\s*(?::=|[:=])\s*[\"'`]?{_VALUE})"
)
_SECRET_ENDING = re.compile(
    r"(?:key|token|secret|password|passwd|pwd|pass|passphrase|credentials?)$", re.I
)
# the same in an XML setting: <add key="DbPassword" value="..." />
_KEY_VALUE = re.compile(rf"(?i)\bkey=\"({_SECRET_NAME})\"\s+value=\"([^\"]+)\"")
# prose: "the admin password is now `VALUE`"
_PROSE = re.compile(
    r"(?i)\b(password|passphrase|passwd|secret|token|api[ _-]?key)\b[^`'\"\n]{0,40}?"
    r"(?<![^\s:=(])[`'\"]([^\s`'\"]{10,})[`'\"](?!\w)"
)
# quoted in prose, but no password: a URL (its own rule judges it), a path, an option
_NOT_IN_PROSE = re.compile(r"://|^[\w.$~-]*(?:/[\w.$~{}-]*)+$|^--?[a-z][\w-]*(?:=|$)")
_HEX_OR_UUID = re.compile(r"[0-9a-f]{7,64}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}", re.I)
# a value that is code or a reference, not a literal: a call, a subscript, a generic type,
# a template or JSX expression, an environment lookup, a memory reference
_NOT_A_VALUE = re.compile(
    # a call or subscript (get_token(user), cfg["x"], re.compile(...)): a name of three
    # letters or a dotted one, then what code holds: closed, or lower-case arguments
    r"^(?=[A-Za-z_]{3}|[A-Za-z_]\w*(?:\.|::))[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*"
    r"(?:[(\[][\w.,()\[\] '\"]*[)\]]|[(\[](?-i:[a-z0-9_.,()\[\]{}* '\"])*)$"
    r"|^[A-Za-z_][\w.:]*<.*>$|^[(\[{]"  # a generic type; a tuple, list, dict or template
    r"|^\$env:|^os\.|^env\.|^process\.env|^mem:"
    r"|^(?:true|false|null|none|nil|undefined)$|^[A-Z]+(?:_[A-Z]+)+$"
    r"|^[A-Za-z_]+\d*(?:\.[A-Za-z_]+\d*)+$"  # an attribute: settings.SECRET_KEY
    r"|^\$2[abxy]?\$\d\d\$|^\$argon2"  # password hashes
    r"|^(?:~|\.{1,2})?/[\w./-]+$",  # paths
    re.IGNORECASE,
)
_WORDS = re.compile(r"[a-z]+(?:[./:_-][a-z]+)*|[A-Z][a-z]+(?:[A-Z][a-z]+)*")  # names, paths
# words joined: SECRET-outside-the-folders, a-token-for-tests-0123
_JOINED_WORDS = re.compile(
    r"(?:[a-z]+|[A-Z]+|[A-Z][a-z]+|\d+)(?:[-_.](?:[a-z]+|[A-Z]+|[A-Z][a-z]+|\d+))+"
)
# the characters a token is made of: how far a detector's match extends for the placeholder
# test, which judges the whole value, never what stands around it
_TOKEN_CHARS = re.compile(r"[\w.+/=*~-]")
# a password in a URL, including those detect-secrets misses (no user name, `!` or `$`)
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^\s:/?#@]*):([^\s/?#@]+)@[\w\[]")
# a bearer or basic credential in a header
_HEADER_CREDENTIAL = re.compile(r"(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/-]{20,}=*)")
# a line can hold an assignment to a secret's name only if it holds one of these
_SECRET_WORDS = ("key", "token", "secret", "pass", "pwd", "credential")
MIN_ASSIGNED_LENGTH = 10
MIN_ASSIGNED_ENTROPY = 3.0  # bits per character; words and counters stay below
NAME_LINE = 0  # the line of a finding in a memory's name rather than its text
URL_PASSWORD = "password in a URL"


class Finding(NamedTuple):
    """One secret found: its line (from 1) and its kind, never the secret itself."""

    line: int
    kind: str


class SecretFoundError(MemoryStoreError):
    """Text refused because it holds a secret; ``findings`` say where and what."""

    def __init__(self, message: str, findings: list[Finding]) -> None:
        super().__init__(message)
        self.findings = findings


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def is_placeholder(value: str) -> bool:
    """Whether a matched value is a placeholder or reference rather than a secret."""
    return bool(_PLACEHOLDER.search(value) or _BRACKETED.search(value)) or (
        len(value) >= 8 and len(set(value)) <= 3
    )


def _literal_secret(value: str) -> bool:
    """Whether a value assigned to a secret's name is a literal secret: long, varied, not a
    word, path, reference, placeholder or piece of code."""
    if len(value) < MIN_ASSIGNED_LENGTH or _NOT_A_VALUE.search(value) or is_placeholder(value):
        return False
    bare = value.rstrip(")]};,")  # without the end of the code around it
    return (
        not _NOT_A_VALUE.search(bare)
        and entropy(bare) >= MIN_ASSIGNED_ENTROPY
        and not _WORDS.fullmatch(bare)
        and not _JOINED_WORDS.fullmatch(bare)
    )


# About 40 ms of a write's CPU time is `requests` (70 ms in a bare interpreter), which
# detect-secrets' plugins import to verify secrets online (never done here). It can't be
# deferred: importlib.util.LazyLoader loads a module as soon as any attribute is read, and
# Python 3.11's import statement reads ``__spec__`` (each plugin module imports `requests`
# again); ibm_cloud_iam also reads ``requests.Response`` in an annotation.
#
# detect-secrets' provider detectors, in the order they run: (module under
# ``detect_secrets.plugins``, class)
_PROVIDER_DETECTORS = (
    ("aws", "AWSKeyDetector"),
    ("artifactory", "ArtifactoryDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"),
    ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"),
    ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("jwt", "JwtTokenDetector"),
    ("mailchimp", "MailchimpDetector"),
    ("npm", "NpmDetector"),
    ("openai", "OpenAIDetector"),
    ("private_key", "PrivateKeyDetector"),
    ("pypi_token", "PypiTokenDetector"),
    ("sendgrid", "SendGridDetector"),
    ("slack", "SlackDetector"),
    ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"),
    ("telegram_token", "TelegramBotTokenDetector"),
    ("twilio", "TwilioKeyDetector"),
)
# token formats detect-secrets does not know (yet), found by our own detector after its
_PROVIDER_TOKENS = (
    r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}",  # Anthropic
    r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",  # OpenAI, new forms
    r"AIza[0-9A-Za-z_-]{35}",  # Google API key
    r"hf_[A-Za-z]{34}",  # Hugging Face
    r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}",  # GitHub fine-grained
    r"npm_[A-Za-z0-9]{36}",  # npm, outside .npmrc
    r"glpat-[A-Za-z0-9_-]{20}",  # GitLab personal access token
    r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",  # Shopify
)


@cache
def _detectors() -> tuple[Any, ...]:
    """The detectors, made once: detect-secrets' provider detectors and ours."""
    from importlib import import_module

    from detect_secrets.plugins.base import RegexBasedDetector

    class ProviderTokenDetector(RegexBasedDetector):
        """Token formats detect-secrets does not know (yet)."""

        secret_type = "API token"
        denylist = tuple(re.compile(pattern) for pattern in _PROVIDER_TOKENS)

    providers = [
        getattr(import_module(f"detect_secrets.plugins.{module}"), name)()
        for module, name in _PROVIDER_DETECTORS
    ]
    return (*providers, ProviderTokenDetector())


def _assigned(line: str) -> str | None:
    """The kind of a high-entropy value assigned to a secret's name, when ``line`` has one
    (or such a value quoted after the word ``password``, ``token``...): a name like
    ``*_KEY``, ``*_TOKEN``, ``PASSWORD``; a value with symbols (a strong password) counts,
    a reference or placeholder (``${VAR}``, ``$(cmd)``, ``<your-password>``) does not."""
    for pattern in (_ASSIGNED, _KEY_VALUE):
        for match in pattern.finditer(line):
            if _SECRET_ENDING.search(match.group(1)) and _literal_secret(match.group(2)):
                return "value assigned to " + (match.group(1).strip(".-_")[:40] or "a secret")
    for match in _PROSE.finditer(line):
        value = match.group(2)
        if (
            _literal_secret(value)
            and re.search(r"[^A-Za-z]", value)  # a digit or a symbol: no word
            and re.search(r"[A-Za-z]", value)
            and not _HEX_OR_UUID.fullmatch(value)
            and not _NOT_IN_PROSE.search(value)
        ):
            return f"{match.group(1).lower()} in quotes"
    return None


def _url_password(line: str) -> bool:
    """A password in a URL (``scheme://user:PASSWORD@host``) that is not a placeholder,
    nor the user name again (``guest:guest@``, a local default)."""
    for match in _URL_PASSWORD.finditer(line):
        user, password = match.groups()
        if password.startswith("{") and password.endswith("}"):
            continue  # a template's field: https://bot:{token}@host
        if (
            password != user
            and not is_placeholder(password)
            and not is_placeholder(password.strip("[]<>{}"))
        ):
            return True
    return False


def _header_credential(line: str) -> bool:
    for match in _HEADER_CREDENTIAL.finditer(line):
        value = match.group(1)
        if not is_placeholder(value) and entropy(value) >= 3.5 and not _WORDS.fullmatch(value):
            return True
    return False


def scan(text: str) -> list[Finding]:
    """The secrets in ``text``, one finding per line at most (the first kind found)."""
    findings: list[Finding] = []
    detectors = _detectors()
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) < 8:
            continue
        for part in _windows(line):
            kind = _line_kind(part, detectors)
            if kind is not None:
                findings.append(Finding(number, kind))
                break
    return findings


WINDOW = 4096  # a longer line is scanned in overlapping parts of this many characters
OVERLAP = 1024  # longer than any token a detector knows (a long JWT is shorter)


def _windows(line: str) -> Iterator[str]:
    """``line``, or its overlapping parts when it is long: some detectors take time that
    grows with the square of a line's length (180,000 characters: 13 s), never a part's."""
    if len(line) <= WINDOW:
        yield line
        return
    for start in range(0, len(line) - OVERLAP, WINDOW - OVERLAP):
        yield line[start : start + WINDOW]


def scan_name(name: str) -> list[Finding]:
    """The secrets in a memory's name (a committed, synced file name): at most one
    finding, on line :data:`NAME_LINE`."""
    kind = _line_kind(name.replace("/", " "), _detectors())
    return [] if kind is None else [Finding(NAME_LINE, kind)]


def masked_name(name: str) -> str:
    """``name`` with each part that holds a secret replaced by its placeholder, to show
    where a secret is without repeating it (``creds/<github-token>``)."""
    if not scan_name(name):
        return name
    parts = []
    for part in name.split("/"):
        kind = _line_kind(part, _detectors())
        parts.append(part if kind is None else placeholder_for(kind))
    return "/".join(parts)


def _line_kind(line: str, detectors: Iterable[Any]) -> str | None:
    for detector in detectors:
        for value in detector.analyze_string(line):
            if not is_placeholder(_token_of(line, value)):
                return str(detector.secret_type)
    # our own rules, each run only on a line holding its words (most lines hold none)
    if "://" in line and _url_password(line):
        return URL_PASSWORD
    lower = line.lower()
    if ("bearer" in lower or "basic" in lower) and _header_credential(line):
        return "credential in an Authorization header"
    if any(word in lower for word in _SECRET_WORDS):
        return _assigned(line)
    return None


def _token_of(line: str, value: str) -> str:
    """``value`` extended over the characters of a token around it: a detector may yield
    only a group of its match (``ghp`` of ``ghp_xxxx...``), and a placeholder is judged on
    the whole token, never on the URL or words around it."""
    at = line.find(value)
    if at < 0:
        return value
    start, end = at, at + len(value)
    while start > 0 and _TOKEN_CHARS.match(line[start - 1]):
        start -= 1
    while end < len(line) and _TOKEN_CHARS.match(line[end]):
        end += 1
    return line[start:end]


def refusal(name: str, findings: list[Finding], *, person: bool) -> str:
    """The one sentence that refuses the write: where, what, and what to do (the secret,
    and a name that holds one, never repeated)."""
    first = findings[0]
    more = f" (and {len(findings) - 1} more line(s))" if len(findings) > 1 else ""
    if first.line == NAME_LINE:
        text = (
            f"the memory was not written: its name holds what looks like a secret "
            f"({first.kind}), and a name is committed and synced as a file name; choose a "
            "name without it"
        )
    else:
        text = (
            f"memory '{name}' was not written: line {first.line} holds what looks like a "
            f"secret ({first.kind}){more}; replace it with a placeholder such as "
            f"{placeholder_for(first.kind)} and keep the real value in a secret store"
        )
    if person:
        text += (
            "; if it is not a secret, write again with --allow-secret (in the dashboard: confirm)"
        )
    return text


# the placeholders that read best for detect-secrets' kinds (others: the kind's words)
_PLACEHOLDERS = {
    URL_PASSWORD: "<password>",
    "NPM tokens": "<npm-token>",
    "JSON Web Token": "<jwt>",
    "Private Key": "<private-key>",
    "credential in an Authorization header": "<token>",
    "AWS Access Key": "<aws-access-key>",
}


def placeholder_for(kind: str) -> str:
    """A placeholder that says what goes there: ``<password>`` for a password in a URL,
    ``<db-password>`` for ``DB_PASSWORD=...``, ``<github-token>`` for a GitHub token."""
    if kind in _PLACEHOLDERS:
        return _PLACEHOLDERS[kind]
    words = kind.removeprefix("value assigned to ").removesuffix(" in quotes").removeprefix("a ")
    slug = re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")
    return f"<{slug or 'secret'}>"


def check(name: str, text: str | bytes | None, *, person: bool) -> None:
    """Refuse ``text`` for memory ``name`` if it holds a secret (SecretFoundError)."""
    if text is None:
        return
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    findings = scan_name(name) or scan(text)
    if findings:
        raise SecretFoundError(refusal(name, findings, person=person), findings)


def check_all(texts: Mapping[str, str | bytes | None], *, person: bool) -> None:
    """:func:`check` for each memory; the first one holding a secret is refused."""
    for name, text in texts.items():
        check(name, text, person=person)


def holding_secrets(texts: Mapping[str, str | bytes | None]) -> dict[str, list[Finding]]:
    """The memories of ``texts`` that hold secrets, with their findings (for a sync,
    which keeps those out and goes on with the rest)."""
    found: dict[str, list[Finding]] = {}
    for name, text in texts.items():
        if text is None:
            continue
        raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        findings = scan_name(name) or scan(raw)
        if findings:
            found[name] = findings
    return found
