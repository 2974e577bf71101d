"""Usage counts that stay true when the fold meets a full disk or is killed half-way, and
client names with any control character counted, not dropped. Real files: a small tmpfs
for the full disk (skipped where mounting is not permitted), a real SIGKILL for the
crash."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.small_disk import small_disk as mounted_disk

from serena_memory.core.changes import Provenance, acting_as, clean
from serena_memory.core.store import MemoryStore
from serena_memory.usage import log
from serena_memory.usage.report import store_usage

BASE = "project-" + "0" * 32


def total(home: Path) -> dict[str, int]:
    return {name: m.reads for name, m in log.counts(home, BASE).memories.items()}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, as $SERENA_HOME."""
    with mounted_disk(tmp_path / "small-disk", 64 * 1024) as where:
        yield where


def test_a_fold_on_a_full_disk_loses_no_count(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log, "FOLD_AT", 8000)
    now = int(time.time())
    folder = small_disk / log.FOLDER
    folder.mkdir()
    names = [f"memory_{i:05}" for i in range(800)]
    lines = [f"{now}\t1\tcli\t{name}\n" for name in names]
    (folder / (BASE + log.APPENDED)).write_text(f"{log.HEADER}\t1\t{now}\n" + "".join(lines))
    # the disk is left with less room than the counts need
    with contextlib.suppress(OSError), open(small_disk / "filler", "wb") as filler:
        filler.write(b"x" * (32 * 1024))
    with contextlib.suppress(OSError):  # the fold fails: the read is counted all the same
        log.append(small_disk, BASE, now, "cli", "memory_new")
    counted = total(small_disk)
    assert len(counted) == len(names) + 1, f"{len(counted)} of {len(names) + 1} counted"
    assert set(counted.values()) == {1}
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []
    (small_disk / "filler").unlink()  # room again: the next fold succeeds, counting each once
    log.append(small_disk, BASE, now, "cli", "memory_new")
    assert not (folder / (BASE + log.APPENDED)).exists()
    counted = total(small_disk)
    assert len(counted) == len(names) + 1 and counted["memory_new"] == 2


KILLED_FOLD = """
import os, signal, sys
from pathlib import Path
from serena_memory.usage import log
home, base = Path(sys.argv[1]), sys.argv[2]
log.FOLD_AT = 3000
removing = log._remove
def killed_before_removing_the_log(dfd, name):
    if name.endswith(log.APPENDED):  # the new counts are in place: die right here
        os.kill(os.getpid(), signal.SIGKILL)
    removing(dfd, name)
log._remove = killed_before_removing_the_log
for i in range(1000):
    log.append(home, base, 1_700_000_000 + i, "cli", f"memory_{i % 7}")
"""


def test_a_fold_killed_before_removing_the_log_counts_each_read_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-c", KILLED_FOLD, str(home), BASE], capture_output=True, check=False
    )
    assert done.returncode == -9, done.stderr.decode()
    left = (home / log.FOLDER / (BASE + log.APPENDED)).read_bytes().decode()
    appended = len(left.splitlines()) - 1  # the reads before the kill, all still in the log
    assert sum(total(home).values()) == appended
    log.append(home, BASE, time.time(), "cli", "memory_0")  # and on from there
    assert sum(total(home).values()) == appended + 1
    with (home / log.FOLDER / (BASE + log.APPENDED)).open("a") as handle:
        handle.write("damaged\n")  # the next report folds it all
    assert sum(total(home).values()) == appended + 1
    assert not (home / log.FOLDER / (BASE + log.APPENDED)).exists()


def test_a_record_cut_short_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / log.FOLDER
    folder.mkdir(parents=True)
    now = int(time.time())
    (folder / (BASE + log.FOLDED)).write_text(
        f"{log.HEADER}\t1\t{now}\n{now}\t3\tcli\tops/deploy\n{now}\t2\tcli\tops/depl"
    )
    assert total(tmp_path) == {"ops/deploy": 3}


@pytest.mark.parametrize("control", ["\x85", "\x9b", "\x80", "\x07", "\x7f"])
def test_a_client_named_with_a_control_character_is_counted(
    store: MemoryStore, control: str
) -> None:
    store.write("core", "x")
    with acting_as(Provenance("mcp", f"agent{control}tool 1.0", "read_memory")):
        store.read("core")
    (usage,) = store_usage(store).memories
    assert usage.reads == 1
    assert usage.clients == {"agent tool": 1}
    assert clean(f"agent{control}tool") == "agent tool"
