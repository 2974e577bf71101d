"""Listing a memories folder: the listing, split into steps, lists every random tree of
folders, files, fifos and links (inside, outside, broken, in a loop) exactly as the one
function it was split from did: the same memories in the same order, the same entries
skipped for the same reasons, the same refusal."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from serena_memory.core import paths
from serena_memory.core.errors import MemoryStoreError, OutsidePathError
from serena_memory.core.paths import (
    MemoryScan,
    Scope,
    SkippedFile,
    file_kind,
    is_inside,
    resolve,
)

NAMES = ["a.md", "b.md", "c", "d", "skip", ".hidden.md", "e.md.md", "f.txt"]
KINDS = [
    "dir",
    "file",
    "fifo",
    "link_inside",
    "link_outside_dir",
    "link_outside_md",
    "broken",
    "loop",
]
ROOTS = ["folder", "missing", "file", "link_inside", "link_outside"]

entries = st.lists(
    st.tuples(
        st.integers(0, 20), st.sampled_from(NAMES), st.sampled_from(KINDS), st.integers(0, 20)
    ),
    max_size=14,
)


def reference_scan(scope: Scope, skip_top: frozenset[str] = frozenset()) -> MemoryScan:
    """The listing as it was written in one function, before it was split into steps."""
    files: dict[str, str] = {}
    skipped: list[SkippedFile] = []
    try:
        root = resolve(scope, (), f"the memories folder {scope.folder}")
    except OutsidePathError as exc:
        return MemoryScan({}, [SkippedFile("", scope.folder, str(exc))])
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, str]] = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            st = os.stat(folder)
            key = (st.st_dev, st.st_ino)
            if key in seen:
                continue
            seen.add(key)
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        except OSError as exc:
            if not prefix and isinstance(exc, NotADirectoryError):
                raise MemoryStoreError(
                    f"the memories folder {scope.folder} is a file, not a folder; move it away"
                ) from None
            shown = os.path.join(scope.folder, prefix)
            skipped.append(SkippedFile(prefix.rstrip("/"), shown, _os_reason(exc)))
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            listed = rel[:-3] if name.endswith(".md") else rel
            real = entry.path
            try:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    try:
                        mode = os.stat(entry.path).st_mode
                    except OSError as exc:
                        reason = _broken_link_reason(entry.path, exc)
                        skipped.append(SkippedFile(listed, _shown(scope, rel), reason))
                        continue
                    if not is_inside(target, scope.allowed):
                        if stat.S_ISDIR(mode) or name.endswith(".md"):
                            reason = scope.refusal("it", target)
                            skipped.append(SkippedFile(listed, _shown(scope, rel), reason))
                        continue
                    real = target
                    is_dir, is_file = stat.S_ISDIR(mode), stat.S_ISREG(mode)
                else:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_file = entry.is_file(follow_symlinks=False)
                    if not is_dir and not is_file and name.endswith(".md"):
                        mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue  # gone since the folder was listed
            if is_dir:
                if not prefix and name in skip_top:
                    continue
                stack.append((real, rel + "/"))
            elif name.endswith(".md"):
                if not is_file:
                    reason = (
                        f"{file_kind(mode)}, not a regular file; only regular files are memories"
                    )
                    skipped.append(SkippedFile(listed, _shown(scope, rel), reason))
                    continue
                files[listed] = real
    skipped.sort(key=lambda s: s.path)
    return MemoryScan(files, skipped)


def _shown(scope: Scope, rel: str) -> str:
    return os.path.join(scope.folder, rel)


def _os_reason(exc: OSError) -> str:
    return paths._os_reason(exc)


def _broken_link_reason(path: str, exc: OSError) -> str:
    return paths._broken_link_reason(path, exc)


def build(base: Path, root_kind: str, spec: list[tuple[int, str, str, int]]) -> Scope:
    """A project with a memories folder of the given kind holding the entries of ``spec``
    (parent folder, name, kind, target), and a folder outside it that links lead to."""
    project = base / "project"
    outside = base / "outside"
    (outside / "topic").mkdir(parents=True)
    (outside / "secret.md").write_text("secret", encoding="utf-8")
    (project / ".serena").mkdir(parents=True)
    folder = project / ".serena" / "memories"
    if root_kind == "file":
        folder.write_text("not a folder", encoding="utf-8")
    elif root_kind == "link_inside":
        (project / "kept").mkdir()
        folder.symlink_to(project / "kept")
    elif root_kind == "link_outside":
        folder.symlink_to(outside / "topic")
    elif root_kind == "folder":
        folder.mkdir()
    real = str(project.resolve())
    scope = Scope(real, (".serena", "memories"), (real,), f"the project {real}", "")
    if root_kind in ("folder", "link_inside"):
        _fill(folder, outside, spec)
    return scope


def _fill(folder: Path, outside: Path, spec: list[tuple[int, str, str, int]]) -> None:
    folders = [folder]
    made: list[Path] = [folder]
    for parent, name, kind, target in spec:
        path = folders[parent % len(folders)] / name
        if os.path.lexists(path):
            continue
        if kind == "dir":
            path.mkdir()
            folders.append(path)
        elif kind == "file":
            path.write_text(name, encoding="utf-8")
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "link_inside":
            path.symlink_to(made[target % len(made)])
        elif kind == "link_outside_dir":
            path.symlink_to(outside / "topic")
        elif kind == "link_outside_md":
            path.symlink_to(outside / "secret.md")
        elif kind == "broken":
            path.symlink_to(outside / "nothing-here")
        else:
            path.symlink_to(path)
        made.append(path)


def _listing(function, scope: Scope, skip_top: frozenset[str]):
    try:
        found = function(scope, skip_top)
    except MemoryStoreError as exc:
        return ("refused", type(exc), str(exc))
    return (list(found.files.items()), found.skipped)


@pytest.mark.slow  # three hundred generated trees on disk
@settings(max_examples=300, deadline=None)
@example(  # a folder named like a skipped top folder, one level down, is listed
    root_kind="folder",
    spec=[(0, "c", "dir", 0), (1, "skip", "dir", 0), (2, "a.md", "file", 0)],
    skip_top=frozenset({"skip"}),
)
@given(
    root_kind=st.sampled_from(ROOTS),
    spec=entries,
    skip_top=st.frozensets(st.sampled_from(["skip", "c", "a.md"])),
)
def test_the_listing_in_steps_lists_every_tree_as_the_one_function_did(
    root_kind: str, spec: list[tuple[int, str, str, int]], skip_top: frozenset[str]
) -> None:
    with tempfile.TemporaryDirectory() as base:
        scope = build(Path(base), root_kind, spec)
        expected = _listing(reference_scan, scope, skip_top)
        assert _listing(paths.scan, scope, skip_top) == expected


def test_the_trees_cover_every_kind_of_outcome(tmp_path: Path) -> None:
    """The random trees reach each branch of the listing: a memory, a topic below a link,
    a broken link, a link outside, a fifo, a skipped top folder, a folder that is a file."""
    spec = [
        (0, "a.md", "file", 0),
        (0, "c", "dir", 0),
        (1, "b.md", "file", 0),
        (0, "d", "link_inside", 2),
        (0, "b.md", "broken", 0),
        (0, "e.md.md", "link_outside_md", 0),
        (0, "skip", "link_outside_dir", 0),
        (0, "f.txt", "fifo", 0),
        (1, "d", "loop", 0),
        (1, "a.md", "fifo", 0),
    ]
    scope = build(tmp_path / "one", "folder", spec)
    found = paths.scan(scope, frozenset({"c"}))
    assert sorted(found.files) == ["a", "d/b"]
    reasons = {s.name: s.reason for s in found.skipped}
    assert reasons["b"].startswith("broken symlink")
    assert "outside the project" in reasons["e.md"] and "outside" in reasons["skip"]
    assert "link" in reasons["d/d"] and reasons["d/a"].startswith("a fifo")
    assert _listing(paths.scan, scope, frozenset({"c"})) == _listing(
        reference_scan, scope, frozenset({"c"})
    )
    refused = _listing(paths.scan, build(tmp_path / "two", "file", []), frozenset())
    assert refused[0] == "refused" and "is a file, not a folder" in refused[2]
