"""Conflicts said in other words (:mod:`serena_memory.integrity.duplicates.slots`): a
value restated with the same words around it in another memory, as a table row, a
heading, a shell line or a longer sentence, with the value changed, is a conflict; the
same value, a list of names, a record's row, a placeholder or a citation is none. Real
memory folders (a copy of one of ``../shared/realworld``) when they are beside the
repository; the write's note through a real store."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, load_script
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.slot_compare import differ, restated
from serena_memory.integrity.duplicates.slots import kind, slot_keys, unit_at, units
from serena_memory.integrity.duplicates.write_comparison import write_note

TAR = REPO_ROOT.parent / "shared" / "realworld" / "serena-projects.tar.gz"


FILLER = {
    "A": "The release train leaves on Thursdays after the review.",
    "B": "Screenshots for the store listing live with the designers.",
}


def _memory(title: str, *lines: str) -> str:
    """A memory of ``lines`` under a line of its own (two of them are no near-copies)."""
    filler = FILLER.get(title, f"Notes about {title.lower()} kept for later.")
    return f"# {title}\n\n{filler}\n\n" + "\n".join(lines) + "\n"


# (one memory's line, another's restating it with one value changed, the two values)
RESTATED = [
    ("- **IDE**: Xcode 16.4", "| IDE | Xcode 16.2 |", ("16.4", "16.2")),
    (
        "- Coverage is enforced at 80% via `composer run coverage:check` in CI.",
        "Backend coverage is enforced at 90% via `composer run coverage:check`, always.",
        ("80%", "90%"),
    ),
    (
        "- Type checks: `uv run poe type-check` — mypy on `src/app`, `src/lib`, `test/`.",
        "- Type checks: `uv run poe lint` — mypy on `src/app`, `src/lib`, `test/`.",
        ("uv run poe type-check", "uv run poe lint"),
    ),
    (
        "```bash\nxcodebuild test -project App.xcodeproj -scheme AppTests -destination 'x'\n```",
        "```\nxcodebuild test -project App.xcodeproj -scheme AppUnitTests -destination 'x'\n```",
        ("AppTests", "AppUnitTests"),
    ),
    ("- `SMTP_SECURE=false` for the relay.", "Set `SMTP_SECURE=true` for the relay.", None),
    ("- **Min SDK**: 24", "## Min SDK 26", ("24", "26")),
    (  # a setting in a block of source code states the value as a list would
        "- printWidth: 150",
        "```js\nmodule.exports = {\n  printWidth: 120,\n  semi: true,\n};\n```",
        ("150", "120"),
    ),
    (
        "- `cd backend; dart_frog dev` → http://localhost:8080 (needs the CLI).",
        "- `cd backend; dart_frog dev` → http://localhost:8081 (needs the CLI).",
        ("http://localhost:8080", "http://localhost:8081"),
    ),
]


@pytest.mark.parametrize(("first", "second", "values"), RESTATED)
def test_a_value_restated_in_other_words_is_a_conflict(
    first: str, second: str, values: tuple[str, str] | None
) -> None:
    report = find_duplicates({"a": _memory("A", first), "b": _memory("B", second)})
    [conflict] = report.conflicts
    assert (conflict.first, conflict.second) == ("a", "b")
    if values is not None:
        assert (conflict.first_value, conflict.second_value) == values
    assert report.problem_count == 1


@pytest.mark.parametrize(("first", "second", "_values"), RESTATED)
def test_the_same_value_restated_is_no_conflict(
    first: str, second: str, _values: tuple[str, str] | None
) -> None:
    report = find_duplicates({"a": _memory("A", first), "b": _memory("B", first + " Also.")})
    assert report.conflicts == []


# two lines alike by their words, about two things: no finding
APART = [
    (
        "- **类名**: PascalCase (MenuController, MenuService)",
        "- **类名**: PascalCase (UserService)",
    ),
    (
        "| 1 | Duplication | cli.py | 48-52 | status |",
        "| 1 | Duplication | cli.py | 530-537 | prune |",
    ),
    ("- Run `gh pr view 212 --json body`", "- Run `gh pr view 123 --json body`"),
    ("- See step 3 of the release.", "- See step 4 of the release."),
    ("- Checked: 2026-05-26 against `main`", "- Checked: 2026-05-21 against `main`"),
    ("- Requires Python 3.8+ (backend)", "- Requires Python 3.10 (backend)"),
    ("- Windows App SDK 1.8 for the UI.", "- Windows App SDK 1.8.260209005 for the UI."),
    ("- Recommendations (P0)", "- Recommendations (P1)"),
    ("- Test report: `.agents/qa/001-report.md`", "- Lint report: `.github/lint/report.md`"),
    ("- Chain commands with `;`, not `&&`.", "- Chain commands with `&&`, not `;`."),
    ("- Works in prod/dev and CI.", "- Works in app/tooling and CI."),
    # an example's file, named so (`sp_example.sql`), beside a real one: two uses
    (
        "```bash\nmysql -u root -p app < Database/StoredProcedures/sp_Line_Insert.sql\n```",
        "```bash\nmysql -u root -p app < Database/StoredProcedures/sp_example.sql\n```",
    ),
]


@pytest.mark.parametrize(("first", "second"), APART)
def test_lines_alike_about_two_things_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": _memory("A", first), "b": _memory("B", second)})
    assert report.conflicts == [], report.to_dict()


# a value restated with the words next to it reworded, a word near it kept
REWORDED = [
    (
        "- `APP_CONFIG`: path to the config file (default: ~/.config/app/server.yaml)",
        "Default config location: /etc/app/server.yaml, read once at start.",
        ("~/.config/app/server.yaml", "/etc/app/server.yaml"),
    ),
    (
        "- The renderer dev server binds `127.0.0.1:1430` with a strict port.",
        "When the port is taken, the renderer dev server (it wants `127.0.0.1:1420`,"
        " strict port) fails at once.",
        ("127.0.0.1:1430", "127.0.0.1:1420"),
    ),
    (
        "- Refresh: POST `/api/v2/auth/token/refresh/` reads the HttpOnly cookie.",
        "Token refresh is `POST /api/v2/accounts/token/refresh/`; it reads the cookie.",
        ("/api/v2/auth/token/refresh/", "POST /api/v2/accounts/token/refresh/"),
    ),
    (
        "- The local scheduler cache keeps at most 10GB of month files.",
        "Cache quota for the scheduler: 2GB; past it the oldest months are evicted.",
        ("10GB", "2GB"),
    ),
    (
        "Runtime: Bun, pinned by the root `packageManager` to `bun@1.3.11`.",
        'The root package.json pins Bun:\n```json\n"packageManager": "bun@1.2.19",\n```',
        ("bun@1.3.11", "bun@1.2.19"),
    ),
    (
        "- Store ID: 002 (fixed for every query of the receiving app)",
        "Every query of the receiving app filters on `STORE_ID = '001'`, the one fixed store.",
        ("002", "001"),
    ),
]


@pytest.mark.parametrize(("first", "second", "values"), REWORDED)
def test_a_value_restated_with_the_words_next_to_it_reworded_is_a_conflict(
    first: str, second: str, values: tuple[str, str]
) -> None:
    report = find_duplicates({"a": _memory("A", first), "b": _memory("B", second)})
    [conflict] = report.conflicts
    assert (conflict.first_value, conflict.second_value) == values


# alike around a value, but about two things (the looser reading must stay quiet)
APART_REWORDED = [
    (
        "**Method 2: Command Binding** (for help dialogs)",
        "Pattern 4: Help Dialog (Command Binding)",
    ),
    (
        "- Contracts: a shared Zod schema first in `libs/shared-types`, then the backend.",
        "- Shared API payloads use the Zod schemas of `@acme/shared-types` first.",
    ),
    (
        "- Recent migrations run by hand with `src/db/apply-00xx-*.ts` scripts.",
        "- Migration 0018 ran by hand with `src/db/apply-0018-user-sessions.ts` scripts.",
    ),
    ("- **Atomicity**: 9/10, proven on three runs", "- Atomicity of the fix: 8/10 on three runs"),
    (
        "- Audio helpers live in `src/lib/audio/` (the worklet too).",
        "- Audio helpers: `src/utils/webaudioutils.ts` holds the worklet.",
    ),
    (
        "- **User guide**: `docs/reference/multi-vfo-user-guide.md` for the new panel.",
        "- The user guide of the meter panel is `docs/reference/s-meter-user-guide.md`.",
    ),
    (
        "- The pattern is repeated in 5 handlers of the scanner.",
        "- Also repeated: the sudoers path, in 3 places of the scanner.",
    ),
    (  # kqc's real folder: an example value and a value to refuse, a verb after both
        "- Referenzwert, besonders Beispiel 1789, muss direkt ablesbar sein; Count-Badge "
        "darf Referenz-Badge nicht überdecken.",
        "- `RELATIVE_PERCENT`: Referenzwert `V` und Prozentwert `p`; `V = 0` muss "
        "verständlich und robust verhindert werden.",
    ),
    (
        "- The reference value, for example 1789, must be readable at once; the count "
        "badge must not cover it.",
        "- RELATIVE_PERCENT: reference value V and percentage p; V = 0 must be prevented "
        "clearly and robustly.",
    ),
]


@pytest.mark.parametrize(("first", "second"), APART_REWORDED)
def test_lines_reworded_about_two_things_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": _memory("A", first), "b": _memory("B", second)})
    assert report.conflicts == [], report.to_dict()


def test_a_plain_word_set_in_two_blocks_of_source_code_is_no_conflict() -> None:
    """``duration: 6000`` in one example and ``duration: 10000`` in another name two
    calls, not one setting: only a name of joined words is read as a setting in code."""
    first = "```ts\nawait device.start({\n  duration: 6000,\n});\n```"
    second = "```ts\nawait device.reset({\n  duration: 10000,\n});\n```"
    report = find_duplicates({"a": _memory("A", first), "b": _memory("B", second)})
    assert report.conflicts == []


def test_a_key_with_a_value_in_many_memories_is_a_field_not_a_claim() -> None:
    memories = {
        f"lessons/{i}": _memory(f"Lesson {i}", f"- **Impact**: {i}/10 (critical for the team)")
        for i in range(1, 8)
    }
    assert find_duplicates(memories).conflicts == []


def test_one_conflict_per_pair_of_memories_and_none_twice() -> None:
    first = _memory("A", "- **IDE**: Xcode 16.4", "- **Min SDK**: 24")
    second = _memory("B", "| IDE | Xcode 16.2 |", "| Min SDK | 26 |")
    report = find_duplicates({"a": first, "b": second})
    assert len(report.conflicts) == 1


PORT = st.integers(min_value=1, max_value=65535)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PORT, PORT, st.sampled_from(["| Dev server | port {} |", "## Dev server on port {}"]))
def test_a_port_said_twice_is_a_conflict_exactly_when_it_differs(
    here: int, there: int, form: str
) -> None:
    first = _memory("A", f"- The dev server listens on port {here} (docker compose).")
    second = _memory("B", form.format(there))
    report = find_duplicates({"a": first, "b": second})
    if here == there:
        assert report.conflicts == []
    else:
        [conflict] = report.conflicts
        assert {conflict.first_value, conflict.second_value} == {str(here), str(there)}


LINE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=120)


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=12))
def test_every_unit_is_read_again_from_its_line_alone(lines: list[str]) -> None:
    text = "\n".join(lines)
    found = units(text)
    split = text.split("\n")
    for unit in found:
        again = unit_at(split, unit.where)
        assert again is not None and again.words == unit.words and again.values == unit.values
    for key, where, _value in slot_keys(found):
        assert 0 <= key < 2**32 and unit_at(split, where) is not None


@settings(max_examples=200, deadline=None)
@given(LINE, LINE)
def test_differ_is_symmetric(first: str, second: str) -> None:
    for a in units(first):
        for b in units(second):
            for va in (w for w, v in zip(a.words, a.values, strict=True) if v):
                for vb in (w for w, v in zip(b.words, b.values, strict=True) if v):
                    assert differ(a, b, va, vb) == differ(b, a, vb, va)
                    assert restated(a, b, va, vb) == restated(b, a, vb, va)
                    if va == vb or kind(va) != kind(vb):
                        assert not differ(a, b, va, vb)


def test_the_write_is_told_of_a_value_restated_in_other_words(store: MemoryStore) -> None:
    store.write("stack", _memory("Stack", "- **Database**: PostgreSQL 16 (prod and dev)"))
    text = "# Database\n\nOne server for prod and dev.\n\n| Database | PostgreSQL 17 |\n"
    store.write("db", text)
    note = write_note(store, "db", text)
    assert "contradicts memory 'stack'" in note
    assert "`17` here, `16` there" in note


def test_the_write_is_told_of_a_value_restated_with_the_words_next_to_it_reworded(
    store: MemoryStore,
) -> None:
    store.write("setup", _memory("Setup", REWORDED[0][0]))
    text = _memory("Config", REWORDED[0][1])
    store.write("config", text)
    note = write_note(store, "config", text)
    assert "contradicts memory 'setup'" in note
    assert "/etc/app/server.yaml" in note


def _benchmark() -> Any:
    return load_script("benchmarks/duplicates_quality.py")


@pytest.mark.skipif(not TAR.is_file(), reason="../shared/realworld/ is not beside the repository")
def test_real_folders_a_value_restated_is_found_and_the_folder_left_quiet(tmp_path: Path) -> None:
    """Each small real folder as its authors wrote it: quiet; with one of its list items
    that holds a number restated as a table row in a new memory, the number changed:
    found (in most folders: some items are fields the folder repeats)."""
    with tarfile.open(TAR) as tar:
        tar.extractall(tmp_path, filter="data")
    bench = _benchmark()
    seeded = found = loud = 0
    for folder in sorted(tmp_path.glob("serena-projects/*/.serena/memories")):
        memories = bench.load(folder)
        if not 2 <= len(memories) <= 60:
            continue
        loud += len(find_duplicates(memories).conflicts)
        item = _numbered_item(memories)
        if item is None:
            continue
        name, key, said = item
        changed = dict(memories)
        other = re.sub(r"\b\d{1,5}\b", lambda n: str(int(n.group(0)) + 1), said, count=1)
        changed["seeded/restated"] = f"# Restated\n\n| {key} | {other} |\n"
        seeded += 1
        report = find_duplicates(changed)
        found += any({c.first, c.second} == {name, "seeded/restated"} for c in report.conflicts)
    assert seeded >= 10
    # 15 of 19 since the named values (integrity/duplicates/named.py): of the four left, a
    # ticket id (`HAJA-20`), a version the same line also gives (`Windows 10 ... Windows
    # 11`) and a digit in code are no values a person wants told; `larger than 512
    # bytes` is a miss (a number after `than` names nothing)
    assert found >= 0.75 * seeded
    assert loud <= 15  # of 33 folders: docs/duplicates.md says what they are


def _numbered_item(memories: dict[str, str]) -> tuple[str, str, str] | None:
    """A `- **Key**: ... N ...` list item of a memory with a number (its name, key and
    what it says), if any."""
    item = re.compile(r"^- \*\*([^*\n]{2,30})\*\*:? *([^\n|]*\b\d{1,5}\b[^\n|]*)$", re.MULTILINE)
    for name, text in sorted(memories.items()):
        m = item.search(text)
        if m:
            return name, m.group(1).rstrip(":"), m.group(2).strip()
    return None
