"""Text hidden by an encoding (for core/secrets.py): base64 and hex are no protection, so a
value that decodes to text is judged as that text. ``GITHUB_TOKEN_B64=Z2hwX2...`` holds a
GitHub token; a Kubernetes Secret's ``password: cG9zdGdyZXM=`` holds ``postgres``, a
local default. Random bytes (a key drawn at random) seldom decode to printable text:
those are judged as they stand.
"""

from __future__ import annotations

import re

# a run of base64 or of hex digits long enough to hide a token (under 24: a word)
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,600}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?:[0-9a-f]{2}){8,300}|(?:[0-9A-F]{2}){8,300}")
_PRINTABLE = re.compile(r"[\x20-\x7e\t\r\n]{6,}")


def decoded_text(value: str) -> str | None:
    """The printable text ``value`` encodes in hex or base64, if it is such an encoding."""
    import base64
    import binascii

    value = value.strip("'\"`")
    if len(value) < 8:
        return None
    raw: bytes | None = None
    if _HEX.fullmatch(value):
        raw = bytes.fromhex(value)
    elif len(value.rstrip("=")) % 4 != 1 and re.fullmatch(r"[A-Za-z0-9+/_-]+={0,2}", value):
        padded = value + "=" * (-len(value) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            return None
    if raw is None:
        return None
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    return text if _PRINTABLE.fullmatch(text) else None


def encoded_runs(line: str) -> list[str]:
    """The texts that the long base64 runs on ``line`` decode to (a few at most)."""
    texts = []
    for match in _BASE64_RUN.finditer(line):
        text = decoded_text(match.group())
        if text is not None:
            texts.append(text)
        if len(texts) >= 4:
            break
    return texts
