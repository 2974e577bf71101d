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


# a private key kept encrypted, in any of the formats that write one: PKCS#8's
# ENCRYPTED PRIVATE KEY, a traditional PEM key's Proc-Type header, a PuTTY key's
# Encryption line other than none (an OpenSSH key says its cipher inside: see below)
_ENCRYPTED_KEY = re.compile(
    r"BEGIN ENCRYPTED PRIVATE KEY|Proc-Type:[ \t]*4,[ \t]*ENCRYPTED"
    r"|Encryption:[ \t]*(?!none\b)[\w-]{3,40}"
)
# a passphrase or password given in the same text: a word for it, then (on its line) a value
# of six characters or more: without it the key opens nothing
_PASSPHRASE_GIVEN = re.compile(
    r"(?i)(?:pass ?phrase|password|passwd|pwd|passwort|mot de passe|contrase[ñn]a|senha"
    r"|пароль|密码|パスワード)[^\n]{0,40}?[:=`'\"\s]\s*[^\s`'\"]{6,}"
)


def encrypted_key(text: str, start: int, end: int) -> bool:
    """Whether the private key whose header or lines span ``start:end`` of ``text`` is
    kept encrypted (PKCS#8, PEM's Proc-Type, PuTTY, OpenSSH with a cipher)."""
    if _ENCRYPTED_KEY.search(text, max(0, start - 400), end + 120) is not None:
        return True
    if "OPENSSH" not in text[start:end]:
        return False
    return _OPENSSH_CIPHER.match(_openssh_cipher(text[end : end + 200])) is not None


# the ciphers ssh-keygen encrypts a key with (a key in the clear says `none`)
_OPENSSH_CIPHER = re.compile(r"(?:aes(?:128|192|256)-(?:ctr|cbc|gcm)|chacha20-poly1305|3des-cbc)")


def _openssh_cipher(body: str) -> str:
    """The cipher an OpenSSH key's body names (``openssh-key-v1``, then its name's length
    and the name): ``none`` for a key kept in the clear."""
    import base64
    import binascii

    chars = "".join(re.findall(r"[A-Za-z0-9+/]", body))[:64]
    try:
        raw = base64.b64decode(chars[: len(chars) // 4 * 4])
    except (binascii.Error, ValueError):
        return ""
    if not raw.startswith(b"openssh-key-v1\0") or len(raw) < 19:
        return ""
    size = int.from_bytes(raw[15:19], "big")
    return raw[19 : 19 + size].decode("ascii", "replace")


def passphrase_given(text: str) -> bool:
    """Whether ``text`` also gives a passphrase: an encrypted key is a secret only then
    (its ciphertext alone opens nothing)."""
    return _PASSPHRASE_GIVEN.search(text) is not None
