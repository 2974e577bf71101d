"""A history removed or replaced under a running process (docs/secrets.md, step 3): the
process goes on as a new one would, with the repository now at that path. Real
repositories, real files, the real command line in processes of its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest
from conftest import SERENA, run_cli_process

from serena_memory.core.store import MemoryStore, catch_up_history
from serena_memory.history.location import history_folders, history_root, repository_path
from serena_memory.history.notices import take_notices
from serena_memory.history.stamps import STAMPS_FILE, FolderStamps
from serena_memory.wiring import build_store

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git checks the repository")


def _repository(store: MemoryStore, scope: str = "project") -> Path:
    folder = next(f for f in history_folders(store) if f.label == scope)
    return repository_path(history_root(store), folder.root)


def _git(repository: Path, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={repository}", *args], capture_output=True, text=True, check=True
    ).stdout


def _settled(store: MemoryStore, *names: str) -> None:
    """The memories' files last changed a while ago, and the history has looked at them
    since: their stamps are trusted, as a server's are after its first minutes."""
    past = time.time() - 60
    for name in names:
        os.utime(store.layout.path_of(name), (past, past))
    catch_up_history(store)


def test_a_history_removed_while_a_process_runs_starts_again_at_its_next_change(
    store: MemoryStore,
) -> None:
    store.write("deploy", "# Deploy\n\nv1\n")
    store.write("global/tokens", "# Tokens\n\nin the CI's store\n")
    store.write("deploy", "# Deploy\n\nv2\n")
    _settled(store, "deploy", "global/tokens")
    take_notices()
    for scope in ("project", "global"):  # docs/secrets.md, step 3: remove the repository
        shutil.rmtree(_repository(store, scope))

    # the same process (a server's) writes on: nothing is refused, nothing goes unrecorded
    store.write("deploy", "# Deploy\n\nv3\n")
    store.write("global/tokens", "# Tokens\n\nrotated\n")
    assert take_notices() == []
    history = store.history()
    entries = history.entries("deploy")
    assert [e.summary.split(" ")[0] for e in entries] == ["Replace", "History"]
    assert history.content_at("deploy", entries[1].rev)[1] == b"# Deploy\n\nv2\n"
    assert history.content_at("deploy", entries[0].rev)[1] == b"# Deploy\n\nv3\n"
    assert history.content_at("global/tokens", history.entries("global/tokens")[0].rev)[1] == (
        b"# Tokens\n\nrotated\n"
    )
    for scope in ("project", "global"):
        _git(_repository(store, scope), "fsck", "--strict", "--no-dangling")
    history.restore("deploy", entries[1].rev)
    assert store.read("deploy") == "# Deploy\n\nv2\n"
    assert take_notices() == []


def test_a_history_replaced_by_a_rewritten_one_is_read_and_written_as_it_is_now(
    store: MemoryStore, tmp_path: Path
) -> None:
    store.write("deploy", "# Deploy\n\nv1\n")
    store.write("deploy", "# Deploy\n\nv2\n")
    _settled(store, "deploy")
    first = store.history().entries("deploy")[-1].rev
    repository = _repository(store)
    # rewritten in a clone, the clone put in its place (docs/secrets.md, step 3)
    clone = tmp_path / "rewritten.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(repository), str(clone)], check=True)
    _git(clone, "update-ref", "refs/heads/main", first)
    _git(clone, "gc", "--quiet", "--prune=now")
    shutil.rmtree(repository)
    clone.rename(repository)
    take_notices()

    # read as it is now: the rewrite's one entry, and the file's text it lacks as found
    entries = store.history().entries("deploy")
    assert [e.entry_point for e in entries] == ["external", "cli"] and entries[1].rev == first
    store.write("deploy", "# Deploy\n\nv3\n")
    assert take_notices() == []
    entries = store.history().entries("deploy")
    assert len(entries) == 3 and entries[-1].rev == first  # v2 came back as found, then v3
    assert store.history().content_at("deploy", entries[1].rev)[1] == b"# Deploy\n\nv2\n"
    _git(repository, "fsck", "--strict", "--no-dangling")


def test_stamps_naming_versions_the_repository_lacks_are_read_again(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    """A rewritten copy of a history put back with the stamps file it was copied with:
    the stamps name versions the rewrite dropped; the files are read again, so the next
    entry holds them (it never names a version the repository lacks)."""
    for text in ("# Deploy\n\nv1\n", "# Deploy\n\nv2\n"):
        run_cli_process("memories", "write", "deploy", "--content", text, cwd=project, check=True)
    store = build_store(project, home=serena_home)
    path = store.layout.path_of("deploy")
    past = time.time() - 60
    os.utime(path, (past, past))
    run_cli_process("memories", "write", "other", "--content", "x\n", cwd=project, check=True)
    run_cli_process("memories", "history", cwd=project, check=True)  # a whole look: stamps kept
    repository = _repository(store)
    stamps = json.loads((repository / STAMPS_FILE).read_text(encoding="utf-8"))
    assert not stamps["files"]["deploy.md"][4]  # trusted: the file is not read again
    first = _git(repository, "rev-list", "--max-parents=0", "main").strip()

    copy = tmp_path / "copy.git"
    shutil.copytree(repository, copy)
    _git(copy, "update-ref", "refs/heads/main", first)
    _git(copy, "gc", "--quiet", "--prune=now")
    shutil.rmtree(repository)
    copy.rename(repository)

    catch_up_history(store)
    assert take_notices() == []
    entries = store.history().entries("deploy")
    assert entries[0].entry_point == "external"
    assert store.history().content_at("deploy", entries[0].rev)[1] == b"# Deploy\n\nv2\n"
    _git(repository, "fsck", "--strict", "--no-dangling")


_ENDING_PROCESS = """
import shutil, subprocess, sys
from pathlib import Path
from serena_memory.wiring import build_store
from serena_memory.history.location import history_folders, history_root, repository_path

project, serena = Path(sys.argv[1]), sys.argv[2:]
store = build_store(project)
store.write("deploy", "v1\\n")
store.write("deploy", "v2\\n")  # its stamps are saved at exit, not yet
folder = next(f for f in history_folders(store) if f.label == "project")
shutil.rmtree(repository_path(history_root(store), folder.root))
(folder.root / "notes.md").write_text("an editor's\\n")  # the folder changes meanwhile
# another command makes the folder's history again, with stamps of its own
subprocess.run([*serena, "memories", "write", "deploy", "--content", "v3"], cwd=project, check=True)
"""


def test_a_process_that_ends_never_saves_its_stamps_into_a_history_made_since(
    project: Path, serena_home: Path
) -> None:
    subprocess.run(
        [sys.executable, "-c", _ENDING_PROCESS, str(project), *SERENA],
        check=True,
        timeout=120,
    )
    repository = _repository(build_store(project, home=serena_home))
    stamps = FolderStamps(repository)
    stamps.load()  # as the next process reads them: the stamps file and its log
    head = pygit2.Repository(str(repository)).references["refs/heads/main"].peel(pygit2.Commit)
    # the command's own, not the ended process's (of a tree this repository never had,
    # which would make the next command read every memory file again)
    assert stamps.synced == str(head.tree.id)
