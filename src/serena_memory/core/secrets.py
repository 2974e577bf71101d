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
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, NamedTuple

from serena_memory.core.errors import MemoryStoreError

# a value in one of these shapes documents where a secret goes, it is not one
_PLACEHOLDER = re.compile(
    r"x{4,}|\*{4,}|\.\.\.|example|replace|your|changeme|change_me|dummy|placeholder|redacted"
    r"|sample|<[^>]*>|\$\{|\$\(|\{\{|%\(|^\$|^password$|^secret$|^token$",
    re.IGNORECASE,
)
# a name that says its value is a secret, assigned (=, :) a value on the same line
_ASSIGNED = re.compile(
    r"(?i)(?<![A-Za-z0-9])([A-Za-z0-9_.-]*(?:key|token|secret|password|passwd|pwd))"
    r"[\"'`]?\s*[:=]\s*[\"'`]?([^\s\"'`,;]+)"
)
_NOT_A_VALUE = re.compile(r"[\[\](){}<>$]|^os\.|^env\.|^process\.env|^mem:")
_WORDS = re.compile(r"[a-z]+(?:[./:_-][a-z]+)*|[A-Z][a-z]+(?:[A-Z][a-z]+)*")  # names, paths
MIN_ASSIGNED_LENGTH = 10
MIN_ASSIGNED_ENTROPY = 3.0  # bits per character; words and counters stay below


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
    return bool(_PLACEHOLDER.search(value)) or (len(value) >= 8 and len(set(value)) <= 3)


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
    ("basic_auth", "BasicAuthDetector"),
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


def _assigned(line: str) -> bool:
    """A high-entropy value assigned to a name like ``*_KEY``, ``*_TOKEN``, ``PASSWORD``."""
    for match in _ASSIGNED.finditer(line):
        value = match.group(2)
        if (
            len(value) >= MIN_ASSIGNED_LENGTH
            and not _NOT_A_VALUE.search(value)
            and not is_placeholder(value)
            and entropy(value) >= MIN_ASSIGNED_ENTROPY
            and not _WORDS.fullmatch(value)
        ):
            return True
    return False


def scan(text: str) -> list[Finding]:
    """The secrets in ``text``, one finding per line at most (the first kind found)."""
    findings: list[Finding] = []
    detectors = _detectors()
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) < 8:
            continue
        kind = _line_kind(line, detectors)
        if kind is not None:
            findings.append(Finding(number, kind))
    return findings


def _line_kind(line: str, detectors: Iterable[Any]) -> str | None:
    for detector in detectors:
        for value in detector.analyze_string(line):
            if not (is_placeholder(value) or is_placeholder(_token_of(line, value))):
                return str(detector.secret_type)
    if _assigned(line):
        return "high-entropy value assigned to a secret's name"
    return None


def _token_of(line: str, value: str) -> str:
    """The whitespace-delimited part of ``line`` around ``value``: a detector may yield
    only a group of its match (``ghp`` of ``ghp_xxxx...``), a placeholder is judged whole."""
    at = line.find(value)
    if at < 0:
        return value
    start = max(line.rfind(c, 0, at) for c in " \t`") + 1
    ends = [e for e in (line.find(c, at + len(value)) for c in " \t`") if e >= 0]
    return line[start : min(ends) if ends else len(line)]


def refusal(name: str, findings: list[Finding], *, person: bool) -> str:
    """The one sentence that refuses the write: where, what, and what to do."""
    first = findings[0]
    more = f" (and {len(findings) - 1} more line(s))" if len(findings) > 1 else ""
    text = (
        f"memory '{name}' was not written: line {first.line} holds what looks like a secret "
        f"({first.kind}){more}; replace it with a placeholder such as <{_placeholder_of(first)}> "
        "and keep the real value in a secret store"
    )
    if person:
        text += (
            "; if it is not a secret, write again with --allow-secret (in the dashboard: confirm)"
        )
    return text


def _placeholder_of(finding: Finding) -> str:
    return re.sub(r"[^a-z0-9]+", "-", finding.kind.lower()).strip("-")[:30] or "secret"


def check(name: str, text: str | bytes | None, *, person: bool) -> None:
    """Refuse ``text`` for memory ``name`` if it holds a secret (SecretFoundError)."""
    if text is None:
        return
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    findings = scan(text)
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
        findings = scan(raw)
        if findings:
            found[name] = findings
    return found
