"""The checks as plug-ins: `check` with every check asked for, on a real folder in a real
git repository with stale references, code drift, near-duplicates and memories nobody
reads. The registry's output is the engines' own reports put together as the command
always printed them (JSON keys in order, text sections in order, the strict advice), and
each registered check says what it reads and what the strict check tells."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import run_cli
from test_code_drift import commit, git, memory, write
from test_duplicates import DEPLOY

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.check import run_code_check
from serena_memory.integrity.duplicates.features_cache import check_duplicates
from serena_memory.integrity.listing import MemoryListingReader
from serena_memory.integrity.plugins.base import CheckOptions
from serena_memory.integrity.plugins.registry import ADVICE_ORDER, CHECKS, run_checks
from serena_memory.integrity.references.check import run_check
from serena_memory.usage import log
from serena_memory.usage.unused import unused_memories

DAY = 86400
EVERY = ("--include-unmarked", "--reachability", "--code", "--duplicates", "--unused", "30")


@pytest.fixture
def folder(store: MemoryStore, project: Path) -> Path:
    """A project whose memories have a stale reference, a moved and a deleted file, a
    near-duplicate pair and memories nobody read for 40 days."""
    git(project, "init", "-q", "-b", "main")
    write(project, "src/app/old_config.py", "X = 1\n")
    write(project, "src/app/gone.py", "Y = 2\n")
    memory(project, "core", "# Core\n\nSee mem:architecture, mem:missing-one, mem:ops/deploy.\n")
    memory(
        project,
        "architecture",
        "# Architecture\n\nConfig in `src/app/old_config.py`; helpers in `src/app/gone.py`.\n",
    )
    memory(project, "ops/deploy", DEPLOY)
    lines = DEPLOY.splitlines()
    memory(project, "notes/deploying", "\n".join([lines[0], "", *lines[2:6]]) + "\n")
    commit(project, "start")
    git(project, "mv", "src/app/old_config.py", "src/app/config.py")
    (project / "src/app/gone.py").unlink()
    commit(project, "move")
    counts = (
        store.layout.home
        / "usage"
        / (log.project_file(str(store.layout.project_root)) + log.FOLDED)
    )
    counts.parent.mkdir(parents=True, exist_ok=True)
    counts.write_text(f"#serena-usage\t1\t{int(time.time() - 40 * DAY)}\n", encoding="utf-8")
    moment = time.time() - 45 * DAY
    for name in ("core", "architecture", "ops/deploy", "notes/deploying"):
        os.utime(store.real_path_of(name), (moment, moment))
    return project


def test_every_check_in_one_json_report_keyed_as_the_engines_report(
    store: MemoryStore, folder: Path
) -> None:
    done = run_cli("memories", "check", str(folder), *EVERY, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    # the engines' own reports, put together: the memories' references, the duplicates
    # (which make the report not clean), the code's, the unused memories'
    expected = run_check(store, include_unmarked=True, reachability=True)
    composed = {
        **expected.to_dict(),
        "duplicates": check_duplicates(store, MemoryListingReader(store), 1).to_dict(),
        **run_code_check(store).to_dict(),
        **unused_memories(store, 30).to_dict(),
    }
    composed["clean"] = False
    assert list(data) == list(composed)
    assert data == json.loads(json.dumps(composed))
    assert [s["target"] for s in data["stale_references"]] == ["missing-one"]
    assert len(data["duplicates"]["near_duplicate_memories"]) == 1
    assert {f["status"] for f in data["code"]} == {"missing", "moved"}
    assert [m["name"] for m in data["unused"]] == [
        "architecture",
        "core",
        "notes/deploying",
        "ops/deploy",
    ]


def test_the_text_shows_each_check_in_turn_and_strict_advises_in_the_order_of_fixing(
    folder: Path,
) -> None:
    done = run_cli("memories", "check", str(folder), *EVERY, "--strict")
    assert done.returncode == 1
    out = done.stdout
    starts = [
        out.index(h) for h in ("Stale references (1):", "Near-duplicate", "Code: ", "Unused: ")
    ]
    assert starts == sorted(starts)
    [failure] = done.stderr.splitlines()
    assert failure.startswith("The strict check failed: for duplicates, merge the two")
    parts = ["for duplicates", "point each reference", "for the mentions of code", "delete, merge"]
    assert [failure.index(p) for p in parts] == sorted(failure.index(p) for p in parts)
    assert failure.endswith(". Then run the check (or the commit) again.")


def test_a_clean_references_report_above_code_findings_is_one_short_line(
    store: MemoryStore, folder: Path
) -> None:
    memory(folder, "core", "# Core\n\nSee mem:architecture and mem:ops/deploy.\n")
    (folder / ".serena/memories/notes/deploying.md").unlink()
    done = run_cli("memories", "check", str(folder), "--code", "--strict")
    assert done.stdout.startswith("References: no problems found (3 memories checked).\nCode: ")
    assert done.returncode == 1 and "for the mentions of code" in done.stderr
    assert "point each reference" not in done.stderr and "for duplicates" not in done.stderr


def test_the_registry_runs_only_what_is_asked_and_says_what_each_check_reads(
    store: MemoryStore, folder: Path
) -> None:
    results = run_checks(store, CheckOptions(unused_days=30, jobs=1))
    assert [check.name for check, _ in results.found] == ["references", "unused", "lifecycle"]
    assert [check.name for check in results.failing()] == ["references", "unused"]
    assert sorted(ADVICE_ORDER) == sorted(check.name for check in CHECKS)
    for check in CHECKS:
        assert check.reads and check.advice.strip() and check.name
        assert check.flag == "" or check.flag == f"--{check.name}" or check.name == "code"
