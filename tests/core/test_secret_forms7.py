"""The secret gate's seventh round: secrets as people paste them that the gate let through
(provider tokens in their published shapes: Sentry's real prefixes, Honeycomb, a Nostr
key, a Facebook app token, an Azure Functions key; URL passwords with a mail address as
the user, an `@` in the password or Oracle's thin form; an ODBC password in braces; a
secret set or piped to a command that stores it; a bearer's, a salt's and a short token's
name; a short strong password quoted for a secret's name; a private key escaped into a
memory's name; recovery codes one a line or after an aside; a word and a random tail as a
password; a login after an address and an arrow; a Wi-Fi password alone after its label; a
Caddy basic_auth block; a wallet's seed; an access token said in Italian, an English
secret's word said in another language's sentence, a table headed in German; a token quoted
before the words that name it; a rotated key's new UUID), and look-alikes it refused (a
published example, a remark that says a value is public or for tests). Each secret was let
through before, and each look-alike refused. Values are drawn here from a fixed seed, none
is a real credential."""

from __future__ import annotations

import random
import string
import subprocess
import sys

import pytest

from serena_memory.core import secrets

_RANDOM = random.Random(7007)
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"
BECH32 = "023456789acdefghjklmnpqrstuvwxyz"


def made(alphabet: str, length: int) -> str:
    return "".join(_RANDOM.choice(alphabet) for _ in range(length))


def strong() -> str:
    return made(UPPER, 2) + made(LOWER, 4) + made(DIGITS, 3) + "#" + made(ALNUM, 3)


def word_and_tail() -> str:
    """A word, a separator, a random tail with a letter after a digit: thistle_w7p7dq."""
    word = _RANDOM.choice(["thistle", "cobalt", "yarrow", "meadow"])
    return f"{word}_{made(LOWER, 1)}{made(DIGITS, 1)}{made(LOWER, 1)}{made(LOWER + DIGITS, 3)}"


def uuid() -> str:
    return f"{made(HEX, 8)}-{made(HEX, 4)}-{made(HEX, 4)}-{made(HEX, 4)}-{made(HEX, 12)}"


ESCAPED_KEY = (
    '{"private_key": "-----BEGIN PRIVATE KEY-----\\n'
    + "\\n".join(made(ALNUM + "+/", 64) for _ in range(4))
    + '\\n-----END PRIVATE KEY-----\\n"}'
)

SECRETS = [
    ("a Sentry user token", f"The old Sentry token sntryu_{made(HEX, 64)} is still live."),
    ("a Honeycomb ingest key", f"honeycomb key (prod): hcaik_{made(LOWER + DIGITS, 58)}"),
    ("a Nostr private key", f"nsec1{made(BECH32, 58)}"),
    ("a Facebook app token", f"{made(DIGITS, 15)}|{made(HEX, 32)}"),
    (
        "an Azure Functions key",
        f"https://acme-fn.azurewebsites.net/api/Resize?code={made(ALNUM + '_-', 54)}==",
    ),
    ("a mail address as a URL's user", f"smtp://postmaster@mg.acme.io:{strong()}@smtp.acme.io:587"),
    ("an @ in a URL's password", f'pg_dump "postgresql://dump:@{strong()}@10.0.3.4/app"'),
    ("Oracle's thin URL", f"jdbc:oracle:thin:scott/{strong()}@//ora.internal:1521/ORCL"),
    (
        "an ODBC password in braces",
        f"Driver={{ODBC Driver 18}};Server=tcp:db.acme.io,1433;Uid=ops;Pwd={{{strong()}}};",
    ),
    ("gh secret set", f'gh secret set SECRET_KEY_BASE --body "{made(HEX, 64)}"'),
    ("a secret piped to a command", f"echo {made(ALNUM, 32)} | wrangler secret put API_TOKEN"),
    ("a secret as a here-string", f"vercel env add API_SECRET production <<< {made(ALNUM, 32)}"),
    ("a bearer's name", f'AUTH_BEARER="{made(HEX, 64)}"'),
    ("a signing salt", f'$Env:SIGNING_SALT="{made(ALNUM + "+/", 43)}="'),
    ("a token's short name", f"tok={made(ALNUM + '-', 43)}"),
    ("a secret key's short name", f"STRIPE_SK={made(ALNUM, 40)}"),
    ("a SonarQube token given as sonar.login", f"sonar.login={made(HEX, 40)}"),
    (
        "a V2 signed URL",
        "https://storage.googleapis.com/b/o.txt?GoogleAccessId=sa@p.iam.gserviceaccount.com"
        f"&Expires=1700000000&Signature={made(ALNUM + '+/', 340)}%3D",
    ),
    ("a short strong password for a secret key", '$Env:DJANGO_SECRET_KEY="Onyx8350&"'),
    ("a password after a pw and an aside", f"pw for the shared kit printout: {word_and_tail()}"),
    ("a password said in Spanish", f"La contraseña de producción es {word_and_tail()}"),
    (
        "an admin's login without spaces",
        "the staging Keycloak admin is still admin/Pepper6222$, rotate",
    ),
    ("a login after an address and an arrow", f"root@nas → {word_and_tail()}"),
    ("a labelled login, a word and a tail", "smtp: mailer / delta.tska01"),
    ("a Wi-Fi password alone", f"wifi: {word_and_tail()}"),
    ("a password: it's VALUE", f"fall back to password auth — it's {strong()} for `ec2-user`"),
    (
        "a labelled login, then an aside",
        f"- logged the QA account into prod-mirror: qa@acme.io / {word_and_tail()} — real data",
    ),
    (
        "an access token said in Italian",
        f"Il token di accesso per l'API interna è {made(ALNUM, 40)}",
    ),
    ("a token said in Spanish, its word English", f"El token de GitHub es {made(ALNUM, 40)}"),
    ("a password said in Italian, its word English", f"La password del server è {strong()}"),
    (
        "a table headed in German",
        f"| Dienst | Benutzer | Passwort |\n|---|---|---|\n| Grafana | admin | {strong()} |",
    ),
    (
        "a token quoted before the words that name it",
        f'`x = "{made(ALNUM + "+/", 64)}"` — that\'s the HMAC key the verifier uses',
    ),
    (
        "a rotated key's new UUID",
        f"Rotated the Sauce Labs access key this morning, new value is {uuid()} — old revoked.",
    ),
    (
        "backup codes after an aside",
        "Google backup codes (unused): "
        + ", ".join(f"{made(DIGITS, 4)} {made(DIGITS, 4)}" for _ in range(5)),
    ),
    (
        "a wallet's seed after an aside",
        "wallet seed (hot wallet, testnet funds too): adjust advance airport admit addict "
        "action acid afford aisle abuse accident aim",
    ),
    (
        "recovery codes one a line",
        "GitHub recovery codes for @acme-bot:\n"
        + "\n".join(f"{made(HEX, 5)}-{made(HEX, 5)}" for _ in range(6)),
    ),
    ("a Caddy basic_auth block", f"basicauth /admin/* {{\n  ops {strong()}\n}}\n"),
]

LOOK_ALIKES = [
    (
        "a documentation's example",
        "The Kubernetes docs' Secret example: `username: YWRtaW4=` / "
        "`password: MWYyZDFlMmU2N2Rm` (admin / 1f2d1e2e67df)",
    ),
    (
        "a specification's example",
        "The OAuth spec example client credentials are `s6BhdRkqt3:7Fjfp0ZBr1KtDRbnfVdmIw`",
    ),
    (
        "a sample from our docs",
        "Expired sample from our docs: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        f"eyJzdWIiOiJkZW1vIn0.{made(ALNUM + '_-', 43)}",
    ),
    (
        "a remark says meant for the browser",
        f"Adyen client key live_{made(UPPER + DIGITS, 32)} — meant for the browser",
    ),
    (
        "a remark says the config is public",
        f'firebaseConfig = {{ apiKey: "AIza{made(ALNUM + "_-", 35)}", projectId: "acme" }}'
        "  // Firebase web config is public",
    ),
    (
        "a remark says tests only",
        "password { 'Sup3rS3cret!' }  # factory_bot, test DB only",
    ),
    ("a Caddy basic_auth block of hashes", f"basic_auth {{\n  bob $2a$14${made(ALNUM, 53)}\n}}\n"),
]

# each rule's nearest text that is no secret: (the rule's secret above, the neighbour)
NEIGHBOURS = [
    ("a Nostr private key", f"npub1{made(BECH32, 58)}"),
    ("a Facebook app token", f"{made(DIGITS, 16)}|some_event_name_with_under"),
    (
        "an Azure Functions key",
        "https://app.acme.io/oauth/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj",
    ),
    ("a mail address as a URL's user", "smtp://mailer@mail.acme.io:587"),
    ("an @ in a URL's password", "https://acme.io/invite?email=bob@acme.io&next=/x@y"),
    ("Oracle's thin URL", "jdbc:oracle:thin:scott/${DB_PASS}@//ora.internal:1521/ORCL"),
    ("an ODBC password in braces", "Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd={your_password};"),
    ("gh secret set", 'gh secret set DEPLOY_KEY --body "$DEPLOY_KEY"'),
    ("a secret piped to a command", "echo $TOKEN | wrangler secret put API_TOKEN"),
    ("a signing salt", "PASSWORD_SALT_ROUNDS=12"),
    ("a token's short name", "tok=tokenizer.encode(text)"),
    ("a secret key's short name", f"GSI1SK=USER#{made(ALNUM, 12)}"),
    ("a SonarQube token given as sonar.login", "sonar.login=admin"),
    ("a short strong password for a secret key", '$Env:DJANGO_SECRET_KEY="changeme!"'),
    ("a password after a pw and an aside", "the password reset link: reset_abc123"),
    ("an admin's login without spaces", "admin/UserList.tsx was refactored"),
    ("a login after an address and an arrow", "root@host → /var/log/syslog"),
    ("a Wi-Fi password alone", "Wi-Fi: office-5G"),
    ("a labelled login, a word and a tail", "Versions: python / build_2024"),
    ("an access token said in Italian", "Il token di accesso scade tra 24 ore"),
    ("a token said in Spanish, its word English", "El token de GitHub es válido hasta mañana"),
    (
        "a password said in Italian, its word English",
        "La password del server è stata cambiata ieri",
    ),
    ("a table headed in German", "| Dienst | Passwort |\n|---|---|\n| Grafana | im Tresor |"),
    (
        "a token quoted before the words that name it",
        f"`tenant-{made(HEX, 20)}` is the partition key",
    ),
    ("a rotated key's new UUID", f"Run {uuid()} failed, new value is {uuid()}"),
    ("backup codes after an aside", "backup codes (see vault): stored in 1Password"),
]


@pytest.mark.parametrize("text", [t for _, t in SECRETS], ids=[f for f, _ in SECRETS])
def test_a_secret_pasted_in_a_seventh_round_form_is_found(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [t for _, t in SECRETS if "\n" not in t],
    ids=[f for f, t in SECRETS if "\n" not in t],
)
def test_a_seventh_round_secret_in_one_line_is_found_in_a_memorys_name(text: str) -> None:
    assert secrets.scan_name(text)
    assert secrets.holding_secrets({text: "# Notes\n"})  # what a team sync asks


def test_a_private_key_escaped_into_a_memorys_name_is_found() -> None:
    assert secrets.scan_name(ESCAPED_KEY)


@pytest.mark.parametrize("text", [t for _, t in LOOK_ALIKES], ids=[f for f, _ in LOOK_ALIKES])
def test_a_published_example_or_a_value_remarked_harmless_is_written(text: str) -> None:
    assert secrets.scan(text) == []
    if "\n" not in text:
        assert secrets.scan_name(text) == []


@pytest.mark.parametrize("form, neighbour", NEIGHBOURS, ids=[f for f, _ in NEIGHBOURS])
def test_a_seventh_round_rule_lets_its_neighbour_through(form: str, neighbour: str) -> None:
    assert secrets.scan(dict(SECRETS)[form])
    assert secrets.scan(neighbour) == []


def test_the_seventh_rounds_lines_are_scanned_in_linear_time() -> None:
    """Lines of 100,000 characters made of the new rules' words and values come back (in
    a child process with a deadline far above what they need)."""
    code = (
        "from serena_memory.core import secrets\n"
        "print(secrets.scan('a@b.c ->' * 12000))\n"
        "print(secrets.scan('\"' + 'A1b2' * 25000 + '\" is the ' * 10))\n"
        "print(secrets.scan('docs example ' * 8000 + 'AKIA' + 'B' * 16))\n"
        "print(secrets.scan('basic_auth {\\n' + ' a b\\n' * 20000))\n"
        "print(secrets.scan('smtp://a@b@c:' * 8000))\n"
        "print(secrets.scan('wifi: ' * 16000))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.count("\n") == 6


def test_no_token_shape_matches_fewer_characters_than_the_shortest_line_read() -> None:
    """A line shorter than SHORTEST is not searched for tokens: no shape may match one."""
    import re._parser as parser  # type: ignore[import-not-found]

    from serena_memory.core import secret_tokens

    for _, pattern in secret_tokens.TOKENS:
        assert parser.parse(pattern).getwidth()[0] >= secret_tokens.SHORTEST


def test_the_token_shapes_are_found_in_order_across_their_groups() -> None:
    """Tokens of shapes in different RE2 groups come back in the order they stand."""
    from serena_memory.core import secret_tokens

    line = f"nsec1{made(BECH32, 58)} then AIza{made(ALNUM, 35)}"
    kinds = [kind for kind, _ in secret_tokens.find(line)]
    assert kinds == ["Nostr private key", "Google API key"]
