"""Cost that follows the change: whole-process medians at 1,000, 10,000 and 100,000 memories.

- `serena memories write` with history on (limits: 120 ms at 10,000, 150 ms at 100,000);
- `check --include-unmarked --fuzzy-matching` with a warm cache after one memory changed
  (0.4 s at 10,000, 2 s at 100,000) and cold (no cache: 3 times the floor at 10,000, the
  floor being the time Python takes to read and decode the same files, printed), each
  also as CPU seconds (the process and its workers), which a loaded machine disturbs less;
- `list` (0.5 s at 100,000);
- `search`: the first query as a whole process (index built), and the p50 of later queries
  in one process (30 ms at 100,000), wall and CPU;
- peak memory of `check`, cold and warm (150 MB at 10,000), from the children's rusage;
- at the largest size, the other ways in: `list_memories` through the stdio MCP server
  (spawn to answer, and the call alone), and the dashboard's home (`/api/state`) and a
  memory's page (`/api/memory`) over HTTP with the token (first and later requests);
- side by side with another checkout's `serena` (``--base DIR``: a tree made with
  ``git worktree add DIR <commit>``, run with its own venv in DIR/.venv, else with this
  interpreter and DIR/src first on the path).

Usage: ``python benchmarks/bench_incremental.py [--sizes 1000,10000] [--runs 5] [--base DIR]
[--keep DIR]``. The load average is printed with each size: on a shared machine, read the
CPU figures where the wall clock is noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import Workspace, fmt_seconds, median, ours_command, peak_rss_mb, time_process

FULL = ["--include-unmarked", "--fuzzy-matching"]
LIMITS = {
    ("write", 10_000): 0.120,
    ("write", 100_000): 0.150,
    ("check warm", 10_000): 0.4,
    ("check warm", 100_000): 2.0,
    ("list", 100_000): 0.5,
    ("search p50", 100_000): 0.030,
    ("check MB", 10_000): 150,
}
QUERIES = [
    "deploy steps",
    "token refresh",
    "rate limiter retry",
    "webhook invoice",
    "ledger refund checkout",
    "render hydration bundle",
    "pipeline runner",
    "secret rotation",
    "index ranking query",
    "cache eviction warmup",
    "template digest",
    "cluster network gateway",
    "offline sync",
    "session handling",
    "schema migration",
    "grid layout",
]
# the later queries of one process; the search function moved between versions
SEARCH_CHILD = r"""
import json, sys, time
from serena_memory.core.store import MemoryStore
try:
    from serena_memory.search.index import search_memories
except ImportError:
    from serena_memory.core.search import search_memories
project, queries = sys.argv[1], json.loads(sys.argv[2])
store = MemoryStore(project)
search_memories(store, queries[0])
walls, cpus = [], []
for _ in range(3):
    for q in queries[1:]:
        w, c = time.perf_counter(), time.process_time()
        search_memories(store, q)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
print(json.dumps({"walls": walls, "cpus": cpus}))
"""
# the dashboard's home and a memory's page over HTTP, with the token
DASHBOARD_CHILD = r"""
import json, sys, time, httpx
from serena_memory.dashboard.server import DashboardServer
server = DashboardServer(sys.argv[1], port=0)
server.start()
found = {}
try:
    headers = {"X-Serena-Token": server.token}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as client:
        def timed(path, params, optional=False):
            w = time.perf_counter()
            answer = client.get(path, params=params)
            if not (optional and answer.status_code == 404):
                answer.raise_for_status()
            return time.perf_counter() - w, answer.status_code
        times = [timed("/api/state", {})[0] for _ in range(6)]
        found["state"] = {"first": times[0], "later": sorted(times[1:])[2]}
        # a memory's page: the memory, then (where the version has them) its backlinks,
        # asked for once the memory is shown, then the memory again
        first = timed("/api/memory", {"name": "core"})[0]
        backlinks, status = timed("/api/backlinks", {"name": "core"}, optional=True)
        times = [timed("/api/memory", {"name": "core"})[0] for _ in range(5)]
        found["memory"] = {"first": first, "later": sorted(times)[2]}
        found["backlinks"] = {"first": backlinks if status == 200 else None}
finally:
    server.stop()
print(json.dumps(found))
"""


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
    writes: list[float] = []
    write_cpu: list[float] = []
    for i in range(runs):
        write = [*cmd, "memories", "write", "bench/x", p, "-c", f"v{i}"]
        writes += time_process(write, env, 1, write_cpu)
    found["write"] = median(writes)
    found["write cpu"] = median(write_cpu)
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
    found["check MB"] = peak_rss_mb([*cmd, "memories", "check", p, *FULL], env)
    shutil.rmtree(home / "cache" / "check", ignore_errors=True)
    found["cold MB"] = peak_rss_mb([*cmd, "memories", "check", p, *FULL], env)
    shutil.rmtree(home / "cache" / "search", ignore_errors=True)
    shutil.rmtree(home / "search", ignore_errors=True)
    first_cpu: list[float] = []
    # one word from the project's folder: the same command line for every version
    search = [*cmd, "memories", "search", "deploy"]
    found["search 1st"] = time_process(search, env, 1, first_cpu, cwd=project)[0]
    found["1st cpu"] = first_cpu[0]
    child = subprocess.run(
        [interpreter(cmd), "-c", SEARCH_CHILD, p, json.dumps(QUERIES)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=p,
    )
    later = json.loads(child.stdout)
    found["search p50"] = statistics.median(later["walls"])
    found["p50 cpu"] = statistics.median(later["cpus"])
    return found


def interpreter(cmd: list[str]) -> str:
    """The Python that runs ``cmd`` (a console script's own venv, else this one)."""
    if len(cmd) == 1:
        python = Path(cmd[0]).parent / "python"
        if python.exists():
            return str(python)
    return sys.executable


def mcp_listing(cmd: list[str], project: Path, env: dict[str, str]) -> dict[str, float]:
    """`list_memories` through the stdio MCP server: spawn to answer, and the call alone."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*cmd, "start-mcp-server", "--no-dashboard", "--project", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    pipe_in, pipe_out = proc.stdin, proc.stdout

    def send(message: dict) -> None:
        pipe_in.write((json.dumps(message) + "\n").encode())
        pipe_in.flush()

    def answer(want: int) -> dict:
        while True:
            line = pipe_out.readline()
            if not line:
                raise SystemExit("the MCP server closed its output")
            message = json.loads(line)
            if message.get("id") == want:
                return message

    info = {"name": "bench", "version": "0"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    calls = []
    for i in range(2, 8):
        call = {"name": "list_memories", "arguments": {}}
        begin = time.perf_counter()
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call})
        got = answer(i)
        calls.append(time.perf_counter() - begin)
        if got.get("error") or got["result"].get("isError"):
            raise SystemExit(f"list_memories failed: {str(got)[:500]}")
        if i == 2:
            spawned = time.perf_counter() - start
            size = len(got["result"]["content"][0]["text"])
    proc.stdin.close()
    proc.wait(timeout=30)
    return {
        "mcp spawn+list": spawned,
        "mcp list call": statistics.median(calls[1:]),
        "mcp answer KB": size / 1000,
    }


def dashboard(cmd: list[str], project: Path, env: dict[str, str]) -> dict[str, float]:
    """The dashboard's home and a memory's page over HTTP: first and later requests."""
    child = subprocess.run(
        [interpreter(cmd), "-c", DASHBOARD_CHILD, str(project)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(child.stdout)
    return {
        "home 1st": got["state"]["first"],
        "home later": got["state"]["later"],
        "page 1st": got["memory"]["first"],
        "page later": got["memory"]["later"],
        # the memory's backlinks, asked for apart (-1: the version has no such request;
        # its memory page held them, in "page 1st")
        "backlinks 1st": got["backlinks"]["first"] or -1.0,
    }


def cell(figure: str, value: float) -> str:
    """Seconds, except the figures that are megabytes or kilobytes."""
    if figure.endswith(("MB", "KB")):
        return f"{value:.0f}"
    return fmt_seconds(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", type=Path, default=None, help="checkout of the previous main")
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpora in DIR")
    parser.add_argument(
        "--no-surfaces",
        dest="surfaces",
        action="store_false",
        help="skip the MCP listing and the dashboard at the largest size",
    )
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
    for tree in [Path(__file__).resolve().parents[1], args.base]:
        if tree is not None:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")])
    sizes = [int(s) for s in args.sizes.split(",")]
    largest = max(sizes)
    try:
        print(f"{'memories':>8} {'figure':<14} " + " ".join(f"{s:>9}" for s in sides) + "  limit")
        for count in sizes:
            project, _size = work.project(count)
            if not (project / ".git").exists():
                subprocess.run(["git", "init", "-q", str(project)], check=True)
            results = {}
            load = os.getloadavg()[0]
            for side, cmd in sides.items():
                env = work.ours_env()
                # as installed: Python keeps the compiled modules (pip writes them; a
                # checkout writes them on first use), so no run pays for compiling
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                env["SERENA_HOME"] = str(work.root / f"home-{side}-{count}")
                if side == "base" and base_src is not None:
                    env["PYTHONPATH"] = base_src
                results[side] = measure(cmd, project, env, args.runs)
                if count == largest and args.surfaces:
                    results[side].update(mcp_listing(cmd, project, env))
                    results[side].update(dashboard(cmd, project, env))
            load = max(load, os.getloadavg()[0])
            print(f"{count:>8} load average (1 min) up to {load:.1f}")
            for figure in results["ours"]:
                limit = LIMITS.get((figure, count))
                cells = " ".join(f"{cell(figure, results[s][figure]):>9}" for s in sides)
                verdict = ""
                if limit is not None:
                    ok = results["ours"][figure] <= limit
                    verdict = f"  {cell(figure, limit)} {'ok' if ok else 'MISSED'}"
                print(f"{count:>8} {figure:<14} {cells}{verdict}")
            floor = floor_seconds(project)
            ratio = results["ours"]["check cold"] / floor
            print(f"{count:>8} {'floor':<14} {fmt_seconds(floor):>9}  cold check = {ratio:.1f}x")
    finally:
        work.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
