"""Integrity speed (issue 3): whole-process medians of `serena memories check`.

- full check (`--include-unmarked --fuzzy-matching`) at 1,000 memories (about 4 MB;
  target: at most 0.5 s) and 10,000 memories (about 40 MB; at most 5 s);
- 10 times the memories costs at most 12 times the time;
- plain check at the same sizes; peak RSS of the full check at 10,000;
- side by side with serena-agent 2.1.0 where installed, at sizes it can handle: 100
  memories (medians), and 1,000 memories plain once (it needs about 40 s there; the full
  check at 1,000 takes minutes: `--reference-full-1000` runs it once).

Usage: ``python benchmarks/bench_integrity.py [--runs N] [--no-reference]
[--reference-full-1000] [--keep DIR] [--sizes 1000,10000] [--modes full]``; "ours CPU" is
the CPU time of the check (with its workers), steadier than the wall clock on a busy
machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _common import (
    REFERENCE,
    Workspace,
    fmt_seconds,
    median,
    ours_command,
    peak_rss_mb,
    reference_env,
    time_process,
    verdict,
)

FULL = ["--include-unmarked", "--fuzzy-matching"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reference-runs", type=int, default=3)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--reference-full-1000", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpora in DIR")
    parser.add_argument("--sizes", default="100,1000,10000", help="memory counts, comma-separated")
    parser.add_argument("--modes", default="plain,full", help="plain and/or full")
    args = parser.parse_args(argv)
    ws = Workspace(args.keep)
    ours = ours_command()
    env = ws.ours_env()
    reference = REFERENCE.exists() and not args.no_reference
    results: dict[tuple[str, int], dict[str, float | None]] = {}
    try:
        sizes = {}
        for count in (int(c) for c in args.sizes.split(",")):
            folder, mb = ws.project(count)
            sizes[count] = (folder, mb)
        print(
            "corpora: "
            + ", ".join(f"{c:,} memories ({mb:.1f} MB)" for c, (_f, mb) in sizes.items())
        )
        for count, (folder, _mb) in sizes.items():
            for mode, flags in (("plain", []), ("full", FULL)):
                if mode not in args.modes.split(","):
                    continue
                cmd = [*ours, "memories", "check", str(folder), *flags]
                cpu: list[float] = []
                wall = median(time_process(cmd, env, args.runs, cpu))
                results[(mode, count)] = {"ours": wall, "cpu": median(cpu)}
        rss = None
        if 10_000 in sizes and "full" in args.modes:
            rss = peak_rss_mb([*ours, "memories", "check", str(sizes[10_000][0]), *FULL], env)
        if reference:
            renv = reference_env(ws.ref_home)
            plan = [("plain", 100, args.reference_runs), ("full", 100, args.reference_runs)]
            plan.append(("plain", 1_000, 1))
            if args.reference_full_1000:
                plan.append(("full", 1_000, 1))
            for mode, count, runs in plan:
                if (mode, count) not in results:
                    continue
                folder, _mb = ws.project(count, reference=True)
                flags = FULL if mode == "full" else []
                cmd = [str(REFERENCE), "memories", "check", str(folder), *flags]
                results[(mode, count)]["ref"] = median(time_process(cmd, renv, runs))
    finally:
        ws.cleanup()

    print(
        f"{'check':<6} {'memories':>8} {'ours':>9} {'ours CPU':>9} {'serena-agent':>13} "
        f"{'ratio':>8}  target"
    )
    targets = {("full", 1_000): 0.5, ("full", 10_000): 5.0}
    for (mode, count), row in sorted(results.items()):
        ours_s, ref_s = row["ours"], row.get("ref")
        ratio = f"{ref_s / ours_s:6.0f}x" if ref_s else "-"
        limit = targets.get((mode, count))
        target = f"<= {fmt_seconds(limit)} {verdict(ours_s, limit)}" if limit else ""
        print(
            f"{mode:<6} {count:>8,} {fmt_seconds(ours_s):>9} {fmt_seconds(row['cpu']):>9} "
            f"{fmt_seconds(ref_s):>13} {ratio:>8}  {target}"
        )
    for mode in ("plain", "full"):
        if (mode, 1_000) not in results or (mode, 10_000) not in results:
            continue
        scale = results[(mode, 10_000)]["ours"] / results[(mode, 1_000)]["ours"]
        note = f" (target <= 12x: {verdict(scale, 12)})" if mode == "full" else ""
        print(f"scaling 1,000 -> 10,000, {mode} check: {scale:.1f}x the time{note}")
    if rss is not None:
        print(f"peak RSS, full check at 10,000 memories: {rss:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
