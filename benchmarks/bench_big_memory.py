"""One big memory beside small ones: what a small write, the duplicate note after it and
the dashboard's Check page cost, against the same project without the big memory (the
baseline, in the same run). The big memory is many short lines (a cloned or team-pulled
memory), 16 MiB by default.

Each write is an agent's: ``store.write`` of a 44-character note, then
``write_note`` (what ``write_memory`` adds), in this process, medians of ``--runs``;
the first write after the big memory appeared also records it in the history once (its
secret scan), timed on its own. The Check page is ``/api/check?duplicates=1`` of a fresh
dashboard server each run (no snapshot yet; the duplicates cache cleared first, then
kept, as a second visit finds it).

Targets: a write with its note under 1 s beside the big memory.

Usage: ``python benchmarks/bench_big_memory.py [--runs N] [--mib N]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

NOTE = "A short note about the build and its ports.\n"  # 44 characters


def big_text(mib: float) -> str:
    """Short lines up to ``mib`` MiB, never more (16 MiB is the largest memory read)."""
    lines = []
    size = i = 0
    while True:
        line = f"Line {i} says the build listens on port {i % 65536}.\n"
        if size + len(line) > mib * 1024 * 1024:
            return "".join(lines)
        lines.append(line)
        size += len(line)
        i += 1


def project(root: Path, name: str, big: str | None) -> Path:
    folder = root / name
    memories = folder / ".serena" / "memories"
    memories.mkdir(parents=True)
    for i in range(20):
        (memories / f"topic_{i}.md").write_text(
            f"# Topic {i}\n\nThe service {i} runs `make serve-{i}` on port {8000 + i}.\n"
            f"- Its tests run with `pytest tests/{i}` before every push.\n"
        )
    if big is not None:
        (memories / "pulled_big.md").write_text(big)
    return folder


def writes(folder: Path, runs: int) -> tuple[float, float, float]:
    """(the first write with its note, then the medians of a write and of its note)."""
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.duplicates.write_comparison import write_note

    store = MemoryStore(folder)
    start = time.perf_counter()
    store.write("notes/first", NOTE)
    write_note(store, "notes/first", NOTE)
    first = time.perf_counter() - start
    write, note = [], []
    for i in range(runs):
        start = time.perf_counter()
        store.write(f"notes/n{i}", NOTE)
        middle = time.perf_counter()
        write_note(store, f"notes/n{i}", NOTE)
        write.append(middle - start)
        note.append(time.perf_counter() - middle)
    return first, statistics.median(write), statistics.median(note)


def check_page(folder: Path, home: Path, runs: int) -> tuple[float, float]:
    """(median seconds of the Check page with duplicates on a fresh server, cache cold;
    the same with the duplicates cache a first visit left)."""
    import httpx

    from serena_memory.dashboard.server import DashboardServer

    found: dict[str, list[float]] = {"cold": [], "warm": []}
    for _ in range(runs):
        for kind in ("cold", "warm"):
            if kind == "cold":
                shutil.rmtree(home / "cache", ignore_errors=True)
            server = DashboardServer(folder, home=home, port=0)
            server.start()
            try:
                headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
                with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as c:
                    start = time.perf_counter()
                    answer = c.get("/api/check", params={"duplicates": "1", "limit": "50"})
                    found[kind].append(time.perf_counter() - start)
                    answer.raise_for_status()
            finally:
                server.stop()
    return statistics.median(found["cold"]), statistics.median(found["warm"])


def shown_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mib", type=float, default=16.0)
    parser.add_argument("--no-check-page", action="store_true")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="serena-big-"))
    home = root / "home"
    os.environ["SERENA_HOME"] = str(home)
    try:
        big = big_text(args.mib)
        print(f"big memory: {len(big):,} bytes, {big.count(chr(10)):,} lines")
        rows = []
        for label, text in (("baseline (20 small)", None), (f"+ {args.mib:g} MiB memory", big)):
            folder = project(root, label.split()[0].strip("+") or "big", text)
            first, write, note = writes(folder, args.runs)
            page = (None, None) if args.no_check_page else check_page(folder, home, args.runs)
            rows.append((label, first, write, note, *page))
        print(f"{'':24} {'1st write':>10} {'write':>8} {'note':>8} {'check cold':>11} {'warm':>8}")
        for label, *cells in rows:
            shown = [shown_seconds(c) for c in cells]
            widths = (10, 8, 8, 11, 8)
            print(
                f"{label:24} " + " ".join(f"{c:>{w}}" for c, w in zip(shown, widths, strict=True))
            )
        total = rows[1][2] + rows[1][3]
        verdict = "ok" if total < 1 else "MISSED"
        print(f"a write and its note beside the big memory under 1 s: {verdict}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
