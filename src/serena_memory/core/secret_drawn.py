"""Whether a value was drawn at random (a token, a generated key or password) or is made
of words (a name in code, a path, a cache's key derived from a hash): what the rules that
read a secret's words around a value (core/secret_context.py, core/secret_said.py) ask
before they call it a secret."""

from __future__ import annotations

import re

from serena_memory.core.secret_values import entropy, is_placeholder, not_a_value, public_value

# a derived name: a word, then a hash (pip-3f66..., deps-d449...): a cache key, a tag
DERIVED = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_:.][0-9a-f]{16,}")
# a word's run of letters (Service, refresh, TOKEN): what names and code are made of
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{4,}|[A-Z]{5,}")
# a UUID: an identifier, unless the words that name it say it is a token
UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
# a Twilio SID (two capitals, then 32 hex digits): an identifier
SID = re.compile(r"[A-Z]{2}[0-9a-f]{32}")
_SHORT_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")


def random_looking(value: str) -> bool:
    """Whether ``value`` is drawn at random: 16 characters or more of mixed classes, not made
    of words (``AuthService.refreshToken2``) nor a derived name (``pip-<hash>``)."""
    if _shaped_as_else(value):
        return False
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", r"\d"))
    if classes < 2 or entropy(value) < 3.5 or (len(value) < 32 and _SHORT_HEX.fullmatch(value)):
        return False  # (a commit's or an object's short id)
    if any(_word(part) for part in _PATH_PART.findall(value)):
        return False  # a path of words
    if classes == 2 and not re.search("[A-Z]", value):
        return _interleaved(value)
    return _wordy_share(value) < 0.35


def _shaped_as_else(value: str) -> bool:
    """Whether ``value``'s shape says it was not drawn, whatever its characters: short, a
    reference or a URL, a name derived from a hash, a Twilio SID, a UUID (judged by the
    words that name it), a value public by design or a placeholder."""
    return bool(
        len(value) < 16
        or not_a_value(value)
        or "://" in value
        or DERIVED.fullmatch(value)
        or SID.fullmatch(value)
        or derived_name(value)
        or UUID.fullmatch(value)
        or public_value(value)
        or is_placeholder(value)
    )


def _wordy_share(value: str) -> float:
    """The share of ``value``'s characters in runs of letters that read as words: a name
    made of words (``AuthService.refreshToken2``) has many, a drawn value few."""
    return sum(len(run) for run in _WORD_RUN.findall(value) if _word(run)) / len(value)


# a path's part between slashes, made of letters
_PATH_PART = re.compile(r"(?<=[/\\])[a-z]{4,}(?=[/\\])")
_VOWELS = frozenset("aeiouAEIOU")
_CONSONANTS = re.compile(r"[^aeiouyAEIOUY]{4}")


def _word(run: str) -> bool:
    """Whether a run of letters reads as a word (Service, refresh, TOKEN): a vowel in four
    letters or more (two in a run of four: Role, Auth) and no four consonants in a row,
    where a drawn run (xfddls, gxqa) has not."""
    vowels = sum(c in _VOWELS for c in run)
    needed = 2 if len(run) == 4 else len(run) / 4
    return vowels >= needed and _CONSONANTS.search(run) is None


def _interleaved(value: str) -> bool:
    """Whether small letters and digits alternate as a generator draws them (one in six a
    digit or more, a change between a letter and a digit every eight characters), not as a
    name with a number does (``rotate_tokens_v2``)."""
    digits = sum(c.isdigit() for c in value)
    changes = sum(a.isdigit() != b.isdigit() for a, b in zip(value, value[1:], strict=False))
    return digits * 6 >= len(value) and changes * 8 >= len(value) and "_" not in value


# a name made of words and versions (setup-python-Linux-x64-3.11.9-pip-HASH): a cache's key,
# a build's tag, a pod's name; a part that is a word or a version
_NAME_PART = re.compile(
    r"[A-Za-z][a-z]{1,}|[A-Z]{3,}|[a-z]{1,6}\d{1,4}|\d{1,4}(?:\.\d+)*|v\d+|x\d\d"
)


def derived_name(value: str) -> bool:
    """Whether ``value`` is three parts or more, most of them words or versions, joined by
    ``-``, ``_`` or ``.`` (a cache's key, a build's tag, a file's name)."""
    parts = [part for part in re.split(r"[-_.:/]+", value) if part]
    if len(parts) < 3:
        return False
    if any(len(part) >= 12 and _RANDOM_PART.match(part) for part in parts):
        return False  # a generated part: acme_live_<random>
    named = sum(1 for part in parts if _NAME_PART.fullmatch(part) and not _HEX_PART.fullmatch(part))
    return named * 2 >= len(parts)


# a part that mixes small letters, capitals and digits, as a generator draws them
_HEX_PART = re.compile(r"[0-9a-f]*[a-f][0-9a-f]*")  # dc81, a008: a UUID's or a hash's, no word
_RANDOM_PART = re.compile(r"(?=.*[a-z])(?=.*[A-Z])(?=.*\d)")
