"""History speed: what recording adds to a `write_memory` round trip, and reading one
memory's history.

- added cost per write: two MCP servers over stdio on the same project, one with history
  on and one with `memory_history: false` (the baseline), `tools/call write_memory` sent
  to each in turn so the machine's load weighs on both alike; p50 and p95 of each round
  trip and the difference of the medians, at 100, 1,000 and 10,000 memories (goal: at
  most 5 ms p50 at 1,000). The servers' own CPU time per call is shown too, which a busy
  machine inflates less. Each size is measured ``--repeats`` times; the figures are the
  medians of the repeats;
- `history` of one memory with 1,000 entries in a folder of 1,000 memories: the library
  call from a cold handle (goal: at most 100 ms), and the whole `serena memories history
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
from bench_mcp import Pipe, cpu_seconds

from serena_memory.core.store import MemoryStore
from serena_memory.history.registry import forget_open_histories


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _server(project: Path, home: Path) -> Pipe:
    pipe = Pipe(project, dict(os.environ, SERENA_HOME=str(home)))
    pipe.handshake()
    return pipe


def _write(pipe: Pipe, text: str) -> float:
    arguments = {"memory_name": "bench/target", "content": text}
    start = time.perf_counter()
    answer = pipe.request("tools/call", {"name": "write_memory", "arguments": arguments})
    took = time.perf_counter() - start
    assert not answer["result"].get("isError"), answer
    return took


def write_round_trips(project: Path, root: Path, writes: int) -> dict[str, float]:
    """One measurement: p50/p95 of write_memory round trips with history on and off, and
    each server's CPU seconds per call."""
    on_home = Path(tempfile.mkdtemp(dir=root, prefix="home-on-"))
    off_home = Path(tempfile.mkdtemp(dir=root, prefix="home-off-"))
    (off_home / "serena_config.yml").write_text("memory_history: false\n")
    on, off = _server(project, on_home), _server(project, off_home)
    try:
        for warm in range(5):  # the first write starts the history with every memory: untimed
            _write(on, f"warm up {warm}\n")
            _write(off, f"warm up {warm}\n")
        times: dict[str, list[float]] = {"on": [], "off": []}
        cpu_start = {"on": cpu_seconds(on.proc.pid), "off": cpu_seconds(off.proc.pid)}
        for i in range(writes):
            text = f"# Target\n\nrevision {i} of the benchmarked memory\n" * 5
            times["on"].append(_write(on, text))
            times["off"].append(_write(off, text))
        cpu = {}
        for key, pipe in (("on", on), ("off", off)):
            end, begin = cpu_seconds(pipe.proc.pid), cpu_start[key]
            cpu[key] = (end - begin) / writes if end is not None and begin is not None else 0.0
    finally:
        on.close()
        off.close()
    return {
        "on50": statistics.median(times["on"]),
        "on95": percentile(times["on"], 0.95),
        "off50": statistics.median(times["off"]),
        "off95": percentile(times["off"], 0.95),
        "added50": statistics.median(times["on"]) - statistics.median(times["off"]),
        "added95": percentile(times["on"], 0.95) - percentile(times["off"], 0.95),
        "cpu_added": cpu["on"] - cpu["off"],
    }


def history_read(project: Path, home: Path, entries: int, runs: int) -> list[float]:
    store = MemoryStore(project, home=home)
    for i in range(entries):
        store.write("bench/long-lived", f"version {i}\n")
        if i % 10 == 0:
            store.write("bench/neighbour", f"another memory's version {i}\n")
    times = []
    for _ in range(runs):
        forget_open_histories()  # a cold handle, as a fresh command would have
        start = time.perf_counter()
        found = store.history().entries("bench/long-lived")
        times.append(time.perf_counter() - start)
        assert len(found) == entries, len(found)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    workspace = Workspace()
    try:
        print("Added cost of recording per write_memory round trip (MCP over stdio):")
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(
            f"{'memories':>9}  {'on p50':>8} {'p95':>8}  {'off p50':>8} {'p95':>8}  "
            f"{'added p50':>9} {'p95':>8}  {'server CPU added':>16}"
        )
        for size in (int(s) for s in args.sizes.split(",")):
            project, _ = workspace.project(size)
            runs = [write_round_trips(project, workspace.root, args.writes)]
            runs += [
                write_round_trips(project, workspace.root, args.writes)
                for _ in range(args.repeats - 1)
            ]
            m = {key: statistics.median(r[key] for r in runs) * 1e3 for key in runs[0]}
            line = (
                f"{size:>9}  {m['on50']:>6.2f}ms {m['on95']:>6.2f}ms  {m['off50']:>6.2f}ms "
                f"{m['off95']:>6.2f}ms  {m['added50']:>7.2f}ms {m['added95']:>6.2f}ms  "
                f"{m['cpu_added']:>13.2f} ms"
            )
            if size == 1000:
                line += "  " + verdict(m["added50"] / 1e3, 0.005)
            print(line, flush=True)
        project, _ = workspace.project(1000, seed=2)
        home = Path(tempfile.mkdtemp(dir=workspace.root, prefix="home-"))
        reads = history_read(project, home, args.entries, args.runs)
        best = statistics.median(reads)
        print(
            f"\nhistory of one memory with {args.entries} entries, among "
            f"{args.entries + args.entries // 10 + 1} in the folder (library, cold handle): "
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
