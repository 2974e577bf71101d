"""Shared helpers of the benchmarks: corpora on disk, whole-process timing, the reference."""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import generate_corpus, write_corpus  # noqa: E402

REFERENCE = Path("/opt/serena-ref/bin/serena")


def ours_command() -> list[str]:
    """The installed `serena` console script next to this interpreter (what users run)."""
    script = Path(sys.executable).parent / "serena"
    return [str(script)] if script.exists() else [sys.executable, "-m", "serena_memory.cli"]


class Workspace:
    """Corpora generated once per size into a temporary folder, for ours and the reference."""

    def __init__(self, keep: Path | None = None) -> None:
        self.root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="serena-bench-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self._keep = keep is not None
        self.home = self.root / "serena-home"  # SERENA_HOME for ours (no global memories)
        self.home.mkdir(exist_ok=True)
        self.ref_home = self.root / "ref-home"  # HOME for the reference
        self.ref_home.mkdir(exist_ok=True)

    def project(self, count: int, seed: int = 1, reference: bool = False) -> tuple[Path, float]:
        """A project with ``count`` generated memories; returns (folder, size in MB)."""
        folder = self.root / f"{'ref' if reference else 'ours'}-{count}-{seed}"
        marker = folder / ".generated"
        if not marker.exists():
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            if reference:
                run_reference(["project", "create", str(folder)], self.ref_home, check=True)
            size = write_corpus(folder, generate_corpus(count, seed))
            marker.write_text(str(size))
        return folder, int(marker.read_text()) / 1e6

    def ours_env(self) -> dict[str, str]:
        env = installed_env()
        env["SERENA_HOME"] = str(self.home)
        return env

    def cleanup(self) -> None:
        if not self._keep:
            shutil.rmtree(self.root, ignore_errors=True)


def installed_env() -> dict[str, str]:
    """This process's environment as an installed package runs in it: Python writes each
    module's bytecode on the first run and reads it after, as on a user's machine (a
    ``PYTHONDONTWRITEBYTECODE`` set here would have every run compile every module it
    imports, a cost that grows with the source, not with what the command does)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_reference(args: list[str], home: Path, check: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in installed_env().items() if k != "SERENA_HOME"}
    env["HOME"] = str(home)
    return subprocess.run(
        [str(REFERENCE), *args], env=env, capture_output=True, text=True, check=check
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_process(
    cmd: list[str],
    env: dict[str, str],
    runs: int,
    cpu: list[float] | None = None,
    cwd: Path | None = None,
) -> list[float]:
    """Wall-clock seconds of ``runs`` whole-process runs (stdout discarded); with ``cpu``,
    also the CPU seconds of each run (the process and its workers), which a machine
    shared with other work disturbs far less than the wall clock."""
    times = []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), _children_cpu()
        done = subprocess.run(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd
        )
        times.append(time.perf_counter() - start)
        if cpu is not None:
            cpu.append(_children_cpu() - start_cpu)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode()[-2000:]}")
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)


def reference_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in installed_env().items() if k != "SERENA_HOME"}
    env["HOME"] = str(home)
    return env


def peak_rss_mb(cmd: list[str], env: dict[str, str]) -> float:
    """Peak resident memory of one run of ``cmd``, measured from a fresh parent process so
    that no earlier child counts (resource.getrusage of the children)."""
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *cmd], env=env, capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip()) / 1024  # ru_maxrss is in KiB on Linux


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def verdict(value: float, limit: float) -> str:
    return "ok" if value <= limit else "MISSED"
