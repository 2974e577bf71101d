"""The secret gate's detectors of tokens in known shapes: detect-secrets' provider
detectors, each run only on a line holding the words its patterns need, and the shapes of
core/secret_tokens.py; a token found is a secret unless it is a placeholder, a published
example or a browser's public key (core/secret_public.py).

detect-secrets is imported only when a line first holds what one of its detectors needs,
so commands that write nothing, and most writes, never load it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, cached_property
from typing import Any

from serena_memory.core.secret_context import public_context
from serena_memory.core.secret_encoded import encoded_runs
from serena_memory.core.secret_public import (
    BROWSER_KEYS,
    fake,
    named_public,
    public_token,
    published,
    remarked_public,
    retired_id,
)

# About 40 ms of a write's CPU time is `requests` (70 ms in a bare interpreter), which
# detect-secrets' plugins import to verify secrets online (never done here). It can't be
# deferred: importlib.util.LazyLoader loads a module as soon as any attribute is read, and
# Python 3.11's import statement reads ``__spec__`` (each plugin module imports `requests`
# again); ibm_cloud_iam also reads ``requests.Response`` in an annotation.
#
# detect-secrets' provider detectors, in the order they run: (module under
# ``detect_secrets.plugins``, class, the words one of which its patterns need, the words
# in lower case one of which its case-insensitive patterns need). A line holding none of
# them can't match: the detector is skipped, as most lines skip most detectors.
_PROVIDER_DETECTORS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("aws", "AWSKeyDetector", ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), ("aws",)),
    ("artifactory", "ArtifactoryDetector", ("AKC", "AP"), ()),
    ("azure_storage_key", "AzureStorageKeyDetector", ("AccountKey=",), ()),
    ("discord", "DiscordBotTokenDetector", (".",), ()),  # (and see _NEEDED)
    ("github_token", "GitHubTokenDetector", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), ()),
    ("gitlab_token", "GitLabTokenDetector", ("gl", "GR1348941"), ()),
    ("ibm_cloud_iam", "IbmCloudIamDetector", (), ("key", "pwd", "pass", "token")),
    ("jwt", "JwtTokenDetector", ("eyJ",), ()),
    ("mailchimp", "MailchimpDetector", ("-us",), ()),
    ("npm", "NpmDetector", (":_authToken=",), ()),
    ("openai", "OpenAIDetector", ("T3BlbkFJ",), ()),
    ("pypi_token", "PypiTokenDetector", ("pypi-",), ()),
    ("sendgrid", "SendGridDetector", ("SG.",), ()),
    ("slack", "SlackDetector", (), ("xox", "hooks.slack.com")),
    ("square_oauth", "SquareOAuthDetector", ("sq0csp-",), ()),
    ("stripe", "StripeDetector", ("k_live_",), ()),
    ("telegram_token", "TelegramBotTokenDetector", (":",), ()),
    ("twilio", "TwilioKeyDetector", ("AC", "SK"), ()),
)


# what the detectors whose words are common need besides, each a fixed-width part of
# their own patterns (one quick search where their patterns take many steps; and a line of
# ordinary words passes none, so detect-secrets is not even imported for it): a Discord
# token's two dots six characters apart, a Telegram token's digit and colon then 35
# characters, the 44 characters of an IBM Cloud key, 16 of an AWS key's, Artifactory's
# and Twilio's prefixes with what follows them, GitLab's prefixes with 20 characters, a
# Mailchimp key's 32 before its data centre
_NEEDED = {
    "discord": r"\.[a-zA-Z\d_-]{6}\.",
    "telegram_token": r"\d:[0-9A-Za-z_-]{35}",
    "ibm_cloud_iam": r"[a-zA-Z0-9_\-]{44}",
    "aws": r"[0-9a-zA-Z/+]{16}",
    "artifactory": r"AKC[a-zA-Z0-9]{10}|AP[\dA-F][a-zA-Z0-9]{8}",
    "twilio": r"(?:AC|SK)[a-z0-9]{32}",
    "gitlab_token": r"(?:gl[a-z]{2,5}-|GR1348941)[A-Za-z0-9_\-]{20}",
    "mailchimp": r"[0-9a-z]{32}-us[0-9]",
}


class _Plugin:
    """One of detect-secrets' detectors, made when a line first passes its words and
    needs: importing detect-secrets costs a write about 70 ms (its plugins import
    `requests`), and most memories never hold what any detector looks for."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    @cached_property
    def made(self) -> Any:
        from importlib import import_module

        return getattr(import_module(f"detect_secrets.plugins.{self.module}"), self.name)()

    def analyze_string(self, line: str) -> Iterable[str]:
        return self.made.analyze_string(line)

    @property
    def secret_type(self) -> str:
        return str(self.made.secret_type)


@cache
def detectors() -> tuple[tuple[Any, tuple[str, ...], tuple[str, ...], Any], ...]:
    """detect-secrets' provider detectors, each made when first needed, each with the words
    it needs and what else its patterns need (our token shapes are in
    core/secret_tokens.py, private keys are found over lines by core/secret_blocks.py)."""
    return tuple(
        (
            _Plugin(module, name),
            words,
            lower,
            re.compile(_NEEDED[module]) if module in _NEEDED else None,
        )
        for module, name, words, lower in _PROVIDER_DETECTORS
    )


# the characters a token is made of: how far a detector's match extends for the placeholder
# test, which judges the whole value, never what stands around it
_TOKEN_CHARS = re.compile(r"[\w.+/=*~-]")


# a run of spaces or tabs, said once: no secret holds one, and some of detect-secrets'
# patterns take time that grows with the square of such a run ("password" then 4,000
# spaces took minutes), so a pasted memory could stall every write
_BLANK_RUN = re.compile(r"[ \t]{2,}")


def detected(line: str, detectors: Iterable[Any]) -> str | None:
    """The kind of the first of detect-secrets' findings that is a secret."""
    if "  " in line or "\t" in line:  # most lines hold no run: the substitution skipped
        line = _BLANK_RUN.sub(" ", line)
    lower = line.lower()
    for detector, words, lower_words, needed in detectors:
        if not any(map(line.__contains__, words)) and not any(map(lower.__contains__, lower_words)):
            continue  # none of the words its patterns need: no match
        if needed is not None and needed.search(line) is None:
            continue
        for value in detector.analyze_string(line):
            token = token_of(line, value)
            if fake(token) or public_token(str(detector.secret_type), token):
                continue
            if not retired_id(line, token):
                return _named(str(detector.secret_type), token)
    return None


# an AWS access key id's prefixes; a 40-character value detect-secrets also calls an
# "AWS Access Key" is the secret key that goes with one
_AWS_KEY_IDS = ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")


def _named(kind: str, token: str) -> str:
    """The kind a person recognises where detect-secrets' name is broader: a Slack
    webhook's address is no token, an AWS secret access key no access key id."""
    if kind == "Slack Token" and "hooks.slack.com" in token:
        return "Slack webhook URL"
    if kind == "AWS Access Key" and not token.startswith(_AWS_KEY_IDS):
        return "AWS secret access key"
    return kind


def token_kind(line: str, detectors: Iterable[Any]) -> str | None:
    """The kind of the first token of a known shape on ``line``: detect-secrets' findings,
    else core/secret_tokens.py's shapes; what a line is asked about its tokens, in one call."""
    return detected(line, detectors) or known_token(line)


def known_token(line: str, *, decode: bool = True) -> str | None:
    """The kind of the first token in one of core/secret_tokens.py's shapes, as it stands
    or encoded in base64 (``decode``: ``Z2hwX2...`` is a GitHub token)."""
    kind = _known_token(line)
    if kind is None and decode:
        found = (_known_token(text) for text in encoded_runs(line))
        kind = next((kind for kind in found if kind is not None), None)
    return kind


# the A's an X (Twitter) app's bearer token starts with
_BEARER_AS = re.compile(r"A{21,22}")


def _known_token(line: str) -> str | None:
    from serena_memory.core import secret_tokens

    for kind, token in secret_tokens.find(line):
        whole = token_of(line, token)
        if fake(_BEARER_AS.sub("", whole, count=1)) or published(token) or published(whole):
            continue  # (a Twitter bearer token starts with 21 or 22 A's: its shape, no filler)
        at = line.find(token)
        if kind in BROWSER_KEYS and (
            named_public(line, token) or public_context(line, at) or remarked_public(line, at)
        ):
            continue
        return kind
    return None


def token_of(line: str, value: str) -> str:
    """``value`` extended over the characters of a token around it: a detector may yield
    only a group of its match (``ghp`` of ``ghp_xxxx...``), and a placeholder is judged on
    the whole token, never on the URL or words around it."""
    whole = value
    # an empty group (detect-secrets' GitLab pattern yields one for `glcbt-` job tokens) is
    # found at every index, the end of the line included: no token of its own, and a search
    # for it would never end
    at = line.find(value) if value else -1
    while at >= 0:  # the longest: `ghp_` named before the token itself
        start, end = at, at + len(value)
        while start > 0 and _TOKEN_CHARS.match(line[start - 1]):
            start -= 1
        while end < len(line) and _TOKEN_CHARS.match(line[end]):
            end += 1
        whole = max(whole, line[start:end], key=len)
        at = line.find(value, end)
    return whole
