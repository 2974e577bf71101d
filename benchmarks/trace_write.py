"""How many calls one write makes inside serena-memory, and how often a call crosses from
one module to another: a measure of how many places a reader must follow to understand a
write (issue: "a plain write makes 445 calls across 28 modules with 219 changes of
module").

Traced with ``sys.setprofile`` in process, after one untraced write has warmed every
import and cache: ``store.write`` of a small memory into a folder of 20, and the CLI's
``memories write`` through click's test runner on the same folder.

Counted: Python calls whose function lives in ``serena_memory``; the modules they are in;
a change of module when the caller's module is not the callee's (a call from outside the
package into it counts once).

Usage: python benchmarks/trace_write.py
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

PACKAGE = "serena_memory"


def traced(action: Callable[[], object]) -> tuple[int, int, int]:
    """(calls, modules, changes of module) of one run of ``action``."""
    calls = 0
    changes = 0
    modules: set[str] = set()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls, changes
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(PACKAGE):
            return
        calls += 1
        modules.add(module)
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        if caller != module:
            changes += 1

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return calls, len(modules), changes


def main() -> None:
    from click.testing import CliRunner

    from serena_memory.cli import cli
    from serena_memory.wiring import build_store

    with tempfile.TemporaryDirectory() as tmp:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        (project / ".serena" / "memories").mkdir(parents=True)
        home.mkdir()
        env = {"SERENA_HOME": str(home)}
        store = build_store(project, home=home)
        for i in range(20):
            store.write(f"topic/note_{i}", f"# Note {i}\n\nSomething worth keeping, {i}.\n")
        runner = CliRunner(env=env)
        args = ["memories", "write", "topic/new", "--project", str(project)]

        def cli_write(text: str) -> None:
            result = runner.invoke(cli, [*args, "--content", text])
            assert result.exit_code == 0, result.output

        store.write("warm", "warm up\n")
        cli_write("warm up the command line\n")
        rows = {
            "store.write": traced(lambda: store.write("fresh", "A small fact.\n")),
            "CLI memories write": traced(lambda: cli_write("Another small fact.\n")),
        }
    print(f"{'':<22}{'calls':>8}{'modules':>9}{'changes of module':>19}")
    for label, (calls, modules, changes) in rows.items():
        print(f"{label:<22}{calls:>8}{modules:>9}{changes:>19}")


if __name__ == "__main__":
    main()
