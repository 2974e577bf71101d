"""History speed: what recording adds to a write, and reading one memory's history.

- added cost per write: `MemoryStore.write` with history on and off, interleaved so the
  machine's load weighs on both alike, at 100, 1,000 and 10,000 memories; p50 and p95 of
  each and the difference of the medians (target: at most 5 ms at 1,000);
- `history` of one memory with 1,000 entries in a folder of 1,000 memories: the library
  call from a cold handle (target: at most 100 ms), and the whole `serena memories history
  NAME` process for comparison.

Usage: ``python benchmarks/bench_history.py [--writes 200] [--sizes 100,1000,10000]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import Workspace, ours_command, time_process, verdict

from serena_memory.core import history as H
from serena_memory.core.store import MemoryStore


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def write_costs(
    project: Path, home: Path, writes: int
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Seconds per write with history on and off, alternating: wall-clock time, and the
    process's CPU time, which a machine busy with other work inflates less."""
    on = MemoryStore(project, home=home)
    off_home = home.parent / (home.name + "-off")
    off_home.mkdir(exist_ok=True)
    (off_home / "serena_config.yml").write_text("memory_history: false\n")
    off = MemoryStore(project, home=off_home)
    on.write("bench/target", "warm up\n")  # the first write starts the history: not timed
    off.write("bench/target", "warm up\n")
    on.write("bench/target", "warm up again\n")
    with_history, without, cpu_on, cpu_off = [], [], [], []
    for i in range(writes):
        for store, bucket, cpu in ((on, with_history, cpu_on), (off, without, cpu_off)):
            text = f"# Target\n\nrevision {i} of the benchmarked memory\n" * 5
            start, start_cpu = time.perf_counter(), time.process_time()
            store.write("bench/target", text)
            bucket.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    return with_history, without, cpu_on, cpu_off


def history_read(project: Path, home: Path, entries: int, runs: int) -> list[float]:
    store = MemoryStore(project, home=home)
    for i in range(entries):
        store.write("bench/long-lived", f"version {i}\n")
    times = []
    for _ in range(runs):
        H._histories.clear()  # a cold handle, as a fresh command would have
        start = time.perf_counter()
        found = store.history().entries("bench/long-lived")
        times.append(time.perf_counter() - start)
        assert len(found) == entries, len(found)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    workspace = Workspace()
    try:
        print("Added cost of recording per write (MemoryStore.write, in-process):")
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(
            f"{'memories':>9}  {'with p50':>9} {'p95':>8}  {'without p50':>11} {'p95':>8}  added"
            "  (CPU time: added p50)"
        )
        for size in (int(s) for s in args.sizes.split(",")):
            project, _ = workspace.project(size)
            home = Path(tempfile.mkdtemp(dir=workspace.root, prefix="home-"))
            on, off, cpu_on, cpu_off = write_costs(project, home, args.writes)
            added_cpu = statistics.median(cpu_on) - statistics.median(cpu_off)
            added = statistics.median(on) - statistics.median(off)
            on50, on95 = statistics.median(on) * 1e3, percentile(on, 0.95) * 1e3
            off50, off95 = statistics.median(off) * 1e3, percentile(off, 0.95) * 1e3
            line = (
                f"{size:>9}  {on50:>7.2f}ms {on95:>6.2f}ms  {off50:>9.2f}ms {off95:>6.2f}ms"
                f"  {added * 1e3:>5.2f} ms  ({added_cpu * 1e3:.2f} ms)"
            )
            if size == 1000:
                line += "  " + verdict(added, 0.005)
            print(line)
        project, _ = workspace.project(1000, seed=2)
        home = Path(tempfile.mkdtemp(dir=workspace.root, prefix="home-"))
        reads = history_read(project, home, args.entries, args.runs)
        best = statistics.median(reads)
        print(
            f"\nhistory of one memory with {args.entries} entries (library, cold handle): "
            f"p50 {best * 1e3:.1f} ms  {verdict(best, 0.1)}"
        )
        env = dict(os.environ, SERENA_HOME=str(home))
        cmd = [*ours_command(), "memories", "history", "bench/long-lived", str(project)]
        whole = time_process(cmd, env, args.runs)
        whole_ms = statistics.median(whole) * 1e3
        print(f"`serena memories history NAME` whole process: p50 {whole_ms:.0f} ms")
    finally:
        workspace.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
