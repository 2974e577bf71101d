"""Code drift speed: `serena memories check --code` whole-process on 10,000 memories and a
50,000-file git repository (target: at most 2 s), and what the drift note adds to reading a
memory (target: at most 5 ms p50).

The repository: 50,000 small source files in 500 folders, three commits (the files, then
500 renames and 500 deletions). Each memory mentions four paths (existing, suffix, moved or
deleted) and two symbols (existing or not).

With ``--baseline NAME=OLD/src`` (repeatable) the check runs as well from those source
trees, interleaved with this one run by run (each with its own SERENA_HOME), and each
tree's median wall and CPU time (the process and its workers) is shown beside this one's.

With ``--start`` it times instead what the agent's start spends naming the drifted
memories (``drift_summary``, in a process of its own per run, as a server's first
answer), beside the baselines, in a fresh $SERENA_HOME and again once a check kept the
scan of the source files' identifiers.

Usage: ``python benchmarks/bench_code_drift.py [--runs N] [--files N] [--memories N]
[--keep DIR] [--baseline NAME=SRC ...] [--start]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}


def git(root: Path, *args: str, data: bytes | None = None) -> None:
    subprocess.run(
        ["git", *args], cwd=root, env=GIT_ENV, check=True, input=data, capture_output=True
    )


def build(root: Path, files: int, memories: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    per = files // 500
    for d in range(500):
        folder = root / "src" / f"pkg{d:03d}"
        folder.mkdir(parents=True)
        for f in range(per):
            (folder / f"mod{f:03d}.py").write_text(
                f"class Widget{d}x{f}:\n    def run_{d}_{f}(self):\n        return {f}\n",
                encoding="utf-8",
            )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "files")
    for d in range(500):  # one rename and one deletion per folder
        old = f"src/pkg{d:03d}/mod000.py"
        git(root, "mv", old, f"src/pkg{d:03d}/renamed000.py")
        git(root, "rm", "-q", f"src/pkg{d:03d}/mod001.py")
    git(root, "commit", "-q", "-m", "renames and deletions")
    mem = root / ".serena" / "memories"
    for i in range(memories):
        d, f = i % 500, 2 + i % (per - 2)
        topic = mem / f"topic{i % 100:02d}"
        topic.mkdir(parents=True, exist_ok=True)
        (topic / f"note{i:05d}.md").write_text(
            f"# Note {i}\n\nThe widget lives in `src/pkg{d:03d}/mod{f:03d}.py:2` "
            f"(`mod{f:03d}.py` for short), see `Widget{d}x{f}` and `run_{d}_{f}()`.\n"
            f"Old code: `src/pkg{d:03d}/mod000.py` and src/pkg{d:03d}/mod001.py.\n"
            f"Never written: `GhostThing{i}`.\n\n" + "Prose about the design. " * 40 + "\n",
            encoding="utf-8",
        )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memories")


def serena() -> list[str]:
    return [sys.executable, "-m", "serena_memory.cli"]


def check_once(root: Path, home: Path, src: Path | None) -> tuple[float, float, bytes]:
    """Wall and CPU seconds (with the forked workers) of one whole `check --code`, and
    its JSON; from ``src`` when given, else this tree."""
    env = {**os.environ, "SERENA_HOME": str(home)}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*serena(), "memories", "check", str(root), "--code", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out = proc.stdout.read() if proc.stdout else b""
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, out


_START = (
    "import sys, time\n"
    "try:\n"
    "    from serena_memory.wiring import build_store\n"
    "except ImportError:  # a tree from before serena_memory.wiring\n"
    "    from serena_memory.core.store import MemoryStore as build_store\n"
    "from serena_memory.integrity.code_drift.drifted_memories import drift_summary\n"
    "store = build_store(sys.argv[1], home=sys.argv[2])\n"
    "started = time.perf_counter()\n"
    "said = drift_summary(store)\n"
    "print(time.perf_counter() - started, said[:60], sep='\\t')\n"
)


def start_once(root: Path, home: Path, src: Path | None) -> tuple[float, str]:
    """Seconds the start's drift sentence took in a new process, and how it began."""
    env = {**os.environ, "SERENA_HOME": str(home)}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run(
        [sys.executable, "-c", _START, str(root), str(home)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, _, said = done.stdout.strip().partition("\t")
    return float(seconds), said


def bench_start(root: Path, home: Path, trees: dict[str, Path | None], runs: int) -> None:
    """The start's drift sentence per tree: with no scan kept (a fresh home each run),
    then with the scan a check keeps."""
    for kept in (False, True):
        for name, src in trees.items():
            times, said = [], ""
            for run in range(runs):
                where = home / f"start-{name.replace(' ', '-')}-{kept}-{0 if kept else run}"
                where.mkdir(parents=True, exist_ok=True)
                if kept and run == 0:
                    check_once(root, where, src)
                seconds, said = start_once(root, where, src)
                times.append(seconds)
            state = "scan kept" if kept else "fresh home"
            print(f"{name}, {state}: start median {statistics.median(times) * 1000:.0f} ms: {said}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--baseline", action="append", default=[], metavar="NAME=SRC")
    parser.add_argument("--start", action="store_true")
    args = parser.parse_args(argv)
    named = (b.split("=", 1) for b in args.baseline)
    trees: dict[str, Path | None] = {name: Path(src) for name, src in named}
    trees["this tree"] = None
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-drift-"))
    root = work / "repo"
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    os.environ["SERENA_HOME"] = str(home)
    if not (root / ".git").exists():
        started = time.perf_counter()
        build(root, args.files, args.memories)
        print(
            f"built {args.files} files, {args.memories} memories in "
            f"{time.perf_counter() - started:.1f} s"
        )
    if args.start:
        bench_start(root, home, trees, args.runs)
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
        return 0
    homes = {name: home / f"tree{i}" for i, name in enumerate(trees)}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    out = b""
    for _ in range(args.runs):
        for name, src in trees.items():
            homes[name].mkdir(exist_ok=True)
            wall, cpu, out_of_tree = check_once(root, homes[name], src)
            samples[name].append((wall, cpu))
            out = out_of_tree if src is None else out
    times = [wall for wall, _ in samples["this tree"]]
    for name, values in samples.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"{name}: check --code median wall {wall:.2f} s, CPU {cpu:.2f} s")
    import json

    report = json.loads(out)
    statuses: dict[str, int] = {}
    for f in report["code"]:
        statuses[f["status"]] = statuses.get(f["status"], 0) + 1
    median = statistics.median(times)
    print(
        f"check --code, whole process: median {median:.2f} s over {args.runs} runs "
        f"({', '.join(f'{t:.2f}' for t in times)}); {report['code_mentions']} mentions, "
        f"findings {statuses} -> {'OK' if median <= 2.0 else 'OVER'} (target 2 s)"
    )

    from serena_memory.integrity.code_drift.read_note import drift_note
    from serena_memory.wiring import build_store

    store = build_store(root, home=home)
    names = [f"topic{i % 100:02d}/note{i:05d}" for i in range(0, args.memories, 50)][:200]
    drift_note(store, names[0], store.read(names[0]))  # the process's first listing
    plain, noted = [], []
    for name in names:
        started = time.perf_counter()
        text = store.read(name)
        plain.append(time.perf_counter() - started)
        started = time.perf_counter()
        text = store.read(name)
        note = drift_note(store, name, text)
        noted.append(time.perf_counter() - started)
        assert note, name
    p_plain, p_noted = statistics.median(plain) * 1000, statistics.median(noted) * 1000
    print(
        f"read_memory p50: {p_plain:.2f} ms without the note, {p_noted:.2f} ms with it "
        f"(+{p_noted - p_plain:.2f} ms) -> {'OK' if p_noted - p_plain <= 5 else 'OVER'} "
        "(target +5 ms)"
    )
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
