"""The secret gate's thirteenth round: credentials it let through (a password after the
flag of a command that takes it, a well-known account's password after a slash, a
password in a memory's name, a UUID under a secret's label, an X app's bearer token, a
default password said to be in use), each written through the store as a memory file and
as a memory's name, beside a look-alike that is kept. Values here are made up, none is a
real credential."""

from __future__ import annotations

from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.core.store import MemoryStore


def store(tmp_path: Path) -> MemoryStore:
    (tmp_path / "p").mkdir(parents=True, exist_ok=True)
    return MemoryStore(tmp_path / "p", home=tmp_path / "h")


def written(tmp_path: Path, texts: list[str]) -> None:
    """Each text is written as a memory and read back."""
    memories = store(tmp_path)
    for number, text in enumerate(texts):
        memories.write(f"notes/kept-{number}", f"# Notes\n\n{text}\n")
        assert memories.read(f"notes/kept-{number}").strip().endswith(text.strip())


def refused(tmp_path: Path, texts: list[str]) -> None:
    memories = store(tmp_path)
    for number, text in enumerate(texts):
        with pytest.raises(secrets.SecretFoundError):
            memories.write(f"notes/refused-{number}", f"# Notes\n\n{text}\n")


def name_refused(tmp_path: Path, names: list[str]) -> None:
    memories = store(tmp_path)
    for name in names:
        with pytest.raises(secrets.SecretFoundError):
            memories.write(name, "# Notes\n\nnothing secret here\n")


def name_kept(tmp_path: Path, names: list[str]) -> None:
    memories = store(tmp_path)
    for name in names:
        memories.write(name, "# Notes\n\nnothing secret here\n")
        assert memories.read(name).strip().endswith("nothing secret here")


def test_a_password_after_a_tools_password_flag_is_refused(tmp_path: Path) -> None:
    commands = [
        "ipmitool -I lanplus -H 10.9.4.7 -U ADMIN -P QW7RT2KX9B sensor list",
        "openssl enc -aes-256-cbc -d -in db.dump.enc -out db.dump -k 'Lx9#vb2Qe7rPmz'",
        "openssl enc -aes-256-cbc -in a.tar -out a.enc -pass pass:Lx9vb2Qe7rPmz",
        "plink -ssh ops@10.1.1.4 -pw Tq7mBx2wLp",
    ]
    refused(tmp_path, commands)
    name_refused(tmp_path / "n", [commands[0]])
    written(
        tmp_path / "k",
        [
            "ipmitool -I lanplus -H 10.9.4.7 -U ADMIN -P $IPMI_PASSWORD sensor list",
            "openssl enc -aes-256-cbc -d -in db.dump.enc -out db.dump -pass env:BACKUP_PASS",
            "openssl s_client -connect example.org:443 -k client.pem",
        ],
    )


def test_a_well_known_accounts_password_after_a_slash_is_refused(tmp_path: Path) -> None:
    logins = [
        "Local Gitea: admin/admin2024, org `acme`.",
        "SQL Server in the lab VM: sa / Pa55word!x",
        "Prod RabbitMQ: the installer set `admin` / `Changeme7731!` and nobody rotated it.",
    ]
    refused(tmp_path, logins)
    name_refused(tmp_path / "n", ["Local Gitea: admin/admin2024"])
    written(
        tmp_path / "k",
        [
            "Routes: admin/users2 lists the accounts; read/write over TCP/IP.",
            "docker pull postgres/postgres15 and fork user/project2 first.",
            "Grafana in the dev stack: admin/admin (it asks to change it).",
            "SQL Server dev container: `sa` / `YourStrong!Passw0rd` (from the docker docs).",
            "Default login for the dev container: admin / admin123",
        ],
    )


def test_a_default_password_said_to_be_still_in_use_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        [
            "The Nexus admin account still uses `admin123` as its password.",
            "Staging Airflow still has the bootstrap admin: user `admin`, password `changeme`.",
            "root on the lab NAS is still M@ple!92, nobody changed it",
        ],
    )
    name_refused(tmp_path / "n", ["The Nexus admin account still uses `changeme` as its password"])
    written(
        tmp_path / "k",
        [
            "Example: the admin password: `changeme` in values.yaml, replace it.",
            "password: changeme",
            "The admin password is still kept in the vault as `ADMIN_PASSWORD`.",
            "The admin user still uses OAuth2-based login and C++17 builds.",
        ],
    )


def test_a_password_after_its_word_in_a_memory_name_is_refused(tmp_path: Path) -> None:
    name_refused(
        tmp_path,
        [
            "ops-notes-password-tiger7",
            "qa-db-password-Harbor07lumen",
            "db-creds-app_ro-WkTzpLrQE58XNV",
        ],
    )
    refused(tmp_path / "t", ["qa-db-password-Harbor07lumen"])
    name_kept(
        tmp_path / "k",
        [
            "api-key-rotation-policy",
            "password-reset-flow-v2",
            "token-refresh-2024",
            "secrets_handling",
            "password-hashing-argon2",
            "creds-ops311",
            "creds-MyService2x",
        ],
    )


UUID = "5c1e9a7d-2b4f-4e8a-9d3c-71f0b6a2e4c8"  # made up


def test_a_uuid_under_a_secrets_label_is_refused(tmp_path: Path) -> None:
    labelled = [
        f"consul acl bootstrap printed SecretID: {UUID} (the management token)",
        f'curl -H "X-Consul-Token: {UUID}" http://127.0.0.1:8500/v1/kv/app',
        f"nomad acl token {UUID}",
        f"client_secret: {UUID}",
    ]
    refused(tmp_path, labelled)
    name_refused(tmp_path / "n", [f"nomad-acl-token {UUID}"])
    written(
        tmp_path / "k",
        [
            f"client_id: {UUID}",
            f"request id {UUID}, trace id {UUID}",
            f"AccessorID: {UUID}",
            f"Idempotency-Key: {UUID}",
            f"next_page_token: {UUID}",
            f"Secret ID (not the value): {UUID}",
            f"sha256 of the Consul token: {UUID}",
        ],
    )


# made up, in the shape of an X (Twitter) app's bearer token: 21 A's, then the token
X_BEARER = "A" * 21 + "Qm7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk%2BQm7Xr4Tn9Vz1Lp6Bw8Ce3Gh5Kq7"


def test_an_x_app_bearer_token_is_refused(tmp_path: Path) -> None:
    refused(tmp_path, [f"X bearer for the scraper: {X_BEARER}", f"X_BEARER={X_BEARER}"])
    name_refused(tmp_path / "n", [f"scraper-bearer-{X_BEARER}"])
    written(
        tmp_path / "k",
        ["A zeroed buffer in base64: " + "A" * 60, "Bearer shape: " + "A" * 21 + "x" * 40],
    )


def test_a_bearer_token_given_to_an_http_clients_call_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        ['let r = client.get(url).bearer_auth("Qm7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk").send().await?;'],
    )
    written(
        tmp_path / "k",
        ["let r = client.get(url).bearer_auth(&token).send().await?;"],
    )


def test_an_app_password_given_to_a_password_setting_is_refused(tmp_path: Path) -> None:
    setting = "```yaml\nmail:\n  username: ops@example.org\n  password: qwzt hbvk mrdx pfjs\n```"
    refused(tmp_path, [setting])
    written(tmp_path / "k", ["```yaml\nhint:\n  password: keep your eyes open\n```"])


def test_a_userlists_pair_after_a_label_is_refused(tmp_path: Path) -> None:
    refused(tmp_path, ['pgbouncer userlist.txt: "app" "Qm7Lx2Mv9Np4Rt8Wz1Yb3H"'])
    written(
        tmp_path / "k",
        [
            'pgbouncer userlist.txt: "app" "md5a3c1e0f9b8d7c6b5a4f3e2d1c0b9a8f7"',
            'Greeting: "hello" "WorldWide"',
        ],
    )


def test_a_long_run_of_blanks_before_a_value_is_scanned_quickly(tmp_path: Path) -> None:
    import time

    started = time.monotonic()
    written(tmp_path, [" " * 50_000 + "build 42."])
    assert time.monotonic() - started < 5  # (30 s when the plain-line test backtracked)
