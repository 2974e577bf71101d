"""The secret gate's fourth round (issue 41, item 4): secrets no word names or said in
another language, short passwords people set, the provider shapes it lacked, and
look-alikes a reviewer calls public or local; each refused or written wrongly before.
Values are drawn here from a fixed seed, none is a real credential."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.core.store import MemoryStore

_RANDOM = random.Random(4105)
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"


def made(alphabet: str, length: int) -> str:
    return "".join(_RANDOM.choice(alphabet) for _ in range(length))


def uuid() -> str:
    return "-".join(made(HEX, n) for n in (8, 4, 4, 4, 12))


def strong() -> str:
    return made(LOWER, 3) + made(UPPER, 3) + made(DIGITS, 2) + "%" + made(ALNUM, 4)


_PHRASE = "orbit maple canyon velvet harbor lantern copper meadow falcon pepper tundra walnut"

# (form, text): each a secret the gate let through before
SECRETS = [
    ("German sentence", f"Das Passwort für den Build-Server ist `{strong()}`."),
    ("French label", f"Base de recette : utilisateur `qa`, mot de passe `{strong()}`"),
    ("Chinese full-width colon", f"缓存 Redis 密码：{made(ALNUM, 18)}（别外传）"),
    ("Portuguese user and password", f"Painel: usuário ops / senha {made(ALNUM, 11)}"),
    ("short password after a user", f"BMC for rack 2: user ADMIN pass {made(UPPER + DIGITS, 10)}"),
    ("short password after a login", f"switch login 10.1.1.1 -> admin / {made(LOWER, 5)}4821"),
    ("short password assigned", f'DB_PASSWORD: "{made(LOWER, 6)}{made(DIGITS, 3)}"  # prod'),
    (
        "letters of changing case",
        "kiosk password is " + "".join(made(UPPER, 1) + made(LOWER, 2) for _ in range(4)),
    ),
    ("quoted user and password", f"break-glass account: `oncall` / `{strong()}`, rotate it"),
    ("administrator with", f"ssh to 10.2.0.9 as root with {strong()} (password auth)"),
    (
        "administrator and @",
        f"ops / {made(UPPER, 3)}{made(LOWER, 2)}@{made(ALNUM, 6)}9 for the iLO",
    ),
    (
        "client secret beside its id",
        f"OAuth app: client id Iv1.{made(HEX, 16)}, client secret {made(HEX, 40)}",
    ),
    ("secret beside an id", f"REST app: client id {made(ALNUM, 40)}, secret {made(ALNUM, 60)}"),
    ("HMAC name", f"links are signed with `LINK_HMAC={made(HEX, 64)}`"),
    ("SNMP community", f"SNMP community for the edge routers is `{made(LOWER + DIGITS, 12)}` (rw)"),
    ("session cookie in a header", f"-H 'Cookie: sid={made(ALNUM + '_-', 48)}; theme=dark'"),
    ("nginx header directive", f"    proxy_set_header X-Internal-Token {made(HEX, 40)};"),
    (
        "value below its label",
        f"Azure DevOps PAT for the feed (read):\n`{made(LOWER + '234567', 52)}`",
    ),
    ("integration key", f"PagerDuty integration key {made(HEX, 32)}"),
    ("unseal key", f"unseal key: {made(ALNUM + '+/', 44)}"),
    ("TOTP seed", f"TOTP seed {made('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 32)}"),
    ("token named right before its UUID", f"Postmark server token `{uuid()}`"),
    ("recovery phrase", f"wallet seed phrase: {_PHRASE}"),
    ("door code", f"The passcode for the side door is {made('123456789', 3)}0{made('56789', 2)}"),
    (
        "recovery codes after a colon",
        f"Recovery codes: {made(HEX, 5)}-{made(HEX, 5)} {made(HEX, 5)}-{made(HEX, 5)}",
    ),
    ("Segment token", f"segment admin: sgp_{made(ALNUM, 64)}"),
    ("Tailscale key", f"join with tskey-auth-{made(ALNUM, 12)}-{made(ALNUM, 32)} (one use)"),
    ("OpenShift token", f"cluster: sha256~{made(ALNUM + '_-', 43)} (kubeadmin)"),
    ("Twitter bearer token", f"bearer for the bot: {'A' * 22}{made(ALNUM + '%', 90)}"),
    ("Grafana API key", f"grafana: eyJrIjoi{made(ALNUM, 80)}"),
    ("Bedrock API key", f"AWS_BEARER_TOKEN_BEDROCK=ABSK{made(ALNUM + '+/', 120)}"),
]

# (form, text): each refused before, though it holds no credential
LOOK_ALIKES = [
    ("1Password reference", "ENV STRIPE_KEY=op://Engineering/Stripe Prod/credential"),
    (
        "published key in a name's value",
        "payments.stripe.secret.key=sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    ),
    ("deleted access key id", f"access key id `AKIA{made(UPPER + DIGITS, 16)}` was deleted in IAM"),
    ("short SealedSecret", f"encryptedData:\n  password: AgB{made(ALNUM + '+/', 150)}"),
    ("Vault accessor", f"the accessor of my token is `{made(ALNUM, 24)}` (no login with it)"),
    ("Helm existingSecret", "oauth2-proxy:\n  config:\n    existingSecret: gateway-oauth2"),
    ("CSRF cookie", f"Set-Cookie: csrftoken={made(ALNUM, 32)}; Path=/"),
    ("a secret's name", f"The secret name is `db-creds-{made(LOWER + DIGITS, 5)}`"),
    ("choices in capitals", "forces the first output token to `IDENTIFY|OK|ESCALATE`."),
    ("argument passed", "* Pass `verified=False` only where a hash cannot be pinned"),
    ("words in capitals in a table", "| `NEEDS_REVIEW` | `PASS` | `INFRASTRUCTURE` | yes |"),
    ("code in a table", '| `linear_get_issue` | Get issue | `issue_id="ISSUE-123"` |'),
    ("joined words after pass", "- **PASS**: Well-tested code following patterns"),
    ("a test's result", "PASS: lns-common-1 (ILP32)"),
    ("bracketed placeholder with digits", "data:\n  password: <base64-encoded>"),
]

# (the form a new rule finds, a neighbour it must let through)
NEIGHBOURS = [
    ("short password assigned", "POSTGRES_PASSWORD: admin123  # CI service container"),
    ("short password after a login", "Default login for the dev container: admin / admin123"),
    ("German sentence", "Das Passwort steht im Tresor unter `Infra/Staging/root`."),
    ("Chinese full-width colon", "中国語: 密码强度要求至少12位。"),
    ("administrator and @", "root:x:0:0:root:/root:/bin/bash"),
    ("session cookie in a header", "Cookie: _ga=GA1.2.1234567890.1700000000; theme=dark"),
    (
        "secret beside an id",
        "kubectl create secret generic app-secrets-9f8d7c6b5a --from-env-file=.env",
    ),
    (
        "value below its label",
        "Token format:\n`tok_` then 32 characters, e.g. tok_" + made(ALNUM, 32),
    ),
    (
        "recovery phrase",
        "recovery phrase: write it down and keep it in a safe place, never share it",
    ),
    ("door code", "Set the PIN to 1234 as the example shows"),
    ("nginx header directive", "    proxy_set_header X-Real-IP $remote_addr;"),
]


@pytest.mark.parametrize("text", [t for _, t in SECRETS], ids=[f for f, _ in SECRETS])
def test_a_secret_said_by_its_shape_or_abroad_is_found(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize("text", [t for _, t in LOOK_ALIKES], ids=[f for f, _ in LOOK_ALIKES])
def test_a_public_or_referenced_value_is_written(text: str) -> None:
    assert secrets.scan(text) == []


@pytest.mark.parametrize("form, neighbour", NEIGHBOURS, ids=[f for f, _ in NEIGHBOURS])
def test_a_fourth_round_rule_lets_its_neighbour_through(form: str, neighbour: str) -> None:
    assert secrets.scan(dict(SECRETS)[form])
    assert secrets.scan(neighbour) == []


def test_a_password_said_in_german_is_refused_and_a_vault_path_written(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    store = MemoryStore(tmp_path / "p", home=tmp_path / "h")
    with pytest.raises(secrets.SecretFoundError, match="line 2"):
        store.write("ops/staging", f"# Staging\n{SECRETS[0][1]}\n")
    store.write("ops/secrets", f"# Where\n{NEIGHBOURS[2][1]}\n{LOOK_ALIKES[0][1]}\n")
