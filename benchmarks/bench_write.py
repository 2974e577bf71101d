"""What one `serena memories write` costs as the folder grows (issue 44): the CPU seconds
(the process and its children) and the system calls of one whole CLI write, at 1,000,
10,000 and 100,000 generated memories, for several installed trees side by side in the
same run (runs interleaved, so that load on the machine hits every tree alike).

Each tree writes into its own copy of each corpus, with its own ``SERENA_HOME``, in two
states: ``no cache`` (no duplicate check ever ran: what a new project has) and
``checked`` (after one ``serena memories check --duplicates``; skipped for a tree whose
check has no such option). The same four memories are rewritten in turn, after one write
not timed, so that every figure is that of a write in a folder already written to.
System calls are counted with ``strace -f -c`` (every thread and child), one run apart
from the timed ones (strace slows a process down); ``-`` when strace is missing. Every
tree runs as installed: its bytecode written by the first write and read after
(:func:`_common.installed_env`).

Usage: ``python benchmarks/bench_write.py --tree LABEL=PATH/bin/serena [--tree ...]
[--sizes 1000,10000,100000] [--runs N] [--keep DIR]``; with ``--keep``, the copies
are kept and reused, for the same label, by the next run (delete a copy after changing
what its tree writes in the cache).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import Workspace, installed_env, median, time_process

TEXTS = (
    "# Deploy\n\nRun {i}: the deploy script reads the port from the environment.\n"
    "Staging is rebuilt every night at two, from the last backup.\n",
    "# Retries\n\nRun {i}: a failed job is retried five times, backing off exponentially.\n"
    "After the fifth failure it is parked in the dead-letter queue for a person.\n",
    "# Fonts\n\nRun {i}: the dashboard bundles its own typefaces to render offline.\n"
    "Glyph subsets are cut at build time to keep the download small.\n",
    "# Locale\n\nRun {i}: dates are shown in the reader's zone, stored in UTC.\n"
    "Translators edit catalogue files; missing strings fall back to English.\n",
)
"""What the four memories rewritten in turn say: none like another (nor, in the
corpora, like any memory there), so a write's note finds nothing to tell, as most do."""


def write_command(serena: str, project: Path, i: int) -> list[str]:
    name, text = f"bench/written_{i % 4}", TEXTS[i % 4].format(i=i)
    return [serena, "memories", "write", name, str(project), "-c", text]


def syscalls(cmd: list[str], env: dict[str, str]) -> int | None:
    """System calls of one run of ``cmd`` and every process and thread it starts."""
    if shutil.which("strace") is None:
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
        subprocess.run(
            ["strace", "-f", "-c", "-o", out.name, *cmd],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        for line in out.read().splitlines():
            if line.rstrip().endswith("total"):
                return int(line.split()[3])  # % time, seconds, usecs/call, calls, ...
    return None


def has_duplicates_check(serena: str) -> bool:
    done = subprocess.run([serena, "memories", "check", "--help"], capture_output=True, text=True)
    return "--duplicates" in done.stdout


class Side:
    """One tree on one corpus in one state: its project copy and its SERENA_HOME."""

    def __init__(self, root: Path, label: str, serena: str, source: Path, state: str) -> None:
        self.label, self.serena, self.state = label, serena, state
        self.project = root / f"{source.name}-{label}-{state.replace(' ', '-')}"
        self.home = self.project.with_name(self.project.name + "-home")
        self.prepared = self.home / ".bench-prepared"
        if not self.prepared.exists():
            for folder in (self.project, self.home):
                shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(source, self.project, symlinks=True)
            self.home.mkdir()
        self.env = {**installed_env(), "SERENA_HOME": str(self.home)}
        self.cpu: list[float] = []
        self.count = 0

    def prepare(self) -> None:
        """The first write (it records the whole folder in the history: minutes at
        100,000 memories) and the check, once: with ``--keep``, a later run reuses them."""
        if self.prepared.exists():
            return
        if self.state == "checked":
            cmd = [self.serena, "memories", "check", "--duplicates", str(self.project)]
            subprocess.run(cmd, env=self.env, stdout=subprocess.DEVNULL, check=False)
        self.write(timed=False)
        self.prepared.write_text(self.serena)

    def write(self, timed: bool = True) -> None:
        self.count += 1
        time_process(write_command(self.serena, self.project, self.count), self.env, 1, self.cpu)
        if not timed:
            self.cpu.pop()

    def calls(self) -> int | None:
        self.count += 1
        return syscalls(write_command(self.serena, self.project, self.count), self.env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, help="LABEL=PATH/bin/serena")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpora in DIR")
    args = parser.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.tree)
    sizes = [int(s) for s in args.sizes.split(",")]
    ws = Workspace(args.keep)
    sides: list[tuple[int, Side]] = []
    try:
        for size in sizes:
            source, mb = ws.project(size)
            print(f"corpus: {size:,} memories ({mb:.0f} MB)", flush=True)
            for label, serena in trees.items():
                for state in ("no cache", "checked"):
                    if state == "checked" and not has_duplicates_check(serena):
                        continue
                    side = Side(ws.root / "write-copies", label, serena, source, state)
                    side.prepare()
                    sides.append((size, side))
        if not args.runs:  # the copies prepared (with --keep), for a later run
            return 0
        for _ in range(args.runs):
            for _size, side in sides:
                side.write()
        print(f"{'memories':>8} {'tree':<10} {'state':<9} {'CPU ms':>7} {'syscalls':>9}")
        for size, side in sides:
            calls = side.calls()
            print(
                f"{size:>8,} {side.label:<10} {side.state:<9} {median(side.cpu) * 1000:>7.0f} "
                f"{calls if calls is not None else '-':>9}",
                flush=True,
            )
    finally:
        if args.keep is None:
            ws.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
