"""Speed of the duplicate check: `serena memories check --duplicates` beside `serena
memories check` on 10,000 generated memories (about 37 MB), cold (no cache) and cached
(nothing changed, and one memory changed), whole-process medians; and what a write
costs with and without the duplicate note (`duplicates_note`, in-process medians, the
store's write alone as the baseline), with the cache warm and with the cache gone.

Targets: the cold check with duplicates within a few seconds (at most 5 s here); the
note at most 50 ms over a write with a warm cache.

Usage: ``python benchmarks/bench_duplicates.py [--runs N] [--count N] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from _common import Workspace, fmt_seconds, median, ours_command, time_process, verdict


def clear_caches(home: Path) -> None:
    for kind in ("check", "duplicates"):
        shutil.rmtree(home / "cache" / kind, ignore_errors=True)


def time_cold(cmd: list[str], env: dict[str, str], home: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        clear_caches(home)
        times += time_process(cmd, env, 1)
    return median(times)


def time_one_changed(cmd: list[str], env: dict[str, str], project: Path, runs: int) -> float:
    """The check after one memory changed (its file rewritten each run)."""
    target = next((project / ".serena" / "memories").rglob("*.md"))
    original = target.read_text(encoding="utf-8")
    times = []
    try:
        for i in range(runs):
            target.write_text(original + f"\nOne more line, number {i}.\n", encoding="utf-8")
            time.sleep(1.1)  # past the cache's one-second window of a racy file
            times += time_process(cmd, env, 1)
    finally:
        target.write_text(original, encoding="utf-8")
    return median(times)


def write_costs(project: Path, home: Path, runs: int) -> tuple[float, float, float]:
    """(write alone, write and note with a warm cache, write and note with no cache), in
    this process, medians."""
    os.environ["SERENA_HOME"] = str(home)
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.service import duplicates_note

    store = MemoryStore(project)
    text = "# Scratch\n\nA new note about the build, written by the benchmark.\n"
    alone, warm, cold = [], [], []
    for i in range(runs):
        start = time.perf_counter()
        store.write("bench/scratch", text + f"Run {i}.\n")
        alone.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.write("bench/scratch", text + f"Run {i}, again.\n")
        duplicates_note(store, "bench/scratch", text)
        warm.append(time.perf_counter() - start)
        clear_caches(home)
        start = time.perf_counter()
        store.write("bench/scratch", text + f"Run {i}, once more.\n")
        duplicates_note(store, "bench/scratch", text)
        cold.append(time.perf_counter() - start)
        duplicates_note(store, "bench/scratch", text)  # warms the cache up a bit
    store.delete("bench/scratch")
    return statistics.median(alone), statistics.median(warm), statistics.median(cold)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpus in DIR")
    args = parser.parse_args(argv)
    ws = Workspace(args.keep)
    env = ws.ours_env()
    ours = ours_command()
    try:
        project, mb = ws.project(args.count)
        print(f"corpus: {args.count:,} memories ({mb:.1f} MB)")
        check = [*ours, "memories", "check", str(project)]
        dups = [*check, "--duplicates"]
        rows = [
            ("check, cold", time_cold(check, env, ws.home, args.runs)),
            ("check --duplicates, cold", time_cold(dups, env, ws.home, args.runs)),
        ]
        time_process(dups, env, 1)  # fills both caches
        rows += [
            ("check, cached", median(time_process(check, env, args.runs))),
            ("check --duplicates, cached", median(time_process(dups, env, args.runs))),
            ("check --duplicates, one changed", time_one_changed(dups, env, project, args.runs)),
        ]
        for label, seconds in rows:
            print(f"{label:34} {fmt_seconds(seconds):>9}")
        alone, warm, cold = write_costs(project, ws.home, args.runs)
        print(f"{'write alone':34} {fmt_seconds(alone):>9}")
        extra = fmt_seconds(warm - alone)
        print(f"{'write + note, cache warm':34} {fmt_seconds(warm):>9}  (+{extra})")
        print(
            f"{'write + note, no cache':34} {fmt_seconds(cold):>9}  (+{fmt_seconds(cold - alone)})"
        )
        print(f"cold check with duplicates <= 5 s: {verdict(rows[1][1], 5.0)}")
        print(f"note over a write <= 50 ms (warm): {verdict(warm - alone, 0.05)}")
    finally:
        ws.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
