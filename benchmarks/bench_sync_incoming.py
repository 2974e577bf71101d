"""The secret scan of a remote's new entries: CPU time of `history.secret_scan.in_incoming`
on a remote of many entries (each changes one memory; one in ten is another machine's
merge entry) that this machine has never seen, as its first sync scans them; then the
same scan again, as a sync that fetched the same entries once more makes it.

The remote is built with pygit2 directly (fast); the scan runs on the second machine's
history repository after a real `git fetch`. Run it with another checkout's code first
(``PYTHONPATH=/tmp/base/src``) to compare.

Usage: ``python benchmarks/bench_sync_incoming.py [--entries 20000] [--memories 2000]``
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import pygit2

from serena_memory.history.location import history_folder, history_root
from serena_memory.history.registry import folder_history
from serena_memory.history.secret_scan import in_incoming
from serena_memory.sync.transport import fetch
from serena_memory.wiring import build_store


def build_remote(path: Path, entries: int, memories: int) -> None:
    """``entries`` entries on main; every tenth merges a side branch of one change."""
    repo = pygit2.init_repository(str(path), bare=True)
    sig = pygit2.Signature("Someone", "someone@example.org")
    files = {
        f"topic{i % 20}/memory{i}.md": f"# Memory {i}\n\nfirst notes\n" for i in range(memories)
    }

    def tree_of() -> pygit2.Oid:
        index = pygit2.Index()
        for rel, text in files.items():
            index.add(
                pygit2.IndexEntry(rel, repo.create_blob(text.encode()), pygit2.GIT_FILEMODE_BLOB)
            )
        return index.write_tree(repo)

    parent = repo.create_commit(None, sig, sig, "Seed", tree_of(), [])
    index = pygit2.Index()
    index.read_tree(repo[parent].tree)
    for n in range(entries):
        rel = f"topic{n % memories % 20}/memory{n % memories}.md"
        blob = repo.create_blob(f"# Memory\n\nchange {n}\n".encode() + b"a line of notes\n" * 40)
        index.add(pygit2.IndexEntry(rel, blob, pygit2.GIT_FILEMODE_BLOB))
        tree = index.write_tree(repo)
        if n % 10 == 9:  # another machine's merge entry, bringing the change before it
            side = repo.create_commit(None, sig, sig, f"Change {n}", tree, [parent])
            parent = repo.create_commit(None, sig, sig, "Sync", tree, [parent, side])
        else:
            parent = repo.create_commit(None, sig, sig, f"Change {n}", tree, [parent])
    repo.references.create("refs/heads/main", parent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--memories", type=int, default=2000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-incoming-"))
    remote = root / "remote.git"
    build_remote(remote, args.entries, args.memories)
    (root / "project").mkdir()
    store = build_store(root / "project", home=root / "home")
    history = folder_history(history_root(store), history_folder(store, "global"))
    repo = history.repo(create=True)
    rev = fetch(history.repo_path, str(remote))
    assert rev is not None
    for when in ("first", "again (a sync that fetched the same entries)"):
        start, cpu = time.perf_counter(), time.process_time()
        found = in_incoming(repo, history.folder, history.head(repo), repo[rev])
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        unfinished = getattr(found, "unfinished", "")
        print(
            f"scan of {args.entries:,} incoming entries of {args.memories:,} memories, {when}: "
            f"{took:.1f} s wall, {cpu:.1f} s CPU"
            + (f" (stopped: {unfinished})" if unfinished else "")
        )
    subprocess.run(["rm", "-rf", str(root)], check=False)


if __name__ == "__main__":
    main()
