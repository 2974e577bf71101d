"""Sync speed: 1,000 global memories on two machines (two $SERENA_HOMEs) and a local bare
repository; each round, 10 memories change on each side, the first machine syncs, then the
second one's sync is timed: fetch, merge of 10 changes from each side, writing and
recording the merge, push (target: at most 1 s).

Timed both as the library call (`sync.merge.sync`) and as the whole `serena memories sync`
process (interpreter start included), alternating rounds. Median of several rounds.

With ``--baseline SRC`` (the ``src`` folder of another checkout, e.g. made by ``git archive
COMMIT src | tar -x -C /tmp/base``), each process round is run twice on the same history,
once by that code and once by this one, in turn, so both see the same load; the CPU time of
each process is reported beside its wall time.

Usage: ``python benchmarks/bench_sync.py [--memories 1000] [--changes 10] [--runs 7]
[--baseline SRC]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ours_command, verdict

from serena_memory.core.store import MemoryStore
from serena_memory.sync.merge import sync


def machine(root: Path, name: str) -> MemoryStore:
    home = root / name / "home"
    project = root / name / "project"
    home.mkdir(parents=True)
    project.mkdir(parents=True)
    return MemoryStore(project, home=home)


def seed(store: MemoryStore, count: int) -> None:
    folder = store.layout.global_dir
    for i in range(count):
        topic = folder / f"topic{i % 20}"
        topic.mkdir(parents=True, exist_ok=True)
        (topic / f"memory{i}.md").write_text(
            f"# Memory {i}\n\n" + "".join(f"line {j} of memory {i}\n" for j in range(20)),
            encoding="utf-8",
        )


def change(store: MemoryStore, count: int, changes: int, round_: int, side: int) -> None:
    """``changes`` memories, different for each side and round: a different line of each."""
    for k in range(changes):
        i = (round_ * 2 * changes + side * changes + k) % count
        name = f"global/topic{i % 20}/memory{i}"
        text = store.read(name).replace(f"line {side * 10}", f"line {side * 10} (round {round_})")
        store.write(name, text)


def timed_process(
    command: list[str], store: MemoryStore, env: dict[str, str]
) -> tuple[float, float]:
    """(wall, CPU) seconds of one `serena memories sync` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=store.layout.project_root, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def side_by_side(
    args: argparse.Namespace, first: MemoryStore, second: MemoryStore, remote: Path
) -> None:
    """Process rounds, each run by the baseline's code and by ours in turn."""
    command = [*ours_command(), "memories", "sync", "--remote", str(remote), "--json"]
    times: dict[str, list[tuple[float, float]]] = {"baseline": [], "ours": []}
    for round_ in range(args.runs * 2):
        which = "baseline" if round_ % 2 == 0 else "ours"
        change(first, args.memories, args.changes, round_, 0)
        sync(first, "global", str(remote))
        change(second, args.memories, args.changes, round_, 1)
        env = dict(os.environ, SERENA_HOME=str(second.layout.home))
        env.pop("PYTHONPATH", None)
        if which == "baseline":
            env["PYTHONPATH"] = str(args.baseline)
        times[which].append(timed_process(command, second, env))
    for which, found in times.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        print(
            f"`serena memories sync` whole process, {which:8}: p50 {wall * 1e3:.0f} ms wall, "
            f"{cpu * 1e3:.0f} ms CPU ({len(found)} rounds)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--changes", type=int, default=10)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", type=Path, help="src folder of the code to compare with")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-sync-"))
    remote = root / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    first, second = machine(root, "laptop"), machine(root, "workstation")
    seed(first, args.memories)
    sync(first, "global", str(remote))
    sync(second, "global", str(remote))
    assert len(second.scan(scopes="global").files) == args.memories
    print(
        f"sync of {args.memories} memories, {args.changes} changes on each side, local bare "
        f"remote; load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    if args.baseline is not None:
        side_by_side(args, first, second, remote)
        return 0
    library: list[float] = []
    process: list[float] = []
    env = dict(os.environ, SERENA_HOME=str(second.layout.home))
    command = [*ours_command(), "memories", "sync", "--remote", str(remote), "--json"]
    for round_ in range(args.runs * 2):
        change(first, args.memories, args.changes, round_, 0)
        sync(first, "global", str(remote))
        change(second, args.memories, args.changes, round_, 1)
        if round_ % 2 == 0:
            start = time.perf_counter()
            result = sync(second, "global", str(remote))
            library.append(time.perf_counter() - start)
            assert len(result.changed) == args.changes and result.pushed, result.to_dict()
        else:
            start = time.perf_counter()
            subprocess.run(
                command, cwd=second.layout.project_root, env=env, check=True, capture_output=True
            )
            process.append(time.perf_counter() - start)
    lib = statistics.median(library)
    proc = statistics.median(process)
    print(
        f"library call: p50 {lib * 1e3:.0f} ms (min {min(library) * 1e3:.0f}, max "
        f"{max(library) * 1e3:.0f})  {verdict(lib, 1.0)}"
    )
    print(
        f"`serena memories sync` whole process: p50 {proc * 1e3:.0f} ms (min "
        f"{min(process) * 1e3:.0f}, max {max(process) * 1e3:.0f})  {verdict(proc, 1.0)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
