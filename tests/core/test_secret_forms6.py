"""The secret gate's sixth round: secrets as people paste them that the gate let through
(a password's abbreviation in a name, a name with the password's word first, a short
password a person set, a passphrase of words, a server's one-word password directive, SQL
and Windows' password flags, session cookies by their names, a private key's PEM in
base64, a V4 signed URL, a URL's token with slashes, an integration key of 32 hex digits,
an account set to a random value, a one-time-password seed in groups), and look-alikes it
refused (keys made for browsers, a remark saying a value is public, an RFC's examples, a
crypt hash after its user, a password manager's name). Each secret was let through before,
and each look-alike refused. Values are drawn here from a fixed seed, none is a real
credential."""

from __future__ import annotations

import base64
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.wiring import build_store

_RANDOM = random.Random(6006)
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
WORDS = ["harbor", "tundra", "maple", "cobalt", "willow", "zephyr", "orbit", "falcon", "cinder"]


def made(alphabet: str, length: int) -> str:
    return "".join(_RANDOM.choice(alphabet) for _ in range(length))


def words(n: int) -> list[str]:
    return _RANDOM.sample(WORDS, n)


def strong() -> str:
    return made(UPPER, 2) + made(LOWER, 4) + made(DIGITS, 3) + "#" + made(ALNUM, 3)


def word_password() -> str:
    """A small word, a dot, a capitalised word and digits: heron.Thistle424."""
    first, second = words(2)
    return f"{first}.{second.capitalize()}{made(DIGITS, 3)}"


def pem_in_base64(kind: str) -> str:
    header = f"-----BEGIN {kind}PRIVATE KEY-----\n{made(ALNUM + '+/', 64)}\n"
    return base64.b64encode(header.encode()).decode()


SECRETS = [
    ("a password's abbreviation in a name", f"GRAFANA_ADMIN_PW={strong()}"),
    ("the password's word first in a name", f"PASSWD_FTP_UPLOAD={word_password()}"),
    ("the password's word first, quoted", f'PWD_BACKUP_SMB="{made(ALNUM, 14)}"'),
    ("a token's words first in a name", f"TOKEN_GITHUB_CI={made(ALNUM, 24)}"),
    ("an API key's words first in a name", f"API_KEY_STRIPE={made(ALNUM, 24)}"),
    ("a word and one digit", f"db_password={words(1)[0]}{made(DIGITS, 1)}"),
    ("a password first, unquoted", f"{made(ALNUM, 12)}7 is the password for the build VM."),
    (
        "a short password a person set",
        f"db_pass={_RANDOM.choice(['maple', 'orbit'])}{made(DIGITS, 2)}",
    ),
    ("a word in capitals and digits", f'admin_password: "{words(1)[0].upper()}_{made(DIGITS, 2)}"'),
    ("a passphrase of words assigned", f"passphrase={' '.join(words(4))}"),
    (
        "a passphrase of words quoted in prose",
        f'The backup passphrase for the NAS is "{" ".join(words(4))}"; keep it offline.',
    ),
    ("a server's password directive", f"rootpw {'-'.join(words(2))}"),
    ("a bind password directive", f"bindpw {'-'.join(words(2))}"),
    (
        "a password in prose, words and digits",
        f"The root password on the NAS is {word_password()} now.",
    ),
    ("a password said in French", f"Le mot de passe de la base est `{word_password()}`."),
    (
        "Django's generated key",
        f'export DJANGO_SECRET_KEY="django-insecure-{made(ALNUM + "#%*@", 50)}"',
    ),
    ("htpasswd with its flags apart", f"htpasswd -b -c /etc/nginx/.htpasswd ci-bot '{strong()}'"),
    ("xfreerdp's /p:", f"xfreerdp /v:10.0.0.4 /u:Administrator /p:'{made(ALNUM, 24)}'"),
    ("net user", f"net user svc_backup {strong()} /add"),
    ("vault login with a legacy token", f"vault login s.{made(ALNUM, 24)}"),
    ("rdesktop -p", f"rdesktop -u admin -p {made(ALNUM, 14)} 10.0.0.5"),
    ("MySQL's IDENTIFIED BY", f"ALTER USER 'reporting'@'%' IDENTIFIED BY '{strong()}';"),
    ("SQL Server's WITH PASSWORD", f"ALTER LOGIN [svc] WITH PASSWORD = N'{strong()}';"),
    (
        "a signed session cookie",
        f"Use my cookie `connect.sid=s%3A{made(ALNUM, 32)}.{made(ALNUM + '+/', 43)}` on staging.",
    ),
    ("a Java session", f"JSESSIONID={made('0123456789ABCDEF', 32)} (from the agent's browser)"),
    ("a PHP session", f"PHPSESSID={made(LOWER + DIGITS, 26)} is the admin session I used."),
    ("a Django session", f"sessionid={made(LOWER + DIGITS, 32)} (django admin)"),
    (
        "a kubeconfig's client key",
        f"users:\n- name: admin\n  user:\n    client-key-data: {pem_in_base64('EC ')}",
    ),
    ("a private key's PEM in base64 in JSON", f'{{"id_rsa": "{pem_in_base64("RSA ")}"}}'),
    (
        "a GCS signed URL",
        "https://storage.googleapis.com/b/clip.mp4?X-Goog-Algorithm=GOOG4-RSA-SHA256"
        f"&X-Goog-Expires=86400&X-Goog-Signature={made(HEX, 256)}",
    ),
    (
        "an S3 presigned URL",
        "https://b.s3.amazonaws.com/a.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        f"&X-Amz-Signature={made(HEX, 64)}",
    ),
    (
        "a URL's token holding slashes",
        f"extra-index-url = https://aws:{made(ALNUM, 40)}/{made(ALNUM + '+', 60)}"
        "@acme-111.d.codeartifact.us-east-1.amazonaws.com/pypi/repo/simple/",
    ),
    (
        "a routing key of 32 hex digits",
        f"PagerDuty routing key for the db service: {made(HEX, 32)}",
    ),
    (
        "an account set to a random value",
        f"I set the Keycloak realm admin to `{made(ALNUM, 25)}` while debugging.",
    ),
    (
        "a one-time-password seed in groups",
        "2FA seed for the root account (break-glass phone): "
        f"`{' '.join(made(BASE32, 4) for _ in range(8))}`",
    ),
]

LOOK_ALIKES = [
    ("a remark says public", f"ALGOLIA_SEARCH_ONLY_KEY={made(HEX, 32)}  # safe for frontend"),
    (
        "a remark says client-side",
        f"FLAGSMITH_ENVIRONMENT_KEY={made(ALNUM, 22)}  # client-side key",
    ),
    ("an aside says public", f"PUSHER_APP_KEY={made(HEX, 20)}  (public key; the secret is apart)"),
    (
        "a Firebase config",
        f'const firebaseConfig = {{\n  apiKey: "AIza{made(ALNUM + "_-", 35)}",\n'
        '  authDomain: "amber-app.firebaseapp.com",\n};',
    ),
    (
        "a CAPTCHA's site key",
        f'hcaptcha sitekey="{made(HEX, 8)}-{made(HEX, 4)}-4f18-93e1-{made(HEX, 12)}"',
    ),
    ("Statsig's client key", f"STATSIG_CLIENT_KEY=client-{made(ALNUM, 43)}"),
    ("a bundler's public prefix", f"VITE_PADDLE_CLIENT_TOKEN=live_{made(HEX, 27)}"),
    ("a client token", f"DD_CLIENT_TOKEN=pub{made(HEX, 32)}"),
    ("a browser's key by its name", f"GOOGLE_MAPS_BROWSER_KEY=AIza{made(ALNUM, 35)}"),
    ("an analytics project token", f"MIXPANEL_TOKEN={made(HEX, 32)}"),
    (
        "Braintree's tokenization key",
        "BRAINTREE_TOKENIZATION_KEY="
        f"production_{made(LOWER + DIGITS, 8)}_{made(LOWER + DIGITS, 16)}",
    ),
    ("a Twilio SID after its name", f"TWILIO_ACCOUNT_SID=AC{made(HEX, 32)}"),
    ("RFC 7617's example", "From RFC 7617: `Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==`."),
    ("RFC 6749's example", 'Sample response: `"access_token":"2YotnFZFEjr1zCsicMWpAA"`.'),
    (
        "an RFC cited before a JWT",
        "JWT from RFC 7519 §3.1: eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9."
        f"eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODB9.{made(ALNUM + '_-', 43)}",
    ),
    (
        "a crypt hash after its user",
        f"htpasswd entry: `metrics:$apr1${made(ALNUM, 8)}${made(ALNUM, 22)}`",
    ),
    ("a MySQL password hash", f"IDENTIFIED BY PASSWORD '*{made('0123456789ABCDEF', 40)}'"),
    ("a password manager's name", "パスワードは1Passwordの「本番DB」に保存しています。"),
]

# each rule's nearest text that is no secret: (the rule's secret above, the neighbour)
NEIGHBOURS = [
    ("the password's word first in a name", "PASSWORD_MIN_LENGTH=12"),
    (
        "the password's word first in a name",
        "PASSWORD_HASHERS=django.contrib.auth.Hasher",
    ),
    ("a short password a person set", "DB_PASS=admin12"),
    ("a token's words first in a name", "TOKEN_URL=https://auth.acme.example/token"),
    ("a token's words first in a name", "token.content = state.getLines(start, end)"),
    ("an API key's words first in a name", "API_KEY_HEADER=X-Api-Key"),
    ("a word and one digit", "password=admin1"),
    ("a passphrase of words assigned", "passwords: rotated every ninety days by ops"),
    ("a passphrase of words quoted in prose", 'The password is "stored in the team vault".'),
    ("a server's password directive", "requirepass is set in redis.conf"),
    ("a Java session", "JSESSIONID=<copied from the browser>"),
    ("a Java session", "the session cookie is named connect.sid by default"),
    ("a routing key of 32 hex digits", "the routing key is orders.created.v2 in RabbitMQ"),
    ("an account set to a random value", "set the admin user to `alice.smith` in Keycloak"),
    (
        "a one-time-password seed in groups",
        "2FA: enabled for all admins since 2024, codes via Authy",
    ),
    ("a URL's token holding slashes", "git clone https://github.com:443/org/repo@v1"),
    ("xfreerdp's /p:", "msbuild /p:DeployOnBuild=true /p:PublishProfile=Prod"),
    ("vault login with a legacy token", "vault login -method=userpass username=alice"),
    ("MySQL's IDENTIFIED BY", "CREATE USER x IDENTIFIED BY '<password>'"),
]


@pytest.mark.parametrize("text", [t for _, t in SECRETS], ids=[f for f, _ in SECRETS])
def test_a_secret_pasted_in_a_sixth_round_form_is_found(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [t for _, t in SECRETS if "\n" not in t],
    ids=[f for f, t in SECRETS if "\n" not in t],
)
def test_a_sixth_round_secret_in_one_line_is_found_in_a_memorys_name(text: str) -> None:
    assert secrets.scan_name(text)
    assert secrets.holding_secrets({text: "# Notes\n"})  # what a team sync asks


@pytest.mark.parametrize("text", [t for _, t in LOOK_ALIKES], ids=[f for f, _ in LOOK_ALIKES])
def test_a_key_made_public_or_published_is_written(text: str) -> None:
    assert secrets.scan(text) == []
    if "\n" not in text:
        assert secrets.scan_name(text) == []


@pytest.mark.parametrize("form, neighbour", NEIGHBOURS, ids=[f for f, _ in NEIGHBOURS])
def test_a_sixth_round_rule_lets_its_neighbour_through(form: str, neighbour: str) -> None:
    assert secrets.scan(dict(SECRETS)[form])
    assert secrets.scan(neighbour) == []


def test_a_write_and_a_sync_refuse_a_session_cookie_in_a_note(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    store = build_store(tmp_path / "p", home=tmp_path / "h")
    note = dict(SECRETS)["a PHP session"]
    with pytest.raises(secrets.SecretFoundError, match="line 3"):
        store.write("qa/export", f"# Export\n- Staging only\n{note}\n")
    store.write("qa/fine", "# Export\nthe session cookie is named connect.sid by default\n")
    held = secrets.holding_secrets({"qa/export": f"# Export\n{note}\n", "qa/fine": "# ok\n"})
    assert list(held) == ["qa/export"]


def test_the_sixth_rounds_lines_are_scanned_in_linear_time() -> None:
    """Lines of 100,000 characters made of the new rules' words and values come back (in
    a child process with a deadline far above what they need)."""
    code = (
        "from serena_memory.core import secrets\n"
        "print(secrets.scan('https://a:b/' * 8000))\n"
        "print(secrets.scan('a_sess' * 16000 + '='))\n"
        "print(secrets.scan('password is \"' + 'abcd ' * 20000))\n"
        "print(secrets.scan('2fa: ' + 'ABCD ' * 20000))\n"
        "print(secrets.scan('set the admin ' * 7000))\n"
        "print(secrets.scan('KEY=x # (' * 10000))\n"
        "print(secrets.scan('LS0tLS1CRUdJTi' * 7000))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "[]\n" * 7
