"""Store speed (issue 2): whole-process medians of `serena memories list` and `rename`.

- `list` on 100 memories (target: at most 150 ms) and on 10,000 (at most 0.5 s);
- `rename` with reference propagation on 10,000 memories, about 40 MB (at most 2 s);
- side by side with serena-agent 2.1.0 where it is installed, at 100 memories only (it
  needs seconds for any command), with the ratio;
- with ``--baseline-src OLD/src``, the write path in process (``MemoryStore.write`` of one
  memory, its history recorded, on 100 memories) from this tree and from OLD, interleaved
  run by run so that load on the machine hits both alike.

Usage: ``python benchmarks/bench_store.py [--runs N] [--no-reference] [--keep DIR]
[--baseline-src OLD/src]``
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

from _common import (
    REFERENCE,
    Workspace,
    fmt_seconds,
    median,
    ours_command,
    reference_env,
    time_process,
    verdict,
)


def most_referenced(project: Path) -> str:
    """A memory many others point to, so a rename has references to propagate."""
    counts: dict[str, int] = {}
    root = project / ".serena" / "memories"
    for path in root.rglob("*.md"):
        for target in re.findall(r"`mem:([A-Za-z0-9_\-/]+)`", path.read_text(encoding="utf-8")):
            counts[target] = counts.get(target, 0) + 1
    existing = {str(p.relative_to(root))[:-3] for p in root.rglob("*.md")}
    return max((n for n in counts if n in existing and n != "core"), key=lambda n: counts[n])


def time_renames(cmd: list[str], project: Path, env: dict[str, str], runs: int) -> list[float]:
    """Rename a much-referenced memory back and forth; each run is one whole process."""
    name = most_referenced(project)
    other = name + "_renamed"
    times = []
    for i in range(runs):
        old, new = (name, other) if i % 2 == 0 else (other, name)
        times += time_process([*cmd, "memories", "rename", old, new, str(project)], env, 1)
    if runs % 2:
        time_process([*cmd, "memories", "rename", other, name, str(project)], env, 1)
    return times


HERE_SRC = Path(__file__).resolve().parent.parent / "src"
WRITES = 40  # writes timed by one process; its median is one run's figure

WRITE_PATH = """
import statistics, sys, time
try:
    from serena_memory.wiring import build_store
except ImportError:  # a tree from before serena_memory.wiring: the store found its parts
    from serena_memory.core.store import MemoryStore as build_store
store = build_store(sys.argv[1])
times = []
for i in range(int(sys.argv[2])):
    start = time.perf_counter()
    store.write(f"bench/written_{i % 4}", f"# Written\\n\\nrun {i}: a fact worth keeping.\\n")
    times.append(time.perf_counter() - start)
print(statistics.median(times))
"""


def time_writes(src: Path, project: Path, env: dict[str, str]) -> float:
    """Median seconds of one ``MemoryStore.write`` (history recorded) with ``src`` first
    on the import path, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", WRITE_PATH, str(project), str(WRITES)],
        env={**env, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip())


def compare_writes(ws: Workspace, baseline: Path, env: dict[str, str], runs: int) -> None:
    """The write path of this tree beside ``baseline``'s, on copies of one corpus."""
    source, _ = ws.project(100)
    sides = {"this tree": HERE_SRC, "baseline": baseline}
    projects = {}
    for label in sides:
        projects[label] = ws.root / f"writes-{label.replace(' ', '-')}"
        shutil.rmtree(projects[label], ignore_errors=True)
        shutil.copytree(source, projects[label], symlinks=True)
    times: dict[str, list[float]] = {label: [] for label in sides}
    for _ in range(runs):
        for label, src in sides.items():
            times[label].append(time_writes(src, projects[label], env))
    for label in sides:
        value = median(times[label]) * 1000  # a write takes milliseconds: one decimal
        print(f"write    {'100':>8} {value:>6.1f} ms  ({label})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reference-runs", type=int, default=3)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpora in DIR")
    parser.add_argument("--baseline-src", type=Path, default=None, help="compare writes")
    parser.add_argument("--writes-only", action="store_true", help="only the write path")
    args = parser.parse_args(argv)
    if args.writes_only and args.baseline_src is None:
        parser.error("--writes-only needs --baseline-src")
    ws = Workspace(args.keep)
    ours = ours_command()
    env = ws.ours_env()
    reference = REFERENCE.exists() and not args.no_reference
    rows = []
    if args.writes_only:
        try:
            compare_writes(ws, args.baseline_src.resolve(), env, args.runs)
        finally:
            ws.cleanup()
        return 0
    try:
        p100, mb100 = ws.project(100)
        p10k, mb10k = ws.project(10_000)
        print(f"corpora: 100 memories ({mb100:.1f} MB), 10,000 memories ({mb10k:.1f} MB)")
        list100 = median(time_process([*ours, "memories", "list", str(p100)], env, args.runs))
        list10k = median(time_process([*ours, "memories", "list", str(p10k)], env, args.runs))
        ren100 = median(time_renames(ours, p100, env, args.runs))
        ren10k = median(time_renames(ours, p10k, env, args.runs))
        ref_list = ref_ren = None
        if reference:
            r100, _ = ws.project(100, reference=True)
            renv = reference_env(ws.ref_home)
            ref_cmd = [str(REFERENCE)]
            ref_list = median(
                time_process([*ref_cmd, "memories", "list", str(r100)], renv, args.reference_runs)
            )
            ref_ren = median(time_renames(ref_cmd, r100, renv, args.reference_runs))
        rows = [
            ("list", "100", list100, ref_list, 0.150),
            ("list", "10,000", list10k, None, 0.5),
            ("rename", "100", ren100, ref_ren, None),
            ("rename", "10,000", ren10k, None, 2.0),
        ]
        if args.baseline_src is not None:
            compare_writes(ws, args.baseline_src.resolve(), env, args.runs)
    finally:
        ws.cleanup()
    print(f"{'command':<8} {'memories':>8} {'ours':>9} {'serena-agent':>13} {'ratio':>7}  target")
    for op, size, value, ref, limit in rows:
        ratio = f"{ref / value:5.1f}x" if ref else "-"
        target = f"<= {fmt_seconds(limit)} {verdict(value, limit)}" if limit else ""
        print(
            f"{op:<8} {size:>8} {fmt_seconds(value):>9} {fmt_seconds(ref):>13} {ratio:>7}  {target}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
