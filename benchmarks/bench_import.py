"""Import planning time: how long reading a source into a plan takes (nothing is written),
at sizes where a name probe that restarts at every step would show.

- `mcp-memory-jsonl` with N entities whose names all slug to the same name;
- `claude-md` with N sections all headed `## s`, and with N distinct headings.

Each case runs in a fresh process with the tree's ``src`` first on PYTHONPATH and times
``plan_import`` alone; with ``--baseline-src OLD/src`` the same cases run from another
source tree (a checkout of an earlier commit, e.g. ``git worktree add /tmp/old main``),
interleaved run by run so that load on the machine hits both alike. A run over
``--timeout`` seconds is abandoned and shown as ``> T s``.

Usage: ``python benchmarks/bench_import.py [--baseline-src OLD/src] [--runs N]
[--sizes 1000,4000,20000]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import fmt_seconds, median

HERE_SRC = Path(__file__).resolve().parent.parent / "src"
PUNCTUATION = "!#$%&*+,;="  # digits spelled as characters a slug drops

_TIMED = """
import sys, time
from serena_memory.transfer.formats import plan_import
start = time.process_time()
plan = plan_import(sys.argv[1], sys.argv[2])
print(time.process_time() - start, len(plan.memories))
"""


def same_slug_entities(folder: Path, count: int) -> Path:
    """A memory.jsonl of ``count`` entities named ``x !#``, ``x $%``...: one slug, ``x``."""
    lines = []
    for i in range(count):
        name = "x " + "".join(PUNCTUATION[int(d)] for d in str(i))
        record = {"type": "entity", "name": name, "entityType": "t", "observations": ["o"]}
        lines.append(json.dumps(record))
    path = folder / "memory.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def headings(folder: Path, count: int, distinct: bool) -> Path:
    """A CLAUDE.md of ``count`` sections, all ``## s`` or each its own heading."""
    parts = ["# Project\n"]
    for i in range(count):
        parts.append(f"## Section {i}\ntext {i}\n" if distinct else "## s\n")
    (folder / "CLAUDE.md").write_text("".join(parts))
    return folder


def plan_seconds(src: Path, fmt: str, path: Path, timeout: float) -> float | None:
    """CPU seconds of one ``plan_import`` in a fresh process; None past ``timeout``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _TIMED, fmt, str(path)],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"planning {fmt} {path} from {src} failed: {done.stderr[-2000:]}")
    return float(done.stdout.split()[0])


def cell(samples: list[float | None], timeout: float) -> str:
    if any(s is None for s in samples):
        return f"> {timeout:.0f} s"
    return fmt_seconds(median([s for s in samples if s is not None]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1000,4000,20000")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    trees = [args.baseline_src.resolve(), HERE_SRC] if args.baseline_src else [HERE_SRC]
    given_up: set[tuple[Path, str]] = set()  # (tree, case) that timed out at a smaller size
    header = "   ".join(f"{'baseline' if t != HERE_SRC else 'this tree':>10}" for t in trees)
    print(f"{'planning (CPU, median)':<44} {header}")
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        for size in sizes:
            folder = Path(tmp) / str(size)
            for kind in ("entities", "same", "distinct"):
                case = folder / kind
                case.mkdir(parents=True)
                if kind == "entities":
                    fmt, path = "mcp-memory-jsonl", same_slug_entities(case, size)
                    label = f"mcp-memory-jsonl, {size:,} same-slug entities"
                else:
                    fmt, path = "claude-md", headings(case, size, kind == "distinct")
                    which = "distinct" if kind == "distinct" else "`## s`"
                    label = f"claude-md, {size:,} {which} headings"
                samples: dict[Path, list[float | None]] = {t: [] for t in trees}
                for _ in range(args.runs):
                    for tree in trees:
                        if (tree, kind) in given_up:
                            samples[tree].append(None)
                            continue
                        seconds = plan_seconds(tree, fmt, path, args.timeout)
                        samples[tree].append(seconds)
                        if seconds is None:
                            given_up.add((tree, kind))
                cells = "   ".join(f"{cell(samples[t], args.timeout):>10}" for t in trees)
                print(f"{label:<44} {cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
