"""The secret gate's eleventh round: secrets as people paste them that the gate let through
(a product's default login for a host on a network), and look-alikes it refused. Each
secret was let through before. Values here are made up, none is a real credential."""

from __future__ import annotations

import pytest

from serena_memory.core import secrets
from serena_memory.core.secret_remote import remote_host


@pytest.mark.parametrize(
    "text",
    [
        "REDIS_URL=redis://admin:admin@cache.prod.tallyhq.net:6379/0",
        'psql "postgresql://postgres:postgres@db.staging.orbitcart.io/app"',
        "The ops Kibana at https://logs.ferngrove.co.uk takes `elastic` / `elastic123`.",
        "Broker mq-1.eu.pinewharf.com:5672 still accepts `guest:guest` from anywhere.",
    ],
)
def test_a_default_login_for_a_host_on_a_network_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app",
        "REDIS_URL=redis://admin:admin@redis:6379/0",
        "mongodb://root:root@mongo.svc.cluster.local:27017",
        "Grafana starts with `admin` / `admin` and asks for a new one on first login.",
        "In `docker-compose.yml` the broker keeps `guest:guest` for local runs.",
        "Try `admin`/`admin` on https://grafana.example.com (the docs' demo).",
    ],
)
def test_a_default_login_on_this_machine_or_in_docs_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    ("host", "remote"),
    [
        ("pg.staging.brewline.app", True),
        ("ci.acme-corp.io", True),
        ("localhost", False),
        ("db", False),
        ("api.example.org", False),
        ("values-staging.yaml", False),
        ("web.test", False),
    ],
)
def test_a_remote_host_is_a_named_host_on_a_network(host: str, remote: bool) -> None:
    assert remote_host(host) is remote


@pytest.mark.parametrize(
    "name",
    [
        "wifi_guest_password_Maple731QrtzWbn",
        "redis_admin_pQ7vLx2NcR9tZkW4mB_for_cache-eu",
        "atlas_uri_mongodb+srv_svc_Tnd5521kq8PzX3wQ@cluster7",
        "billing_api_Orchid8840Nwq3ytRp",
    ],
)
def test_a_value_pasted_into_a_memory_name_is_refused(name: str) -> None:
    assert secrets.scan_name(name)
    assert secrets.scan(name)  # a memory that is that one word


@pytest.mark.parametrize(
    "name",
    [
        "db_password_rotation2024",
        "release_notes_v2_3_1",
        "cache_key_pip-3f66a1b2c3d4e5f60718",
        "AuthService_refreshToken2_notes",
        "pk.eyJ1IjoibWFwcyIsImEiOiJjbGV4YW1wbGUifQ.Yq7mK2pR8sT4vW6xZ0bC1d",
    ],
)
def test_a_name_of_words_ids_and_public_keys_is_kept(name: str) -> None:
    assert not secrets.scan_name(name)


def test_a_random_line_inside_a_longer_text_is_not_judged_as_a_name() -> None:
    assert not secrets.scan("The CA's public certificate:\n\nMIIBkTCBwIJAKHHIGrZ2xmMA0GCSqGSIb3\n")


@pytest.mark.parametrize(
    "text",
    [
        "htpasswd line for the dashboard: "
        "`ops:$2y$12$Zq8mWc3Lr7Tb1Nv5Xp0KaeQ4dF6hJ8kL2mN4pR6sT8vW0xY2z4b6C`",
        '"password": "pbkdf2_sha256$600000$Qm3Lx8Rt2Vz5Nc$Xb7Kp4Wq9Ts2Lm6Ny1Rd5Fh8Jg3Cv0Za4Ue7Io="',
        "INSERT INTO accounts(mail, password) VALUES ('dev-lead@orbitcart.io', "
        "'$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$Qx8bW3kL9mR2tV6nZ4pY7cJ1hF5sD0gA');",
        "password_verifier: SCRAM-SHA-256$4096:Wm5LcXJ0c2FsdA==$Yb3K9pQ2:Zr8Lm4Tx7V",
    ],
)
def test_a_stored_password_hash_is_kept(text: str) -> None:
    assert not secrets.scan(text)


def test_a_password_beside_a_hash_shaped_word_is_refused() -> None:
    assert secrets.scan('"password": "Heron$1$Quartz77!"')


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIAQ4RT7ZWX2MNB5KLP/20260301/us-east-1/"
        "execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=4f1c",
        "The CI user's access key id AKIAZ7QWE2RTY5UIOP3L is the id only; "
        "the secret half is in Vault.",
        "Access key id ASIAM3NB8VC2XZ4LKJ6H: the secret part was never stored here.",
    ],
)
def test_an_access_key_id_in_a_signature_scope_or_said_alone_is_kept(text: str) -> None:
    assert not secrets.scan(text)


def test_an_access_key_id_with_its_secret_is_refused() -> None:
    assert secrets.scan(
        "AWS_ACCESS_KEY_ID=AKIAZ7QWE2RTY5UIOP3L\n"
        "AWS_SECRET_ACCESS_KEY=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\n"
    )
    assert secrets.scan("Credential=AKIAZ7QWE2RTY5UIOP3L in the notes, no date after it")


@pytest.mark.parametrize(
    "text",
    [
        "```ruby\nSendgrid.api_key = Rails.application.credentials.dig(:sendgrid, :api_key)\n```",
        "```go\ntok := Sign(signingSecret, claims)\n```",
    ],
)
def test_a_call_given_a_name_is_code_not_a_value(text: str) -> None:
    assert not secrets.scan(text)


def test_a_call_given_a_literal_secret_is_refused() -> None:
    assert secrets.scan('```go\nsigningKey := "Qm7Xr2Lp9Vz4Nc8Tb1Kw5Yh3"\n```')


@pytest.mark.parametrize(
    "text",
    [
        "process.env.ANTHROPIC_API_KEY = 'sk-test-000000000000000000';",
        "Usage from the README: `mytool auth --token 0123456789abcdef0123456789abcdef`",
        'API_TOKEN="abcdefghijklmnopqrstuvwxyz012345"',
    ],
)
def test_a_value_typed_to_show_a_shape_is_kept(text: str) -> None:
    assert not secrets.scan(text)


def test_a_twitter_bearer_token_is_no_filler() -> None:
    token = "AAAAAAAAAAAAAAAAAAAAAKq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr4Tn9Vz1Lp6Bw8Ce3Gh5"
    assert secrets.scan(f"TWITTER_BEARER_TOKEN={token}")


def test_a_jwt_header_alone_is_kept_and_a_whole_token_refused() -> None:
    header = "eyJhbGciOiJFUzI1NiIsImtpZCI6InJvdGF0aW9uLTciLCJ0eXAiOiJKV1QifQ"
    assert not secrets.scan(f"The header of the failing token is `{header}` (ES256).")
    payload = "eyJzdWIiOiJzdmMtYmlsbGluZyIsImV4cCI6MjA5MDAwMDAwMH0"
    signature = "Qm7Xr2Lp9Vz4Nc8Tb1Kw5Yh3Jd6Fg0Sk2Wq8Ce4Gh"
    assert secrets.scan(f"The failing token is `{header}.{payload}.{signature}`.")


def test_a_login_name_ending_in_a_term_with_digits_is_kept() -> None:
    assert not secrets.scan_name("login-flow-PKCE-S256challenge")
    assert secrets.scan_name("login_vpn_Copper442VxkcXHJU")
