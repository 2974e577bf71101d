"""Values that say where a secret is kept, in any configuration's syntax (for
core/secret_values.py and core/secret_context.py): a credential loader's file
(systemd's ``LoadCredential=ID:/etc/credstore/ID``, its ``%d/ID`` specifier), a key's
file by its name (``AuthKey_ABC123.p8``, ``deploy.pem``), a password manager named as
the place (``1Password: Infra/Sentry``). Whoever reads them learns a place, no secret.
"""

from __future__ import annotations

import re

# a loader's id then an absolute path (systemd LoadCredential=, a credential helper's
# `name:/path`), a path under a unit's credentials directory (%d/ID), a file: URL
_FILE_REFERENCE = re.compile(
    r"^[A-Za-z][\w.-]{0,63}:/[\w./-]{1,200}$|^%[a-zA-Z]/[\w./-]{1,200}$|^file:[\w./~-]{1,200}$"
)
# a key's, a certificate's or a keystore's file by its name: the secret is inside the file
_KEY_FILE = re.compile(
    r"^[\w.-]{1,120}\.(?:p8|p12|pfx|pem|key|jks|keystore|bks|ppk|kdbx|gpg|asc|crt|cer|der"
    r"|json|env)$",
    re.IGNORECASE,
)
# a password manager or secret store named where a value would stand (`1Password: Infra/X`
# in a table's password column): the place the secret is kept
_STORE = re.compile(
    r"(?i)^(?:1password|lastpass|keepass(?:xc)?|bitwarden|dashlane|keeper|passbolt|vault"
    r"|secrets? ?manager|key ?vault|ssm|parameter ?store|doppler|infisical)$"
)


def file_reference(value: str) -> bool:
    """Whether ``value`` names a file the secret is read from, or a key's file."""
    bare = value.strip("'\"`")
    return _FILE_REFERENCE.match(bare) is not None or _KEY_FILE.match(bare) is not None


def store_name(name: str) -> bool:
    """Whether ``name`` is a password manager's or a secret store's: its value is a path
    in that store, never the secret."""
    return _STORE.match(name.strip("'\"`")) is not None
