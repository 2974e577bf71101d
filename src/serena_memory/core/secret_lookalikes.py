"""Values in a secret's place that a person sees are none (for core/secret_values.py and
core/secret_context.py): a token cut short with a mark that says so
(``glpat-8apT[truncated]``), a template's slot that a build step fills with a name's value
(``__API_TOKEN__``), a framework's lookup of a variable by its name
(``%env(API_KEY)%``), a test's value spelt in words (``test-stripe-token-0000``).
"""

from __future__ import annotations

import re

# a mark that says a value was cut there: [truncated], (snipped), <...>, [...] (the bare
# ellipsis, `...` and `…`, is a placeholder's already)
_ELISION = re.compile(
    r"[\[(<](?:\.{2,3}|…|truncated|trimmed|snip(?:ped)?|cut|elided|omitted|shortened)[\])>]",
    re.IGNORECASE,
)
# a cut token shows a prefix, a few characters: a value this long before the mark may be
# whole, the mark then saying that what followed it was cut
MAX_VISIBLE = 32


def cut_short(value: str) -> bool:
    """Whether ``value`` is a token cut short: a mark of elision after a few characters
    (``pul-fb214b2[truncated]``, ``sk.eyJ1I[...]``), which no service accepts."""
    mark = _ELISION.search(value)
    return mark is not None and len(value[: mark.start()].lstrip("\"'`")) < MAX_VISIBLE


def cut_after(line: str, start: int, end: int) -> bool:
    """Whether the value at ``start:end`` of ``line`` is followed right away by a mark of
    elision (a sentence's words split ``sk.eyJ1I[...]`` at the bracket)."""
    return _ELISION.match(line, end) is not None and end - start < MAX_VISIBLE


# a template's slot: a name in capitals or small words wrapped in the same marks on both
# sides, which a build or deploy step replaces with the value kept elsewhere
# (__API_TOKEN__, @@db_password@@, %%SECRET%%, @DB_PASSWORD@, $API_KEY$)
_SLOT = re.compile(
    r"(?P<mark>__|@@|%%|##)(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*)"
    r"(?P=mark)"
    r"|(?P<one>[@$])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*(?P=one)"
    # a build's filter token of small or dotted words (Maven's and Ant's @db.password@)
    r"|@[a-z]+(?:[A-Z][a-z]+)*(?:[._-][a-z]+(?:[A-Z][a-z]+)*)*@"
)
# a framework's lookup of a variable or a parameter by its name: Symfony's
# %env(API_KEY)% and %env(resolve:DSN)%, Perl's $ENV{API_KEY}, a config's env:API_KEY
_LOOKUP = re.compile(
    r"%env\([\w:.-]{1,120}\)%|\$ENV\{[\"']?\w{1,120}[\"']?\}|(?i:env):[A-Z][A-Z0-9_]{0,120}"
    # Grafana's providers, which read a file, a variable or a vault: $__file{/etc/x}
    r"|\$__(?:file|env|vault)\{[^{}\s]{1,200}\}"
)
# a pattern's field inside a value: a key pattern (`token:blacklist:{jti}`), a format string
# (`{user}:{password}`), a URL's template: what the program fills in, never a literal
_FIELD = re.compile(r"\{[a-z_][a-z0-9_]{0,40}\}")


def template_slot(value: str) -> bool:
    """Whether ``value`` is a template's slot for a name's value (``__API_TOKEN__``): it says
    where the secret goes, it holds none."""
    return _SLOT.fullmatch(value.strip("\"'`")) is not None


def variable_lookup(value: str) -> bool:
    """Whether ``value`` looks a variable up by its name (``%env(API_KEY)%``): it names
    where the secret is kept, it holds none."""
    return _LOOKUP.fullmatch(value.strip("\"'`")) is not None


# words that say a value is made for tests, and words that say what kind of credential it
# stands for: together, spelt out, they name a fixture (test-stripe-token-0000)
_TESTING = frozenset(["test", "testing", "tests", "mock", "stub", "fixture", "unittest"])
_KIND = frozenset(
    ["token", "key", "apikey", "secret", "password", "passwd", "pass", "pwd", "pat", "creds"]
)


# a word as typed: one case or capitalised, no longer than words are (a run of drawn
# letters is longer, or changes case inside)
_WORD = re.compile(r"[a-z]{1,14}|[A-Z][a-z]{1,13}|[A-Z]{1,14}")


def words_for_tests(value: str) -> bool:
    """Whether ``value`` is words alone (a counter may end it) that say it is a test's and
    name the credential it stands for: a fixture, never a generated passphrase."""
    words = re.split(r"[-_.]", value.strip("\"'`=: "))
    if words and words[-1].isdigit():
        words.pop()
    lowered = {word.lower() for word in words}
    return (
        len(words) >= 2
        and all(_WORD.fullmatch(word) for word in words)
        and not _TESTING.isdisjoint(lowered)
        and not _KIND.isdisjoint(lowered)
    )


def lookalike(value: str) -> bool:
    """Whether ``value`` only looks like a secret: cut short, a template's slot, a
    variable's lookup, a test's words or a pattern with a field to fill."""
    return (
        cut_short(value)
        or template_slot(value)
        or variable_lookup(value)
        or words_for_tests(value)
        or _FIELD.search(value) is not None
    )
