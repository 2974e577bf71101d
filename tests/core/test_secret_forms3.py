"""The secret gate's third round (issue 41, item 4): secrets named by their context or
their file's shape and look-alikes that are no credentials, each refused or written wrongly
before; values are drawn here from a fixed seed, none is a real credential."""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.core.store import MemoryStore

_RANDOM = random.Random(4104)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def made(alphabet: str, length: int) -> str:
    return "".join(_RANDOM.choice(alphabet) for _ in range(length))


def uuid() -> str:
    return "-".join(made(HEX, n) for n in (8, 4, 4, 4, 12))


def b64url(length: int) -> str:
    return made(ALNUM + "_-", length)


def jwk(**members: str) -> str:
    return json.dumps({"kty": "EC", "crv": "P-256", **members})


# (form, text): each a secret the gate let through before
SECRETS = [
    ("crates.io token", f"publish with: cio{made(ALNUM, 32)}"),
    ("Pinecone key", f"vector store key pcsk_{made(ALNUM, 5)}_{made(ALNUM, 60)}"),
    ("LaunchDarkly SDK key", f"LD_SDK=sdk-{uuid()}"),
    ("Facebook token", f"page token EAAB{made(ALNUM, 150)}"),
    ("CloudFront signed URL", f"https://d1.cloudfront.net/a.csv?Expires=1&Signature={b64url(120)}"),
    ("joined password name", "PGPASSWORD='Cedar-lantern-42' pg_dump -h db -U app"),
    ("password starting with $", f"export ROOT_PASSWORD='$slate{made(HEX, 3)}Harbor'"),
    ("session cookie", f"cookie `_shop_session={made(ALNUM + '+/', 120)}--{made(HEX, 40)}`"),
    ("auth header", f"send `X-Agent-Auth: {made(HEX, 48)}` with each request"),
    ("API key in a query", f"https://api.weather.test/v2?city=Oslo&appid={made(HEX, 32)}"),
    ("password with ? in a URL", f"amqps://app:?{made(ALNUM, 12)}@mq.internal:5671"),
    ("netrc", f"machine api.deploy.test\n  login ops@acme.test\n  password {uuid()}"),
    ("private JWK", jwk(x=b64url(43), d=b64url(43))),
    ("token named a token, UUID", f"Mail server token for prod: {uuid()} (header)"),
    (
        "aside in a sentence",
        f"Bastion password (break-glass only, through the hosting panel): {made(ALNUM, 16)}",
    ),
    ("pre-shared key", f"IPsec tunnel: pre-shared key `{made(ALNUM, 32)}`, IKEv2"),
    ("private key in hex", f"faucet wallet private key 0x{made(HEX, 64)}"),
    ("API token right after", f"CI: user `bot`, API token {made(HEX, 34)} (for hooks)"),
    (
        "Key column of random tokens",
        f"| vendor | key |\n|---|---|\n| Rerank | {made(ALNUM, 40)} |",
    ),
    (
        "recovery codes",
        "Recovery codes for the org owner:\n"
        + "  ".join(f"{made(HEX, 5)}-{made(HEX, 5)}" for _ in range(4)),
    ),
]

_EXAMPLE_LOGIN = base64.b64encode(b"username:password").decode()

# (form, text): each refused before, though it holds no credential
LOOK_ALIKES = [
    ("CSRF token", f"the CSRF token in the form was `{made(ALNUM, 48)}`, rotated per login"),
    ("OAuth state", f"OAuth state token `{made(ALNUM, 32)}` did not match"),
    ("insecure Django key", f'SECRET_KEY = "django-insecure-{made(ALNUM, 12)}" in tests'),
    ("repeated-character fake", "a fake for tests: `ghp_` then zeros, `ghp_" + "0" * 36 + "`"),
    ("Basic header of a placeholder login", f"Authorization: Basic {_EXAMPLE_LOGIN}"),
    ("masked log line", "Logs now mask secrets: `Authorization: Bearer ********`."),
    ("SealedSecret", f"encryptedData:\n  password: Ag{made(ALNUM + '+/', 240)}"),
]

# (the form a new rule finds, a neighbour it must let through)
NEIGHBOURS = [
    ("Key column of random tokens", "| Key | Action |\n|---|---|\n| Ctrl+Shift+P | palette |"),
    ("private key in hex", "signing key 0x3AA5C34371567BD2 (gpg)"),
    ("token named a token, UUID", f"Request ID: {uuid()}"),
    ("password with ? in a URL", "http://localhost:8080?next=a@b.io"),
    ("private JWK", jwk(x=b64url(43), y=b64url(43))),
    ("password starting with $", "export ADMIN_PASSWORD='$ADMIN_PASSWORD'"),
    ("recovery codes", "Backup codes were regenerated; see OPS-1234."),
    ("auth header", "author: JohnSmith2020abc"),
    ("session cookie", "Previous session: session_summary_2025_11_21."),
    ("netrc", "loads the test accounts (`alice@example.com`,\npassword `correct-horse`)."),
]


@pytest.mark.parametrize("text", [t for _, t in SECRETS], ids=[f for f, _ in SECRETS])
def test_a_secret_named_by_its_context_is_found(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize("text", [t for _, t in LOOK_ALIKES], ids=[f for f, _ in LOOK_ALIKES])
def test_a_value_that_is_no_credential_is_written(text: str) -> None:
    assert secrets.scan(text) == []


@pytest.mark.parametrize("form, neighbour", NEIGHBOURS, ids=[f for f, _ in NEIGHBOURS])
def test_a_new_rule_lets_its_neighbour_through(form: str, neighbour: str) -> None:
    assert secrets.scan(dict(SECRETS)[form])
    assert secrets.scan(neighbour) == []


def test_the_agent_is_refused_a_recovery_code_and_writes_a_csrf_token(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    store = MemoryStore(tmp_path / "p", home=tmp_path / "h")
    with pytest.raises(secrets.SecretFoundError, match="line 3"):
        store.write("notes/mfa", f"# MFA\n{SECRETS[-1][1]}\n")
    store.write("notes/csrf", f"# Forms\n{LOOK_ALIKES[0][1]}\n")
