"""Reliability with real processes: SIGKILL during writes and renames, concurrent edits."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.memory_worker import contents

from serena_memory.core.store import JOURNAL_NAME, MemoryStore
from serena_memory.wiring import build_store

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL"),
    pytest.mark.slow,  # processes killed part way and writers racing
]

WORKER = Path(__file__).parents[1] / "helpers" / "memory_worker.py"


def _spawn(job: str, store: MemoryStore, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            str(WORKER),
            job,
            str(store.layout.project_root),
            str(store.layout.home),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()  # type: ignore[union-attr]
    proc.stderr.close()  # type: ignore[union-attr]


def test_sigkilled_writer_never_leaves_a_torn_or_empty_memory(store: MemoryStore) -> None:
    names = ["core", "auth/login", "global/style", "db/deep/schema"]
    big = 3000  # ~200 KB per memory: a write takes long enough to be interrupted
    for name in names:
        store.write(name, contents(name, "A", big))
    allowed = {name: {contents(name, v, big) for v in "AB"} for name in names}
    rng = random.Random(2)
    seen = {name: set() for name in names}
    for i in range(20):
        proc = _spawn("write-loop", store, str(big), *names)
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()  # type: ignore[union-attr]
        # mostly killed within its first writes; every fifth run lives long enough, even on
        # a loaded machine, to get to version B
        time.sleep(rng.uniform(0, 0.04) if i % 5 else 1.0)
        _kill(proc)
        fresh = build_store(store.layout.project_root, home=store.layout.home)
        assert fresh.list().all == sorted(names)  # no stray file shows up as a memory
        for name in names:
            text = fresh.read(name)
            assert text in allowed[name], f"{name} torn: {len(text)} chars"
            seen[name].add(text.rsplit("<!-- end ", 1)[1][0])
    # the writer really alternated versions while being killed
    assert set().union(*seen.values()) == {"A", "B"}


def test_concurrent_edits_lose_nothing(store: MemoryStore) -> None:
    store.write("log", "# log\n<!-- end -->\n")
    workers, edits = 8, 50
    procs = [_spawn("append-edits", store, "log", f"w{w}", str(edits)) for w in range(workers)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    lines = store.read("log").splitlines()
    assert lines[0] == "# log" and lines[-1] == "<!-- end -->"
    body = lines[1:-1]
    expected = {f"line w{w}-{i}" for w in range(workers) for i in range(edits)}
    assert len(body) == workers * edits == 400
    assert set(body) == expected
    for w in range(workers):  # each worker's own lines stay in its order
        mine = [line for line in body if line.startswith(f"line w{w}-")]
        assert mine == [f"line w{w}-{i}" for i in range(edits)]


def _hub_corpus(store: MemoryStore, count: int) -> dict[str, str]:
    """Memories whose body is unique and which each refer to the hub once or twice."""
    bodies = {}
    for i in range(count):
        name = f"topic{i % 7}/note{i}"
        bodies[name] = f"# note {i}\n" + f"fact {i} line {{}}\n".format(i) * 20
    return bodies


def _render(body: str, hub: str, i: int) -> str:
    extra = f" and again `mem:{hub}`" if i % 3 == 0 else ""
    near_misses = "not `mem:hubs/main/child` nor mem:hubs/mainx"  # never rewritten
    return f"{body}See `mem:{hub}`{extra}; {near_misses}.\n"


def test_rename_killed_part_way_is_finished_by_the_next_operation(store: MemoryStore) -> None:
    bodies = _hub_corpus(store, 80)
    hub_body = "# the hub\nlinks to itself: `mem:{}`\n"
    hub = "hubs/main"
    mem = store.layout.memories_dir
    for i, (name, body) in enumerate(bodies.items()):
        path = mem / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_render(body, hub, i))
    (mem / "hubs").mkdir()
    (mem / "hubs" / "main.md").write_text(hub_body.format(hub))
    rng = random.Random(7)
    interrupted = 0
    targets = ["hubs/main", "global/hub", "central"]
    for iteration in range(10):
        new = targets[(targets.index(hub) + 1) % len(targets)]
        proc = _spawn("rename", store, hub, new)
        assert proc.stdout.readline() == "start\n", proc.stderr.read()  # type: ignore[union-attr]
        # kill after a random number of finished file writes (1 = just the journal)
        for _ in range(rng.randint(1, 60)):
            if proc.stdout.readline() != "wrote\n":  # type: ignore[union-attr]
                break
        _kill(proc)
        journal_left = (mem / JOURNAL_NAME).exists() or (
            store.layout.global_root / JOURNAL_NAME
        ).exists()
        interrupted += journal_left

        fresh = build_store(store.layout.project_root, home=store.layout.home)
        names = fresh.list().all  # the next operation finishes the rename
        if fresh.exists(new):
            hub = new
        assert names == sorted([*bodies, hub]), f"iteration {iteration}"
        assert fresh.read(hub) == hub_body.format(hub)
        for i, (name, body) in enumerate(bodies.items()):
            assert fresh.read(name) == _render(body, hub, i), f"{name} at iteration {iteration}"
        assert not (mem / JOURNAL_NAME).exists()
        assert not (store.layout.global_root / JOURNAL_NAME).exists()
    assert interrupted >= 1  # at least one kill landed in the middle of a rename
