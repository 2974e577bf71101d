"""The secret gate's twelfth round: look-alikes it refused (ciphertext, placeholders in
other tools' conventions, template expressions, keys public by design, published keys),
each written through the store as a memory file, beside a secret of the same form that is
still refused. Values here are made up, none is a real credential (the emulator's key is
the one Microsoft publishes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.core.store import MemoryStore

# made up: ciphertext shapes (a KMS blob, a Cloud KMS ciphertext) and a drawn value
KMS_BLOB = (
    "AQICAHhq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr4Tn9Vz1Lp6Bw8Ce3Gh5Kq7Lx2Mv9Np4Rt8Wz1Yb3Hc6J=="
)
GCP_BLOB = "CiQAq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr4Tn9Vz1Lp6Bw8Ce3Gh5Kq7Lx2Mv9Np4Rt8W"
DRAWN = "Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr"


def store(tmp_path: Path) -> MemoryStore:
    (tmp_path / "p").mkdir(parents=True)
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


def test_ciphertext_is_written_and_the_secret_it_hides_refused(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            f"AWS KMS ciphertext blob for the DB password: `{KMS_BLOB}` (decrypt it with kms).",
            f"API_TOKEN={KMS_BLOB}",
            f"GCP KMS ciphertext for the API token: `{GCP_BLOB}`",
            f'encrypted_password: "{DRAWN}"',
            f"DB_PASSWORD_CIPHERTEXT={DRAWN}",
        ],
    )
    refused(tmp_path / "r", [f"API_TOKEN={DRAWN}", f"the DB password: `{DRAWN}`"])


def test_ciphertext_in_a_memory_name_is_kept() -> None:
    assert not secrets.scan_name(f"kms-ciphertext for the api token: {KMS_BLOB}")
    assert secrets.scan_name(f"API_TOKEN={DRAWN}")


def test_a_template_expression_or_a_format_field_is_no_value(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            "  MAILGUN_API_KEY: ${MAILGUN_API_KEY:?MAILGUN_API_KEY must be set}",
            '  API_TOKEN: "{{ required \\"apiToken\\" .Values.apiToken }}"',
            "password: '{{resolve:secretsmanager:MySecret:SecretString:password}}'",
            "API_KEY=#{ApiKey}#",
            "`postgresql://app:%s@db:5432/app` is filled in by `settings.py`.",
        ],
    )
    refused(
        tmp_path / "r",
        [
            "  MAILGUN_API_KEY: Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0F",
            "`postgresql://app:Rt8Wz1Yb3Hc6@db:5432/app`",
        ],
    )


def test_a_placeholder_in_another_language_or_case_is_kept(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            "STRIPE_WEBHOOK_SECRET=<şifreniz>",
            "ADMIN_PASSWORD=<hier-Token-eintragen>",
            "API_KEY=<ваш_ключ>",
            "| Variable | Example |\n|---|---|\n| `GITHUB_TOKEN` | `<Ihr-Token>` |",
            "pgpassword=sk-ant-api03-...",
            '{"username": "john.doe", "password": "P@ssw0rd", "host": "example.com"}',
        ],
    )
    refused(tmp_path / "r", ["ADMIN_PASSWORD=Hx7#kq2$Lm9pWz", '{"password": "P@ssw0rd-Kq7Lx2Mv"}'])


def test_a_key_said_public_where_it_is_quoted_is_kept(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            "Paddle client-side token `live_c96c5e344f2c50e06e007201dc6` used by Paddle.js.",
            "Algolia search-only API key `b5f3d8b2e1c4a6f7d9e0c1b2a3f4e5d6` (for the browser).",
        ],
    )
    refused(tmp_path / "r", ["Paddle API token `live_c96c5e344f2c50e06e007201dc6Kq7Lx2Mv9N`."])


def test_a_published_key_and_a_value_that_is_another_assignment_are_kept(tmp_path: Path) -> None:
    emulator = (
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
    )
    jwt_io = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
        "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    written(
        tmp_path,
        [
            f"Cosmos DB emulator key (the same on every machine): `{emulator}`",
            f"Authorization: Bearer {jwt_io}",
            "Local LocalStack creds: AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test",
        ],
    )
    refused(tmp_path / "r", [f"creds: AWS_SECRET_ACCESS_KEY={DRAWN}"])


def test_a_client_given_a_host_a_user_and_a_password_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        [
            'let client = Client::new("db-7.internal.acme.io", "admin", "Lantern!8842Qz");',
            'let c = Client::new("10.0.4.17", "svc_billing", "otter-quartz-meadow31");',
            "```js\nawait page.fill('#password', 'kestrel-orchid-tundra83');\n```",
        ],
    )
    written(
        tmp_path / "k",
        [
            'let client = Client::new("db-7.internal.acme.io", "admin", "billing");',
            "```js\nawait page.fill('#email', 'qa-admin@brewline.app');\n```",
            'log.info("Connected to", "db.internal.acme.io")',
        ],
    )


def test_a_literal_converted_to_bytes_is_still_a_literal(tmp_path: Path) -> None:
    refused(
        tmp_path,
        [
            '```go\njwtKey := []byte("Vq8Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk")\n```',
            "```js\nconst signingKey = Buffer.from('Vq8Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk');\n```",
        ],
    )
    written(tmp_path / "k", ['```go\njwtKey := []byte(os.Getenv("JWT_KEY"))\n```'])


def test_an_armoured_shared_key_with_its_material_is_refused(tmp_path: Path) -> None:
    body = "3b6c1e0f9a2d4c8e7f1a5b9c0d3e6f21\n8a7c5e3f1b9d2c4e6a8f0b1d3c5e7a92\n"
    refused(
        tmp_path,
        [f"-----BEGIN OpenVPN Static key V1-----\n{body}-----END OpenVPN Static key V1-----"],
    )
    written(tmp_path / "k", ["The file starts with `-----BEGIN OpenVPN Static key V1-----`."])


@pytest.mark.parametrize(
    "token",
    [
        "api-3f1c2b7e-9a4d-4c1e-8b2f-6d5a0e9c7b31",  # LaunchDarkly
        "7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8b9c0NRAL",  # New Relic license key
        "2Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd_0Fg5Sk2Qm7Xr4Tn9Vz1Lp",  # ngrok authtoken
        "live_Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr4T",  # GoCardless
        "live_7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8b9c",  # Lob
        "dG9rOjXq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr4Tn9Vz1Lp6Bw8=",  # Intercom
    ],
)
def test_a_provider_token_in_its_documented_shape_is_refused(tmp_path: Path, token: str) -> None:
    refused(tmp_path, [f"here you go {token} — expires end of sprint"])
    assert secrets.scan_name(f"notes {token}")


def test_base64_is_judged_by_the_text_it_encodes(tmp_path: Path) -> None:
    import base64

    token = base64.b64encode(b"ghp_Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7").decode()
    refused(tmp_path, [f"GITHUB_TOKEN_B64={token}  # decoded in entrypoint.sh"])
    written(
        tmp_path / "k",
        [
            "```yaml\nkind: Secret\ndata:\n  password: cG9zdGdyZXM=\n```",  # postgres
            "Bugsnag notifier API key `e34178d28275017074683ab700c60629` in `Bugsnag.start()` "
            "(notify-only, public in the bundle).",
        ],
    )


def test_a_passphrase_with_its_number_joined_in_a_memory_name_is_refused(tmp_path: Path) -> None:
    memories = store(tmp_path)
    for name in ("prod_db_password_glacier_lantern_glacier92", "admin_login_admin_otter_fjord77"):
        with pytest.raises(secrets.SecretFoundError, match="its name"):
            memories.write(name, "# Notes\n\nThe database moved.\n")
    for name in ("login_page_tests_part12", "password_reset_flow_step12"):
        memories.write(name, "# Notes\n\nThe login page moved.\n")
        assert memories.read(name)


def test_a_key_given_to_a_call_that_takes_one_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        [
            'acct = w3.eth.account.from_key("0x' + "7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8" * 2 + '")',
            'client.setApiKey("Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk")',
        ],
    )
    written(
        tmp_path / "k",
        ['token = vault.get_secret("payments/api-token")', 'cfg.set_key("cache-ttl")'],
    )


def test_a_credential_given_to_a_command_that_takes_one_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        [
            "$ echo Quartz6737VxwG4Ux4 | sudo -S systemctl restart nginx",
            "poetry config http-basic.internal ci Heron6533zz9Fuquy2",
            "codecov -t 3f1c2b7e-9a4d-4c1e-8b2f-6d5a0e9c7b31 -f coverage.xml",
            "algolia deploy --api 7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8 -v",
        ],
    )
    written(
        tmp_path / "k",
        [
            "docker build -t registry.acme.io/api:2024-11-30-release .",
            "git show -t 7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8b9c0d1e2",
            "poetry config virtualenvs.in-project true",
        ],
    )


def test_a_chat_bot_webhook_and_a_twilio_pair_are_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        [
            "FEISHU_WEBHOOK=https://open.feishu.cn/open-apis/bot/v2/hook/3f1c2b7e-9a4d-4c1e-8b2f",
            'Twilio.init("AC7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8", "9a2d4c8e7f1a5b9c0d3e6f21a8b9c0d1")',
        ],
    )
    written(tmp_path / "k", ["TWILIO_ACCOUNT_SID=AC7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8"])


def test_a_key_given_to_a_cipher_or_decoded_from_hex_is_refused(tmp_path: Path) -> None:
    hex_key = "7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8" * 2
    refused(
        tmp_path,
        [
            'fernet = Fernet(b"q7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr4Tn9Vw=")',
            'let mac = HmacSha256::new_from_slice(b"Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk").unwrap();',
            'var key = new SymmetricSecurityKey(Encoding.UTF8.GetBytes("Xq7Lx2Mv9Np4Rt8Wz1Yb3H"));',
            f'key = bytes.fromhex("{hex_key}")',
        ],
    )
    written(
        tmp_path / "k",
        [
            'expected = hmac.new(b"test-secret", b"payload", hashlib.sha256).hexdigest()',
            "h = hmac.new(key, body, hashlib.sha256).hexdigest()",
            'commit = bytes.fromhex("7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8")',
        ],
    )


def test_a_mobile_or_browser_key_and_a_store_path_are_kept(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            "LaunchDarkly mobile key mob-3f1c2b7e-9a4d-4c1e-8b2f-6d5a0e9c7b31 ships in the app.",
            "password: ssm:/prod/db/password",
        ],
    )
    refused(tmp_path / "r", ["LD_SDK_KEY=sdk-3f1c2b7e-9a4d-4c1e-8b2f-6d5a0e9c7b31"])


def test_a_keypair_written_as_its_bytes_is_refused(tmp_path: Path) -> None:
    numbers = ",".join(str((n * 37 + 11) % 256) for n in range(64))
    refused(tmp_path, [f"Solana deployer keypair (`~/.config/solana/id.json`): `[{numbers}]`"])
    written(tmp_path / "k", [f"The histogram's bins: `[{numbers}]`"])


def test_an_hmac_key_among_its_call_arguments_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        [
            "crypto.createHmac('sha256', 'Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk')",
            "hash_hmac('sha256', $payload, 'Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk')",
            'mac := hmac.New(sha256.New, []byte("Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk"))',
            'new SecretKeySpec(Base64.getDecoder().decode("Xq7Lx2Mv9Np4Rt8Wz1Yb3H"), "AES")',
        ],
    )
    digest = "7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8" * 2
    written(
        tmp_path / "k",
        [
            f'assert hmac.compare_digest(signature, "{digest}")',
            f'assert hmac.new(key, body, sha256).hexdigest() == "{digest}"',
        ],
    )


def test_a_key_a_providers_documentation_shows_is_kept(tmp_path: Path) -> None:
    token = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"
    written(
        tmp_path,
        [
            f"Slack's docs show a bot token as `{token}`.",
            "Emulator key (documented by Contoso, the same everywhere): "
            "`q7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr4Tn9Vw=`",
        ],
    )
    refused(tmp_path / "r", [f"Our Slack bot token is `{token}`."])


def test_a_key_said_to_ship_to_browsers_is_kept(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            "Amplitude API key 7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8 lives in the browser bundle.",
            "Plaid uses the public token `public-sandbox-3f1c2b7e-9a4d-4c1e-8b2f-6d5a0e9c7b31`",
        ],
    )
    refused(
        tmp_path / "r",
        [
            "Amplitude secret key 7c1e0f9a2d4c8e7f1a5b9c0d3e6f21a8 lives in Vault too.",
            "We found the token in a public repo: `Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk`.",
        ],
    )
