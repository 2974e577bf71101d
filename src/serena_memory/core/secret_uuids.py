"""A UUID under a secret's label (for core/secrets.py): Consul's and Nomad's ACL tokens
(``SecretID: UUID``, ``X-Consul-Token: UUID``, ``acl token UUID``), Heroku's API keys, a
client's secret and Vault AppRole's ``secret_id`` are UUIDs, so the label alone says the
UUID is a credential. A UUID under an id's label (a request's, a trace's, a tenant's,
``client_id``, ``AccessorID``, ``Secret ID (not the value)``) or a key that identifies a
request (an idempotency key, a page token, a CSRF token) is none.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

# a label that ends in a secret's word, then the UUID right after it (a colon, an equals
# sign, an arrow, a space or a quote between)
_LABELLED_UUID = (
    r"(?i)(?:^|[^\w-])([\w-]{0,40}?(?:token|secret|secret[_-]?id|api[_ -]?key|access[_ -]?key"
    r"|password|passwd))[\"'`]?\s{0,3}(?:[:=]|->|→)?\s{0,3}[\"'`]?"
    r"([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})(?:[^\w-]|$)"
)
# labels of tokens that identify a request or a page, not a caller
_NOT_A_CREDENTIAL = re.compile(
    r"(?i)idempoten|csrf|xsrf|page|next|continuation|cursor|pagination|sync|cancel|correlation"
)
# a remark that the UUID is the secret's id or its hash, not its value
_ID_ONLY = re.compile(
    r"(?i)not the (?:value|secret|token)|\bid only\b|\bis an? id\b"
    r"|\b(?:sha-?\d*|md5|hash(?:ed)?|digest|fingerprint|checksum)\b"  # a hash of the secret
)


@cache
def _pattern() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_LABELLED_UUID)


def labelled_uuid(line: str) -> bool:
    """A UUID right after a label ending in token, secret, secret_id, API key, access key
    or password, unless the label names a request's or a page's token or the line says
    the UUID is an id."""
    if _ID_ONLY.search(line):
        return False
    for match in _pattern().finditer(line):
        if _NOT_A_CREDENTIAL.search(match.group(1)) is None:
            return True
    return False


UUID_WORDS = ("token", "secret", "key", "passw")
