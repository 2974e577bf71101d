"""Secrets made of words or digits, which no test of randomness finds (for
core/secrets.py): a wallet's recovery phrase (twelve to twenty-four words after the words
that name it) and a PIN or a door's code said to be one.
"""

from __future__ import annotations

from functools import cache
from typing import Any

# the words that name a recovery phrase, then the phrase: small words apart by spaces
_PHRASE = r"(?i)\b(?:seed|mnemonic|recovery|backup|wallet)[ _-](?:phrase|words)\b|\bmnemonic\b"
_WORDS_AFTER = r"[^\n]{0,40}?[:=\-–—]\s*[`'\"]?((?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})\b"
# a phrase has 12, 15, 18, 21 or 24 words
_PHRASE_LENGTHS = frozenset([12, 15, 18, 21, 24])
# a line may hold a code said to be one only if it holds one of these (in lower case)
PASSCODE_WORDS: tuple[str, ...] = (
    "passcode",
    "pass code",
    "door code",
    "alarm code",
    "pin code",
    "gate code",
)
PASSCODE_WORDS += ("keypad code", "pin:", "pin is", "pin was")
# a code said to be one: "the passcode for the door is 668321", "PIN: 4821"
_CODE = (
    r"(?i:\b(?:passcode|pass code|door code|alarm code|pin code|gate code|keypad code)\b)"
    r"[^\n\d]{0,30}?(?:\s(?i:is|was)\s|:)\s*[`'\"]?(\d{4,8})\b"
    r"|\bPIN\b[^\n\d]{0,20}?(?:\s(?i:is|was)\s|:)\s*[`'\"]?(\d{4,8})\b"
)


@cache
def _patterns() -> tuple[Any, Any, Any]:
    from serena_memory.core.secret_tokens import linear

    return linear(_PHRASE), linear(_WORDS_AFTER), linear(_CODE)


def recovery_phrase(line: str) -> bool:
    """A wallet's recovery phrase after the words that name it: 12 to 24 words, each once
    (a sentence about the phrase repeats its small words and has shorter ones)."""
    named_by, words_after, _ = _patterns()
    for named in named_by.finditer(line):
        after = words_after.match(line, named.end())
        if after is None:
            continue
        words = after.group(1).split()
        if len(words) in _PHRASE_LENGTHS and len(set(words)) == len(words):
            return True
    return False


def passcode(line: str) -> bool:
    """A PIN or a door's code said to be one, unless it is a run anyone would guess
    (1234, 0000: an example)."""
    for match in _patterns()[2].finditer(line):
        code = match.group(1) or match.group(2)
        if len(set(code)) > 1 and code not in "01234567890" and code not in "9876543210":
            return True
    return False
