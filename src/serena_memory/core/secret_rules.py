"""The secret gate's rules over one line that each need a word the line must hold first
(for core/secrets.py): a password in a URL, an Authorization header, a command line, a
cookie, a registry's auth, a .pgpass or .netrc line, a private JSON Web Key, a recovery
phrase, a PIN, an app password, a login said in a sentence, a password or a key given to
a call in code. Most lines hold none of their words, and skip them all.
"""

from __future__ import annotations

from collections.abc import Callable

from serena_memory.core.secret_accounts import (
    ACCOUNT_WORDS,
    IN_USE_WORDS,
    account_slash_password,
    default_password_in_use,
)
from serena_memory.core.secret_calls import (
    CALL_WORDS,
    KEYED_CALL_WORDS,
    call_password,
    keyed_call,
)
from serena_memory.core.secret_commands import (
    COMMAND_WORDS,
    TOKEN_FLAG_WORDS,
    auth_pair,
    command_line,
    cookie_credential,
    header_credential,
    session_cookie,
    token_flag,
)
from serena_memory.core.secret_files import (
    BYTE_KEY_WORDS,
    byte_array_key,
    encoded_auth,
    encoded_private_key,
    jwk_private,
    netrc,
    pgpass,
)
from serena_memory.core.secret_logins import LOGIN_WORDS, app_password, login_said
from serena_memory.core.secret_phrases import (
    PASSCODE_WORDS,
    SEED_WORDS,
    grouped_seed,
    passcode,
    recovery_phrase,
    worded_passphrase,
)
from serena_memory.core.secret_places import PLACE_WORDS, place_password
from serena_memory.core.secret_remote import QUOTED_LOGIN_WORDS, default_login_for_remote_host
from serena_memory.core.secret_urls import URL_WORDS, url_password
from serena_memory.core.secret_uuids import UUID_WORDS, labelled_uuid
from serena_memory.core.secret_works import WORKS_WORDS, password_works

URL_PASSWORD = "password in a URL"

# our own rules on a line, each run only on a line holding one of its words (most lines
# hold none): (words, rule, kind)
LINE_RULES: tuple[tuple[tuple[str, ...], Callable[[str], bool], str], ...] = (
    (URL_WORDS, url_password, URL_PASSWORD),
    (
        ("bearer", "basic", "authorization"),
        header_credential,
        "credential in an Authorization header",
    ),
    (COMMAND_WORDS, command_line, "password on a command line"),
    (TOKEN_FLAG_WORDS, token_flag, "token on a command line"),
    (("cookie", "curl"), cookie_credential, "session cookie"),
    (("auth", "docker"), encoded_auth, "credential in a Docker or npm auth"),
    (("auth=", "auth =", "basicauth("), auth_pair, "password given to an HTTP client"),
    ((":",), pgpass, "password in a .pgpass line"),
    (("password",), netrc, "password in a .netrc entry"),
    (('"kty"',), jwk_private, "private JSON Web Key"),
    (BYTE_KEY_WORDS, byte_array_key, "private key as bytes"),
    (
        ("phrase", "mnemonic", "seed words", "backup words", "wallet seed", "wallet's seed"),
        recovery_phrase,
        "recovery phrase",
    ),
    (PASSCODE_WORDS, passcode, "PIN or passcode"),
    (
        ("app password", "application password", "app-specific", "pass", "pwd"),
        app_password,
        "app password",
    ),
    (LOGIN_WORDS, login_said, "login in a sentence"),
    (CALL_WORDS, call_password, "password given to a login's call in code"),
    (KEYED_CALL_WORDS, keyed_call, "key given to a call in code"),
    (QUOTED_LOGIN_WORDS, default_login_for_remote_host, "default login for a remote host"),
    (ACCOUNT_WORDS, account_slash_password, "login in a sentence"),
    (IN_USE_WORDS, default_password_in_use, "default password in use"),
    (UUID_WORDS, labelled_uuid, "UUID under a secret's label"),
    (WORKS_WORDS, password_works, "password said to work"),
    (PLACE_WORDS, place_password, "password in a sentence"),
)
# the rules of the sixth round, behind one test of their words (most lines hold none):
# (words, rule, kind)
ROUND_SIX: tuple[tuple[tuple[str, ...], Callable[[str], bool], str], ...] = (
    (("sess", "sid="), session_cookie, "session cookie"),
    (("ls0tls1crudjti",), encoded_private_key, "Private Key in base64"),
    (("pass", "pw"), worded_passphrase, "passphrase of words"),
    (SEED_WORDS, grouped_seed, "one-time-password seed"),
)
ROUND_SIX_WORDS = tuple(word for words, _, _ in ROUND_SIX for word in words)
