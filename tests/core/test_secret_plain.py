"""A text or a name of words alone is not read line by line for secrets (most short
memories are such prose, and every write scans its text): skipping the line rules there
must never let a secret through, nor find one that the full read would not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core import secrets

# words a line rule reacts to, beside everyday ones: a name of a secret in several
# languages, a label's colon, a list's mark, code quotes
WORDS = st.sampled_from(
    [
        "password", "Password:", "token", "secret", "api", "key", "Passwort", "mot",
        "de", "passe", "contrasena", "is", "the", "`value`", "hunter", "admin", "login",
        "user", "root", "default", "odes", "recovery", "-", "**bold**", "Note:", "x",
    ]
)  # fmt: skip
LINE = st.lists(WORDS, min_size=0, max_size=12).map(" ".join)
PREFIX = st.sampled_from(["", "# ", "- ", "* ", "1. ", "  "])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(PREFIX, LINE).map("".join), min_size=1, max_size=8))
def test_a_text_of_words_alone_scans_as_the_full_read_would(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    full: dict[int, str] = dict(secrets.blocks(text))
    secrets._scan_lines(text, text.splitlines(), full)
    if all(map(secrets._plain, text.splitlines())):
        assert full == {}, "a line of words alone was found holding a secret"
    quick = {finding.line: finding.kind for finding in secrets.scan(text)}
    if len(text.splitlines()) > 1:
        assert quick == full


@settings(max_examples=300, deadline=None)
@given(st.lists(st.from_regex(r"[a-z][a-z-]{0,20}", fullmatch=True), min_size=1, max_size=4))
def test_a_name_of_words_alone_is_refused_exactly_when_the_full_read_refuses(
    parts: list[str],
) -> None:
    name = "/".join(parts)
    full = secrets._line_kind(name, secrets._detectors())
    assert full is None, f"{name!r} was read as holding a secret"


NAME_PARTS = st.one_of(
    st.from_regex(r"[a-z]{1,16}", fullmatch=True),
    st.sampled_from(
        [
            "password", "db", "prod", "hunter", "correct", "horse", "battery", "staple",
            "recovery", "codes", "backup", "basic", "postgres", "redis", "grafana", "svc",
            "billing", "deadbeefdeadbeef", "abcdefabcdefabcd", "github", "stripe", "live",
            "notes", "topic", "new", "docs", "setup", "copper", "juniper", "harbor",
        ]
    ),
)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(
    st.lists(NAME_PARTS, min_size=1, max_size=7),
    st.lists(st.sampled_from("/_.-"), min_size=6, max_size=6),
)
def test_a_name_of_short_lowercase_words_holds_no_secret_by_any_rule(
    parts: list[str], joints: list[str]
) -> None:
    """The quick answer for such a name is the one every rule would give."""
    name = parts[0] + "".join(j + p for j, p in zip(joints, parts[1:], strict=False))
    if secrets._WORDS_NAME.fullmatch(name) is None or secrets._SECRET_WORD.search(name):
        return
    assert secrets.scan_name(name) == []
    assert secrets._line_kind(name, secrets._detectors()) is None, name
    assert not list(secrets.blocks(name)), name
    assert secrets.name_secret(name) is None, name


def test_a_password_written_in_words_is_still_refused() -> None:
    """The quick path keeps what no rule of words alone misses: a token pasted as a name
    and a recovery phrase stay refused."""
    assert secrets.scan_name("notes/ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    assert secrets.scan("Password: correct-horse-battery-staple-42\n")
