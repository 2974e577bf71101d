"""Whatever both machines change, a sync loses no line and both end with the same text:
random edits of one memory on two machines, merged through a real bare repository."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.sync.conflicts import conflicts
from serena_memory.sync.merge import sync
from serena_memory.wiring import build_store

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

BASE = [f"base line {i}" for i in range(8)]

# An edit: replace line i, insert after line i, or delete line i.
edits = st.lists(
    st.tuples(st.sampled_from(["replace", "insert", "delete"]), st.integers(0, len(BASE) - 1)),
    max_size=4,
)


def apply(lines: list[str], changes: list[tuple[str, int]], side: str) -> list[str]:
    out = list(lines)
    for n, (kind, i) in enumerate(changes):
        i = min(i, len(out) - 1)
        if i < 0:
            out.append(f"{side} added {n}")
        elif kind == "replace":
            out[i] = f"{side} replaced {n}"
        elif kind == "insert":
            out.insert(i + 1, f"{side} inserted {n}")
        else:
            del out[i]
    return out


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(laptop_edits=edits, workstation_edits=edits)
def test_no_line_is_lost_and_both_machines_agree(
    laptop_edits: list[tuple[str, int]], workstation_edits: list[tuple[str, int]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        remote = root / "remote.git"
        subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
        stores = []
        for name in ("laptop", "workstation"):
            (root / name / "project").mkdir(parents=True)
            (root / name / "home").mkdir()
            stores.append(build_store(root / name / "project", home=root / name / "home"))
        laptop, workstation = stores
        laptop.write("global/notes", "\n".join(BASE) + "\n")
        sync(laptop, "global", str(remote))
        sync(workstation, "global", str(remote))
        theirs = apply(BASE, laptop_edits, "laptop")
        ours = apply(BASE, workstation_edits, "workstation")
        laptop.write("global/notes", "\n".join(theirs) + "\n")
        workstation.write("global/notes", "\n".join(ours) + "\n")
        sync(laptop, "global", str(remote))
        sync(workstation, "global", str(remote))
        sync(laptop, "global", str(remote))
        final = laptop.read("global/notes")
        assert workstation.read("global/notes") == final
        kept = "".join(c.remote_text for c in conflicts(workstation))
        for line in ours:
            if line not in BASE:
                assert line in final.splitlines(), (line, final)
        for line in theirs:
            if line not in BASE:
                assert line in final.splitlines() or line in kept.splitlines(), (line, final)
