"""A secret printed by the command on the line above (for core/secrets.py): a command that
reads a secret out of its store (``kubectl get secret NAME -o jsonpath='{.data.password}'``,
``vault kv get -field=password``, ``gcloud secrets versions access``, ``aws
secretsmanager get-secret-value``, ``op read``) names no secret itself, but its output
pasted below it is the secret, base64 or not: base64 is an encoding, never a protection.
"""

from __future__ import annotations

import base64
import binascii
import re

from serena_memory.core.secret_drawn import random_looking
from serena_memory.core.secret_naming import secret_name
from serena_memory.core.secret_values import human_password, is_placeholder, literal_secret

# what a line must hold to be such a command (most lines hold none: a cheap test first)
READER_WORDS = ("get secret", "secrets versions access", "get-secret-value", "vault ", "op read")
# the commands, each with the field it prints where it names one (a Secret's data key, a
# Vault field); gcloud's, AWS's and 1Password's print the secret whatever it is called
_READER = re.compile(
    r"\bkubectl\s+get\s+secrets?\s+\S+[^\n|]*?jsonpath=['\"]?\{\.data\.([\w.-]+)\}"
    r"|\bvault\s+(?:kv\s+get|read)\s+(?:-\w+\s+)*-field=([\w.-]+)"
    r"|\b(gcloud\s+secrets\s+versions\s+access|secretsmanager\s+get-secret-value|op\s+read)\b"
)
# the output: one word, base64 or the value itself; no prompt's line, no assignment
# (`=` only as base64's padding)
_OUTPUT = re.compile(r"\s*([^\s$#>`=][^\s=]{5,199}=*)\s*")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{4,}={0,2}")


def printed_below(above: str, line: str) -> bool:
    """Whether ``line`` is the output of the command on ``above`` that reads a secret: a
    value drawn at random or a password, once decoded when base64."""
    reader = _READER.search(above)
    output = _OUTPUT.fullmatch(line)
    if reader is None or output is None or "$(" in above[: reader.start()]:
        return False  # (a command substituted prints into a variable, not below)
    field = reader.group(1) or reader.group(2)
    if field is not None and not secret_name(field):
        return False  # a Secret's username or host, printed
    value = output.group(1)
    if reader.group(1) is not None and "base64" not in above:  # still encoded
        value = _decoded(value) or ""
    return bool(value) and _secret_value(value)


def _decoded(value: str) -> str | None:
    """``value`` decoded from base64 when it is base64 of printable text, else None."""
    if len(value) % 4 or _BASE64.fullmatch(value) is None:
        return None
    try:
        text = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return text if text.isprintable() else None


def _secret_value(value: str) -> bool:
    """Whether a printed value is a secret's: a password, or a token drawn at random."""
    if is_placeholder(value):
        return False
    return human_password(value) or random_looking(value) or literal_secret(value, quoted=True)
