"""OKF v0.2 bundles of a real project's memories: export, conformance, import, round trip.

The project is the one of ``../shared/realworld/serena-projects.tar.gz`` with the most
files (``rjmurillo__ai-agents`` unless ``--project`` names another): its ``.serena``
folder is copied into a fresh git repository (the memories, no source code: the code
facts find no files), the memories are written once through the CLI so that the history
names who wrote them, then

1. ``serena memories export okf DEST`` (timed), and ``--check`` right after (must say up
   to date);
2. the conformance check written from the specification (tests/helpers/okf_conformance.py):
   front matter with a type in every concept, index.md and log.md as specified; every
   link the export wrote (``[mem:NAME](...)``, the index and log entries) resolving, and
   the links the memories' own text holds that lead nowhere in the bundle counted (OKF
   tolerates them: they name files of the repository);
3. ``serena memories import okf DEST`` into the same project (must create nothing) and
   into a fresh one (timed, with ``--allow-secret``: a few of these memories hold what the
   secret scan flags, and they were written so too; every memory must come back byte for
   byte).

Usage: ``python benchmarks/bench_okf.py [--project owner__name] [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from _common import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "helpers"))
from okf_conformance import broken_links, check_bundle  # noqa: E402

ARCHIVE = ROOT.parent / "shared" / "realworld" / "serena-projects.tar.gz"
SERENA = [sys.executable, "-m", "serena_memory.cli"]


def largest(archive: tarfile.TarFile) -> str:
    counts: dict[str, int] = {}
    for member in archive.getmembers():
        parts = member.name.split("/")
        if len(parts) > 2 and member.isfile():
            counts[parts[1]] = counts.get(parts[1], 0) + 1
    return max(counts, key=lambda k: counts[k])


CPU: list[float] = []  # the processor time of each run, children (git) included


def serena(*args: str, cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """The wall time of one command, and what it said; its processor time goes to CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*SERENA, *args], cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"serena {' '.join(args)} failed: {done.stderr.strip()}")
    return took, done.stdout + done.stderr


def prepare(work: Path, chosen: str | None) -> tuple[Path, str, dict[str, str]]:
    with tarfile.open(ARCHIVE) as archive:
        name = chosen or largest(archive)
        members = [m for m in archive.getmembers() if m.name.startswith(f"serena-projects/{name}/")]
        archive.extractall(work / "x", members=members, filter="data")
    project = work / "project"
    shutil.copytree(work / "x" / "serena-projects" / name, project)
    memories = project / ".serena" / "memories"
    texts = {p: p.read_bytes() for p in memories.rglob("*.md")}
    for path in texts:
        path.unlink()
    env = {**os.environ, "SERENA_HOME": str(work / "home"), "PYTHONPATH": str(ROOT / "src")}
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    # each memory written once through the store, in one process, so the history names
    # who wrote it (as a person at the command line would)
    script = (
        "import sys, pathlib\n"
        "from serena_memory.core.store import MemoryStore\n"
        "store, folder = MemoryStore(sys.argv[1]), pathlib.Path(sys.argv[2])\n"
        "for path in sorted(folder.rglob('*.md')):\n"
        "    name = path.relative_to(folder).with_suffix('').as_posix()\n"
        "    try: store.write(name, path.read_text('utf-8'), allow_secret=True)\n"
        "    except Exception as exc: print(name, exc)\n"
    )
    kept = work / "kept"
    for path, data in texts.items():
        target = kept / path.relative_to(memories)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    subprocess.run([sys.executable, "-c", script, str(project), str(kept)], env=env, check=True)
    return project, name, env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project", default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        project, name, env = prepare(work, args.project)
        count = sum(1 for _ in (project / ".serena" / "memories").rglob("*.md"))
        exports, imports, export_cpu, import_cpu = [], [], [], []
        for run in range(args.runs):
            dest = work / f"bundle-{run}"
            exports.append(serena("memories", "export", "okf", str(dest), cwd=project, env=env)[0])
            export_cpu.append(CPU[-1])
        dest = work / "bundle-0"
        _, check = serena("memories", "export", "okf", str(dest), "--check", cwd=project, env=env)
        concepts, problems = check_bundle(dest, links=False)
        ours, theirs = broken_links(dest)
        _, same = serena("memories", "import", "okf", str(dest), cwd=project, env=env)
        identical = 0
        for run in range(args.runs):
            fresh = work / f"fresh-{run}"
            fresh.mkdir()
            took, said = serena(
                "memories", "import", "okf", str(dest), "--allow-secret", cwd=fresh, env=env
            )
            if "Error" in said:
                print(said.strip().splitlines()[-1])
            imports.append(took)
            import_cpu.append(CPU[-1])
        fresh_memories = work / "fresh-0" / ".serena" / "memories"
        for path in (project / ".serena" / "memories").rglob("*.md"):
            other = fresh_memories / path.relative_to(project / ".serena" / "memories")
            identical += other.is_file() and other.read_bytes() == path.read_bytes()
    print(f"project: {name}, {count} memories, {concepts} concepts")
    print(
        f"export: {median(exports):.2f} s wall, {median(export_cpu):.2f} s processor (median of "
        f"{len(exports)}); check: {check.strip()}"
    )
    print(f"conformance: {'pass' if not problems else f'FAIL, {len(problems)} problems'}")
    for problem in (problems + ours)[:20]:
        print(f"  {problem}")
    print(f"links the export wrote that lead nowhere: {len(ours)}")
    print(f"links written in the memories that lead nowhere in the bundle: {len(theirs)}")
    print(f"import into the same project: {same.strip().splitlines()[0]}")
    print(
        f"import into a fresh project: {median(imports):.2f} s wall, {median(import_cpu):.2f} s "
        f"processor (median of {len(imports)})"
    )
    print(f"round trip: {identical}/{count} memories byte for byte")


if __name__ == "__main__":
    main()
