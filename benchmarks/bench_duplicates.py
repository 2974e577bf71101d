"""Speed of the duplicate check: `serena memories check --duplicates` beside `serena
memories check` on 10,000 generated memories (about 37 MB), cold (no cache) and cached
(nothing changed, and one memory changed), whole-process medians; and what a write
costs and what the duplicate note after it costs (`write_note`, each timed on its
own in-process, medians), with the cache warm and with the cache gone.

Targets: the cold check with duplicates within a few seconds (at most 5 s here); the
note at most 50 ms with a warm cache.

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


CPU: dict[str, float] = {}
"""CPU seconds (the process and its workers) of each row: a machine shared with other
work disturbs them far less than the wall clock."""


def timed(label: str, runs: int, once) -> float:
    """Median wall seconds of ``once(cpu)`` run ``runs`` times; its CPU median kept."""
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        times += once(cpu)
    CPU[label] = median(cpu)
    return median(times)


def time_cold(cmd: list[str], env: dict[str, str], home: Path, runs: int, label: str) -> float:
    def once(cpu: list[float]) -> list[float]:
        clear_caches(home)
        return time_process(cmd, env, 1, cpu)

    return timed(label, runs, once)


def time_one_changed(
    cmd: list[str], env: dict[str, str], project: Path, runs: int, label: str
) -> float:
    """The check after one memory changed (its file rewritten each run)."""
    target = next((project / ".serena" / "memories").rglob("*.md"))
    original = target.read_text(encoding="utf-8")
    count = [0]

    def once(cpu: list[float]) -> list[float]:
        count[0] += 1
        target.write_text(original + f"\nOne more line, number {count[0]}.\n", encoding="utf-8")
        time.sleep(1.1)  # past the cache's one-second window of a racy file
        return time_process(cmd, env, 1, cpu)

    try:
        return timed(label, runs, once)
    finally:
        target.write_text(original, encoding="utf-8")


def write_costs(project: Path, home: Path, runs: int) -> tuple[float, float, float]:
    """(a write, the note after it with the cache warm, the note with no cache), each
    timed on its own in this process, medians: what the note adds to a write."""
    os.environ["SERENA_HOME"] = str(home)
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.duplicates.features_cache import check_duplicates
    from serena_memory.integrity.duplicates.write_comparison import write_note

    store = MemoryStore(project)
    base = "# Scratch\n\nA new note about the build, written by the benchmark.\n"
    writes, warm, cold = [], [], []
    write_note(store, "bench/scratch", base)  # loads numpy once, as a server has
    for i in range(runs):
        for kind in ("warm", "cold"):
            text = base + f"Run {i}, {kind}.\n"
            if kind == "cold":
                clear_caches(home)
            start = time.perf_counter()
            store.write("bench/scratch", text)
            writes.append(time.perf_counter() - start)
            start = time.perf_counter()
            write_note(store, "bench/scratch", text)
            (warm if kind == "warm" else cold).append(time.perf_counter() - start)
        check_duplicates(store, jobs=2)  # the cache filled again, as the next check does
    store.delete("bench/scratch")
    return statistics.median(writes), statistics.median(warm), statistics.median(cold)


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
            ("check, cold", time_cold(check, env, ws.home, args.runs, "check, cold")),
            (
                "check --duplicates, cold",
                time_cold(dups, env, ws.home, args.runs, "check --duplicates, cold"),
            ),
        ]
        time_process(dups, env, 1)  # fills both caches
        for label, cmd in (("check, cached", check), ("check --duplicates, cached", dups)):
            rows.append(
                (label, timed(label, args.runs, lambda cpu, c=cmd: time_process(c, env, 1, cpu)))
            )
        label = "check --duplicates, one changed"
        rows.append((label, time_one_changed(dups, env, project, args.runs, label)))
        print(f"{'':34} {'wall':>9} {'CPU':>9}")
        for label, seconds in rows:
            print(f"{label:34} {fmt_seconds(seconds):>9} {fmt_seconds(CPU[label]):>9}")
        write, warm, cold = write_costs(project, ws.home, args.runs)
        print(f"{'a write (store.write)':34} {fmt_seconds(write):>9}")
        print(
            f"{'its note, cache warm':34} {fmt_seconds(warm):>9}  ({warm / write:.0%} of a write)"
        )
        print(f"{'its note, no cache':34} {fmt_seconds(cold):>9}  ({cold / write:.0%} of a write)")
        print(f"cold check with duplicates <= 5 s: {verdict(rows[1][1], 5.0)}")
        print(f"note after a write <= 50 ms (warm): {verdict(warm, 0.05)}")
    finally:
        ws.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
