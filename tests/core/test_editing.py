"""Editing a memory: literal and regex replacement, group insertion, refusals."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core.editing import apply_edit
from serena_memory.core.errors import EditError, MemoryNotFoundError
from serena_memory.core.store import MemoryStore

DOC = """# Auth
Login uses `tokens`.
Sessions expire after 30 minutes.
"""


def test_literal_edit_through_the_store(store: MemoryStore) -> None:
    store.write("auth/core", DOC)
    result = store.edit("auth/core", "30 minutes", "1 hour")
    assert result.replacements == 1 and result.name == "auth/core"
    assert store.read("auth/core") == DOC.replace("30 minutes", "1 hour")


def test_literal_needles_are_not_patterns() -> None:
    text = "a.b axb (x) [y]"
    assert apply_edit(text, "a.b", "Z") == ("Z axb (x) [y]", 1)
    assert apply_edit(text, "(x)", "Z") == ("a.b axb Z [y]", 1)
    with pytest.raises(EditError, match="no match"):
        apply_edit(text, "a.c", "Z")


@pytest.mark.parametrize("mode", ["literal", "regex"])
@pytest.mark.parametrize(
    "repl",
    [r"C:\new\path", r"\1 \g<0> \n", "$1 $& ${1}", "\\\\double", "$!"],
)
def test_replacement_is_inserted_verbatim(mode: str, repl: str) -> None:
    """Backslashes and the usual group syntaxes mean nothing: what you give is what you get."""
    needle = "TARGET" if mode == "literal" else r"TAR(GET)"
    new, count = apply_edit("before TARGET after", needle, repl, mode)
    assert (new, count) == (f"before {repl} after", 1)


def test_literal_mode_does_not_expand_group_markers() -> None:
    assert apply_edit("x = 1", "1", "$!1")[0] == "x = $!1"


def test_regex_mode_inserts_groups() -> None:
    text = "version: 1.2.3\n"
    new, _ = apply_edit(text, r"(\d+)\.(\d+)\.(\d+)", "$!1.$!2.$!3-patched ($!1$!1)", "regex")
    assert new == "version: 1.2.3-patched (11)\n"


def test_group_zero_is_the_whole_match_and_other_syntaxes_stay_verbatim() -> None:
    new, count = apply_edit("foo=1 bar=2", r"(\w+)=(\d)", r"$!2:$!1 \1 $0 $!0 \g<1>", "regex", True)
    assert count == 2
    assert new == r"1:foo \1 $0 foo=1 \g<1> 2:bar \1 $0 bar=2 \g<1>"


def test_regex_group_markers_beyond_the_pattern_are_an_error() -> None:
    with pytest.raises(EditError, match=r"\$!2"):
        apply_edit("abc", r"(b)", "$!2", "regex")


def test_an_unmatched_optional_group_inserts_nothing() -> None:
    assert apply_edit("ac", r"a(b)?c", "[$!1]", "regex")[0] == "[]"


def test_regex_uses_multiline() -> None:
    text = "first\nsecond line\nthird\n"
    assert apply_edit(text, r"^second.*?$", "2nd", "regex")[0] == "first\n2nd\nthird\n"


def test_regex_uses_dotall() -> None:
    text = "<!-- start -->\nold\nbody\n<!-- stop -->\nkeep\n"
    new, count = apply_edit(text, r"<!-- start -->.*<!-- stop -->", "NEW", "regex")
    assert (new, count) == ("NEW\nkeep\n", 1)


def test_no_match_is_an_error_and_leaves_the_memory_alone(store: MemoryStore) -> None:
    store.write("a", DOC)
    for mode, needle in (("literal", "45 minutes"), ("regex", r"\d{3} minutes")):
        with pytest.raises(EditError, match="no match"):
            store.edit("a", needle, "x", mode)
    assert store.read("a") == DOC


def test_several_matches_are_refused_unless_allowed(store: MemoryStore) -> None:
    store.write("a", "todo one\ntodo two\ntodo three\n")
    with pytest.raises(EditError, match="3 times"):
        store.edit("a", "todo", "done")
    with pytest.raises(EditError, match="3 times"):
        store.edit("a", r"^todo", "done", "regex")
    assert store.read("a") == "todo one\ntodo two\ntodo three\n"
    result = store.edit("a", "todo", "done", allow_multiple_occurrences=True)
    assert result.replacements == 3
    assert store.read("a") == "done one\ndone two\ndone three\n"
    result = store.edit("a", r"^done (\w+)", "[$!1]", "regex", allow_multiple_occurrences=True)
    assert result.replacements == 3
    assert store.read("a") == "[one]\n[two]\n[three]\n"


def test_an_ambiguous_multiline_match_is_refused(store: MemoryStore) -> None:
    """Greedy `BEGIN.*END` over two blocks would delete the text between them."""
    text = "BEGIN\na\nEND\nprecious text in between\nBEGIN\nb\nEND\n"
    store.write("a", text)
    with pytest.raises(EditError, match="ambiguous"):
        store.edit("a", r"BEGIN.*END", "X", "regex")
    with pytest.raises(EditError, match="ambiguous"):
        store.edit("a", r"BEGIN.*END", "X", "regex", allow_multiple_occurrences=True)
    assert store.read("a") == text
    store.edit("a", r"BEGIN.*?END", "X", "regex", allow_multiple_occurrences=True)
    assert store.read("a") == "X\nprecious text in between\nX\n"


def test_ambiguity_only_concerns_matches_spanning_lines() -> None:
    with pytest.raises(EditError, match="ambiguous"):
        apply_edit("a1b\na2b\n", r"a.*b", "X", "regex", True)
    with pytest.raises(EditError, match="2 times"):
        apply_edit("a1b\na2b\n", r"a.*?b", "X", "regex")
    assert apply_edit("a1b\na2b\n", r"a.*?b", "X", "regex", True) == ("X\nX\n", 2)
    # on one line a greedy match is what the user asked for
    assert apply_edit("x a1b a2b y", r"a.*b", "Z", "regex") == ("x Z y", 1)
    with pytest.raises(EditError, match="2 times"):
        apply_edit("x a1b a2b y", r"a\db", "Z", "regex")


def test_a_single_multiline_block_is_not_ambiguous() -> None:
    text = "intro\nBEGIN\na\nEND\noutro\n"
    assert apply_edit(text, r"BEGIN.*END", "X", "regex")[0] == "intro\nX\noutro\n"


@pytest.mark.parametrize(
    ("needle", "mode", "message"),
    [
        ("", "literal", "empty"),
        ("", "regex", "empty"),
        ("(unclosed", "regex", "invalid regex"),
        ("x", "glob", "unknown edit mode"),
    ],
)
def test_bad_requests_are_errors(needle: str, mode: str, message: str) -> None:
    with pytest.raises(EditError, match=message):
        apply_edit("x (unclosed", needle, "y", mode)


def test_mode_is_case_insensitive() -> None:
    assert apply_edit("abc", "b", "X", "REGEX") == ("aXc", 1)


def test_edit_of_a_missing_memory(store: MemoryStore) -> None:
    with pytest.raises(MemoryNotFoundError):
        store.edit("nope", "a", "b")
    assert not store.exists("nope")


def test_edit_keeps_crlf_line_endings(store: MemoryStore) -> None:
    store.write("win", "one\r\ntwo\r\n")
    store.edit("win", "two", "2")
    assert store.layout.path_of("win").read_bytes() == b"one\r\n2\r\n"


def test_edit_reaches_global_memories_by_alias(store: MemoryStore) -> None:
    store.write("global/style", "indent: tabs\n")
    store.edit("mem:global\\style.md", "tabs", "spaces")
    assert store.read("global/style") == "indent: spaces\n"


_TEXT = st.text(alphabet=st.sampled_from(list("ab\\$!1\n. ()*")), max_size=30)


@settings(max_examples=300, deadline=None)
@given(prefix=_TEXT, suffix=_TEXT, repl=_TEXT)
def test_literal_and_escaped_regex_agree(prefix: str, suffix: str, repl: str) -> None:
    """A unique needle is replaced once, verbatim, by both modes (regex: without `$!N`)."""
    needle = "\x00NEEDLE\x00"
    text = prefix + needle + suffix
    assert apply_edit(text, needle, repl) == (prefix + repl + suffix, 1)
    regex_repl = repl.replace("$!", "$ !")
    assert apply_edit(text, re.escape(needle), regex_repl, "regex") == (
        prefix + regex_repl + suffix,
        1,
    )
