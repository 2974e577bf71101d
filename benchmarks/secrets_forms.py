"""The labeled set, second part: secrets in the forms people paste into a memory, and the
same forms holding what is no secret, plus memory names.

Every value is made here from the caller's seeded generator (none is a real credential).
Each positive form has negative twins: the same line with a placeholder, a reference to
where the value is kept, a documentation example, or code that reads the value.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid

from secrets_set import ALNUM, B64URL, HEX, Sample

SYMBOLS = "!#$%&*()[]{}<>?@^~;:+=-_."
# host names that hold the words a placeholder holds: a real value beside them is still real
HOSTS = (
    "db.samples-prod.internal",
    "db.internal",
    "pg-main.yourcompany.net",
    "10.0.3.17",
    "mysql.example-corp.io",
    "cache.staging.acme.dev",
    "cluster0.ab12c.mongodb.net",
)
SECRET_NAMES = (
    "DB_PASSWORD",
    "POSTGRES_PASSWORD",
    "MYSQL_ROOT_PASSWORD",
    "REDIS_PASSWORD",
    "SMTP_PASSWORD",
    "ADMIN_PASS",
    "SECRET_KEY",
    "DJANGO_SECRET_KEY",
    "JWT_SECRET",
    "SESSION_SECRET",
    "API_KEY",
    "PAYMENTS_API_KEY",
    "AUTH_TOKEN",
    "ACCESS_TOKEN",
    "CLIENT_SECRET",
    "ENCRYPTION_KEY",
    "WEBHOOK_SECRET",
    "Password",
    "db_password",
    "apiKey",
)


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def strong_password(rng: random.Random) -> str:
    """A password as a generator makes one: letters, digits and at least three symbols."""
    n = rng.randrange(14, 22)
    chars = [rng.choice(ALNUM) for _ in range(n - 3)] + [rng.choice(SYMBOLS) for _ in range(3)]
    rng.shuffle(chars)
    if chars[0] in "$<{[(":  # a leading `$`, `<`, `{` would read as a reference here
        chars[0] = rng.choice(string.ascii_letters)
    return "".join(chars)


def _secret_value(rng: random.Random) -> str:
    return rng.choice(
        [
            lambda: strong_password(rng),
            lambda: _r(rng, ALNUM, rng.randrange(20, 40)),
            lambda: _r(rng, HEX, 64),
            lambda: base64.b64encode(rng.randbytes(32)).decode(),
            lambda: _r(rng, B64URL, 43),
        ]
    )()


def _github(rng: random.Random) -> str:
    return "ghp_" + _r(rng, ALNUM, 36)


def _gitlab(rng: random.Random) -> str:
    return "glpat-" + _r(rng, B64URL, 20)


def _url_password(rng: random.Random) -> str:
    """A password as it stands in a URL (symbols percent-encoded or left out)."""
    return rng.choice(
        [
            lambda: _r(rng, ALNUM, rng.randrange(12, 24)),
            lambda: _r(rng, ALNUM, 8) + "%21" + _r(rng, ALNUM, 6) + "%40" + _r(rng, ALNUM, 3),
            lambda: _r(rng, ALNUM + "-_.~", 20),
        ]
    )()


def env_lines(rng: random.Random) -> list[Sample]:
    styles = (
        "{n}={v}",
        "export {n}={v}",
        '{n}="{v}"',
        "{n}='{v}'",
        "Put this in `.env`:\n\n```\n{n}={v}\n```",
        "- staging `.env`: `{n}={v}`",
        "Set {n}={v} before running `make deploy` on yourcompany's box.",
    )
    out = []
    for i in range(70):
        name = SECRET_NAMES[i % len(SECRET_NAMES)]
        value = strong_password(rng) if i % 2 == 0 else _secret_value(rng)
        text = styles[i % len(styles)].format(n=name, v=value)
        out.append(Sample(text, True, "env-line"))
    return out


def url_credentials(rng: random.Random) -> list[Sample]:
    schemes = (
        "postgres://app:{p}@{h}:5432/app",
        "postgresql://svc_orders:{p}@{h}/orders?sslmode=require",
        "mysql://root:{p}@{h}:3306/shop",
        "mongodb+srv://admin:{p}@{h}/prod?retryWrites=true",
        "redis://:{p}@{h}:6379/0",
        "amqp://worker:{p}@{h}:5672/%2f",
        "https://deploy:{p}@{h}/artifactory/api/npm/",
        "smtp://mailer:{p}@{h}:587",
    )
    styles = (
        "DATABASE_URL={u}",
        "Connection string: {u}",
        "`{u}`",
        "- prod: {u}",
        'url: "{u}"',
    )
    out = []
    for i in range(48):
        url = schemes[i % len(schemes)].format(p=_url_password(rng), h=HOSTS[i % len(HOSTS)])
        out.append(Sample(styles[i % len(styles)].format(u=url), True, "url-credentials"))
    return out


def clone_urls(rng: random.Random) -> list[Sample]:
    forms = (
        lambda: f"git clone https://x-access-token:{_github(rng)}@github.com/yourcompany/app.git",
        lambda: f"git clone https://{_github(rng)}@github.com/acme/api.git",
        lambda: f"git remote set-url origin https://ci-bot:{_github(rng)}@github.com/acme/web.git",
        lambda: f"git clone https://oauth2:{_gitlab(rng)}@gitlab.com/your-group/sample-app.git",
        lambda: f"pip install git+https://{_github(rng)}@github.com/example-org/private-lib.git",
        lambda: f"url = https://bot:{_r(rng, ALNUM, 24)}@git.acme.dev/platform/infra.git",
    )
    return [Sample(forms[i % len(forms)](), True, "clone-url") for i in range(30)]


def config_blocks(rng: random.Random) -> list[Sample]:
    forms = (
        "```yaml\ndatabase:\n  host: {h}\n  user: app\n  password: {v}\n```",
        "```yaml\nenvironment:\n  POSTGRES_PASSWORD: {v}\n```",
        '```json\n{{\n  "api_key": "{v}",\n  "region": "eu-west-1"\n}}\n```',
        '"clientSecret": "{v}",',
        '```toml\n[server]\nsecret_key = "{v}"\n```',
        "```ini\n[database]\nhost = {h}\npassword = {v}\n```",
        "```properties\nspring.datasource.password={v}\n```",
        '<add key="Password" value="{v}" />',
        "Server={h};Database=app;User Id=sa;Password={v};",
        '```hcl\nadmin_password = "{v}"\n```',
    )
    out = []
    for i in range(50):
        value = strong_password(rng) if i % 2 == 0 else _secret_value(rng)
        text = forms[i % len(forms)].format(v=value, h=HOSTS[i % len(HOSTS)])
        out.append(Sample(text, True, "config-block"))
    return out


def strong_passwords(rng: random.Random) -> list[Sample]:
    forms = (
        "password: {v}",
        "The admin password is now `{v}` (changed after the audit).",
        "Password={v};",
        "DB_PASSWORD={v}",
        "--password={v}",
        "pwd: {v}",
        "MYSQL_PWD='{v}' mysql -u root",
    )
    forms_out = [forms[i % len(forms)] for i in range(35)]
    return [Sample(f.format(v=strong_password(rng)), True, "strong-password") for f in forms_out]


def pasted_forms(rng: random.Random) -> list[Sample]:
    """Real-looking secrets in the forms people paste."""
    return (
        env_lines(rng)
        + url_credentials(rng)
        + clone_urls(rng)
        + config_blocks(rng)
        + strong_passwords(rng)
    )


PLACEHOLDER_VALUES = (
    "${DB_PASSWORD}",
    "${{ secrets.DB_PASSWORD }}",
    "$(pass show prod/db)",
    "$(gh auth token)",
    "<your-password>",
    "<password>",
    "<api-key>",
    "{{ secret }}",
    "{{ .Values.db.password }}",
    "%(password)s",
    "********",
    "changeme",
    "CHANGE_ME",
    "xxxxxxxxxxxxxxxx",
    "REPLACE_WITH_YOUR_KEY",
    "your-secret-key-here",
    "$DB_PASSWORD",
    "$env:API_KEY",
    "{password}",
    "<redacted>",
    "sample-token-value",
    "example-password-123",
    "dummy_secret_for_tests",
    "placeholder",
    "...",
    "null",
)
CODE_VALUES = (
    'os.environ["DB_PASSWORD"]',
    'os.getenv("API_KEY")',
    "process.env.JWT_SECRET",
    "settings.SECRET_KEY",
    "config.api_key",
    "self.password",
    "get_token(user)",
    "vault.read(path)",
    "Optional[str]",
    "Promise<string>",
    "env.DB_PASSWORD",
    "DB_PASSWORD_FILE",
    "secrets.GITHUB_TOKEN",
    "request.headers.get(name)",
    "$2b$12$" + "R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
)


def placeholder_twins(rng: random.Random) -> list[Sample]:
    """The positive forms again, holding what is no secret."""
    styles = (
        "{n}={v}",
        "export {n}={v}",
        '{n}="{v}"',
        "- staging `.env`: `{n}={v}`",
        "```yaml\ndatabase:\n  password: {v}\n```",
        '"api_key": "{v}",',
        '```toml\nsecret_key = "{v}"\n```',
        "```ini\n[database]\npassword = {v}\n```",
    )
    out = []
    for i, value in enumerate(PLACEHOLDER_VALUES * 3):
        name = SECRET_NAMES[(i * 7) % len(SECRET_NAMES)]
        text = styles[i % len(styles)].format(n=name, v=value)
        out.append(Sample(text, False, "placeholder-form"))
    for i, value in enumerate(CODE_VALUES * 2):
        name = SECRET_NAMES[(i * 3) % len(SECRET_NAMES)].lower()
        form = ("{n} = {v}", "{n}: {v}", "const {n} = {v};", "{n}={v}")[i % 4]
        out.append(Sample(form.format(n=name, v=value), False, "code-reference"))
    return out


def example_urls(rng: random.Random) -> list[Sample]:
    """URLs of documentation and local setups: placeholders, references, local defaults."""
    texts = [
        "postgres://user:password@localhost:5432/dev",
        "postgres://postgres:postgres@localhost:5432/postgres",
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal:5432/app",
        "mysql://root:<password>@127.0.0.1:3306/shop",
        "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/test",
        "redis://:$REDIS_PASSWORD@cache:6379/0",
        "amqp://guest:guest@localhost:5672/",
        "https://user:pass@example.com/private",
        "git clone https://x-access-token:${GITHUB_TOKEN}@github.com/yourcompany/app.git",
        "git clone https://oauth2:$CI_JOB_TOKEN@gitlab.com/acme/app.git",
        "git clone https://<token>@github.com/acme/api.git",
        "git clone git@github.com:yourcompany/app.git",
        "git clone https://github.com/acme/api.git",
        "Use `postgres://$PGUSER:$PGPASSWORD@$PGHOST/app` in the scripts.",
        "postgresql://app:********@db.internal/app",
        "smtp://mailer:REPLACE_ME@smtp.example.com:587",
        "https://grafana.internal/d/abc123XYZ/api-latency?orgId=1&from=now-6h",
        "ssh://git@github.com/acme/infra.git",
        "The docs show `https://USERNAME:TOKEN@host/path` for basic auth.",
        "postgres://app@db.internal:5432/app (password from ~/.pgpass)",
    ]
    return [Sample(t, False, "example-url") for t in texts]


def hashes_and_ids(rng: random.Random) -> list[Sample]:
    out = []
    templates = (
        "Merged as {sha1}; the tag v2.3.1 points there.",
        "checksum: sha256:{sha256}",
        "`{sha1}` is the last commit before the schema change.",
        "trace_id={hex32} span_id={hex16}",
        "request {uuid} timed out after 30 s",
        'ETag: "{hex32}"',
        "id: {uuid}",
        "image: ghcr.io/acme/api@sha256:{sha256}",
        "Cherry-picked {sha1_7} and {sha1_7b} onto release/2.3.",
        "The migration lock row is {uuid}.",
    )
    for i in range(40):
        values = {
            "sha1": hashlib.sha1(rng.randbytes(8)).hexdigest(),
            "sha1_7": hashlib.sha1(rng.randbytes(8)).hexdigest()[:7],
            "sha1_7b": hashlib.sha1(rng.randbytes(8)).hexdigest()[:7],
            "sha256": hashlib.sha256(rng.randbytes(8)).hexdigest(),
            "hex32": _r(rng, HEX, 32),
            "hex16": _r(rng, HEX, 16),
            "uuid": str(uuid.UUID(bytes=rng.randbytes(16), version=4)),
        }
        out.append(Sample(templates[i % len(templates)].format(**values), False, "hash-or-id"))
    return out


def base64_images(rng: random.Random) -> list[Sample]:
    out = []
    for i in range(12):
        png = b"\x89PNG\r\n\x1a\n" + rng.randbytes(60 + 10 * i)
        data = base64.b64encode(png).decode()
        form = (
            "![logo](data:image/png;base64,{d})",
            'background: url("data:image/png;base64,{d}");',
            "icon: data:image/png;base64,{d}",
        )[i % 3]
        out.append(Sample(form.format(d=data), False, "base64-image"))
    return out


def docs_examples(rng: random.Random) -> list[Sample]:
    texts = [
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "STRIPE_SECRET_KEY=sk_test_...",
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "OPENAI_API_KEY=sk-...",
        "Authorization: Bearer <token>",
        "Authorization: Bearer $ACCESS_TOKEN",
        'curl -H "Authorization: token $GITHUB_TOKEN" https://api.github.com/user',
        "SECRET_KEY = 'django-insecure-change-me'",
        "password_min_length: 12",
        "token_expiry_seconds: 3600",
        "api_key_header: X-API-Key",
        "PASSWORD_RESET_TIMEOUT=259200",
        "secret_name: prod/db/credentials",
        "key: value",
        "token_type: bearer",
        "password_hash = argon2.hash(password)",
        "auth_token_ttl = 15m",
        "ssh_key: ~/.ssh/id_ed25519.pub",
        "api_key_id: 4",
        "The README tells users to run `export API_KEY=<their key>` first.",
        "password: !vault |",
        'cache_key = f"user:{user_id}:profile"',
        "sort_key: created_at",
        "primary_key=id",
        "private_key_path: /etc/ssl/private/server.key",
        "JWT_SECRET is read from Vault at startup (path secret/data/api).",
        "sessionKey = crypto.randomUUID()",
        "Set `TOKEN` in the CI settings, never in this file.",
        "key = sha256(payload).hexdigest()",
    ]
    return [Sample(t, False, "docs-example") for t in texts]


def pasted_look_alikes(rng: random.Random) -> list[Sample]:
    """The forms of :func:`pasted_forms` and their neighbours, holding no secret."""
    return (
        placeholder_twins(rng)
        + example_urls(rng)
        + hashes_and_ids(rng)
        + base64_images(rng)
        + docs_examples(rng)
    )


def secret_names(rng: random.Random) -> list[Sample]:
    """Memory names: a token pasted as (part of) a name, and names about secrets."""
    tokens = (
        lambda: _github(rng),
        lambda: "sk_live_" + _r(rng, ALNUM, 24),
        lambda: "AKIA" + _r(rng, string.ascii_uppercase + "234567", 16),
        lambda: _gitlab(rng),
        lambda: "xoxb-" + str(rng.randrange(10**11, 10**12)) + "-" + _r(rng, ALNUM, 24),
        lambda: "npm_" + _r(rng, ALNUM, 36),
        lambda: "hf_" + _r(rng, string.ascii_letters, 34),
    )
    prefixes = ("creds/", "cfg/", "", "deploy/", "tokens/ci-", "notes/")
    out = []
    for i in range(28):
        name = prefixes[i % len(prefixes)] + tokens[i % len(tokens)]()
        out.append(Sample(name, True, "token-in-name", "name"))
    clean = (
        "auth/token-refresh",
        "deploy/api-keys-rotation",
        "security/secrets-policy",
        "bugs/fix-9f3ac1d",
        "infra/vault-paths",
        "decisions/2024-05-17-jwt-secret-storage",
        "runbooks/rotate-stripe-key",
        "sessions/" + str(uuid.UUID(bytes=rng.randbytes(16), version=4)),
        "commits/" + hashlib.sha1(rng.randbytes(8)).hexdigest(),
        "config/password-policy",
        "ci/github-token-scopes",
        "global/onboarding/ssh-keys",
        "api/keys_table_migration",
        "db/connection-strings",
    )
    out.extend(Sample(n, False, "name-about-secrets", "name") for n in clean)
    return out
