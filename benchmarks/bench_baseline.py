"""Before and after: the same whole-process commands run from this tree and from another
source tree (a checkout of an earlier commit), interleaved run by run so that load on the
machine hits both alike; medians of wall-clock and CPU time.

- `serena memories list` at 100 memories: the command line's cold start;
- `serena memories check --include-unmarked --fuzzy-matching` at 1,000 memories, and at
  10,000 with ``--large``: as a person repeats it (the cache kept by the first run) and
  without a kept cache (an empty SERENA_HOME for each run).

Both sides run as ``python -m serena_memory.cli`` with their tree first on PYTHONPATH.
Usage: ``python benchmarks/bench_baseline.py --baseline-src OLD/src [--runs N] [--large]``
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
from pathlib import Path

from _common import Workspace, fmt_seconds, median

HERE_SRC = Path(__file__).resolve().parent.parent / "src"
FULL = ["--include-unmarked", "--fuzzy-matching"]


def run_once(
    src: Path, args: list[str], env: dict[str, str], cold: bool = False
) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one whole process; ``cold`` gives it
    an empty SERENA_HOME, so no cache kept by an earlier run answers."""
    import tempfile
    import time

    env = {**env, "PYTHONPATH": str(src)}
    if cold:
        home = tempfile.mkdtemp(prefix="bench-home-")
        env["SERENA_HOME"] = home
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "serena_memory.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if cold:
        shutil.rmtree(home, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{args} from {src} failed: {stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def compare(
    name: str, args: list[str], old: Path, env: dict[str, str], runs: int, cold: bool = False
) -> None:
    samples: dict[Path, list[tuple[float, float]]] = {old: [], HERE_SRC: []}
    run_once(old, args, env)  # warm the file cache for both
    run_once(HERE_SRC, args, env)
    for _ in range(runs):
        for src in (old, HERE_SRC):
            samples[src].append(run_once(src, args, env, cold))
    cells = []
    for src in (old, HERE_SRC):
        wall = median([w for w, _c in samples[src]])
        cpu = median([c for _w, c in samples[src]])
        cells.append(f"{fmt_seconds(wall):>9} {fmt_seconds(cpu):>9}")
    print(f"{name:<28} {cells[0]}   {cells[1]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--check-runs", type=int, default=5)
    parser.add_argument("--large", action="store_true", help="also check at 10,000")
    parser.add_argument("--large-runs", type=int, default=1, help="runs of the check at 10,000")
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpora in DIR")
    args = parser.parse_args(argv)
    old = args.baseline_src.resolve()
    for src in (old, HERE_SRC):  # an installed package is byte-compiled; so are both here
        compileall.compile_dir(src, quiet=1)
    ws = Workspace(args.keep)
    env = ws.ours_env()
    try:
        p100, _ = ws.project(100)
        p1k, _ = ws.project(1_000)
        print(f"{'':<28} {'baseline (wall, CPU)':>19}   {'this tree (wall, CPU)':>19}")
        compare("list, 100 memories", ["memories", "list", str(p100)], old, env, args.runs)
        check1k = ["memories", "check", str(p1k), *FULL]
        compare("full check, 1,000 memories", check1k, old, env, args.check_runs)
        compare("  without a kept cache", check1k, old, env, args.check_runs, cold=True)
        if args.large:
            p10k, _ = ws.project(10_000)
            check10k = ["memories", "check", str(p10k), *FULL]
            compare("full check, 10,000 memories", check10k, old, env, args.large_runs)
            compare("  without a kept cache", check10k, old, env, args.large_runs, cold=True)
    finally:
        ws.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
