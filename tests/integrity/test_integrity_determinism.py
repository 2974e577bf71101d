"""The same memories always give the same report, whatever Python's hash seed.

A reviewer running `check` twice, or CI comparing reports, must never see candidates
change between runs on unchanged files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

# Large enough that the candidate search has to cut its word postings (where an
# unordered iteration once leaked into the result).
COUNT = 2000


@pytest.mark.slow  # processes under several hash seeds
def test_check_report_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "corpus.py"), str(corpus),
         "--count", str(COUNT), "--seed", "3"],
        check=True, capture_output=True,
    )  # fmt: skip
    reports = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-m", "serena_memory.cli", "memories", "check", str(corpus),
             "--json"],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        stale = json.loads(done.stdout)["stale_references"]
        assert sum(1 for entry in stale if entry["candidates"]) > 100  # plenty to compare
        reports.add(done.stdout)
    assert len(reports) == 1
