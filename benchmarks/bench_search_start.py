"""How fast search starts, beside earlier source trees in the same run.

- MCP: a server over stdio on a fresh 10,000-memory folder with an empty SERENA_HOME
  (no index yet): the first `search_memories` call (the round trip, sent right after the
  handshake), later calls at once (p50), and, once nothing is being prepared any more,
  later calls again (p50);
- CLI: `serena memories search` as a whole process on a 20-memory folder, for a query
  that words answer, one that needs meaning, and one that needs meaning and is new at
  every run (words none of the memories hold, drawn anew: nothing the model said before
  answers it), and one new at every run of words the memories hold (three of their
  words, drawn anew: a new question of words the cache of questions may know), beside
  `serena memories list` of the same folder: with the cache a
  person's earlier commands kept, and with an empty SERENA_HOME; and each search's time
  as a multiple of the list's.

Each tree runs as ``python -m serena_memory.cli`` with its ``src`` first on PYTHONPATH;
runs are interleaved tree by tree so that load on the machine hits all alike; medians.

Usage: ``python benchmarks/bench_search_start.py --baseline NAME=OLD/src [--baseline ...]
[--count 10000] [--runs 3] [--cli-runs 9] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_mcp import Pipe  # noqa: E402
from corpus import NAME_WORDS, generate_corpus, write_corpus  # noqa: E402

SET = HERE / "search_set"
WORDS_QUERY = "feature toggles"  # every word held by one memory: words answer it
MEANING_QUERY = "switches for unfinished work"  # held by none: meaning is needed
PREPARING = "still being prepared"
NEW_QUERY = "search, meaning needed, new query"
NEW_KNOWN = "search, meaning needed, new query of the memories' words"


def search(pipe: Pipe, query: str) -> tuple[float, str]:
    """The round trip of one `search_memories` call, and its answer's text."""
    start = time.perf_counter()
    answer = pipe.request("tools/call", {"name": "search_memories", "arguments": {"query": query}})
    wall = time.perf_counter() - start
    return wall, " ".join(block.get("text", "") for block in answer["result"]["content"])


def mcp_run(src: Path, project: Path, queries: list[str]) -> dict[str, float]:
    home = Path(tempfile.mkdtemp(prefix="bench-search-home-"))
    pipe = Pipe(project, {**os.environ, "PYTHONPATH": str(src), "SERENA_HOME": str(home)})
    try:
        pipe.handshake()
        first, _ = search(pipe, queries[0])
        later = [search(pipe, q)[0] for q in queries[1:21]]
        waited = time.perf_counter()
        while PREPARING in search(pipe, MEANING_QUERY)[1]:
            if time.perf_counter() - waited > 300:
                break
            time.sleep(0.5)
        ready = time.perf_counter() - waited
        settled = [search(pipe, q)[0] for q in queries[21:41]]
    finally:
        pipe.close()
        shutil.rmtree(home, ignore_errors=True)
    return {
        "the first search (no index yet)": first,
        "later searches at once, p50": statistics.median(later),
        "then until meaning is ready": ready,
        "later searches once it is, p50": statistics.median(settled),
    }


def cli_once(src: Path, args: list[str], home: Path, cwd: Path) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one whole process, run in the
    project's folder (the project's argument differs between the trees measured)."""
    env = {**os.environ, "PYTHONPATH": str(src), "SERENA_HOME": str(home)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "serena_memory.cli", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{args} from {src} failed: {stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def small_folder(root: Path) -> Path:
    """20 hand-written memories: shopfront's 16 and 4 of ledger's."""
    project = root / "small"
    base = project / ".serena" / "memories"
    if base.exists():
        return project
    sources = sorted((SET / "shopfront").rglob("*.md")) + sorted((SET / "ledger").rglob("*.md"))[:4]
    for path in sources:
        rel = path.relative_to(SET / "shopfront") if "shopfront" in path.parts else None
        target = base / (rel if rel else Path("ledger") / path.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return project


def cli_bench(trees: dict[str, Path], root: Path, runs: int) -> dict[str, dict[str, str]]:
    project = small_folder(root)
    commands = {  # the query as one argument: every tree reads it so
        "list": ["memories", "list"],
        "search, words answer": ["memories", "search", WORDS_QUERY],
        "search, meaning needed": ["memories", "search", MEANING_QUERY],
    }
    samples: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    kept = {name: Path(tempfile.mkdtemp(prefix="bench-kept-")) for name in trees}
    for name, src in trees.items():  # the kept cache: a person's earlier commands
        for args in commands.values():
            cli_once(src, args, kept[name], project)
    draw = random.Random(11)
    held = memory_words(project)
    for _ in range(runs):
        new_query = " ".join(draw.sample(NAME_WORDS, 3))  # the same for every tree
        commands[NEW_QUERY] = ["memories", "search", new_query]
        commands[NEW_KNOWN] = ["memories", "search", " ".join(draw.sample(held, 3))]
        for name, src in trees.items():
            for label, args in commands.items():
                samples.setdefault((name, label, "kept"), []).append(
                    cli_once(src, args, kept[name], project)
                )
                empty = Path(tempfile.mkdtemp(prefix="bench-empty-"))
                samples.setdefault((name, label, "empty"), []).append(
                    cli_once(src, args, empty, project)
                )
                shutil.rmtree(empty, ignore_errors=True)
    for home in kept.values():
        shutil.rmtree(home, ignore_errors=True)
    out: dict[str, dict[str, str]] = {}
    for (name, label, cache), values in samples.items():
        wall = statistics.median(w for w, _ in values) * 1000
        cpu = statistics.median(c for _, c in values) * 1000
        out.setdefault(name, {})[f"CLI {label} ({cache} cache), wall / CPU"] = (
            f"{wall:.0f} / {cpu:.0f} ms"
        )
    for (name, label, cache), values in samples.items():
        if label != "list":
            listed = statistics.median(w for w, _ in samples[(name, "list", cache)])
            times = statistics.median(w for w, _ in values) / listed
            out[name][f"CLI {label} ({cache} cache) / list"] = f"{times:.2f}x"
    return out


def memory_words(project: Path) -> list[str]:
    """The words of five letters or more the small folder's memories hold, sorted."""
    words: set[str] = set()
    for path in (project / ".serena" / "memories").rglob("*.md"):
        words.update(re.findall(r"\b[a-z]{5,}\b", path.read_text(encoding="utf-8")))
    return sorted(words)


def big_folder(root: Path, count: int) -> Path:
    project = root / f"speed-{count}"
    if not (project / ".generated").exists():
        shutil.rmtree(project, ignore_errors=True)
        project.mkdir(parents=True)
        (project / ".generated").write_text(str(write_corpus(project, generate_corpus(count, 1))))
    return project


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", action="append", default=[], metavar="NAME=SRC")
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli-runs", type=int, default=9)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--skip-mcp", action="store_true")
    args = parser.parse_args(argv)
    trees = {name: Path(src) for name, src in (b.split("=", 1) for b in args.baseline)}
    trees["this tree"] = HERE.parent / "src"
    for src in trees.values():  # no tree pays for compiling its modules
        compileall.compile_dir(str(src), quiet=1)
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-search-start-"))
    root.mkdir(parents=True, exist_ok=True)
    words = random.Random(5)
    queries = [" ".join(words.sample(NAME_WORDS, words.randint(2, 6))) for _ in range(41)]
    results: dict[str, dict[str, str]] = cli_bench(trees, root, args.cli_runs)
    if not args.skip_mcp:
        project = big_folder(root, args.count)
        mcp: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, src in trees.items():
                mcp[name].append(mcp_run(src, project, queries))
        for name, runs in mcp.items():
            for key in runs[0]:
                value = statistics.median(run[key] for run in runs)
                results[name][f"MCP at {args.count}: {key}"] = f"{value * 1000:.0f} ms"
    names = list(trees)
    print("| measure (median) | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    for key in results[names[-1]]:
        cells = [results[name].get(key, "") for name in names]
        print(f"| {key} | " + " | ".join(cells) + " |")
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
