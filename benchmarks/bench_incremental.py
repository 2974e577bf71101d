"""Cost that follows the change: whole-process medians at 1,000, 10,000 and 100,000 memories.

- `serena memories write` with history on (limits: 120 ms at 10,000, 150 ms at 100,000);
- `check --include-unmarked --fuzzy-matching` with a warm cache after one memory changed
  (0.4 s at 10,000, 2 s at 100,000) and cold (no cache: 3 times the floor at 10,000, the
  floor being the time Python takes to read and decode the same files, printed), each
  also as CPU seconds (the process and its workers), which a loaded machine disturbs less;
- `list` (0.5 s at 100,000);
- side by side with another checkout's `serena` (``--base DIR``: a tree made with
  ``git worktree add DIR <commit>``, run with its own venv in DIR/.venv, else with this
  interpreter and DIR/src first on the path).

Usage: ``python benchmarks/bench_incremental.py [--sizes 1000,10000] [--runs 5] [--base DIR]``
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import Workspace, fmt_seconds, median, ours_command, time_process

FULL = ["--include-unmarked", "--fuzzy-matching"]
LIMITS = {
    ("write", 10_000): 0.120,
    ("write", 100_000): 0.150,
    ("check warm", 10_000): 0.4,
    ("check warm", 100_000): 2.0,
    ("list", 100_000): 0.5,
}


def floor_seconds(project: Path) -> float:
    """Read and decode every memory file once, in a fresh interpreter (the best of 3)."""
    code = (
        "import pathlib, sys, time\n"
        "t = time.perf_counter()\n"
        "for p in pathlib.Path(sys.argv[1]).rglob('*.md'): p.read_bytes().decode('utf-8')\n"
        "print(time.perf_counter() - t)\n"
    )
    folder = str(project / ".serena" / "memories")
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code, folder], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return min(runs)


def measure(cmd: list[str], project: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    home = Path(env["SERENA_HOME"])
    p = str(project)
    found: dict[str, float] = {}
    time_process([*cmd, "memories", "write", "bench/x", p, "-c", "start"], env, 1)
    found["write"] = median(
        [
            time_process([*cmd, "memories", "write", "bench/x", p, "-c", f"v{i}"], env, 1)[0]
            for i in range(runs)
        ]
    )
    cold: list[float] = []
    cold_cpu: list[float] = []
    for _ in range(runs):
        shutil.rmtree(home / "cache" / "check", ignore_errors=True)
        cold += time_process([*cmd, "memories", "check", p, *FULL], env, 1, cold_cpu)
    found["check cold"] = median(cold)
    found["cold cpu"] = median(cold_cpu)  # the process and its workers: less noisy
    warm: list[float] = []
    warm_cpu: list[float] = []
    target = project / ".serena" / "memories" / "core.md"
    for i in range(runs):
        time_process([*cmd, "memories", "check", p, *FULL], env, 1)
        with open(target, "a", encoding="utf-8") as f:
            f.write(f"One more line about the deploy steps, take {i}.\n")
        time.sleep(1.1)  # past the clock tick: a stamp taken now is trusted next time
        warm += time_process([*cmd, "memories", "check", p, *FULL], env, 1, warm_cpu)
    found["check warm"] = median(warm)
    found["warm cpu"] = median(warm_cpu)
    found["list"] = median(time_process([*cmd, "memories", "list", p], env, runs))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", type=Path, default=None, help="checkout of the previous main")
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpora in DIR")
    args = parser.parse_args(argv)
    work = Workspace(args.keep)
    sides = {"ours": ours_command()}
    base_src = None
    if args.base is not None:
        script = args.base / ".venv" / "bin" / "serena"
        if script.exists():
            sides["base"] = [str(script)]
        else:  # a bare `git worktree add`: our interpreter with its sources first
            sides["base"] = ours_command()
            base_src = str(args.base / "src")
    try:
        print(f"{'memories':>8} {'figure':<11} " + " ".join(f"{s:>9}" for s in sides) + "  limit")
        for count in (int(s) for s in args.sizes.split(",")):
            project, _size = work.project(count)
            if not (project / ".git").exists():
                subprocess.run(["git", "init", "-q", str(project)], check=True)
            results = {}
            for side, cmd in sides.items():
                env = work.ours_env()
                env["SERENA_HOME"] = str(work.root / f"home-{side}-{count}")
                if side == "base" and base_src is not None:
                    env["PYTHONPATH"] = base_src
                results[side] = measure(cmd, project, env, args.runs)
            for figure in results["ours"]:
                limit = LIMITS.get((figure, count))
                cells = " ".join(f"{fmt_seconds(results[s][figure]):>9}" for s in sides)
                verdict = ""
                if limit is not None:
                    ok = results["ours"][figure] <= limit
                    verdict = f"  {fmt_seconds(limit)} {'ok' if ok else 'MISSED'}"
                print(f"{count:>8} {figure:<11} {cells}{verdict}")
            floor = floor_seconds(project)
            ratio = results["ours"]["check cold"] / floor
            print(f"{count:>8} {'floor':<11} {fmt_seconds(floor):>9}  cold check = {ratio:.1f}x")
    finally:
        work.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
