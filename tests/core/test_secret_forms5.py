"""The secret gate's fifth round: a candidate judged by the words around it
(core/secret_context.py): a secret named a few words before its value, with asides, a
secret's name in a sentence, a value on the line below the words that name it, a name
alone (`key`, `AUTH`) given a random token, logins said as sentences, name/value pairs
over lines; and the look-alikes those words make public or no credential. Each secret was
let through before, and each look-alike refused. Values are drawn here from a fixed seed,
none is a real credential."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.core.secret_detectors import detected
from serena_memory.wiring import build_store

_RANDOM = random.Random(5150)
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
WORDS = ["harbor", "tundra", "maple", "cobalt", "willow", "zephyr", "orbit", "falcon", "cinder"]


def made(alphabet: str, length: int) -> str:
    return "".join(_RANDOM.choice(alphabet) for _ in range(length))


def word() -> str:
    return _RANDOM.choice(WORDS)


def strong() -> str:
    return made(UPPER, 2) + made(LOWER, 4) + made(DIGITS, 3) + "#" + made(ALNUM, 3)


def distinct_digits(length: int) -> str:
    """Digits with no run anyone guesses (each of the ten at least once in the first ten)."""
    first = list(DIGITS)
    _RANDOM.shuffle(first)
    return "".join(first) + made(DIGITS, length - 10)


def spaced_letters() -> str:
    """Four groups of four small letters, as an app password is printed (no run of the
    alphabet: abcd is an example's)."""
    groups = ["".join(_RANDOM.sample("qwxzjkvbnmyrtplh", 4)) for _ in range(4)]
    return " ".join(groups)


def uuid_value() -> str:
    return "-".join(made(HEX, n) for n in (8, 4, 4, 4, 12))


TABLE = "| Service | Port | Notes |\n|---|---|---|\n| Postgres | 5432 | via pgbouncer |\n"

# (form, text): each a secret the gate let through before this round
SECRETS = [
    ("a name set to a value", f"Set `REDIS_PASS` to `{strong()}` on the new host, then restart."),
    ("the value of a name", f"Value of X_API_KEY on prod (from the old wiki): {made(ALNUM, 20)}"),
    ("a name with an environment's abbreviation", f"CLIENT_SECRET_PRD={made(ALNUM, 14)}"),
    (
        "words and digits after a password's name",
        f"LDAP_BIND_PASSWORD={word().title()}.{word().title()}{made(DIGITS, 2)}",
    ),
    (
        "a token a sentence after its word",
        f"The old API token was revoked. New one is {made(ALNUM + '_', 40)}, set in the config.",
    ),
    (
        "a key after its words and an aside",
        f"Segment write key (server-side source, sends events to the warehouse): {made(ALNUM, 32)}",
    ),
    (
        "a key a few words before its value",
        f"Cosmos DB primary key for the staging account: {made(ALNUM + '+/', 86)}==",
    ),
    ("a token with an aside", f"- hcloud token (read/write, project `prod`): {made(ALNUM, 64)}"),
    (
        "a token right after its word",
        f"SMS provider: Twilio. SID AC{made(HEX, 32)}, token {made(HEX, 32)}.",
    ),
    ("a token of digits", f"TeamCity superuser token printed in the logs: {distinct_digits(19)}"),
    (
        "a recovery code",
        "Bitwarden org recovery code (printed, in the safe): "
        + "-".join(made(UPPER + DIGITS, 8) for _ in range(4)),
    ),
    (
        "backup codes after words",
        "2FA backup codes for the shared root login: "
        + " ".join(distinct_digits(10)[:8] for _ in range(4)),
    ),
    (
        "a seed with an aside",
        f"TOTP seed for the ops account (so others add it): {made(BASE32, 32)}",
    ),
    (
        "a key alone in a credential record",
        json.dumps({"provider": "algolia", "key": made(HEX, 32), "scopes": ["read"]}),
    ),
    ("a key alone given a random token", f"[b2-offsite]\ntype = b2\nkey = K00{made(ALNUM, 28)}"),
    ("AUTH in a note", f"### Redis\nPort: 6380 (TLS)\nAUTH: {made(ALNUM, 40)}"),
    ("an admin key in hex", f"Admin key for reindex jobs: {made(HEX, 32)}"),
    (
        "a value below the line that names it",
        f"- [x] create the Jira API token\n- [x] paste into CI: {made(LOWER + DIGITS, 24)}",
    ),
    (
        "the current value below",
        f"The key was generated in the admin UI.\nCurrent value: `{made(LOWER + DIGITS, 40)}`",
    ),
    (
        "an env list's name then value",
        f'env:\n  - name: DISCORD_BOT_SECRET\n    value: "{made(HEX, 64)}"\n',
    ),
    ("a JSON name and value", json.dumps({"name": "DB_PASSWORD", "value": strong()})),
    ("a directive in a table cell", TABLE + f"| Redis | 6379 | requirepass `{made(ALNUM, 32)}` |"),
    ("a userlist's quoted pair", f'# pgbouncer userlist.txt\n"app" "{strong()}!"'),
    (
        "logged in as a user with a password",
        f"Jenkins: logged in as `admin` with `{word()}-{word()}-{word()}3` to fix the agent.",
    ),
    ("an app password", f"IMAP login uses app password `{spaced_letters()}`."),
    (
        "an app password joined",
        f"SMTP app password for noreply@acme.io: {spaced_letters().replace(' ', '')}",
    ),
    ("an account reset to a value", f"The firewall admin account was reset to `{made(ALNUM, 13)}`"),
    ("a Wi-Fi key", f"The Wi-Fi for the booth is `AcmeDemo`, key {word()}{made(DIGITS, 4)}"),
    ("a user and password after a label", f"SFTP for Acme: agency / {word()}{made(DIGITS, 3)}"),
    (
        "a password far after its word abroad",
        "La contraseña del usuario root de MySQL en el servidor de pruebas es: "
        f"{word().title()}%{word().title()}{made(DIGITS, 2)}",
    ),
    (
        "a password of words abroad",
        f"Het wachtwoord voor de VPN-gebruiker 'ops' is {word().title()}.{word().title()}84",
    ),
    ("MinIO's client", f"mc alias set prod https://minio.acme.io minioadmin {made(ALNUM, 32)}"),
    ("sqlplus", f"sqlplus scott/{made(ALNUM, 10)}@orcl"),
    (
        "a Logic App's signed URL",
        f"https://prod-27.westeurope.logic.azure.com:443/workflows/{made(HEX, 32)}/triggers/"
        f"manual/paths/invoke?api-version=2016-10-01&sv=1.0&sig=d2-{made(ALNUM + '-_', 40)}",
    ),
    ("a DeepSeek key", f"* key: sk-{made(HEX, 32)}"),
    ("a value after a dash", f"Here is the bot token so I don't lose it - {made(ALNUM, 34)}"),
    (
        "a Firebase server key",
        f"FCM legacy server key: AAAA{made(ALNUM, 7)}:APA91b{made(ALNUM + '_-', 134)}",
    ),
    ("a header's value", f"X-Api-Key header value for the partner: {made(ALNUM, 24)}"),
]

# (form, text): each refused before, though it holds no credential
LOOK_ALIKES = [
    ("a Windows variable", '{ "apiKey": "%SENDGRID_API_KEY%", "from": "noreply@acme.io" }'),
    ("a NuGet variable", '`<add key="ClearTextPassword" value="%NUGET_PAT%" />`'),
    ("a Twilio SID said no secret", f"Twilio Account SID (not secret alone): AC{made(HEX, 32)}"),
    (
        "Stripe's documented key",
        "Stripe docs: `Stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'` - their demo key.",
    ),
    (
        "GitHub's documented token",
        "GitHub docs show tokens like `ghp_16C7e42F292c6912E7710c838347Ae178B4a` in examples.",
    ),
    (
        "a browser's key",
        "Maps JS key restricted to https://www.acme.io/* referrers, visible in page source: "
        f"AIza{made(ALNUM + '_-', 35)}",
    ),
    ("a client-side token", f"Paddle client-side token: live_{made(HEX, 27)} (Paddle.js)"),
    (
        "a frontend token",
        f"Unleash frontend token (meant for browsers): default:production.{made(HEX, 32)}",
    ),
    ("a list of words", "`LOG_REDACT_KEYS=password,token,secret,authorization,api_key`"),
    ("a placeholder abroad", "Il token di esempio nella documentazione è `<il-tuo-token>`."),
    ("an example after e.g.", "Password policy: at least 12 characters, e.g. `Correct-Horse-9`."),
    (
        "a pod's name",
        f"Secret rotation job: `rotate-secrets-cronjob-{made(HEX, 9)}-{made(LOWER, 5)}` (pod).",
    ),
    ("a web config's key", f"Firebase web config apiKey: AIza{made(ALNUM + '_-', 35)}"),
    ("a search-only key", f"Algolia search-only API key: {made(HEX, 32)}"),
    ("a page's token", f"Continuation token: eyJ{made(ALNUM, 30)}"),
    ("a page's token named", f"nextPageToken: {made(ALNUM, 30)}"),
    ("a commit's short id", f"Git commit for the token fix: {made(HEX, 20)}"),
    (
        "a secret-finding regex",
        "- API tokens: `api[_-]?key`, `gh[ps]_[A-Za-z0-9]{36}`, `secret[_-]?token`",
    ),
    ("names of secrets", "Key Vault kv-acme-prod-01: secret names follow `app--setting--name`."),
]

# code and notes about code in real memories, each beside a word a secret's name ends with
CODE_NOTES = [
    "- `lib/agentToken.ts` — createAgentToken (takes expiresInDays) / listAgentTokens",
    '    if (all_tests_pass() && approvalState == "") {',
    "    Remove-Item Env:\\GH_TOKEN -ErrorAction SilentlyContinue",
    "Counts come from `tiktoken` `cl100k_base` via the encoder",
    "agentToken.ts also exports getUserOAuthTokens / revokeOAuthToken (tokens are user-owned)",
]


@pytest.mark.parametrize("text", CODE_NOTES)
def test_code_about_tokens_is_no_secret(text: str) -> None:
    assert secrets.scan(text) == []


# (the form a new rule finds, a neighbour it must let through)
NEIGHBOURS = [
    (
        "a token a sentence after its word",
        "The old API token was revoked. New one is in Vault under `ci/deploy`.",
    ),
    ("a key alone in a credential record", '{"key": "cmd+k cmd+s", "command": "workbench.open"}'),
    ("AUTH in a note", "AUTH: ACL user `app`, password from secret `redis-app`"),
    (
        "a value below the line that names it",
        f"## Stripe\n- Secret key: in Doppler\n- Account: acct_1N{made(ALNUM, 16)}",
    ),
    ("a token a sentence after its word", f"Token: see Vault. Org: org_{made(ALNUM, 18)}"),
    ("an admin key in hex", f"Build cache key: `deps-{made(HEX, 64)}` (hash of requirements.txt)."),
    (
        "a token right after its word",
        f"The token's SHA-256 is `{made(HEX, 64)}` (we store only the hash).",
    ),
    ("a token of digits", f"Our Sentry DSN project id is {distinct_digits(16)}."),
    (
        "a value below the line that names it",
        f"- Auth token: in Secrets Manager `prod/twilio`\n- Messaging service: MG{made(HEX, 32)}",
    ),
    (
        "an env list's name then value",
        "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: DB_PASSWORD\n    valueFrom:\n"
        "      secretKeyRef: {name: db, key: password}",
    ),
    (
        "logged in as a user with a password",
        "The e2e suite logs in as `e2e-user@example.com` / `e2e-password` on the preview.",
    ),
    ("a recovery code", "Recovery codes are stored in the team vault, entry 'GitHub org owner'."),
    ("a directive in a table cell", TABLE + "| Redis | 6379 | requirepass from `REDIS_PASS` |"),
    ("the value of a name", "Value of MAX_RETRIES on prod: 5"),
    ("a name set to a value", "Set `LOG_LEVEL` to `debug` when reproducing."),
    ("a key alone given a random token", "key: deps-v3-linux-py311-269bfd99"),
    ("a key a few words before its value", "The primary key of orders is (tenant_id, order_id)."),
    ("a token with an aside", f"token (sha256, for the audit): {made(HEX, 64)}"),
    ("a userlist's quoted pair", f'"app" "md5{made(HEX, 32)}"'),
    ("an account reset to a value", "The admin account was reset to `default-settings`."),
    ("a value after a dash", "Token refresh is in AuthService.refreshToken2Async - see retries."),
    (
        "a key after its words and an aside",
        f"Segment write key for the web source (ships to every browser): {made(ALNUM, 32)}",
    ),
    ("a header's value", "The API key header is `X-Api-Key`, sent on every call."),
    ("a token right after its word", f"Key management: KMS key {uuid_value()}, alias alias/prod."),
    (
        "a token with an aside",
        f"Encrypted password (KMS ciphertext blob): AQICAH{made(ALNUM + '+/', 120)}==",
    ),
]


@pytest.mark.parametrize("text", [t for _, t in SECRETS], ids=[f for f, _ in SECRETS])
def test_a_secret_named_by_the_words_around_it_is_found(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [t for _, t in SECRETS if "\n" not in t],
    ids=[f for f, t in SECRETS if "\n" not in t],
)
def test_a_secret_named_in_one_line_is_found_in_a_memorys_name(text: str) -> None:
    assert secrets.scan_name(text)
    assert secrets.holding_secrets({text: "# Notes\n"})  # what a team sync asks


@pytest.mark.parametrize("text", [t for _, t in LOOK_ALIKES], ids=[f for f, _ in LOOK_ALIKES])
def test_a_value_the_words_make_public_or_no_secret_is_written(text: str) -> None:
    assert secrets.scan(text) == []
    assert secrets.scan_name(text) == []


@pytest.mark.parametrize("form, neighbour", NEIGHBOURS, ids=[f for f, _ in NEIGHBOURS])
def test_a_fifth_round_rule_lets_its_neighbour_through(form: str, neighbour: str) -> None:
    assert secrets.scan(dict(SECRETS)[form])
    assert secrets.scan(neighbour) == []


def test_a_write_and_a_sync_refuse_a_secret_said_in_a_note(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    store = build_store(tmp_path / "p", home=tmp_path / "h")
    note = dict(SECRETS)["a token with an aside"]
    with pytest.raises(secrets.SecretFoundError, match="line 3"):
        store.write("infra/cloud", f"# Infra\n- Cloud: Hetzner\n{note}\n")
    store.write("infra/fine", f"# Infra\n{dict(NEIGHBOURS)['a token with an aside']}\n")
    held = secrets.holding_secrets({"infra/cloud": f"# Infra\n{note}\n", "infra/fine": "# ok\n"})
    assert list(held) == ["infra/cloud"]


def test_a_detector_skipped_for_lack_of_its_words_would_have_found_nothing() -> None:
    """Each of detect-secrets' detectors runs only on a line holding one of the words its
    patterns need (and for three, a fixed-width part of them); run unskipped on every line
    of the labelled sets and of this file's texts, none finds anything the skipped ones
    miss."""
    data = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
    shapes = [
        f"discord: M{made(ALNUM, 23)}.{made(ALNUM, 6)}.{made(ALNUM, 27)}",
        f"bot: {made(DIGITS, 9)}:{made(ALNUM, 35)}",
        f"ibm_cloud_iam_key = '{made(ALNUM + '_-', 44)}'",
    ]
    texts = [t for _, t in SECRETS + LOOK_ALIKES + NEIGHBOURS] + shapes
    for path in sorted(data.glob("secrets-*.jsonl")):
        texts += [json.loads(line)["text"] for line in path.read_text("utf-8").splitlines()]
    detectors = secrets._detectors()
    unskipped = [(detector, ("",), (), None) for detector, *_ in detectors]
    lines = {line for text in texts for line in text.splitlines()}
    for line in lines:
        assert detected(line, detectors) == detected(line, unskipped), line
    assert all(detected(shape, detectors) for shape in shapes)


def test_a_line_full_of_secret_words_and_values_is_scanned_in_linear_time() -> None:
    """The context rule reads a window before each value after a secret's word: a line of
    100,000 characters of such words and values comes back (in a child process with a
    deadline far above what it needs)."""
    code = (
        "from serena_memory.core import secrets\n"
        "print(secrets.scan('key id: aB3dE5gH7jK9mN1pQ4 ' * 4000))\n"
        "print(secrets.scan('password (' * 10000 + 'x'))\n"
        "print(secrets.scan('token ' + 'a1' * 50000))\n"
        "print(secrets.scan('key: ' + 'deps-v3-' * 12000))\n"
        "print(secrets.scan('key: A' + 'a' * 100000))\n"
        "print(secrets.scan('token: ' + '-'.join(['a' * 30000] * 3)))\n"
        "print(secrets.scan('the API token\\n- label: ' + 'x' * 20 + ' ' * 50000 + 'y'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "[]\n" * 7


# a provider's key with no prefix of its own, in each form people paste it; what names it
# is its words or its variable, never its shape
_PROVIDERS = ["Mistral", "Twitch", "Datadog", "Zendesk", "Backblaze"]
_PASTED_FORMS = {
    "environment line": "{P}_API_KEY={v}",
    "YAML": "{p}:\n  api_key: {v}",
    "JSON": '{{"{p}ApiKey": "{v}"}}',
    "sentence": "The {P} API key is {v}",
    "label": "{P} key: {v}",
    "arrow": "{P} token for prod → {v}",
    "list": "- {P} secret: `{v}`",
    "table": "| {P} | API key | `{v}` |",
    "agent's note": "Remember: {P} access token = {v}",
    "container": "docker run -e {P}_TOKEN={v} acme/app",
    "flag": "acme-cli deploy --api-key {v} --region eu",
    "header": "curl -H 'X-{P}-Key: {v}' https://api.{p}.example/v1",
    "words between": "We got the {P} API key from their support after two weeks: {v}",
    "aside": "{P} secret (prod, rotated in March): {v}",
}
_NOT_KEYS = {
    "an id": "{P} account id: {v}",
    "a hash": "sha256 of the {P} API key: {v}",
    "a key's id": "{P} API key id: {v}",
    "a request's id": "{P} request id: {v}",
    "a commit": "Bumped the {p} SDK in commit {v}",
    "an example": "e.g. a {P} token looks like {v}",
    "a public key": "{P} publishable key (safe in the browser): {v}",
}


def _shapes() -> list[str]:
    return [
        made(HEX, 32),
        made(HEX, 40),
        made(ALNUM, 32),
        made(ALNUM, 24),
        made(ALNUM + "+/", 42) + "==",
        uuid_value(),
    ]


@pytest.mark.parametrize("form", list(_PASTED_FORMS))
def test_a_key_without_a_prefix_is_found_in_every_form_people_paste(form: str) -> None:
    missed = [
        text
        for provider in _PROVIDERS
        for value in _shapes()
        if not secrets.scan(
            text := _PASTED_FORMS[form].format(P=provider.upper(), p=provider.lower(), v=value)
        )
    ]
    assert missed == []


@pytest.mark.parametrize("form", list(_NOT_KEYS))
def test_an_id_a_hash_or_a_public_key_beside_a_keys_words_is_written(form: str) -> None:
    flagged = [
        text
        for provider in _PROVIDERS
        for value in _shapes()
        if secrets.scan(text := _NOT_KEYS[form].format(P=provider, p=provider.lower(), v=value))
    ]
    assert flagged == []


# a password or a key said in more languages, and where they say it is kept
ABROAD = [
    f"Mật khẩu của máy chủ staging là: {strong()}",
    f"Kata sandi database produksi adalah {strong()}",
    f"Ο κωδικός του διακομιστή είναι: {strong()}",
    f"La clave de la API de Stripe es {made(ALNUM, 24)}",
    f"La chiave API di produzione è {made(ALNUM, 24)}",
    f"Lösenordet för servern är {strong()}",
    f"API キーは {made(ALNUM, 24)} です",
    f"Adgangskoden til routeren er {strong()}",
]
KEPT_ABROAD = [
    "La clave está en el gestor de contraseñas (1Password, bóveda Infra).",
    "La chiave della cache è `user:42:profile:v3`.",
    "Mật khẩu được lưu trong Vault tại secret/prod/db.",
    "Kata sandi disimpan di Vault, path secret/prod/db.",
]


@pytest.mark.parametrize("text", ABROAD)
def test_a_secret_said_in_another_language_is_found(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize("text", KEPT_ABROAD)
def test_where_a_secret_is_kept_said_in_another_language_is_written(text: str) -> None:
    assert secrets.scan(text) == []
