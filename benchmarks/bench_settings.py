"""What reading the settings costs: the CLI's cold start and one load of both files.

- `serena memories list` in a fresh process (wall clock and CPU, medians), with no
  configuration file, and with a global and a project file such as a person keeps
  (comments, Serena's own keys beside ours);
- one ``load_settings`` of those files, warm (the files parsed and cached, so what is left
  is checking every key against the declaration), in microseconds.

Each case runs with the tree's ``src`` first on PYTHONPATH, from bytecode as an install
does; with ``--baseline-src OLD/src`` the same cases run from another source tree (e.g.
``git archive HEAD src | tar -x -C /tmp/old``), interleaved run by run so that load on the
machine hits both alike.

Usage: ``python benchmarks/bench_settings.py [--baseline-src OLD/src] [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import fmt_seconds, median, time_process

HERE_SRC = Path(__file__).resolve().parent.parent / "src"

GLOBAL_FILE = """\
# Serena's own settings, kept in the same file
web_dashboard: true
log_level: 20
projects: []

# memories
read_only_memory_patterns: ["global/.*"]   # the team's notes
ignored_memory_patterns: ["_archive/.*"]
base_modes: []
memory_listing_budget: 3000
memory_history: true
memory_history_keep_days: 90
memory_agent_writes: direct
memory_sync: manual
"""

PROJECT_FILE = """\
project_name: demo
languages: [python]
initial_prompt: "Run the tests with make test."
read_only_memory_patterns: ["decisions/.*"]
memory_agent_writes: propose
"""

_WARM = """
import sys, time
from pathlib import Path
from serena_memory.core.config import load_settings
project, home = Path(sys.argv[1]), Path(sys.argv[2])
load_settings(project, home)
runs = 2000
start = time.perf_counter()
for _ in range(runs):
    load_settings(project, home)
print((time.perf_counter() - start) / runs)
"""


def make_case(root: Path, with_files: bool) -> tuple[Path, Path]:
    """A project of a few memories and a SERENA_HOME, with or without configuration."""
    project, home = root / "project", root / "home"
    memories = project / ".serena" / "memories"
    memories.mkdir(parents=True)
    home.mkdir()
    for i in range(20):
        (memories / f"note_{i}.md").write_text(f"# Note {i}\n", encoding="utf-8")
    if with_files:
        (home / "serena_config.yml").write_text(GLOBAL_FILE, encoding="utf-8")
        (project / ".serena" / "project.yml").write_text(PROJECT_FILE, encoding="utf-8")
    return project, home


def env_for(src: Path, home: Path) -> dict[str, str]:
    """Run as an installed copy runs: from compiled bytecode (kept under a folder of the
    benchmark's own, so neither source tree is written to), whatever the shell says."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    prefix = Path(tempfile.gettempdir()) / "bench-settings-pycache"
    return {
        **env,
        "PYTHONPATH": str(src),
        "SERENA_HOME": str(home),
        "PYTHONPYCACHEPREFIX": str(prefix),
    }


def warm_load(src: Path, project: Path, home: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _WARM, str(project), str(home)],
        env=env_for(src, home),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"loading the settings from {src} failed: {done.stderr[-2000:]}")
    return float(done.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    trees = [args.baseline_src.resolve(), HERE_SRC] if args.baseline_src else [HERE_SRC]
    names = {t: "baseline" if t != HERE_SRC else "this tree" for t in trees}
    header = "   ".join(f"{names[t]:>21}" for t in trees)
    print(f"{'median (wall / CPU)':<46} {header}")
    with tempfile.TemporaryDirectory(prefix="bench-settings-") as tmp:
        for with_files in (False, True):
            project, home = make_case(Path(tmp) / str(with_files), with_files)
            wall: dict[Path, list[float]] = {t: [] for t in trees}
            cpu: dict[Path, list[float]] = {t: [] for t in trees}
            for tree in trees:  # a first run of each tree compiles its modules
                cmd = [sys.executable, "-m", "serena_memory.cli", "memories", "list", str(project)]
                time_process(cmd, env_for(tree, home), 1)
            for _ in range(args.runs):
                for tree in trees:
                    cmd = [sys.executable, "-m", "serena_memory.cli", "memories", "list"]
                    env = env_for(tree, home)
                    wall[tree] += time_process([*cmd, str(project)], env, 1, cpu[tree])
            which = "with a global and a project file" if with_files else "no configuration file"
            cells = "   ".join(
                f"{fmt_seconds(median(wall[t])) + ' / ' + fmt_seconds(median(cpu[t])):>21}"
                for t in trees
            )
            print(f"{'memories list, ' + which:<46} {cells}", flush=True)
            if with_files:
                warm = {t: median([warm_load(t, project, home) for _ in range(3)]) for t in trees}
                cells = "   ".join(f"{warm[t] * 1e6:>18.1f} us" for t in trees)
                print(f"{'load_settings of both files, warm':<46} {cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
