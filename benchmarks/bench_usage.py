"""Usage counting (issue 32): what counting costs a read and a write, in one process.

Side by side in the same run, interleaved so that both see the same machine: a store that
counts every read (the default read listeners) and one that tells no listener. Each run
reads memories of a 1,000-memory project ``--reads`` times and takes the median time of
one read; the figure is the median over ``--runs`` runs, and the difference is what
counting costs one read (target: under 1 ms). The usage file is folded along the way
(it passes its folding size within the runs), so the figure includes that too. Writes are
timed the same way: counting must cost a write nothing (it touches no usage file).

Usage: ``python benchmarks/bench_usage.py [--runs N] [--reads N] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from _common import Workspace, verdict


def per_call(fn, names: list[str], count: int) -> float:
    """The median seconds of one call of ``fn(name)`` over ``count`` calls."""
    times = []
    for i in range(count):
        name = names[i % len(names)]
        start = time.perf_counter()
        fn(name)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reads", type=int, default=2000)
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpus in DIR")
    args = parser.parse_args(argv)
    workspace = Workspace(args.keep)
    os.environ["SERENA_HOME"] = str(workspace.home)
    from serena_memory.core.reads import ReadEvent
    from serena_memory.core.store import MemoryStore
    from serena_memory.usage import log

    project, _size = workspace.project(1000)
    counting = MemoryStore(project, home=workspace.home)
    quiet = MemoryStore(project, home=workspace.home, read_listeners=[])
    names = sorted(counting.list().all)[:200]
    print(f"usage counting: {args.runs} runs of {args.reads} reads, 1,000 memories, medians")
    print(f"  counted: {log.COUNTING} (flock and directory descriptors available)")
    rows: dict[str, list[float]] = {
        "read, counted": [],
        "read, not counted": [],
        "counting alone": [],
        "write, counting store": [],
        "write, quiet store": [],
    }
    listener = counting.reads.current()[0]
    event = ReadEvent(
        names[0], counting.layout.project_root, counting.layout.home, counting.provenance
    )
    text = "# bench\nA memory the benchmark writes.\n"
    for run in range(args.runs):
        pair = [("read, not counted", quiet.read), ("read, counted", counting.read)]
        for label, read in pair if run % 2 else reversed(pair):  # neither always goes first
            rows[label].append(per_call(read, names, args.reads))
        rows["counting alone"].append(
            per_call(lambda _n: listener.memory_read(event), names, args.reads)
        )
        rows["write, quiet store"].append(
            per_call(lambda n: quiet.write("bench/q" + n[-3:], text), names, 50)
        )
        rows["write, counting store"].append(
            per_call(lambda n: counting.write("bench/c" + n[-3:], text), names, 50)
        )
    medians = {label: statistics.median(values) for label, values in rows.items()}
    for label, value in medians.items():
        print(f"  {label:<24} {value * 1e6:8.1f} µs")
    read_cost = medians["read, counted"] - medians["read, not counted"]
    write_cost = medians["write, counting store"] - medians["write, quiet store"]
    file = Path(log.usage_folder(workspace.home), log.project_file(str(project)) + log.APPENDED)
    folds = []
    for _ in range(args.runs):  # one read that finds the file past its folding size
        while not file.exists() or file.stat().st_size <= log.FOLD_AT:
            listener.memory_read(event)
        start = time.perf_counter()
        listener.memory_read(event)
        folds.append(time.perf_counter() - start)
    lines = log.FOLD_AT // len(f"{int(time.time())}\t1\tcli\t{names[0]}\n")
    print(
        f"  counting costs a read    {read_cost * 1e6:8.1f} µs  "
        f"(target < 1000 µs: {verdict(read_cost, 0.001)})"
    )
    print(
        f"  counting costs a write   {write_cost * 1e6:8.1f} µs  "
        "(noise: the write path tells no listener)"
    )
    print(
        f"  a read that folds the file {statistics.median(folds) * 1e3:8.1f} ms  (once in about "
        f"{lines:,} reads: the file is folded past {log.FOLD_AT:,} bytes)"
    )
    workspace.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
