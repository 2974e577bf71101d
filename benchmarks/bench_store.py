"""Store speed (issue 2): whole-process medians of `serena memories list` and `rename`.

- `list` on 100 memories (target: at most 150 ms) and on 10,000 (at most 0.5 s);
- `rename` with reference propagation on 10,000 memories, about 40 MB (at most 2 s);
- side by side with serena-agent 2.1.0 where it is installed, at 100 memories only (it
  needs seconds for any command), with the ratio.

Usage: ``python benchmarks/bench_store.py [--runs N] [--no-reference] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import re
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reference-runs", type=int, default=3)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpora in DIR")
    args = parser.parse_args(argv)
    ws = Workspace(args.keep)
    ours = ours_command()
    env = ws.ours_env()
    reference = REFERENCE.exists() and not args.no_reference
    rows = []
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
