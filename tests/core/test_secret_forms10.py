"""The secret gate's tenth round: secrets as people paste them that the gate let through,
and look-alikes it refused. Each secret was let through before. Values here are made up,
none is a real credential."""

from __future__ import annotations

from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.core.store import Context
from serena_memory.wiring import build_store

# a credential joined to its word in a memory's name
JOINED_NAMES = [
    "gitea_token_glpat-Zq8vR2mWx7LpK4nT9bYc",  # a provider's prefix after a joint
    "ops/do_token_dop_v1_" + "3c9e07a1d54b82f6" * 4,
    "billing-ci-token-pypi-AgEIcHlwaS5vcmc" + "Qx7Rm2Lp9Vt4Nw8Kz3Hb6Jd1" * 3,
    "mq-password-Vb7Kq2TzRw9LmXs4Np",  # drawn at random after the password's word
    "MONGO_PASSWORD_STAGE_Hx83KpQ2wLz9RmTv",
    "vpn-creds-ops-Harb0r77!",  # a password a person set, a symbol in it
    "deploy-login-root-Kq2mZx8VtLw4RpN9",
    "mail-pass-copper-orchid-summit-42",  # words and a number after the word
    "slack-webhook-T8Q2Mx7Lp3Vn9Rk4Wz-Bx6Hd1Jq5Ft2Ky8Nc3Gs7Pe4",
    "ci_api_token_4f7a2c9e1b08d3e65a7f1c2b94de0873aa",
]
# names about a secret, with words and numbers but no value
ABOUT_NAMES = [
    "auth/password-reset-flow",
    "api-token-rotation-2024",
    "keystore-pass-rotation-plan-12",
    "login-flow-PKCE-S256challenge",
    "password-hashing-bcrypt-argon2id",
    "jwt_secret_length_minimum_32",
    "webhook-retry-handling-v2",
    "cache-key-user-profile-v3",
    "PASSWORD_MIN_LENGTH=12",
]


@pytest.mark.parametrize("name", JOINED_NAMES)
def test_a_credential_joined_into_a_name_is_refused(name: str) -> None:
    assert secrets.scan_name(name)
    assert secrets.scan(f"# Names\n{name}\n")  # a line of one word, as a name is


@pytest.mark.parametrize("name", ABOUT_NAMES)
def test_a_name_about_a_secret_is_kept(name: str) -> None:
    assert not secrets.scan_name(name)
    assert not secrets.scan(name)


def test_a_write_under_a_name_holding_a_password_is_refused(project: Path) -> None:
    store = build_store(project, context=Context.AGENT)
    with pytest.raises(secrets.SecretFoundError, match="its name holds"):
        store.write("ops/mq-password-Vb7Kq2TzRw9LmXs4Np", "# Queue\n")
    store.write("ops/mq-password-rotation", "# Queue\nRotated monthly.\n")
    memories = project / ".serena" / "memories"
    assert [p.name for p in memories.rglob("*.md")] == ["mq-password-rotation.md"]


@pytest.mark.parametrize(
    "text",
    [
        "curl -u deploy:'Qm4vX9tLz2Rw8Kp' https://ci.example.org/job/build",
        'curl --user ops:"Wq7!zLm2Rt9x" https://ci.example.org/api',
        "lftp -u feed,'t8Rv2mQx.L4zWp' sftp://files.example.org",
    ],
)
def test_a_password_quoted_after_the_user_on_a_command_line_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "curl -u deploy:$CI_PASSWORD https://ci.example.org/job/build",
        "ps -u root,daemon -o pid,cmd",
        "lftp -u anonymous, ftp://mirror.example.org",
    ],
)
def test_a_user_without_a_literal_password_on_a_command_line_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # base64 of a password, as kubectl prints a Secret's data
        "$ kubectl get secret orders-db -o jsonpath='{.data.password}'\nUGVyY2gjNDRyaXZlcg==",
        "$ kubectl get secret orders-db -o jsonpath='{.data.password}' | base64 -d\nPerch#44river",
        "$ vault kv get -field=token secret/ci/deploy\nhvs9Kq2mXz7LpR4tWv8NcB3",
        "$ gcloud secrets versions access latest --secret=smtp\nZx8qLm2Vt7Rw4KpN",
    ],
)
def test_a_secret_printed_below_the_command_that_reads_it_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "$ kubectl get secret orders-db -o jsonpath='{.data.username}'\nb3JkZXJzX2FwcA==",
        "vault kv get -field=api_key secret/uat/orders\n```",
        "KEY=$(aws secretsmanager get-secret-value --secret-id prod/k --query SecretString)\n"
        "FEATURE_FLAG=true",
        "$ kubectl get secret orders-db -o jsonpath='{.data.password}'\n<base64 of the password>",
    ],
)
def test_a_command_reading_a_secret_with_no_secret_printed_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "define( 'SMTP_PASSWORD', 'copper-harbor-violet-58' );",
        'os.environ.setdefault("STRIPE_WEBHOOK_SECRET", "Zk3v8QmW2xLp7RtN4bYc9Hd")',
        'os.Setenv("REGISTRY_TOKEN", "Rf8kQ2mZx7LpW4vN9tBc3Hy")',
    ],
)
def test_a_secret_name_and_its_value_given_to_a_call_are_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        'os.getenv("API_KEY", "")',
        "define( 'AUTH_KEY', 'put your unique phrase here' );",
        'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")',
        '_("password", "Mot de passe")',
    ],
)
def test_a_call_given_no_literal_secret_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        '    - curl --header "JOB-TOKEN: $CI_JOB_TOKEN" "$CI_API_V4_URL/projects/$CI_PROJECT_ID"',
        "Dev mode: `start-dev` with ADMIN_USER=admin / ADMIN_PASSWORD=admin on localhost:8080.",
        "本番のDBパスワードはSecrets Managerで90日ごとに自動ローテーションされる。",
        "데이터베이스 비밀번호는 SecretsManager에서30일마다 자동으로 교체된다.",
    ],
)
def test_references_assignments_and_unspaced_prose_are_kept(text: str) -> None:
    assert not secrets.scan(text)


def test_an_administrator_beside_an_assigned_strong_password_is_still_refused() -> None:
    assert secrets.scan("admin / ADMIN_PASSWORD=Hx7!qLm2zR9w on the staging box")
    assert secrets.scan("router admin / Hx7qLm2zR9w")


@pytest.mark.parametrize(
    "text",
    [
        "Lembrete: o STRIPE_API_KEY de produção é Zk8vQ2mWx7LpR4tN9bYc3Hd6",  # a name, then é
        "Nota: el DEPLOY_TOKEN de staging es Rf8kQ2mZx7LpW4vN9tBc3Hy",
        "A senha do relatório em prod é Qm7vKx2LpZ9tRw4N/bYc8HdTs3Fj",  # base64 with a slash
        "Das Passwort für den Admin ist `Hk2mQ9zXv7LpR4tW/Nb8YcJd3Fs6` (Benutzer admin).",
        "Kiosk: operator / Tq8vLm2ZxR9wKp4NbYc7Hd (shared account, lab)",  # an aside after it
    ],
)
def test_a_secret_said_in_another_language_or_before_an_aside_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "The password file is under SubModule2/ProjectName",
        "Owners: alice / bob.smith2024 (on call)",
        "Paths: src / components (see below)",
        "Lembrete: o STRIPE_API_KEY de produção é lido do Vault",
    ],
)
def test_a_path_or_a_pair_of_names_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        '{ "type": "Base64 High Entropy String", "hashed_secret": '
        '"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c", "is_verified": false }',
        '<script src="https://maps.googleapis.com/maps/api/js?key=AIzaSyD8kQ2mZx7LpW4vN9tBc3Hy6Rf1Jq5Xw2P&'
        'callback=initMap" async></script>',
        "Troque `SENHA_DB=troque-me` pela senha real no seu `.env` local.",
        "Reemplaza `DB_PASSWORD=cambiame` por la contraseña real.",
        "reCAPTCHA test secret (always passes): `6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe`",
        "Turnstile's test secret: TURNSTILE_SECRET=1x0000000000000000000000000000000AA",
        "# the JWS example's key (RFC 7515, appendix A.1)\nkey = "
        '"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"',
        "Tags are signed; import the key with `gpg --recv-keys 3AA5C34371567BD2`.",
    ],
)
def test_hashes_page_keys_placeholders_and_published_keys_are_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "GOOGLE_MAPS_SERVER_KEY=AIzaSyD8kQ2mZx7LpW4vN9tBc3Hy6Rf1Jq5Xw2P",  # no page loads it
        "# prod\nclient_secret = 'Zk8vQ2mWx7LpR4tN9bYc3Hd6Tq'",  # a comment citing nothing
        "WEBHOOK_SECRET=Zk8vQ2mWx7LpR4tN9bYc3Hd6Tq",  # a secret, not its hash
    ],
)
def test_their_neighbours_are_still_refused(text: str) -> None:
    assert secrets.scan(text)


def test_a_passphrase_given_to_any_secret_name_is_refused_an_instruction_is_not() -> None:
    assert secrets.scan("`SESSION_SECRET=maple-orbit-quartz-58` (preprod)")
    assert not secrets.scan("SESSION_SECRET=generate-with-openssl-rand-hex-32")
    assert not secrets.scan("SESSION_TIMEOUT=maple-orbit-quartz-58")


@pytest.mark.parametrize(
    "text",
    [
        "      - SMTP_PASSWORD_RELAY=Qw8&mZ2!xLp4Rt",  # whose password, after its word
        "    PYPI_TOKEN_INTERNAL: Zk8vQ2mWx7LpR4tN9bYc3Hd6",
        'signing_key_webhooks = "Xq2mZ8vLp4Rw7TkN9bYc3HdFs6Jq"',
    ],
)
def test_a_secret_name_qualified_after_its_word_given_a_random_value_is_refused(
    text: str,
) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "CACHE_KEY_PREFIX=user-profile-v3",
        "TOKEN_EXPIRY_SECONDS=3600",
        "SSH_KEY_FINGERPRINT=SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
        'api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False)',
        "SMTP_PASSWORD_RELAY=$RELAY_PASSWORD",
        "PYPI_TOKEN_INTERNAL=internal",
    ],
)
def test_a_qualified_name_given_no_drawn_value_is_kept(text: str) -> None:
    assert not secrets.scan(text)


def test_a_password_in_a_go_mysql_dsn_is_refused_a_placeholder_is_not() -> None:
    assert secrets.scan('db, err := sql.Open("mysql", "shop:Copper77Lantern@tcp(db:3306)/shop")')
    assert not secrets.scan('dsn := "user:password@tcp(localhost:3306)/db"')


def test_a_password_flag_after_a_user_flag_is_refused_a_port_is_not() -> None:
    assert secrets.scan("mosquitto_sub -h broker.example.org -u meter -P Tq8vLm2ZxR9wKp4N -t a/b")
    assert not secrets.scan("mysql -u root -P 3306 -h db.internal")
    assert not secrets.scan("mosquitto_sub -u meter -P $MQTT_PASSWORD -t a/b")


def test_a_bytes_or_raw_literal_given_to_a_secret_name_is_refused() -> None:
    assert secrets.scan('FERNET_KEY = b"q2Vx8mZkLp4Rw7TnN9bYc3HdFs6Jq0Ab-XyWvUt1Rs8="')
    assert secrets.scan('SECRET_KEY = r"Zk8vQ2m!Wx7LpR4tN9bYc3Hd6"')
    assert not secrets.scan('SECRET_KEY = b""')
    assert not secrets.scan("TOKEN = bytes_from_env()")


def test_a_literal_default_of_a_declared_secret_variable_is_refused() -> None:
    found = secrets.scan(
        'variable "smtp_password" {\n  type    = string\n  default = "Hx7q-Lm2z*R9wKp"\n}'
    )
    assert [finding.line for finding in found] == [3]
    assert secrets.placeholder_for(found[0].kind) == "<smtp-password>"
    assert not secrets.scan('variable "smtp_password" {\n  type = string\n  default = ""\n}')
    assert not secrets.scan('variable "region" {\n  default = "eu-west-1"\n}')
    assert not secrets.scan(
        'variable "smtp_password" {\n  type = string\n}\nlocals {\n  default = "Hx7q-Lm2z*R9wKp"'
    )


def test_a_name_holding_a_password_is_masked_with_a_placeholder() -> None:
    assert secrets.masked_name("ops/mq-password-Vb7Kq2TzRw9LmXs4Np") == "ops/<password>"
