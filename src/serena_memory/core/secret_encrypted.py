"""Encrypted values (for core/secrets.py): a value only a key kept elsewhere opens is no
usable credential, whatever it protects. Each encryption tool writes its ciphertext in
a shape of its own (sops' ``ENC[AES256_GCM,...]``, Ansible Vault's ``$ANSIBLE_VAULT;``,
a Sealed Secret's ``AgB...``, AWS KMS's ``AQICAH...`` blob, Cloud KMS's ``CiQA...``,
Vault transit's ``vault:v1:...``), and people say so before it ("the KMS ciphertext").
"""

from __future__ import annotations

import re

# a value in an encryption tool's shape, from its first character
ENCRYPTED_SHAPE = (
    # EJSON, sops (ENC[...] in YAML and JSON, ENC(...) in jasypt), Ansible Vault, Vault's
    # transit engine (vault:v1:...)
    r"^(?:EJ\[\d:|ENC[\[(]|\$ANSIBLE_VAULT|vault:"
    # AWS KMS's ciphertext blob: a version byte and the key's ARN length first (AQICAH...,
    # AQECAH...), then some hundred bytes or more
    r"|AQ[EI][ABCD]AH[A-Za-z0-9+/]{60,}"
    # Google Cloud KMS's ciphertext: the key version's checksum field first (CiQA...)
    r"|CiQA[A-Za-z0-9+/]{40,})"
    # a Sealed Secret's ciphertext: a two-byte session key length (512 bytes or so) first
    # (its first bytes 02 00 or 02 01 encode as AgA or AgB)
    r"|^Ag(?:[A-Za-z0-9+/]{200,}|[AB][A-Za-z0-9+/]{100,})"
)
_ENCRYPTED = re.compile(ENCRYPTED_SHAPE)
# the words before a value that say it is ciphertext: "the KMS ciphertext blob for the DB
# password:", "sops-encrypted value"; never "encrypted with" (a zip's password follows)
# (or a name that says so: encrypted_password, DB_PASSWORD_CIPHERTEXT)
_SAID_ENCRYPTED = re.compile(
    r"(?i)cipher[- ]?text\b|\bencrypted (?:blob|value|string|data|secret)s?\b"
    r"|\b(?:kms|sops|gpg|pgp|vault|age)[- ]encrypted\b|\bencrypted_"
)


def encrypted_value(value: str) -> bool:
    """Whether ``value`` is in an encryption tool's ciphertext shape."""
    return _ENCRYPTED.search(value.strip("'\"`")) is not None


def said_encrypted(line: str, at: int) -> bool:
    """Whether the words just before ``at`` on ``line`` say the value there is ciphertext."""
    return _SAID_ENCRYPTED.search(line, max(0, at - 80), at) is not None
