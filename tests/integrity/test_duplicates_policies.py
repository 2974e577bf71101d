"""A rule turned around in other words (:mod:`serena_memory.integrity.duplicates.policies`):
one memory forbids an action on a thing, another tells or allows it. Written as real
memory folders through a real store, as `serena memories check --duplicates` reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from duplicates_support import checked, memory

from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.policies import actions

# one memory forbids, the other tells or allows, in its own words
TURNED_AROUND = [
    (
        "- **Agents must NOT run `hms`**; let the user run it when ready.",
        "- Agents may run `hms` themselves after a successful build.",
    ),
    (
        "- Never use `drizzle-kit push` interactively.",
        "For small schema changes it is fine to run `npx drizzle-kit push` against local.db.",
    ),
    (
        "- Do not use `seed_dev` as a test fixture.",
        "- Use `seed_dev` as the base test fixture in integration tests.",
    ),
    ("- **Don't:** edit `uv.lock` by hand.", "- Edit `uv.lock` to pin the transitive version."),
]


@pytest.mark.parametrize(("first", "second"), TURNED_AROUND)
def test_a_rule_turned_around_is_a_conflict(tmp_path: Path, first: str, second: str) -> None:
    report = checked(tmp_path, {"rules": memory("Rules", first), "notes": memory("Notes", second)})
    found = [(c.first, c.second, c.second_value.startswith("not ")) for c in report.conflicts]
    assert found == [("notes", "rules", True)], report.to_dict()


# a rule and a line that says no rule, or another one
NOT_TURNED_AROUND = [
    # a description, not a rule: "it does not use sudo"
    (
        "- Forensics fails because it doesn't use `sudo`.",
        "- Run `sudo` before the capture starts each time.",
    ),
    # a condition narrows the rule rather than turning it around
    ("- Never run `hms` in CI.", "- Run `hms` only when the user asks for it."),
    ("- Do not use `bun test`.", "- If the suite is slow, use `bun test` on one file."),
    # two commands of one tool
    ("- Do NOT use `bun run tauri dev` to verify.", "- Run via `bun run test` always."),
    # the same rule said twice
    ("- Never use `drizzle-kit push`.", "- Do not run `npx drizzle-kit push` on production."),
    # plain words only: too common to tell one thing
    ("- Never delete the results by hand.", "- Delete the results after each run."),
]


@pytest.mark.parametrize(("first", "second"), NOT_TURNED_AROUND)
def test_a_rule_not_turned_around_is_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()


def test_a_memory_that_forbids_and_tells_says_a_nuance() -> None:
    """A memory that forbids an action in one place and tells it in another holds a
    nuance (never in CI, locally yes): its lines are no side of a conflict."""
    first = memory("Rules", "- Never run `hms` in the pipeline.", "- Locally, run `hms` freely.")
    second = memory("Notes", "- Agents must not run `hms`.")
    assert find_duplicates({"a": first, "b": second}).conflicts == []


def test_a_clause_of_a_negation_alone_forbids_the_next() -> None:
    assert actions("**DON'T:** Run `hms` here") == [("use", "hms", True, True)]
    assert actions("Run `hms` here") == [("use", "hms", True, False)]
