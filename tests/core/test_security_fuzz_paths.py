"""Property test of the path gate: random trees of files, folders, fifos and symlinks, and
random operations with random names; nothing outside the allowed folders is ever read,
written or deleted."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import Context, MemoryStore
from serena_memory.integrity.references.check import run_check
from serena_memory.integrity.references.links import build_graph
from serena_memory.wiring import build_store

SECRET = "SECRET-outside-the-allowed-folders"

# where entries are made: the project's memories (and a topic), the project itself, the
# global memories, a folder allowed in the global configuration, and two folders outside
PLACES = [
    "project/.serena/memories",
    "project/.serena/memories/t",
    "project",
    "home/memories/global",
    "allowed",
    "outside",
    "outside/sub",
]
ENTRY_NAMES = ["a.md", "b.md", "core.md", "t", "u", "x"]
# link targets: every place and entry, the system's endless file, relative hops, nowhere
TARGETS = (
    [p for p in PLACES]
    + [f"{p}/{n}" for p in PLACES for n in ENTRY_NAMES]
    + ["/dev/zero", "..", "../..", "../../..", ".", "missing.md", "outside/secret.md"]
)
OUTSIDE_TARGETS = ["outside", "outside/t", "outside/sub", "outside/a.md", "outside/core.md"]
MEMORY_NAMES = ["a", "b", "core", "t/a", "t/b", "u/a", "x", "global/a", "global/t/a", "new/c"]

MEMORY_PLACES = [p for p in PLACES if "memories" in p]
entries = st.tuples(
    st.one_of(st.sampled_from(MEMORY_PLACES), st.sampled_from(PLACES)),  # mostly memories
    st.sampled_from(ENTRY_NAMES),
    st.sampled_from(["file", "dir", "link", "link", "link", "fifo"]),
    st.one_of(st.sampled_from(OUTSIDE_TARGETS), st.sampled_from(TARGETS)),
    st.booleans(),  # link: absolute (True) or relative to its folder
)
# names: the interesting ones, and any short string of the characters paths are made of
names = st.one_of(
    st.sampled_from(MEMORY_NAMES),
    st.text(alphabet="abtu/.\\:~ -", min_size=1, max_size=12),
)
operations = st.tuples(
    st.sampled_from(["read", "write", "edit", "delete", "rename", "exists", "check", "graph"]),
    names,
    names,
)


def _make(root: Path, place: str, name: str, kind: str, target: str, absolute: bool) -> None:
    folder = root / place
    if not folder.is_dir() or folder.is_symlink():
        return
    path = folder / name
    if os.path.lexists(path):
        return
    inside_outside = place.startswith("outside")
    if kind == "file":
        path.write_text(SECRET if inside_outside else "ok `mem:a` `mem:t/a`\n", encoding="utf-8")
    elif kind == "dir":
        path.mkdir()
        if inside_outside:
            (path / "a.md").write_text(SECRET, encoding="utf-8")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        dest = target if target.startswith("/") else str(root / target)
        if target in ("..", "../..", "../../..", ".", "missing.md"):
            dest = target  # relative hops from the link's own folder
        elif not absolute:
            dest = os.path.relpath(dest, folder)
        os.symlink(dest, path)


def _snapshot(root: Path) -> dict[str, tuple[str, str]]:
    """Everything below ``root`` outside the allowed folders, links not followed."""
    seen: dict[str, tuple[str, str]] = {}
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        if rel_folder.split(os.sep)[0] in ("project", "home", "allowed"):
            dirs[:] = []
            continue
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if rel.split(os.sep)[0] in ("project", "home", "allowed"):
                continue
            if os.path.islink(path):
                seen[rel] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                seen[rel] = ("dir", "")
            elif os.path.isfile(path):
                seen[rel] = ("file", Path(path).read_text(encoding="utf-8"))
            else:
                seen[rel] = ("other", "")
    return seen


def _run(store: MemoryStore, op: str, a: str, b: str) -> object:
    if op == "read":
        return store.read(a)
    if op == "write":
        return store.write(a, "written `mem:b`\n")
    if op == "edit":
        return store.edit(a, "ok", "OK", allow_multiple_occurrences=True)
    if op == "delete":
        return store.delete(a)
    if op == "rename":
        return store.rename(a, b).summary()
    if op == "exists":
        return store.exists(a)
    if op == "check":
        report = run_check(store, include_unmarked=True, fuzzy=True, reachability=True)
        return report.to_text() + repr(report.to_dict())
    return build_graph(store).to_dict()


@pytest.mark.slow  # many generated symlink trees on disk
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(entries, max_size=14), st.lists(operations, min_size=1, max_size=10))
def test_random_symlink_trees_never_reach_outside(tree, ops) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp))
        for place in PLACES:
            (root / place).mkdir(parents=True, exist_ok=True)
        for rel in ("secret.md", "a.md", "core.md", "t/a.md", "sub/a.md", "sub/t/b.md"):
            (root / "outside" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "outside" / rel).write_text(SECRET, encoding="utf-8")
        (root / "home" / "serena_config.yml").write_text(
            f"allowed_memory_roots: ['{root / 'allowed'}']\n", encoding="utf-8"
        )
        for entry in tree:
            _make(root, *entry)
        before = _snapshot(root)
        store = build_store(root / "project", home=root / "home", context=Context.HUMAN)
        outputs: list[object] = [store.list()]
        for name in store.list().all:
            with contextlib.suppress(MemoryStoreError):
                outputs.append(store.read(name))
        for op, a, b in ops:
            try:
                outputs.append(_run(store, op, a, b))
            except MemoryStoreError as exc:
                outputs.append(str(exc))
        outputs.append(store.list())
        for output in outputs:
            assert SECRET not in repr(output), output
        assert _snapshot(root) == before
