"""Values aligned by what they are of (:mod:`serena_memory.integrity.duplicates.named`), one
command with one option set two ways (:mod:`.commands`), and a note that rewrites a part
of a longer memory (:mod:`.rewrites`): written as real memory folders through a real store
and checked with the cache, as `serena memories check --duplicates` does."""

from __future__ import annotations

from pathlib import Path

import pytest
from duplicates_support import checked, memory

from serena_memory.integrity.duplicates import find_duplicates

# one memory's line, another's saying the value of the same name in other words
SAID_OF_A_NAME = [
    ("| Database | PostgreSQL 18 |", "The monorepo runs inside Docker, against PostgreSQL 17."),
    ("- **Language**: Go 1.21+", "The module requires **Go 1.23+** for range-over-func."),
    ("- **Python**: 3.11以上（メイン言語）", "The server needs Python 3.10 or newer and asyncio."),
    ("- **black**: 88文字行長、isort 連携", "- **black**: 100文字行長"),
    ("- Backend: `dart_frog dev` # http://localhost:8080", "The API answers at localhost:8081."),
    ("- **Functions**: ~50 lines max", "- **Functions**: ~80 lines, then split"),
    # a version inside a longer span of code: pinned, after a dependency's name, a range
    (
        "- Bun, pinned by root `packageManager` to `bun@1.3.11`.",
        '- The root `package.json` pins it with `"packageManager": "bun@1.2.19"`.',
    ),
    ("Uses `graphview ^1.5.0` for the layout.", "## graphview ^1.2.0"),
    ("- Python: `>=3.11, <3.15`. Pin exactly.", "| Supported Python | `>=3.12, <3.15` |"),
    ("- Python: `>=3.11, <3.15`.", 'The `requires-python = ">=3.11, <3.14"` bound is kept.'),
    # a preposition after the number is no unit of it; a note glued to it; a quoted literal
    ("| Database | PostgreSQL 18 |", "Development runs against PostgreSQL 16 inside the stack."),
    ("- **Min SDK**: 24", "앱의 최소 지원 버전은 minSdk 26(Android 8.0)이고, 기기는 많다."),
    (
        '- `home.stateVersion = "25.11"`: do not bump casually.',
        '| Setting | Value |\n|---|---|\n| `home.stateVersion` | `"24.11"` |',
    ),
    # a requirement written in prose; a switch set, or given as its default
    ("- fastapi==0.111.0 (Web框架)", "- fastapi==0.104.1 — Web 框架"),
    ("- Sidecar: `NLP_ENABLED` default false, not started.", "```env\nNLP_ENABLED=true\n```"),
    ("- `SMTP_SECURE=false` on port 587.", "Set `SMTP_SECURE: true` for the mail relay."),
    ("- The compiler runs with strictMode: true.", "- Builds keep strictMode: false for now."),
]


@pytest.mark.parametrize(("first", "second"), SAID_OF_A_NAME)
def test_a_value_of_one_name_said_two_ways_is_a_conflict(
    tmp_path: Path, first: str, second: str
) -> None:
    report = checked(tmp_path, {"stack": memory("Stack", first), "notes": memory("Notes", second)})
    assert {(c.first, c.second) for c in report.conflicts} == {("notes", "stack")}


# two numbers after one word that are no two values of one thing
NOT_ONE_THING = [
    ("- Postgres 16 for local dev.", "- Default local ports: Postgres 5432, Redis 6379."),
    ("- Available since macOS 10.5 (2007).", "- Defaults as of macOS 15 are kept."),
    ("- Documentation (13 files) reviewed.", "- Context7 Documentation (2 tools) added."),
    ("## Template Sync Verification 95", "## Criticalfail Review Verification 10"),
    ("- Processed PRs: 10 this week.", "- Reviewed 3 PRs; Processed 4 later."),
    ("- Valid per PEP 3126 and tested.", "- Deps are PEP 668 managed and tested."),
    ("- Findings: Critical 0, High 13, Medium 37.", "- The High 11 list was read first."),
    ("- Requires Python 3 for scripts.", "- Requires Python 3.10 for scripts."),
    ("- Node 22 and 24 run in CI.", "- `.nvmrc` pins Node 24.18.0."),
    # a range's two ends are two values: its lower bound is not set against its upper
    ("- Python: `>=3.11, <3.15`.", "- Python: `>=3.11`, tested up to 3.14."),
    ("- Python: `>=3.11, <3.15`.", "- Node: `>=20, <25`."),
    ("- Install with `npm i -g pnpm@9.1.0 turbo@2.0.1`.", "- `pnpm@9.1.0` is the only manager."),
    # a switch said in prose, not set; a requirement's lower end against a pin
    ("- It is true that `use_cache` helps.", "- `use_cache: false` in tests."),
    # a plain word set beside a name joined by case elsewhere on the line: no setting's
    ("- The `useCache` hook logs with debug: true.", "- The `useCache` hook: debug: false."),
    ("- django>=4.2 is supported.", "- Pinned: django==5.0.1."),
]


@pytest.mark.parametrize(("first", "second"), NOT_ONE_THING)
def test_numbers_that_are_not_one_value_twice_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()


def test_a_name_three_memories_give_three_values_is_no_conflict() -> None:
    memories = {
        name: memory(name.title(), f"- Built against PostgreSQL {version} in CI.")
        for name, version in (("a", 15), ("b", 16), ("c", 17))
    }
    assert find_duplicates(memories).conflicts == []


def test_one_option_argument_set_two_ways_is_a_conflict(tmp_path: Path) -> None:
    first = memory("Packaging", "```bash", "mvn clean package -P prod    # production", "```")
    second = memory("Deploying", "Build with `mvn clean package -P production` before the upload.")
    report = checked(tmp_path, {"packaging": first, "deploying": second})
    [conflict] = report.conflicts
    assert {conflict.first_value, conflict.second_value} == {"-P prod", "-P production"}


# one command with two arguments that are two uses, not one setting two ways
TWO_USES = [
    ('grep -r "pattern" .', 'grep -r "function_name" .'),
    (
        "uv run ce validate --level 1 # Quick validation",
        "uv run ce validate --level 4 # Conformance",
    ),
    ("git mkdir -p .git/issue-scratch now", "git mkdir -p /home/me/worktrees now"),
    ("gh run list --json createdat -L 5", "gh run list --json databaseid,createdat -L 5"),
    ("spindump -i file.tailspin -x", "spindump -file file.tailspin -x"),
]


@pytest.mark.parametrize(("first", "second"), TWO_USES)
def test_two_uses_of_one_command_are_no_conflict(first: str, second: str) -> None:
    memories = {
        "a": memory("A", "```bash", first, "```"),
        "b": memory("B", "```bash", second, "```"),
    }
    assert find_duplicates(memories).conflicts == []


OTHERS = {
    f"topic_{n}": memory(f"Topic {n}", f"- The {word} release note is kept in `docs/{word}.md`.")
    for n, word in enumerate(("spring", "summer", "autumn", "winter"))
}
"""Memories beside the pair: how rare a word is is told among them."""

CHECKLIST = [
    "- `uv run ruff check src`",
    "- `uv run ruff format --check src`",
    "- `uv run mypy src`",
    "- `uv run pytest -q tests/unit`",
    "- `uv run pytest -q tests/integration`",
    "- `uv run lint-imports`",
]


def test_a_checklist_of_the_same_commands_in_new_prose_is_a_near_copy(tmp_path: Path) -> None:
    first = memory("Task completion", "Before a task is done, run every check:", *CHECKLIST)
    second = memory(
        "Verification",
        "Nothing merges until the gates pass; the order matters little:",
        *(line.replace("- ", "- gate: ") for line in reversed(CHECKLIST)),
    )
    report = checked(tmp_path, {"task_completion": first, "verification": second})
    assert [(d.first, d.second) for d in report.memories] == [("task_completion", "verification")]


def test_a_note_rewriting_a_part_of_a_longer_memory_is_a_near_copy() -> None:
    rules = [
        "- Persist quests through `QuestStore.save` only, never `UserDefaults` directly.",
        "- Migrations live in `Persistence/Migrations` and run from `AppDelegate`.",
        "- Every model change bumps `SchemaVersion.current` by one.",
        "- Tests use `InMemoryQuestStore`, never the disk store.",
    ]
    longer = memory(
        "Core",
        *rules,
        *(
            f"- Screen {n} shows `Panel{n}View` from `Screens/Panel{n}` with its own tint."
            for n in range(12)
        ),
    )
    note = memory(
        "Persistence rules",
        "How quests are kept on disk, as the team agreed:",
        "- Saving goes through `QuestStore.save`; touching `UserDefaults` directly is out.",
        "- `Persistence/Migrations` holds the migrations, run by `AppDelegate` at launch.",
        "- Any model change means `SchemaVersion.current` goes up one.",
        "- `InMemoryQuestStore` in tests; the disk store stays out of them.",
    )
    report = find_duplicates({"core": longer, "persistence_rules": note, **OTHERS})
    assert [(d.first, d.second) for d in report.memories] == [("core", "persistence_rules")]


def test_a_note_on_the_topic_of_a_longer_memory_is_no_near_copy() -> None:
    longer = memory(
        "Core",
        *(
            f"- Screen {n} shows `Panel{n}View` from `Screens/Panel{n}` with its own tint."
            for n in range(12)
        ),
    )
    note = memory(
        "Panel colours",
        "- The tint of a panel comes from the asset catalogue, never from code.",
        "- Dark mode swaps the catalogue set; `Panel3View` is the one exception.",
    )
    assert find_duplicates({"core": longer, "panel_colours": note, **OTHERS}).memories == []


def test_a_package_pinned_to_two_versions_is_a_conflict() -> None:
    """`bun@1.3.11` says the version bun is pinned to, however the line is worded."""
    first = memory("Stack", "- Package manager: Bun, pinned by `packageManager` to `bun@1.3.11`.")
    second = memory("Bun", "Root `packageManager` pins `bun@1.2.19`; CI installs the same.")
    found = find_duplicates({"stack": first, "bun": second}).conflicts
    assert [(c.first_value, c.second_value) for c in found] == [("bun@1.2.19", "bun@1.3.11")]


def test_one_port_written_two_ways_is_one_value() -> None:
    """`localhost:1420` and `http://localhost:1420` say one port: with a third memory's
    `localhost:5173` that is two values (a conflict), not three (a count that moves on)."""
    memories = {
        "commands": memory(
            "Commands", "- Frontend dev server: `bun run dev` → http://localhost:1420"
        ),
        "checks": memory("Checks", "- Check `bun run dev` in a browser at localhost:1420 first."),
        "preview": memory("Preview", "| URL | http://localhost:5173 (Vite default) |"),
    }
    found = {(c.first, c.second) for c in find_duplicates(memories).conflicts}
    assert ("commands", "preview") in found


def test_a_threshold_said_of_its_command_is_a_value_of_it() -> None:
    """The one percentage of a line said of the command in it: a threshold the command
    enforces, however the two lines are worded."""
    first = memory(
        "Testing", "- Coverage is enforced at 80% via `composer run coverage:check` in CI."
    )
    second = memory("Gate", "`composer run coverage:check` fails below **90%** line coverage.")
    found = find_duplicates({"testing": first, "gate": second}).conflicts
    assert [(c.first_value, c.second_value) for c in found] == [("90%", "80%")]


def test_two_percentages_of_one_command_are_no_threshold() -> None:
    first = memory("Testing", "- `make bench` takes 20% to 40% of the CPU on the build host.")
    second = memory("Gate", "- `make bench` shows 35% of the CPU spent in the parser.")
    assert find_duplicates({"testing": first, "gate": second}).conflicts == []


# a setting's value, its name spelled another way (joined by case or a mark, or in words)
SAID_OF_A_SETTING = [
    ("- **Min SDK**: 24", "| Setting | Value |\n|---|---|\n| minSdk | 26 |"),
    (
        "- Prettier: single quotes, semicolons, print width 100, LF, 2 spaces.",
        '```json\n{\n  "singleQuote": true,\n  "printWidth": 120,\n}\n```',
    ),
    ("- **Style:** ruff with E/W/F/I/UP; line-length 119; isort", "## Line length: 100 characters"),
    (
        "`RunBackupJob` runs on the queue (`retry_after` 3600), `tries = 1`, `timeout` 1800.",
        "- `RunBackupJob` declares `timeout` 2700 to leave headroom for large media folders.",
    ),
    ("- Default values: audioGain=1.0, priority=5, status=IDLE", "- `priority`: `1` (lowest)"),
]


@pytest.mark.parametrize(("first", "second"), SAID_OF_A_SETTING)
def test_a_setting_whose_name_is_spelled_two_ways_is_a_conflict(
    tmp_path: Path, first: str, second: str
) -> None:
    report = checked(tmp_path, {"stack": memory("Stack", first), "notes": memory("Notes", second)})
    assert {(c.first, c.second) for c in report.conflicts} == {("notes", "stack")}


# a joined name beside a number that is not what the number sets
NOT_A_SETTING = [
    ("- The run ended with `REAL_EXIT=1`, the race above.", "- A `REAL_EXIT=0` on a worktree."),
    ("- 19 cancelled pushes to `main` in 45 seconds.", "- The baseline on `main` at 598 today."),
    ("- python-tests 498.52 / 475.00 = 1.05 slower", "| `python-tests` | 743.77 |"),
    ("- The regression may be a fluke with n=6 samples.", "- Upgrade when n=30 with a 100% rate."),
    ("- **Workflow burst rate-limit.** 32 parallel subagents", "- Retry a rate-limit 403 later."),
    ("- Files Fixed: 59 in the last sweep", "- The hook sets FILES_FIXED=1 on a fix."),
]


@pytest.mark.parametrize(("first", "second"), NOT_A_SETTING)
def test_a_number_beside_a_joined_name_it_does_not_set_is_no_conflict(
    first: str, second: str
) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()
