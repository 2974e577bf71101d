"""The secret gate's sixteenth round: logins joined into a memory's name (a strong
password after a joint, a password given by ``=`` or ``:``, a generated password after an
account's word, recovery codes, a key beside its token's word), a password given to a flag
joined to it, to Vertica's ``-w`` or written into a secret's file, a password drawn after
``@``, a GitLab job token (which hung the gate), a key named past another value or kept
from browsers; and the look-alikes that must stay accepted (a data key's hash, a key's id
said to be alone). Each secret was let through before. Values are made up."""

from __future__ import annotations

import pytest

from serena_memory.core import secrets


@pytest.mark.parametrize(
    "name",
    [
        # a strong password ending a name, after a joint or a user's colon
        "backup-box-root-Tq7%mWz2#Lp",
        "smtp_relay_Kv8!mPx2Qw",
        "ops/grafana:Sommer2023!",
        "ci@acme.dev:Zq*8LmWx_Rt4",
        # a password given by `=` or `:` to an account's or a password's words
        "prod-root-pw=Vx7Lq_2mKp9",
        "gitlab-admin=Copper-Lantern-31",
        # a generated password after an account's word, a Wi-Fi's words and a number
        "runbooks/nexus_admin_Brave-Heron-72",
        "postgres-superuser-Amber-Falcon-18.md",
        "wifi-lab-silent-meadow-47",
        # recovery codes after their words, a key beside its token's word
        "github-recovery-codes-83920174-19283746-56473829",
        "sendgrid-7f3a9c2e5b8d1f4a6c0e9b2d7a5f3c1e-apitoken",
    ],
)
def test_a_login_joined_into_a_name_is_refused(name: str) -> None:
    assert secrets.scan_name(name)
    assert secrets.scan(name)


@pytest.mark.parametrize(
    "text",
    [
        # a flag joined to its value, Vertica's -w, a value written into a secret's file
        "gh secret set API_PASS -b'Xp4vLq9RmT+wz' --env staging",
        "vsql -h analytics.corp.lan -U etl -w Kq2vT8mZpR4xWn7L",
        "printf 'Maple-Comet-62' > ~/.ansible_vault_pass",
        # a password drawn after `@` (no file's path)
        "az login -u ops@corp.onmicrosoft.com -p '@Rq8vLm2XzTp4Kw'",
        "DB-Zugang: Benutzer etl, Kennwort @Vb7Lm_qZx2Tk",
        # a GitLab CI/CD job token
        "CI_JOB_TOKEN was glcbt-64_Xk2vLq8RmTz4pWn7Yb3c in the failed log",
        # a key named past another value (an HMAC key's id, then its secret)
        "HMAC pair: access id GOOG1QXZ7VLMK2P9R4T8W6Y3N5B1C0D"
        " secret Lq8vX2mZ/Rk4pW+Tn7Yb3cJ9hF6sD1aG5eQ0uV2i",
        # a key said to be kept from browsers
        "search admin api key (writes only, never ship to browser):"
        " 4f9c2a7e1b8d3f6a0c5e9b2d7f4a1c8e",
    ],
)
def test_a_secret_of_the_sixteenth_set_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # names of words, versions, notes and counters
        "release-notes-Sprint-Review-42",
        "wifi-setup-floor-12",
        "root-cause-analysis-2024",
        "admin-panel-redesign",
        "C++17-Notes",
        "Q&A-2024-Notes",
        "docs/backup-codes-policy",
        "cache-7f3a9c2e5b8d1f4a6c0e9b2d7a5f3c1e-token",
        "etl:$apr1$Xk2vLq8R$mTz4pWn7Yb3cJ9hF6sD1a",
        "FF_PASSWORDLESS_LOGIN=25%",
        # a value read from a file, a flag that asks for the password
        "vault kv put secret/app password=@password.txt",
        "curl -d @payload.json https://api.corp.dev",
        "echo $DB_PASS > ~/.pgpass_tmp",
        "psql -h db.corp.lan -U app -w",
        # a data key's hash, a key's id said to be alone
        "gradle build cache entry key"
        " 9b2d7a5f3c1e7f3a9c2e5b8d1f4a6c0e9b2d7a5f3c1e7f3a9c2e5b8d1f4a6c0e",
        "access key id AKIAQX7VLMK2P9R4T8W6 is the ci user's; secret is in the vault",
        # a key said public, not denied
        "maps api key (restricted to referrers, ships to browser):"
        " AIzaSyDk4vLq8RmTz4pWn7Yb3cJ9hF6sD1aG5eQ",
    ],
)
def test_a_lookalike_of_the_sixteenth_set_is_kept(text: str) -> None:
    assert not secrets.scan(text)
    if "\n" not in text:
        assert not secrets.scan_name(text)
