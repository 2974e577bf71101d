"""A memory rewritten in other words around the same commands, paths and names (a
checklist turned into prose, each step said again): a near-duplicate of its original,
found by the check and told at write time; while two real memories that share a few
commands (the list of commands and the checklist that runs some of them) stay quiet.
The folder is a real project's (``data/rewritten``: 8agana/surreal-mind's memories,
copied), the rewrite is written for this test."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates import features_cache as DC
from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.features import words_of
from serena_memory.integrity.duplicates.rewrites import same_values, values_of
from serena_memory.integrity.duplicates.write_comparison import write_note

FOLDER = Path(__file__).resolve().parent / "data" / "rewritten"

REWRITE = """# Shipping a change

Nothing is merged until each of these holds:

- the code is formatted: `cargo fmt --all`;
- `cargo clippy --workspace --all-targets -- -D warnings` reports nothing;
- every unit test is green under `cargo test --workspace`;
- a changed tool schema also needs `cargo test --test tool_schemas`;
- the smoke run `./tests/test_mcp_comprehensive.sh` succeeds end to end;
- `CHANGELOG.md` gets a line about it;
- decisions on architecture or strategy are written down in `GEMINI.md`.
"""


def memories() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(FOLDER.glob("*.md"))}


def pairs(texts: dict[str, str]) -> set[frozenset[str]]:
    report = find_duplicates(texts)
    return {frozenset((d.first, d.second)) for d in (*report.memories, *report.sections)}


def test_the_real_folder_as_it_is_has_nothing_to_report() -> None:
    # suggested_commands and task_completion share five commands: one is not the other
    assert find_duplicates(memories()).problem_count == 0


def test_a_checklist_rewritten_around_its_commands_is_a_near_duplicate() -> None:
    texts = memories() | {"shipping": REWRITE}
    report = find_duplicates(texts)
    found = {(d.first, d.second): d for d in report.memories}
    assert ("shipping", "task_completion") in found
    assert found[("shipping", "task_completion")].restated
    assert frozenset(("shipping", "suggested_commands")) not in pairs(texts)


def test_the_check_and_a_write_both_tell_the_rewrite(store: MemoryStore, project: Path) -> None:
    target = project / ".serena" / "memories"
    shutil.copytree(FOLDER, target)
    DC.check_duplicates(store)  # a warm cache: the write is looked up in its index
    store.write("shipping", REWRITE)
    assert "task_completion" in write_note(store, "shipping", REWRITE)
    report = DC.check_duplicates(store)
    assert {(d.first, d.second) for d in report.memories} == {("shipping", "task_completion")}


def test_a_rewrite_that_keeps_few_of_the_commands_is_no_near_duplicate() -> None:
    fewer = REWRITE.replace("`cargo fmt --all`", "the formatter").replace(
        "`cargo test --workspace`", "the tests"
    )
    fewer = fewer.replace("`CHANGELOG.md`", "the changelog").replace("`GEMINI.md`", "the notes")
    assert frozenset(("shipping", "task_completion")) not in pairs(memories() | {"shipping": fewer})


def test_chinese_and_japanese_text_is_read_in_words_a_rewrite_keeps() -> None:
    original = "変更前に既存テストが全部通ることを確認する"
    reordered = "既存テストが全部通ることを変更前に確認"
    assert len(words_of(original)) > 10  # not one word for the sentence
    shared = words_of(original) & words_of(reordered)
    assert len(shared) >= 0.8 * len(words_of(reordered))


_CODE = st.text(
    alphabet=st.characters(blacklist_characters="`\n", blacklist_categories=("Cs",)),
    min_size=3,
    max_size=30,
).filter(lambda c: len(" ".join(c.split())) > 2 and not c.strip().casefold().startswith("mem:"))


@given(codes=st.lists(_CODE, min_size=4, max_size=12, unique_by=lambda c: " ".join(c.split())))
def test_values_are_the_same_however_spaced_and_in_any_order(codes: list[str]) -> None:
    text = "\n".join(f"- run `{c}`" for c in codes)
    respaced = "\n".join(f"- `{'  '.join(c.split())} ` then" for c in reversed(codes))
    assert values_of(text) == values_of(respaced)
    mine = values_of(text)
    if len(mine) >= 4:
        assert same_values(mine, values_of(respaced))
    assert same_values(mine, frozenset()) is False
