"""Secrets made of words or digits, which no test of randomness finds (for
core/secrets.py): a wallet's recovery phrase (twelve to twenty-four words after the words
that name it) and a PIN or a door's code said to be one.
"""

from __future__ import annotations

from functools import cache
from typing import Any

# the words that name a recovery phrase, then the phrase: small words apart by spaces
# (a wallet's seed too, its words given after an aside: "wallet seed (hot wallet): ...")
_PHRASE = (
    r"(?i)\b(?:seed|mnemonic|recovery|backup|wallet)[ _-](?:phrase|words)\b|\bmnemonic\b"
    r"|\bwallet(?:'s)?[ _-]seed\b"
)
_WORDS_AFTER = r"[^\n]{0,80}?[:=\-–—]\s*[`'\"]?((?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})\b"
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


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# a passphrase of words after a password's word: assigned (`passphrase=copper heron garnet
# yarrow`), or quoted after a colon or `is` (`the passphrase ... is "sable badger falcon
# maple"`): words after a colon unquoted are a sentence's
_WORDS_PASSPHRASE = (
    r"(?i)(?:(?:^|[^A-Za-z])(?:pass(?:word|phrase|wd)?|pwd|pw)[\"']?\s*=\s*([`'\"]?)"
    r"|\b(?:pass(?:word|phrase)|passwd|pwd|pw)s?\b[^\n=:`'\"]{0,60}?(?::|\s(?:is|was))\s*([`'\"]))"
    r"((?:[a-z]{3,10}[ -]){3,7}[a-z]{3,10})([`'\"]?)(?:$|[^\w-])"
)
# words no passphrase of random words holds, that a sentence does
_SENTENCE_WORDS = _words(
    """
    the and for with from not are was were this that you your our their its into onto
    over under stored kept saved set see use used using vault manager file env variable
    have has had will would should can could must never always same only also each
    """
)


@cache
def _words_passphrase() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_WORDS_PASSPHRASE)


def worded_passphrase(line: str) -> bool:
    """A passphrase of four to eight random words given to a password's word (assigned,
    or quoted after ``is``), none of them a sentence's small word, each once."""
    for match in _words_passphrase().finditer(line):
        assigned_quote, said_quote, phrase, closing = match.groups()
        if said_quote is not None and closing != said_quote:
            continue  # said in prose: only a quoted phrase is the value
        if assigned_quote and closing != assigned_quote:
            continue
        words = phrase.lower().replace("-", " ").split()
        if phrase.lower().startswith("correct horse"):
            continue  # xkcd's, the example every explanation gives
        if len(set(words)) == len(words) and not _SENTENCE_WORDS.intersection(words):
            return True
    return False


# a one-time-password seed as authenticators print it: base32 in groups of four, after
# the words that name it ("2FA seed ...: `4SAV ZXI3 ...`", "TOTP secret: abcd efgh ...")
SEED_WORDS: tuple[str, ...] = ("2fa", "mfa", "totp", "otp", "authenticator", "two-factor")
_GROUPED_SEED = (
    r"(?i)\b(?:2fa|mfa|totp|otp|authenticator|two-factor)\b[^\n`'\"]{0,100}?[:=`'\"]\s*[`'\"]?"
    r"([a-z2-7]{4}(?:[ -][a-z2-7]{4}){3,15})(?:$|[^a-z0-9])"
)


@cache
def _grouped_seed() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_GROUPED_SEED)


def grouped_seed(line: str) -> bool:
    """A one-time-password seed in base32 groups after the words that name it: mixed
    letters and digits (groups of small letters alone are an app password's, its own rule)."""
    for match in _grouped_seed().finditer(line):
        seed = match.group(1).replace(" ", "").replace("-", "")
        digits = sum(c.isdigit() for c in seed)
        if digits >= 2 and len(set(seed.upper())) >= 10:
            return True
    return False
