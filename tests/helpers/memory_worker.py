"""A separate process acting on a memory store, for the crash and concurrency tests.

Run as ``python memory_worker.py JOB PROJECT HOME [ARGS...]``. It uses only the public
library API; the one hook it adds (``--progress``) reports each finished file write on
stdout so the test can kill it with SIGKILL in the middle of an operation.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import serena_memory.core.recovery as store_module
from serena_memory.core.store import MemoryStore
from serena_memory.wiring import build_store


def _report_writes() -> None:
    real = store_module.atomic_write

    def reporting(path: Path, data: bytes) -> None:
        real(path, data)
        sys.stdout.write("wrote\n")
        sys.stdout.flush()

    store_module.atomic_write = reporting


def write_loop(store: MemoryStore, names: list[str], big: int) -> None:
    """Forever: write version A, then B, of every memory (see :func:`contents`).

    Says "ready" once the first B is written, so however slow the machine, a kill after
    it finds both versions on disk (B in the first memory, A in the others)."""
    first = True
    while True:
        for version in "AB":
            for name in names:
                store.write(name, contents(name, version, big))
                if first and version == "B":
                    print("ready", flush=True)
                    first = False


def contents(name: str, version: str, big: int) -> str:
    line = f"{version} {name} " + version.lower() * 60 + "\n"
    return f"# {name} version {version}\n" + line * big + f"<!-- end {version} -->\n"


def append_edits(store: MemoryStore, name: str, tag: str, count: int) -> None:
    for i in range(count):
        store.edit(name, "<!-- end -->", f"line {tag}-{i}\n<!-- end -->")


def rename(store: MemoryStore, old: str, new: str) -> None:
    _report_writes()
    print("start", flush=True)
    store.rename(old, new)
    print("done", flush=True)


def slow_update(store: MemoryStore, name: str, text: str, seconds: float) -> None:
    """Replace a memory's text while holding its locks for ``seconds``: says "locked" as
    soon as it holds them, so another process's change waits behind it."""

    def transform(_: str) -> str:
        print("locked", flush=True)
        time.sleep(seconds)
        return text

    store.update({name: transform})
    print("done", flush=True)


def main() -> None:
    job, project, home, *args = sys.argv[1:]
    store = build_store(project, home=home)
    if job == "write-loop":
        write_loop(store, args[1:], int(args[0]))
    elif job == "append-edits":
        append_edits(store, args[0], args[1], int(args[2]))
    elif job == "slow-update":
        slow_update(store, args[0], args[1], float(args[2]))
    elif job == "rename":
        rename(store, args[0], args[1])
    else:
        raise SystemExit(f"unknown job {job}")


if __name__ == "__main__":
    main()
