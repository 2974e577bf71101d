"""The open histories of a process: a handle replaced because its folder is described
differently (a changed skip list) gives its folder watch back, so a long-running server
keeps watching however often that happens."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from serena_memory.core.changes import Folder
from serena_memory.history.registry import folder_history, forget_open_histories
from serena_memory.history.watching import MAX_WATCHES, WATCH_AFTER


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the folder watch is inotify")
def test_a_replaced_handle_gives_its_folder_watch_back(tmp_path: Path) -> None:
    root = (tmp_path / "memories").resolve()
    root.mkdir()
    (root / "fact.md").write_text("a fact\n", encoding="utf-8")
    forget_open_histories()  # the watches of earlier tests' folders are given back first
    try:
        for i in range(MAX_WATCHES + 3):
            folder = Folder(root, "", skip_top=frozenset({f"skipped-{i}"}))
            handle = folder_history(tmp_path / "history", folder)
            for _ in range(WATCH_AFTER):
                handle.watch.looked_at_everything()
            assert handle.watch.watching, f"no folder watch left after {i} replacements"
    finally:
        forget_open_histories()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the folder watch is inotify")
def test_a_replaced_handle_still_in_use_never_watches_again(tmp_path: Path) -> None:
    """A thread may still hold the handle the registry replaced: its looks go on (whole
    ones), but it takes no new watch, so replacements can't use up the process's watches."""
    root = (tmp_path / "memories").resolve()
    root.mkdir()
    (root / "fact.md").write_text("a fact\n", encoding="utf-8")
    forget_open_histories()
    try:
        old = folder_history(tmp_path / "history", Folder(root, ""))
        for _ in range(WATCH_AFTER):
            old.watch.looked_at_everything()
        assert old.watch.watching
        folder_history(tmp_path / "history", Folder(root, "", skip_top=frozenset({"x"})))
        assert not old.watch.watching
        for _ in range(WATCH_AFTER):
            old.watch.looked_at_everything()
        assert not old.watch.watching and old.watch.changed_rels() is None
    finally:
        forget_open_histories()
