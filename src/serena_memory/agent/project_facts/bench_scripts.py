"""The project's benchmark scripts, as their own head comment says to run them.

A benchmark script is seldom wired into a task runner: it is run by hand, and its first
comment says how (``# Usage:`` then ``#   ruby benchmarks/collate.rb baseline``, ``//
node scripts/parse-perf.js``). A benchmark is run like the tests, so the first such line of
each script in a benchmarks folder (``benchmarks/``, ``bench/``), or of a script in
``scripts/`` named for measuring (``parse-perf.js``), is offered as a test.
"""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import words

BENCH_FOLDERS = ("benchmarks", "benchmark", "bench", "perf")
SCRIPT_FOLDERS = ("scripts", "script")
# the words of a script's name that say it measures (a profile is read, not run like a test)
_MEASURES = frozenset({"bench", "benchmark", "benchmarks", "perf"})
_SUFFIXES = frozenset({".rb", ".js", ".mjs", ".cjs", ".ts", ".py", ".php", ".pl", ".sh"})
MAX_SCRIPTS = 8
HEAD_LINES = 40
# a comment line running a file by its interpreter or its path (`#   ruby benchmarks/x.rb
# 1000`, `// node scripts/y.js`, `# ./bench/run.sh`)
_USAGE = re.compile(
    r"^\s*(?:#|//|\*|--)\s*(?:\$\s+)?"
    r"((?:(?:bundle\s+exec\s+)?(?:ruby|node|python3?|php|bun|deno|perl|bash|sh)\s+(?:\./)?|\./)"
    r"([\w./-]+)(?:\s+[\w.=/-]+)*)\s*$"
)


def read_bench_scripts(project: Project) -> None:
    """Offer each benchmark script's own usage line as a test."""
    for rel in _bench_scripts(project):
        line = usage_line(project.text(rel) or "", rel)
        if line:
            project.sheet.add("test", line, rel)


def _bench_scripts(project: Project) -> list[str]:
    found = [f"{folder}/{name}" for folder in BENCH_FOLDERS for name in project.listing(folder)]
    for folder in SCRIPT_FOLDERS:
        names = project.listing(folder)
        found += [f"{folder}/{n}" for n in names if _MEASURES.intersection(words(n))]
    scripts = [rel for rel in found if _suffix(rel) in _SUFFIXES and project.is_file(rel)]
    return scripts[:MAX_SCRIPTS]


def _suffix(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1] if "." in name else ""


def usage_line(text: str, rel: str) -> str | None:
    """The first line of the script's head comment that runs the script itself."""
    for line in text.splitlines()[:HEAD_LINES]:
        match = _USAGE.match(line)
        if match and match.group(2) == rel:
            return " ".join(match.group(1).split())
    return None
