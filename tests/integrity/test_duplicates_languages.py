"""What is written in which language, said two ways
(:mod:`serena_memory.integrity.duplicates.languages`): written as real memory folders
through a real store and checked, as `serena memories check --duplicates` does."""

from __future__ import annotations

from pathlib import Path

import pytest
from duplicates_support import checked, memory
from hypothesis import given
from hypothesis import strategies as st

from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.languages import said

# one memory's line, another's giving the same thing another language
TWO_LANGUAGES = [
    (
        "- Code comments, docs, and commit messages should be Korean unless a convention differs.",
        "- Commit messages should be English, imperative mood, even when comments are Korean.",
    ),
    (
        "Conventional commits, English, grouped by concern. No Co-Author lines.",
        "Commit messages follow conventional commits and are written in Korean; group by concern.",
    ),
    ("- Always respond to the user in Japanese.", "- Answers to the user are in English."),
    ("- コミットメッセージは日本語で書く。", "- Commit messages are written in English."),
]


@pytest.mark.parametrize(("first", "second"), TWO_LANGUAGES)
def test_one_thing_said_in_two_languages_is_a_conflict(
    tmp_path: Path, first: str, second: str
) -> None:
    report = checked(tmp_path, {"style": memory("Style", first), "git": memory("Git", second)})
    assert {(c.first, c.second) for c in report.conflicts} == {("git", "style")}


def test_a_memory_giving_another_thing_another_language_still_conflicts() -> None:
    """A project writes in several languages, one per purpose: a memory naming Korean for
    its UI still contradicts one that wants its commit messages in Korean."""
    first = memory("Conventions", "- Code comments, docs, and commit messages should be Korean.")
    second = memory(
        "Language", "- Commit messages are written in English.", "- UI strings stay Korean."
    )
    found = find_duplicates({"a": first, "b": second}).conflicts
    assert [(c.first_value, c.second_value) for c in found] == [("Korean", "English")]


# lines that agree, or give two things two languages
NOT_TWO_LANGUAGES = [
    ("- Commit messages are written in English.", "- Replies to the user are written in Korean."),
    ("- Comments in English; UI text in Korean.", "- UI copy is Korean, comments English."),
    ("- Commit messages in English.", "- Docs are written in Japanese for the team."),
    # a rule with its exception in one memory: a nuance, not one language
    ("- Docs in English, and the Korean docs in `docs/ko/`.", "- Docs are written in Korean."),
    ("- The parser reads English and German dates.", "- Commit messages are in English."),
]


@pytest.mark.parametrize(("first", "second"), NOT_TWO_LANGUAGES)
def test_lines_that_agree_on_languages_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()


@given(st.text(max_size=120))
def test_a_line_gives_each_thing_one_language(line: str) -> None:
    for thing, language in said(line).items():
        assert thing and len(language) == 2
