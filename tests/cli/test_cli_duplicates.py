"""`serena memories check --duplicates` on real files: the text report says what to do,
`--json` lists the same findings, `--strict` exits 1 on them (through a real process)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import run_cli
from test_duplicates import DEPLOY

from serena_memory.cli import cli


def memories(project: Path) -> Path:
    folder = project / ".serena" / "memories"
    (folder / "ops").mkdir(parents=True)
    (folder / "notes").mkdir()
    return folder


def run(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="serena")


def test_a_clean_folder_says_duplicates_were_checked(project: Path) -> None:
    folder = memories(project)
    (folder / "ops" / "deploy.md").write_text(DEPLOY, encoding="utf-8")
    (folder / "notes" / "other.md").write_text("# Other\n\nNothing alike.\n", encoding="utf-8")
    result = run("memories", "check", str(project), "--duplicates", "--strict")
    assert result.exit_code == 0
    assert result.stdout == (
        "No integrity problems found (2 memories, references, duplicates and conflicts checked).\n"
    )


def test_text_json_and_strict_report_the_same_near_duplicate(project: Path) -> None:
    folder = memories(project)
    (folder / "ops" / "deploy.md").write_text(DEPLOY, encoding="utf-8")
    copy = "\n".join(reversed(DEPLOY.replace("8080", "3000").splitlines()[2:])) + "\n"
    (folder / "notes" / "deploying.md").write_text(copy, encoding="utf-8")
    text = run("memories", "check", str(project), "--duplicates")
    assert text.exit_code == 0
    assert "Near-duplicate memories (1):" in text.stdout
    assert "`notes/deploying` and `ops/deploy`" in text.stdout
    assert "(`3000` vs `8080`)" in text.stdout
    assert "merge the two into one memory" in text.stdout
    data = json.loads(run("memories", "check", str(project), "--duplicates", "--json").stdout)
    assert data["clean"] is False
    [pair] = data["duplicates"]["near_duplicate_memories"]
    assert pair["first"]["memory"] == "notes/deploying"
    assert pair["second"] == {"memory": "ops/deploy", "lines": [1, 8]}
    [conflict] = pair["conflicts"]
    assert (conflict["first_value"], conflict["second_value"]) == ("3000", "8080")
    strict = run_cli("memories", "check", str(project), "--duplicates", "--strict")
    assert strict.returncode == 1
    assert "for duplicates, merge the two memories" in strict.stderr
    assert "Traceback" not in strict.stderr
    plain = run("memories", "check", str(project))  # without the option: not looked for
    assert plain.exit_code == 0 and "Near-duplicate" not in plain.stdout


def test_an_example_year_and_a_zero_of_two_sentences_are_no_conflict(project: Path) -> None:
    """kqc's real folder: `Beispiel 1789` in a UX guideline and `V = 0` in a story's note
    were told as conflicting values; a verb after both numbers ties nothing. A count
    that changed is still told."""
    folder = memories(project)
    (folder / "notes" / "ux-guidelines.md").write_text(
        "# Numeric estimate: UX guidelines\n\n- Referenzwert, besonders Beispiel 1789, muss "
        "direkt ablesbar sein; Count-Badge darf Referenz-Badge nicht überdecken.\n",
        encoding="utf-8",
    )
    (folder / "notes" / "story-1-2d.md").write_text(
        "# Story 1.2d\n\n- `RELATIVE_PERCENT`: Referenzwert `V` und Prozentwert `p`; `V = 0` "
        "muss verständlich und robust verhindert werden.\n",
        encoding="utf-8",
    )
    (folder / "ops" / "workers.md").write_text(
        "# Workers\n\n- The worker pool keeps 4 workers alive, see the pool config.\n",
        encoding="utf-8",
    )
    (folder / "ops" / "pool.md").write_text(
        "# Pool\n\n- The worker pool keeps 8 workers alive by default.\n", encoding="utf-8"
    )
    result = run("memories", "check", str(project), "--duplicates")
    assert result.exit_code == 0
    assert "Conflicting statements (1):" in result.stdout, result.stdout
    assert "(`4` vs `8`)" in result.stdout or "(`8` vs `4`)" in result.stdout
    assert "1789" not in result.stdout


def test_a_conflicts_advice_names_the_memory_changed_longer_ago(project: Path) -> None:
    """The advice read "write in the older memory that the other supersedes it" without
    saying which one is older; the files' modification times tell, when far enough apart."""
    import os
    import time

    folder = memories(project)
    workers, pool = folder / "ops" / "workers.md", folder / "ops" / "pool.md"
    workers.write_text("# Workers\n\n- The worker pool keeps 4 workers alive.\n")
    pool.write_text("# Pool\n\n- The worker pool keeps 8 workers alive by default.\n")
    three_days_ago = time.time() - 3 * 86400
    os.utime(pool, (three_days_ago, three_days_ago))
    result = run("memories", "check", str(project), "--duplicates")
    assert "Conflicting statements (1):" in result.stdout, result.stdout
    assert "; `ops/pool` was changed longer ago)" in result.stdout
    assert result.stdout.rstrip().endswith(
        "what to do: fix the statement that is wrong, or write in `ops/pool` (the older "
        "memory) that `ops/workers` supersedes it"
    )
    data = json.loads(run("memories", "check", str(project), "--duplicates", "--json").stdout)
    [conflict] = data["duplicates"]["conflicts"]
    assert conflict["older"] == "ops/pool"
    assert {conflict["first"]["memory"], conflict["second"]["memory"]} == {
        "ops/pool",
        "ops/workers",
    }
    # changed within the same minute (a clone writes every file at once): not told apart
    os.utime(pool, (time.time(), time.time()))
    same = run("memories", "check", str(project), "--duplicates")
    assert "changed longer ago" not in same.stdout and "(the older memory)" not in same.stdout
    assert "or write in the older memory that the other supersedes it" in same.stdout
    again = json.loads(run("memories", "check", str(project), "--duplicates", "--json").stdout)
    assert again["duplicates"]["conflicts"][0]["older"] is None
