"""The labeled set for choosing the secret scanner: memory-style lines that hold a secret,
and look-alikes that do not; and memory names, which become committed, synced file names.

The secrets are made here, from a fixed seed, in each provider's published format (prefix,
length, alphabet); none is a real credential. The look-alikes are written out as they
appear in memory folders: commit hashes, UUIDs, checksums, placeholders, environment
variable references, base64 test data, example values from providers' documentation.

The second part is the forms people paste: environment lines, URLs with credentials, clone
URLs, configuration blocks (YAML, JSON, TOML, ini), strong passwords with symbols, each
beside the same form holding a placeholder, a reference or a documentation example, often
with `your`, `example` or `sample` around a real value.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from typing import NamedTuple

SEED = 21
ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"


class Sample(NamedTuple):
    text: str
    secret: bool
    kind: str  # the kind of secret, or of look-alike
    where: str = "text"  # "name": ``text`` is a memory's name, written with a plain text


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64(rng: random.Random, n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _pem(rng: random.Random, label: str) -> str:
    body = base64.b64encode(rng.randbytes(600)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def _jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": str(rng.randrange(10**6)), "iat": 1717000000}).encode())
    return f"{header}.{payload}.{_b64url(rng.randbytes(32))}"


def secrets(rng: random.Random) -> list[Sample]:
    """Three lines per kind, each in a different memory style."""
    makers = {
        "aws-access-key-id": lambda: "AKIA" + _r(rng, UPPER_ALNUM.replace("0", ""), 16),
        "aws-secret-key": lambda: "aws_secret_access_key = " + _r(rng, ALNUM + "/+", 40),
        "github-token": lambda: "ghp_" + _r(rng, ALNUM, 36),
        "github-fine-grained": lambda: (
            "github_pat_" + _r(rng, ALNUM, 22) + "_" + _r(rng, ALNUM, 59)
        ),
        "gitlab-token": lambda: "glpat-" + _r(rng, B64URL, 20),
        "slack-token": lambda: (
            f"xoxb-{rng.randrange(10**11, 10**12)}-"
            f"{rng.randrange(10**12, 10**13)}-{_r(rng, ALNUM, 24)}"
        ),
        "slack-webhook": lambda: (
            "https://hooks.slack.com/services/T"
            + _r(rng, UPPER_ALNUM, 8)
            + "/B"
            + _r(rng, UPPER_ALNUM, 8)
            + "/"
            + _r(rng, ALNUM, 24)
        ),
        "stripe-key": lambda: "sk_live_" + _r(rng, ALNUM, 24),
        "openai-key": lambda: "sk-proj-" + _r(rng, B64URL, 48) + "T3BlbkFJ" + _r(rng, B64URL, 48),
        "anthropic-key": lambda: "sk-ant-api03-" + _r(rng, B64URL, 93) + "AA",
        "google-api-key": lambda: "AIza" + _r(rng, B64URL, 35),
        "rsa-private-key": lambda: _pem(rng, "RSA PRIVATE KEY"),
        "openssh-private-key": lambda: _pem(rng, "OPENSSH PRIVATE KEY"),
        "ec-private-key": lambda: _pem(rng, "EC PRIVATE KEY"),
        "jwt": lambda: _jwt(rng),
        "npm-token": lambda: "npm_" + _r(rng, ALNUM, 36),
        "pypi-token": lambda: "pypi-AgEIcHlwaS5vcmc" + _r(rng, B64URL, 150),
        "sendgrid-key": lambda: "SG." + _r(rng, B64URL, 22) + "." + _r(rng, B64URL, 43),
        "twilio-key": lambda: "SK" + _r(rng, HEX, 32),
        "telegram-bot-token": lambda: f"{rng.randrange(10**8, 10**10)}:AA" + _r(rng, B64URL, 33),
        "mailchimp-key": lambda: _r(rng, HEX, 32) + "-us" + str(rng.randrange(1, 20)),
        "huggingface-token": lambda: "hf_" + _r(rng, string.ascii_letters, 34),
        "url-password": lambda: f"postgres://app:{_r(rng, ALNUM, 16)}@db.internal:5432/app",
        "password-assignment": lambda: "DB_PASSWORD=" + _r(rng, ALNUM + "!#%", 18),
        "api-key-assignment": lambda: "PAYMENTS_API_KEY=" + _r(rng, ALNUM, 32),
        "token-assignment": lambda: "export DEPLOY_TOKEN=" + _r(rng, HEX, 40),
        "discord-bot-token": lambda: (
            "M" + _r(rng, B64URL, 23) + "." + _r(rng, B64URL, 6) + "." + _r(rng, B64URL, 27)
        ),
    }
    styles = [
        "{s}",
        "The key for staging is `{s}` (rotate it monthly).",
        "- prod credential: {s}",
    ]
    block_styles = ["{s}", "Deploy key for CI:\n\n```\n{s}\n```", "Key file contents:\n{s}\n"]
    assignment_styles = ["{s}", "Put this in `.env`:\n\n```\n{s}\n```", "- in .env: `{s}`"]
    out = []
    for kind, make in makers.items():
        if kind.endswith("private-key"):
            chosen = block_styles
        elif kind.endswith("assignment") or kind == "aws-secret-key":
            chosen = assignment_styles
        else:
            chosen = styles
        for style in chosen:
            out.append(Sample(style.format(s=make()), True, kind))
    return out


def look_alikes(rng: random.Random) -> list[Sample]:
    """Lines that hold no secret, in the style of real memory folders."""

    def sha1() -> str:
        return hashlib.sha1(rng.randbytes(16)).hexdigest()

    def sha256() -> str:
        return hashlib.sha256(rng.randbytes(16)).hexdigest()

    def uid() -> str:
        return str(uuid.UUID(bytes=rng.randbytes(16), version=4))

    out: list[Sample] = []
    for template in (
        "Fixed in commit {h}; see the PR for the discussion.",
        "`git revert {h}` undoes the migration.",
        "Last green build: {h}",
        "Bisect says {h7} introduced the flaky test.",
        "Pinned the action to `actions/checkout@{h}`.",
    ):
        h = sha1()
        out.append(Sample(template.format(h=h, h7=h[:7]), False, "commit-hash"))
    for template in (
        "Tenant id for the staging org: {u}",
        "The job id `{u}` is the one that failed on Tuesday.",
        "- request_id={u}",
        "Feature flag uuid: {u} (checkout-v2).",
        "session_id: {u}",
    ):
        out.append(Sample(template.format(u=uid()), False, "uuid"))
    for template in (
        "sha256 of the release tarball: {c}",
        "Docker image pinned by digest: python@sha256:{c}",
        "Expected checksum (SHA-256) `{c}`",
        "integrity: sha512-{b}",
        "The cache key is {c}.",
        "content_hash = {c}",
    ):
        out.append(
            Sample(
                template.format(c=sha256(), b=base64.b64encode(rng.randbytes(64)).decode()),
                False,
                "checksum",
            )
        )
    for text in (
        "Set `OPENAI_API_KEY=sk-XXXX` in your shell before running the evals.",
        "API_KEY=<your-token>",
        "Use `Authorization: Bearer <your-token>` for the admin endpoints.",
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "STRIPE_SECRET_KEY=sk_test_...",
        "password: changeme",
        "DB_PASSWORD=${DB_PASSWORD}",
        "export GITHUB_TOKEN=$(gh auth token)",
        'api_key = os.environ["PAYMENTS_API_KEY"]',
        "token: {{ secrets.DEPLOY_TOKEN }}",
        "The AWS docs use AKIAIOSFODNN7EXAMPLE as the access key id.",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "SECRET_KEY=your-secret-key-here",
        "password = '********'",
        "Connection string: postgres://user:password@localhost:5432/dev",
        "Use `postgres://$PGUSER:$PGPASSWORD@$PGHOST/app` in the scripts.",
        "ANTHROPIC_API_KEY=sk-ant-...",
        "Set HF_TOKEN to your Hugging Face token (Settings > Access Tokens).",
        "The key lives in 1Password under 'Staging / Stripe'; never paste it here.",
        "JWT_SECRET is read from Vault at startup (path secret/data/api).",
        "password_min_length = 12",
        "TOKEN_TTL_SECONDS=3600",
        "`API_KEY` must be set; the app refuses to start without it.",
        "the login form posts `username` and `password` to /api/session",
        "-----BEGIN PUBLIC KEY----- blocks are fine to commit; private keys are not.",
        "max_tokens=4096 for the summarizer",
        "auth: token=REDACTED",
        "OPENAI_API_KEY=sk-proj-REPLACE_ME",
    ):
        out.append(Sample(text, False, "placeholder"))
    for template in (
        "Fixture image (1x1 png): data:image/png;base64,{b}",
        "The test vector is `{b}` (base64 of 48 random bytes).",
        "expected_body = '{b}'",
        "Sample webhook payload signature header: t=1717000000,v1={h}",
        "Encoded test fixture: {b}",
    ):
        out.append(
            Sample(
                template.format(b=base64.b64encode(rng.randbytes(48)).decode(), h=sha256()),
                False,
                "base64-test-data",
            )
        )
    for text in (
        "Run `uv run pytest -k test_token_refresh` after touching auth.",
        "The rate limiter uses a token bucket of 100 tokens per minute.",
        "Semantic version 2.14.0-rc.1+build.5a1c3e9 is the last one on the old API.",
        "Colors: primary #1f6feb, danger #d1242f, muted #59636e.",
        "Migration 20240517_1432_add_api_keys_table.py adds the keys table.",
        "The S3 bucket is arn:aws:s3:::acme-build-artifacts-eu-west-1.",
        "IPv6 of the bastion: 2001:db8:85a3::8a2e:370:7334",
        "Use `openssl rand -hex 32` to make a new signing key, then store it in Vault.",
        "Regex for order ids: ^ORD-[A-Z0-9]{10}$",
        "npm package integrity failures mean the lockfile is stale: run `npm ci`.",
        "Dashboard URL: https://grafana.internal/d/abc123XYZ/api-latency?orgId=1",
        "See https://github.com/acme/api/pull/1432#issuecomment-1987654321",
        "The public key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
        "Build number 2024.05.17.1432-9f3ac1d",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@acme",
        "The GraphQL node id is MDQ6VXNlcjU4MzIzMQ==",
        "Cloudflare zone: 023e105f4ecef8ad9ca31a8372d0c353",
        "`password_reset_token` column is hashed with argon2id.",
        "Key rotation happens on the 1st; ask #platform for the new KMS alias.",
        "The Stripe publishable key goes in the frontend; the secret key never does.",
        "Dependabot PR bumped cryptography from 42.0.5 to 42.0.7.",
        "The token endpoint is POST /oauth/token with grant_type=client_credentials.",
        "Error E_TOKEN_EXPIRED means the refresh token is older than 30 days.",
        "Pagination cursor looks like eyJwYWdlIjoyfQ and is opaque to clients.",
    ):
        out.append(Sample(text, False, "prose"))
    return out


def labeled_set() -> list[Sample]:
    rng = random.Random(SEED)
    base = secrets(rng) + look_alikes(rng)
    from secrets_forms import pasted_forms, pasted_look_alikes, secret_names

    return base + pasted_forms(rng) + pasted_look_alikes(rng) + secret_names(rng)


if __name__ == "__main__":
    samples = labeled_set()
    kinds = {s.kind for s in samples if s.secret}
    names = sum(s.where == "name" for s in samples)
    print(
        f"{sum(s.secret for s in samples)} secrets of {len(kinds)} kinds, "
        f"{sum(not s.secret for s in samples)} look-alikes ({names} of them all memory names)"
    )
