"""MCP server speed over stdio, measured from the client's side.

- start: from spawning `python -m serena_memory.cli start-mcp-server` to the answer of the
  first tool call (initialize, initialized, then `tools/call read_memory`), which is the
  moment an agent can first use its memories; median of several processes, as wall-clock
  time and as the server process's CPU time until then (Linux), which stays comparable
  when other jobs share the machine;
- read_memory and write_memory: round trip of one `tools/call` on a running server, p50.

The client speaks JSON-RPC lines directly over the pipes, so the figures are the server's
and not a client library's. Usage: ``python benchmarks/bench_mcp.py [--runs 7] [--calls 300]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = [sys.executable, "-m", "serena_memory.cli", "start-mcp-server", "--no-dashboard"]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


class Pipe:
    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [*SERVER, "--project", str(project)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 10

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def receive(self, want_id: int) -> dict:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("server closed its output")
            message = json.loads(line)
            if message.get("id") == want_id:
                return message

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.receive(self.next_id)

    def handshake(self) -> None:
        self.send(INIT)
        self.receive(1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def read(self, name: str) -> dict:
        arguments = {"memory_name": name}
        return self.request("tools/call", {"name": "read_memory", "arguments": arguments})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a running process so far (Linux), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_start(project: Path, env: dict[str, str], runs: int) -> tuple[list[float], list[float]]:
    """Whole-process wall-clock and CPU times, start to the first tool answer."""
    times, cpu = [], []
    for _ in range(runs):
        start = time.perf_counter()
        pipe = Pipe(project, env)
        pipe.handshake()
        answer = pipe.read("core")
        times.append(time.perf_counter() - start)
        used = cpu_seconds(pipe.proc.pid)
        if used is not None:
            cpu.append(used)
        assert not answer["result"].get("isError"), answer
        pipe.close()
    return times, cpu


def bench_calls(project: Path, env: dict[str, str], calls: int) -> dict[str, list[float]]:
    pipe = Pipe(project, env)
    pipe.handshake()
    content = "# note\n" + "A dense line of project knowledge, `mem:core`.\n" * 60
    first = {"memory_name": "bench/a", "content": content}
    pipe.request("tools/call", {"name": "write_memory", "arguments": first})
    out: dict[str, list[float]] = {"read_memory": [], "write_memory": []}
    for i in range(calls):
        start = time.perf_counter()
        answer = pipe.read("bench/a")
        out["read_memory"].append(time.perf_counter() - start)
        assert not answer["result"].get("isError"), answer
        start = time.perf_counter()
        answer = pipe.request(
            "tools/call",
            {
                "name": "write_memory",
                "arguments": {"memory_name": f"bench/w{i % 20}", "content": content},
            },
        )
        out["write_memory"].append(time.perf_counter() - start)
        assert not answer["result"].get("isError"), answer
    pipe.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="processes started for 'start'")
    parser.add_argument("--calls", type=int, default=300, help="tool calls of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".serena" / "memories").mkdir(parents=True)
        (project / ".serena" / "memories" / "core.md").write_text("# core\n", encoding="utf-8")
        env = dict(os.environ, SERENA_HOME=str(Path(tmp) / "home"))
        bench_start(project, env, 1)  # warm the file cache and byte-compiled modules
        start, cpu = bench_start(project, env, args.runs)
        calls = bench_calls(project, env, args.calls)
    print(
        f"start to first tool answer: median {statistics.median(start):.3f} s "
        f"(min {min(start):.3f}, max {max(start):.3f}, {len(start)} runs)"
    )
    if cpu:
        print(f"  CPU time of the server until then: median {statistics.median(cpu):.3f} s")
    for name in ("read_memory", "write_memory"):
        values = sorted(v * 1000 for v in calls[name])
        p90 = values[int(len(values) * 0.9)]
        print(
            f"{name} round trip: p50 {statistics.median(values):.2f} ms, p90 {p90:.2f} ms "
            f"({len(values)} calls)"
        )


if __name__ == "__main__":
    main()
