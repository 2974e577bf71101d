"""The secret gate on secrets as people paste them and on the look-alikes it must let
through (issue 41, item 4): each form as a memory's text, as a memory's name where it is
one line, and as the agent writes it; and its figures on the labeled set written apart
from the gate (benchmarks/data/secrets-dev.jsonl)."""

from __future__ import annotations

import random
import string
import sys
from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.wiring import build_store

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from secrets_labels import DEV, judge, load  # noqa: E402

_RANDOM = random.Random(41)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def made(alphabet: str, length: int) -> str:
    """Characters drawn here from a fixed seed, in a provider's published shape: no real
    secret is in this file."""
    return "".join(_RANDOM.choice(alphabet) for _ in range(length))


BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
PEM_BODY = "\n".join(made(ALNUM + "+/", 64) for _ in range(4))

# (form, text): each held a secret the gate let through before
SECRETS = [
    ("name with a suffix", f"SECRET_KEY_BASE={made(HEX, 128)}"),
    ("name with an environment", f"DB_PASSWORD_PROD={made(ALNUM, 14)}#4"),
    ("plural name", f"API_KEYS={made(ALNUM, 32)},{made(ALNUM, 32)}"),
    ("mysql -p", f"mysql -h db-1 -uadmin -p{made(ALNUM, 12)}! -e 'SHOW TABLES'"),
    ("curl -u", f"curl -u admin:{made(ALNUM, 14)}~ https://ci.internal/api/json"),
    ("docker login -p", f"docker login -u ci -p {made(ALNUM, 20)} registry.internal"),
    ("sshpass -p", f"sshpass -p '{made(ALNUM, 12)}^' ssh deploy@bastion"),
    ("password in a sentence", "The staging admin password is Orb1t^1cin"),
    ("passphrase in a sentence", "The zip is encrypted; the passphrase is maple-nimbus-orbit-63."),
    (
        "password in a Markdown table",
        "| Service | User | Password |\n|---|---|---|\n| Grafana | admin | Orb1t+7gra |",
    ),
    ("Vault token", f"VAULT_TOKEN is hvs.{made(ALNUM, 90)}"),
    ("DigitalOcean token", f"DigitalOcean, for doctl: dop_v1_{made(HEX, 64)}"),
    ("Databricks token", f"databricks host set, dapi{made(HEX, 32)}"),
    ("Linear API key", f"linear: lin_api_{made(ALNUM, 40)}"),
    ("Atlassian API token", f"jira: ATATT3x{made(ALNUM + '_-', 180)}"),
    ("Google OAuth client secret", f"client secret GOCSPX-{made(ALNUM + '_-', 28)}"),
    ("age secret key", f"CI decrypts with AGE-SECRET-KEY-1{made(BECH32, 58)}"),
    (
        "Discord webhook",
        f"https://discord.com/api/webhooks/{made('0123456789', 19)}/{made(ALNUM, 68)}",
    ),
    (
        "Azure SAS URL",
        "https://acct.blob.core.windows.net/pg/dump.gz?sp=r&sv=2022-11-02&sr=b"
        f"&sig={made(ALNUM, 40)}%3D",
    ),
    (
        "PuTTY key",
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\n"
        f"{made(ALNUM, 64)}\nPrivate-Lines: 1\n{made(ALNUM, 48)}\n",
    ),
    (
        "PEM header wrapped",
        f"-----BEGIN RSA PRIVATE\nKEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
    ),
]

# (form, text): each refused before, though it holds no secret
LOOK_ALIKES = [
    ("CI cache key", "key: deps-v3-linux-py311-7f3e2a1c"),
    ("VS Code keybinding", '{ "key": "ctrl+shift+p", "command": "workbench.action.showCommands" }'),
    ("DynamoDB partition key", '"PartitionKey": "ORDER#8f3e2a1c"'),
    ("DynamoDB sort key", "sort key: ORDER#2024-06-01#8f3e2a1c"),
    ("Redis key pattern", 'key = "session:{user_id}:tokens:v2"'),
    (
        "public SSH key",
        f"Hardware key: `sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5{made(ALNUM, 60)}=`",
    ),
    ("GPG key id", "signing key: 0x3AA5C34371567BD2"),
    ("GPG fingerprint", "GPG key: 4D6EB482ACCE56B1DF5A3AC1AD1B9BBD767176B7"),
    ("git signing key", "[user]\n  signingkey = 3AA5C34371567BD2"),
    ("Stripe publishable key", f"NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_{made(ALNUM, 60)}"),
    ("WireGuard public key", f"PublicKey = {made(ALNUM, 43)}="),
    ("placeholder", "curl -u admin:<admin-password> https://jenkins.example.com/api/json"),
    ("variable", 'docker login -u ci -p "$REGISTRY_TOKEN" registry.internal'),
    ("masked", "DATABASE_URL=postgres://app:***@db-prod:5432/app"),
    ("prose about a key's format", "A file holding `BEGIN OPENSSH PRIVATE KEY` is a private key."),
]


@pytest.mark.parametrize("text", [t for _, t in SECRETS], ids=[f for f, _ in SECRETS])
def test_a_secret_as_people_paste_it_is_found(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [t for _, t in SECRETS if "\n" not in t],
    ids=[f for f, t in SECRETS if "\n" not in t],
)
def test_a_secret_pasted_into_a_memorys_name_is_found(text: str) -> None:
    assert secrets.scan_name(f"notes/{text}")
    assert secrets.holding_secrets({f"notes/{text}": "# Notes\n"})  # what a team sync asks


@pytest.mark.parametrize("text", [t for _, t in LOOK_ALIKES], ids=[f for f, _ in LOOK_ALIKES])
def test_a_look_alike_is_no_secret(text: str) -> None:
    assert secrets.scan(text) == []


def test_the_agent_is_refused_and_a_look_alike_is_written(tmp_path: Path) -> None:
    store = build_store(tmp_path / "p", home=tmp_path / "h")
    (tmp_path / "p").mkdir()
    for form, text in SECRETS:
        with pytest.raises(secrets.SecretFoundError):
            store.write("notes/pasted", f"# {form}\n\n{text}\n")
    for form, text in LOOK_ALIKES:
        store.write("notes/fine", f"# {form}\n\n{text}\n")
    assert not (tmp_path / "p" / ".serena" / "memories" / "notes" / "pasted.md").exists()


def test_a_team_sync_and_the_history_run_the_same_detector_as_a_write() -> None:
    """What a sync brings (holding_secrets) and a history's versions (scan, scan_name) are
    judged by the functions a write uses, so the figures below hold for them too."""
    texts = {f"notes/{form}": text for form, text in SECRETS}
    held = secrets.holding_secrets(texts)
    assert set(held) == set(texts)
    assert all(
        held[name] == (secrets.scan_name(name) or secrets.scan(texts[name])) for name in held
    )


def test_the_gate_meets_its_figures_on_the_labeled_dev_set() -> None:
    text, name = judge(load(DEV))
    assert text.secrets >= 180 and text.lookalikes >= 180
    assert text.recall >= 0.95 and text.false_rate <= 0.02, (text.missed, text.false)
    assert name.recall >= 0.95 and name.false_rate <= 0.02, (name.missed, name.false)
