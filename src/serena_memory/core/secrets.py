"""The secret gate: text about to become a memory is scanned, and a memory that would hold
an API key, a private key, a password in a URL or a high-entropy value assigned to a
``*_KEY``, ``*_TOKEN`` or ``PASSWORD`` name is refused before anything is written.

Memories are committed with the code, recorded in a history and pushed by sync, so a
secret written once is published everywhere. The scanner is detect-secrets (its provider
detectors, run line by line: core/secret_detectors.py) with a few detectors of our own for
formats it does not know and for assignments (what a secret's name and a literal value are:
core/secret_values.py; what spans lines: core/secret_blocks.py); the choice and its figures
are in benchmarks/secrets_quality.py.
detect-secrets is imported on the first scan only, so commands that write nothing start
as fast as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.secret_blocks import blocks
from serena_memory.core.secret_code import unwrapped
from serena_memory.core.secret_context import (
    CONTEXT_WORDS,
    name_alone,
    named_above,
    named_in_sentence,
    public_context,
)
from serena_memory.core.secret_defaults import declared_default
from serena_memory.core.secret_detectors import detectors as _detectors
from serena_memory.core.secret_detectors import token_kind
from serena_memory.core.secret_drawn import random_looking
from serena_memory.core.secret_languages import in_english, names_abroad
from serena_memory.core.secret_names import drawn_part, joined_secret, name_secret
from serena_memory.core.secret_naming import leading_secret_name, qualified_secret_name, secret_name
from serena_memory.core.secret_output import READER_WORDS, printed_below
from serena_memory.core.secret_public import (
    BROWSER_KEYS,
    public_jwt,
    public_line,
    published_example,
    remarked_harmless,
    remarked_public,
)
from serena_memory.core.secret_references import store_name
from serena_memory.core.secret_rules import LINE_RULES, ROUND_SIX, ROUND_SIX_WORDS, URL_PASSWORD
from serena_memory.core.secret_said import (
    HASH_OF,
    LABEL_ENDS,
    assigned_said,
    key_said,
    no_credential,
    quoted_value,
    said_password,
    said_secret,
    table_columns,
    table_row,
    token_named_after,
    value_below,
)
from serena_memory.core.secret_templates import inside_template
from serena_memory.core.secret_values import (
    is_placeholder,
    literal_value,
    not_a_value,
    strong_password,
)

# a name that says its value is a secret, assigned (=, :) a value on the same line
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|pass|passphrase|credentials?)"
)
# a value runs to a space or quote; `;` and `,` belong to it unless the next field follows,
# `&` unless a query's next parameter does (a name in small letters: &token=)
_VALUE = r"((?:[^\s\"'`;,&]|[;,](?![A-Za-z_][\w.-]*=|\s|$)|&(?![a-z_][a-z0-9_.-]+=))+)"
# a whole name (taken possessively, from its first character: linear in the line's
# length), then the value (a bytes or raw literal's prefix before its quote: b"...", r"..."),
# looked ahead (a name that is no secret's does not hide the
# assignment after it); the name's ending is checked in `_assigned`
_ASSIGNED = re.compile(
    rf"(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]++)(?=[\"'`]?\s*(?::=|[:=])\s*"
    rf"(?:[bBrR]{{1,2}}(?=[\"']))?([\"'`]?){_VALUE})"
)
# the same in an XML setting: <add key="DbPassword" value="..." />
_KEY_VALUE = re.compile(rf"(?i)\bkey=\"({_SECRET_NAME})\"\s+value=\"([^\"]+)\"")
# a line can hold an assignment to a secret's name only if it holds one of these
# (`auth` only as a name given a value: authentication and authorization are common words)
_SECRET_WORDS: tuple[str, ...] = ("key", "token", "secret", "pass", "pw", "cred", "psk", "seed")
_SECRET_WORDS += ("session", "appid", "auth:", "auth=", "auth =", 'auth"', "auth'", "hmac")
_SECRET_WORDS += ('auth "', "auth '", "pepper", "community")  # nginx: X-Auth "VALUE"; SNMP
_SECRET_WORDS += ("pat=", "pat:", "pat =", 'pat"', "pat'")  # GH_PAT=VALUE
_SECRET_WORDS += ("salt", "bearer", "tok=", "tok:", "tok =", 'tok"')  # SIGNING_SALT, GH_TOK
_SECRET_WORDS += ("sk=", "sk:", "sk =", 'sk"')  # STRIPE_SK=VALUE
NAME_LINE = 0  # the line of a finding in a memory's name rather than its text


class Finding(NamedTuple):
    """One secret found: its line (from 1) and its kind, never the secret itself."""

    line: int
    kind: str


class SecretFoundError(MemoryStoreError):
    """Text refused because it holds a secret; ``findings`` say where and what."""

    def __init__(self, message: str, findings: list[Finding]) -> None:
        super().__init__(message)
        self.findings = findings


def _assigned(line: str) -> str | None:
    """The kind of a high-entropy value assigned to a secret's name, when ``line`` has one
    (or such a value quoted after the word ``password``, ``token``...): a name like
    ``*_KEY``, ``*_TOKEN``, ``PASSWORD``; a value with symbols (a strong password) counts,
    a reference or placeholder (``${VAR}``, ``$(cmd)``, ``<your-password>``) does not."""
    return (
        _named_value(line)
        or quoted_value(line)
        or said_password(line)
        or said_secret(line)
        or key_said(line)
        or token_named_after(line)
    )


def _named_value(line: str) -> str | None:
    """A literal secret given to a secret's name: ``NAME=value``, an XML setting or
    element, a ``config set``, a shell's ``set``, a ``name value`` pair."""
    for pattern in _naming_patterns(line):
        for match in pattern.finditer(line):
            name, value = _spaced(match) if pattern is _SPACED else _name_and_value(match)
            value = _unbraced(line, value)
            # only a bare value assigned in code may be code (settings.KEY); one quoted,
            # in XML or on a command line is a literal
            quoted = pattern is not _ASSIGNED or bool(match.group(2))
            if value.endswith(":") or value.startswith(":"):
                continue  # a label (secrets: `Authorization: ...`), a scope (session::get)
            if inside_template(line, match.start(), value):
                continue  # a template's expression: `{{ required "token" .Values.token }}`
            if name and _secret_given(line, match.start(), name, value, quoted=quoted):
                return "value assigned to " + (name.strip(".-_")[:40] or "a secret")
    return None


def _naming_patterns(line: str) -> Iterator[re.Pattern[str]]:
    """The patterns that may find a name and its value on ``line`` (the others need a word
    or a quote it lacks)."""
    yield from (_ASSIGNED, _KEY_VALUE, _ELEMENT)
    if "set" in line:
        yield from (_CONFIG_SET, _SHELL_SET)
    if "(" in line:
        yield _CALL_PAIR
    if _may_be_spaced(line):
        yield _SPACED


# a connection string's fields (ODBC, ADO.NET): `Driver=...;Server=...;Pwd={VALUE};`
_CONNECTION_STRING = re.compile(r"(?i)(?:^|[;\"'`])\s*(?:driver|server|data source|dsn)\s*=")


def _unbraced(line: str, value: str) -> str:
    """``value`` without the braces an ODBC connection string quotes a field's value in
    (``Pwd={VALUE}``: a literal, where braces elsewhere are a template's field)."""
    if value[:1] == "{" and value.rstrip(";")[-1:] == "}" and _CONNECTION_STRING.search(line):
        return value.rstrip(";")[1:-1]
    return value


def _name_and_value(match: re.Match[str]) -> tuple[str, str]:
    return match.group(1), match.group(match.re.groups)


def _secret_given(line: str, at: int, name: str, value: str, *, quoted: bool) -> bool:
    """Whether ``value``, given to ``name`` at ``at``, is a secret: the name is a secret's
    (or a URL's ``key``), the value a literal one, and not an ARN's field nor a hash."""
    if store_name(name):
        return False  # `1Password: Infra/Sentry`: where the secret is kept
    if name_alone(name, value, line, at):
        return not public_context(line, at)
    if qualified_secret_name(name) and not secret_name(name) and not leading_secret_name(name):
        return _drawn_or_strong(value) and not _said_public(line, at)
    return (
        (secret_name(name) or _query_key(line, at, name) or leading_secret_name(name))
        and literal_value(name, value, quoted=quoted)
        and not _in_arn(line, at)
        and not HASH_OF.search(line, max(0, at - 30), at)
        and not public_context(line, at)
        and not no_credential(line, at)
        and not remarked_public(line, at)
    )


def _said_public(line: str, at: int) -> bool:
    """Whether the words before ``at`` or a remark after it say the value is public."""
    return public_context(line, at) or remarked_public(line, at)


def _drawn_or_strong(value: str) -> bool:
    """Whether a value given to a qualified secret's name is one: drawn at random or a
    strong password, never a placeholder, a reference or code."""
    if not_a_value(value) or "(" in value:
        return False  # code: a call, an attribute (APIKeyHeader(name=...))
    value = value.strip("'\"`")
    if is_placeholder(value) or value.startswith("$"):
        return False
    return random_looking(value) or strong_password(value, quoted=True)


def _may_be_spaced(line: str) -> bool:
    """Whether ``line`` may hold a `name value` pair: a quote after a space, two words
    alone or a server's directive (most lines are none, and skip the pattern)."""
    return (
        ' "' in line
        or " '" in line
        or line.strip().count(" ") == 1
        or _SETTING_DIRECTIVE.match(line) is not None
    )


def _spaced(match: re.Match[str]) -> tuple[str, str]:
    """(name, value) of a `name value` pair: quoted, or unquoted alone on its line with a
    name of two words or more (``api_token``, ``keyPassword``: never a word of prose)."""
    name, quoted, bare = match.groups()
    if quoted is not None:
        return name, quoted
    before = match.string[: match.start()]
    if before.strip() and not _SETTING_DIRECTIVE.fullmatch(before):
        return "", ""  # the pair is not alone on its line, nor set by a server's directive
    two_words = "_" in name or "-" in name or re.search(r"[a-z][A-Z]", name) is not None
    # (or a server's directive of one word that names a password: rootpw, requirepass)
    return (name, bare) if two_words or _PASSWORD_DIRECTIVE.fullmatch(name) else ("", "")


_PASSWORD_DIRECTIVE = re.compile(r"[a-z]{2,12}(?:pw|pass|passwd|password)")


# a web server's directive that sets a header or a variable to a value: nginx's
# `proxy_set_header X-Api-Key VALUE;`, Apache's `RequestHeader set X-Token VALUE`
_SETTING_DIRECTIVE = re.compile(
    r"\s*(?:proxy_set_header|add_header|more_set_headers|grpc_set_header|fastcgi_param"
    r"|uwsgi_param|SetEnv|(?:Request)?Header\s+(?:set|add|append))\s*",
    re.IGNORECASE,
)


def _query_key(line: str, at: int, name: str) -> bool:
    """Whether ``name`` is a URL's ``key`` parameter (``?key=...``): an API key, where a
    ``key`` alone elsewhere is a cache's or a keybinding's."""
    return name.lower() in _QUERY_KEYS and at > 0 and line[at - 1] in "?&"


# the query parameters that carry an API key by convention (api_key, access_token: by
# their names already)
_QUERY_KEYS = frozenset(["key", "appid", "app_key", "apikey"])


def _in_arn(line: str, at: int) -> bool:
    """Whether ``at`` is inside an ARN (``arn:aws:secretsmanager:...:secret:NAME``), whose
    fields are names and no assignments."""
    start = max(line.rfind(space, 0, at) for space in " \t`'\"(") + 1
    return line.startswith("arn:", start)


# an XML element holding a secret: <password>...</password> (Maven, NuGet, .NET)
_ELEMENT = re.compile(r"<([A-Za-z][\w.:-]{0,60})>([^<\s]{6,200})</")
# a setting set on a command line: `aws configure set aws_secret_access_key VALUE`,
# `npm config set //host/:_authToken VALUE`, `doppler configure set token VALUE`
_CONFIG_SET = re.compile(r"\bconfig(?:ure)?\s+set\s+(?:--?\w[\w-]*\s+)*([\w./:-]{1,80})\s+(\S+)")
# a name and its value given to a call as its first two literals: PHP's define('NAME',
# 'VALUE'), os.environ.setdefault("NAME", "VALUE"), os.Setenv, System.setProperty
_CALL_PAIR = re.compile(r"\(\s*[\"']([A-Za-z_][\w.-]{0,80})[\"']\s*,\s*[\"']([^\"'\n]{1,200})[\"']")
# a variable set in a shell that has no `=`: fish `set -x NAME VALUE`, csh `setenv NAME
# VALUE`, Windows `setx NAME VALUE`
_SHELL_SET = re.compile(
    r"(?:^|[;&|(]|\s)(?:set|setenv|setx)\s+(?:-[A-Za-z]+\s+)*([A-Za-z_]\w{0,80})\s+"
    r"('[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"
)
# a name and its value apart by a space, as Groovy, Gradle and `name value` files write
# them: keyPassword "VALUE", a line `api_token VALUE` (a name of two words or more)
_SPACED = re.compile(
    r"(?:^|[\s{(])([A-Za-z_][\w.-]{0,60})[ \t]+(?:[\"']([^\s\"']{6,200})[\"']"
    r"|([^\s\"'=:]{6,200})\s*$)"
)


def scan(text: str) -> list[Finding]:
    """The secrets in ``text``, one finding per line at most (the first kind found)."""
    found: dict[int, str] = dict(blocks(text))
    lines = text.splitlines()
    if not all(map(_plain, lines)):  # (words alone, as most short memories are: no line to read)
        _scan_lines(text, lines, found)
    word = lines[0].strip().strip("`") if len(lines) == 1 else ""
    if not found and len(word) >= 8 and not any(map(str.isspace, word)):
        kind = drawn_part(word)  # a text that is one word, as a name is
        found.update({1: kind} if kind else {})
    return [Finding(number, kind) for number, kind in sorted(found.items())]


def _scan_lines(text: str, lines: list[str], found: dict[int, str]) -> None:
    """Add to ``found`` the kind of the first secret of each of ``text``'s ``lines`` not
    in it."""
    detectors = _detectors()
    columns: dict[int, str] = {}  # the columns of the Markdown table here that hold secrets
    foreign = names_abroad(text)  # once for the text: most name no secret in other words
    for number, line in enumerate(lines, start=1):
        below = lines[number] if number < len(lines) else ""
        # (a table's headings in another language: Passwort, Mot de passe)
        heading = in_english(line) if foreign and columns == {} else line
        columns = table_columns(heading, below, columns)
        if len(line) < 8 or number in found or _plain(line):
            continue
        kind = _kind_on_line(lines, number, columns, detectors, foreign=foreign)
        if kind is not None:
            found[number] = kind


def _kind_on_line(
    lines: list[str], number: int, columns: dict[int, str], detectors: Any, *, foreign: bool
) -> str | None:
    """The kind of the first secret on line ``number`` (from 1) of ``lines``, read in
    windows (a long line's detectors stay fast) and with the lines above it: a browser's
    key said public a few lines up is none, a value under its label or in a table's secret
    column is one."""
    above = lines[number - 2] if number > 1 else ""
    label = above if above[-1:] in LABEL_ENDS else ""  # most lines are below no label
    prior = lines[max(0, number - 5) : number - 1]
    for part in _windows(lines[number - 1]):
        kind = _line_kind(part, detectors, foreign=foreign, above=prior)
        if kind is None and not ("eyJ" in part and public_jwt(part)):
            kind = _said_above(part, above, label, columns)
        if kind is not None:
            return kind
    if "default" in lines[number - 1]:
        return declared_default(prior, lines[number - 1])
    # (a line of one word, as a memory's name is: a credential joined to its name)
    return joined_secret(lines[number - 1].strip().strip("`"))


def _said_above(part: str, above: str, label: str, columns: dict[int, str]) -> str | None:
    """The kind of a secret ``part`` holds that only what stands above it says: a column
    of a table whose heading names a secret, a label on the line above (``Password:``),
    a secret's name said in the line above; each tried only when the line above may say it."""
    return (
        (table_row(part, columns) if columns else None)
        or (value_below(label, part) if label else None)
        or (named_above(above, part) if above and ": " in part else None)
        or (_printed(above, part) if above else None)
    )


def _printed(above: str, part: str) -> str | None:
    """The kind of a secret ``part`` is when the command above it reads one from its store."""
    if any(map(above.__contains__, READER_WORDS)) and printed_below(above, part):
        return "secret printed by the command above"
    return None


# a line of words alone: letters, spaces, commas, full stops, hyphens, code quotes, a
# label's colon, bold, a heading's or a list's mark; no digit, no symbol a password holds
# (a colon inside a word is one), no word whose case changes inside it (tiGer, OmxgJTeK),
# no run of capitals (an AWS key id may hold no digit), no word of a recovery phrase nor an
# app password (four groups of small letters): no
# rule finds a secret there, and a third of a memory's lines are such prose
# (possessive: a line of blanks before a value fails at once, not in time its square)
_PLAIN = re.compile(r"\s*+(?:#{1,6} |[-*] |\d+\. )?(?:[A-Za-z ,.`-]|:(?=\s|$)|\*\*)*+")
_NOT_PLAIN = re.compile(
    r"[a-z][A-Z]|[A-Z]{12}|(?i:phrase|mnemonic|words|app[ -]password)"
    r"|^\s*[a-z]{2,12}(?:pw|pass|passwd|password)\s"  # a directive: rootpw copper-juniper
    r"|`\w{4,64}`[^\n]{0,40}\bpassword|(?i:password)\W{1,4}`\w{4,64}`"  # a quoted password
    r"|(?i:password|pw)\s(?:on|for|of)\s[^\n`]{1,60}`\w{4,64}`"  # a place's: on the VM is `word`
    r"|(?i:pass|pwd)\w{0,4}:\s+[a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4}"  # an app password's groups
)


# a test's result as test logs print it, then the test's name: `PASS: addr2line -f`
_TEST_RESULT = re.compile(r"\s*(?:PASS|FAIL|XPASS|XFAIL|KPASS|KFAIL|UNSUPPORTED|UNRESOLVED): ")


def _plain(line: str) -> bool:
    """Whether ``line`` is words alone or a test's result, where no rule finds a secret."""
    if _PLAIN.fullmatch(line) is not None:
        return _NOT_PLAIN.search(line) is None
    return _TEST_RESULT.match(line) is not None


WINDOW = 4096  # a longer line is scanned in overlapping parts of this many characters
OVERLAP = 1024  # longer than any token a detector knows (a long JWT is shorter)


def _windows(line: str) -> Iterator[str]:
    """``line``, or its overlapping parts when it is long: some detectors take time that
    grows with the square of a line's length (180,000 characters: 13 s), never a part's."""
    if len(line) <= WINDOW:
        yield line
        return
    for start in range(0, len(line) - OVERLAP, WINDOW - OVERLAP):
        yield line[start : start + WINDOW]


# a name no rule finds a secret in (tests/core/test_secret_plain.py): short lowercase words
# between joints, none naming a secret, a login or a connection (a value may follow them)
_WORDS_NAME = re.compile(r"(?=.{1,48}$)[a-z]{1,16}(?:[/_.-][a-z]{1,16}){0,6}")
_SECRET_WORD = re.compile(
    r"pass|pw|pwd|token|secret|key|cred|login|auth|url|uri|dsn|conn|code|hook|pat|phrase"
    r"|mnemonic|seed|pin|otp|cert|priv|bearer|session|cookie|sig|user|admin|root|api"
)


def scan_name(name: str) -> list[Finding]:
    """The secrets in a memory's name (a committed, synced file name): at most one
    finding, on line :data:`NAME_LINE`. The name is read whole, its folders' slashes
    included: a URL or a token with slashes pasted into a name is committed as such."""
    if _WORDS_NAME.fullmatch(name) and _SECRET_WORD.search(name) is None:
        return []  # short lowercase words between joints, none saying a secret follows
    # (a private key escaped into one line, as a JSON or an env line holds it: a block's)
    # (a name of words alone between its folders' slashes: no rule finds a secret there)
    plain = ":" not in name and all(map(_plain, name.split("/")))
    kind = None if plain else _line_kind(name, _detectors())
    kind = kind or next((kind for _, kind in blocks(name)), None)
    kind = kind or name_secret(name)
    return [] if kind is None else [Finding(NAME_LINE, kind)]


def masked_name(name: str) -> str:
    """``name`` with each part that holds a secret replaced by its placeholder, to show
    where a secret is without repeating it (``creds/<github-token>``)."""
    if not scan_name(name):
        return name
    parts = []
    for part in name.split("/"):
        kind = _line_kind(part, _detectors()) or joined_secret(part)
        parts.append(part if kind is None else placeholder_for(kind))
    if parts == name.split("/"):  # a secret across folders (a URL): the whole name
        return placeholder_for(scan_name(name)[0].kind)
    return "/".join(parts)


def _line_kind(
    line: str, detectors: Iterable[Any], *, foreign: bool = True, above: Sequence[str] = ()
) -> str | None:
    """The kind of the first secret on ``line`` (``foreign``: whether it may name one in
    another language than English; ``above``: the few lines before it, which may say a
    browser's key is public: a Firebase config's first line), unless the line, or a comment
    just above it, cites an RFC (an RFC's examples are published)."""
    kind = token_kind(line, detectors)
    if kind is None:
        kind = _said_kind(line, foreign=foreign)
        if kind is not None and remarked_harmless(line):
            return None  # what a sentence or a name says, remarked public or for tests
    if kind is None:
        return None
    if kind in BROWSER_KEYS and any(map(public_line, (*above, line))):
        return None
    return None if published_example(line) or _cited_above(above) else kind


# a comment, the line's own: `# docs example (RFC 7515 appendix)` above the key it quotes
_COMMENT = re.compile(r"\s*(?:#|//|--|/\*|<!--)")


def _cited_above(above: Sequence[str]) -> bool:
    """Whether the line just above is a comment that says a published example follows."""
    return bool(above) and _COMMENT.match(above[-1]) is not None and published_example(above[-1])


def _said_kind(line: str, *, foreign: bool) -> str | None:
    """The kind of a secret our rules find on ``line`` (not a token of a known shape)."""
    if foreign:
        line = in_english(line)  # the words of the rules below, said in another language
    lower = line.lower()
    holds = lower.__contains__  # `any(map(holds, words))`: the words tested without a frame each
    for words, rule, kind in LINE_RULES:
        if any(map(holds, words)) and rule(line):
            return kind
    if any(map(holds, ROUND_SIX_WORDS)):
        for words, rule, kind in ROUND_SIX:
            if any(map(holds, words)) and rule(line):
                return kind
    assigned = _assigned(unwrapped(line)) if any(map(holds, _SECRET_WORDS)) else None
    assigned = assigned or assigned_said(line, lower)
    if assigned is None and any(map(holds, CONTEXT_WORDS)):
        return named_in_sentence(line)
    return assigned


def refusal(name: str, findings: list[Finding], *, person: bool, verb: str = "written") -> str:
    """The one sentence that refuses the write: where, what, and what to do (the secret,
    and a name that holds one, never repeated); ``verb`` says what did not happen
    (``written``, ``changed`` for an edit, ``renamed``)."""
    first = findings[0]
    if first.line == NAME_LINE:
        text = (
            f"the memory was not {verb}: its name holds what looks like a secret "
            f"({first.kind}), and a name is committed and synced as a file name; choose a "
            "name without it"
        )
    else:
        text = f"memory '{name}' was not {verb}: " + _lines_told(findings)
    if person:
        several = sum(f.line != NAME_LINE for f in findings) > 1
        text += (
            f"; if {'they are not secrets' if several else 'it is not a secret'}, write again "
            "with --allow-secret (in the dashboard: confirm)"
        )
    return text


MAX_LINES_TOLD = 5
"""The lines a refusal names besides its first: each with its placeholder, so every one is
replaced at once (a refusal per line made a person write again and again)."""


def _lines_told(findings: list[Finding]) -> str:
    """Where the secrets are and what goes in their place: every line (up to
    :data:`MAX_LINES_TOLD`) with its kind and placeholder."""
    lines = [f for f in findings if f.line != NAME_LINE]
    if len(lines) == 1:
        only = lines[0]
        return (
            f"line {only.line} holds what looks like a secret ({only.kind}); replace it with a "
            f"placeholder such as {placeholder_for(only.kind)} and keep the real value in a "
            "secret store"
        )
    told = lines[:MAX_LINES_TOLD]
    where = ", ".join(f"line {f.line} ({f.kind})" for f in told)
    left = len(lines) - len(told)
    where += f" and {left} more line(s)" if left else ""
    places = ", ".join(dict.fromkeys(placeholder_for(f.kind) for f in told))
    return (
        f"{where} hold what looks like secrets; replace each with a placeholder ({places}) "
        "and keep the real values in a secret store"
    )


# the placeholders that read best for detect-secrets' kinds (others: the kind's words)
_PLACEHOLDERS = {
    URL_PASSWORD: "<password>",
    "NPM tokens": "<npm-token>",
    "JSON Web Token": "<jwt>",
    "Private Key": "<private-key>",
    "credential in an Authorization header": "<token>",
    "AWS Access Key": "<aws-access-key>",
    "password in a memory's name": "<password>",
    "token in a memory's name": "<token>",
    "secret printed by the command above": "<secret>",
}


_WHERE_FOUND = re.compile(r" (?:in|on|under|beside|after) (?:a|an|the) ")
"""Where a kind's words say the secret was found (``in a sentence``, ``on a command line``)."""


def placeholder_for(kind: str) -> str:
    """A placeholder that says what goes there: ``<password>`` for a password in a URL,
    ``<db-password>`` for ``DB_PASSWORD=...``, ``<github-token>`` for a GitHub token."""
    if kind in _PLACEHOLDERS:
        return _PLACEHOLDERS[kind]
    words = kind.removeprefix("value assigned to ").removesuffix(" in quotes").removeprefix("a ")
    # where it was found is not what goes there: "password on a command line" -> <password>
    words = _WHERE_FOUND.split(words, maxsplit=1)[0]
    if words == "login":  # a login's secret half is what must leave the text
        words = "password"
    slug = re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")
    return f"<{slug or 'secret'}>"


def check(name: str, text: str | bytes | None, *, person: bool, verb: str = "written") -> None:
    """Refuse ``text`` for memory ``name`` if it holds a secret (SecretFoundError)."""
    if text is None:
        return
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    findings = scan_name(name) or scan(text)
    if findings:
        raise SecretFoundError(refusal(name, findings, person=person, verb=verb), findings)


def check_all(
    texts: Mapping[str, str | bytes | None], *, person: bool, verb: str = "written"
) -> None:
    """:func:`check` for each memory; the first one holding a secret is refused."""
    for name, text in texts.items():
        check(name, text, person=person, verb=verb)


def holding_secrets(texts: Mapping[str, str | bytes | None]) -> dict[str, list[Finding]]:
    """The memories of ``texts`` that hold secrets, with their findings (for a sync,
    which keeps those out and goes on with the rest)."""
    found: dict[str, list[Finding]] = {}
    for name, text in texts.items():
        if text is None:
            continue
        raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        findings = scan_name(name) or scan(raw)
        if findings:
            found[name] = findings
    return found
